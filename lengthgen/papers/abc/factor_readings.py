"""Readings of the factor study (`factors.ABC_FACTORS`): which factor of the paper's regime makes ABC extrapolate.

- `factor_table`: per factor and ABC rule, the trained model's exact match in distribution, each ABC model's exact
  match at the end of its retraining at every tested length (mean over seeds and their range), the best point of its
  course at the longest length (what choosing a checkpoint by test accuracy would have reported) and, on its wrong
  answers, the share whose first wrong digit is a 0.
- `factor_effects`: a factor's effect, paired by seed: the mean over the three rules and the lengths beyond the
  training numbers' reach (`FAR`) of its ABC models' end-of-course exact match minus the baseline's at the same seed.
  It "helps" when that difference is at least EFFECT points at every seed, "hurts" when it is at most -EFFECT at
  every seed, else "no clear effect"; one seed is "one seed (not judged)", and a factor whose trained model or one
  of whose ABC models (at the end of its retraining) is below 90% in distribution at some seed is "not trained": its
  long lengths say nothing. The baseline itself is judged against nothing.

The factors vary on Successor (`STUDIED`); the other tasks of the study (Addition, N x 1) run the candidate regime,
and where it did not fit one other factor (`factors.FactorSizes.task_factors`), at their own budget, and have a table
of their own (`factor_table(runs, task)`), no effect. The regime's controls
(`factors.CONTROL_RULES`) are rows of `factor_table` under the regime's factor; effects and courses leave them out;
`control_reading` says what they decide; `per_layer_reading` what calibrating each layer from its own attention
changes on the tasks sized with `factors.PER_LAYER_RULES`. The sizing of Successor's scaffold without positions
(`factors.NOPE_FACTORS`) and of Addition's scaffold with cyclic positions (`factors.SCAFFOLD_FACTORS`) have no ABC
model: `scaffold_table`.
"""

import pandas as pd

from lengthgen.analysis.verdicts import FAILED, TRAINED
from lengthgen.display import and_list, markdown_table
from lengthgen.metrics import (
    ACCURACY,
    ACCURACY_NUMBER,
    BIAS_ANTI_DIAGONAL,
    FINAL_TRAIN_LOSS,
    FIRST_ERROR,
    FIRST_WRONG_ZERO,
    OPEN_KEYS,
    by_construction,
)
from lengthgen.papers.abc.factors import (
    ABC_FACTORS,
    CONTROL_RULES,
    FACTOR_RULES,
    FACTORS,
    NOPE_FACTORS,
    PER_LAYER_RULES,
    SCAFFOLD_FACTORS,
    TASK_FACTORS,
)
from lengthgen.papers.abc.paper import title
from lengthgen.papers.abc.readings import line_read_right
from lengthgen.results.store import ResultStore
from lengthgen.results.sweep import stored_runs

EFFECT = 10.0  # points of exact match: a factor's paired effect must reach this at every seed
FAR = (12, 24, 50)  # digits beyond the training numbers (at most 7) and beyond 8, the first length tested past them
IID = 6  # digits: the trained model's in-distribution length
RULES = (*FACTOR_RULES, *CONTROL_RULES, *(r for r in PER_LAYER_RULES if r not in FACTOR_RULES))
STAGES = {f"ABC ({rule})": rule for rule in RULES}
STUDIED = "successor"  # the task whose factors vary
def _task(runs: pd.DataFrame, task: str) -> pd.DataFrame:
    """The rows of one task, less the readings of the line that read the wrong keys (`readings.line_read_right`)."""
    return line_read_right(runs[runs.task == task])


def _last(runs: pd.DataFrame, metric: str) -> pd.DataFrame:
    """The ABC models' rows of `metric` at the last point of their course: factor, rule, seed, length, value."""
    rows = runs[(runs.metric == metric) & runs.stage.isin(STAGES)]
    rows = rows[rows.step == rows.groupby(["variant", "seed", "stage"]).step.transform("max")]
    return rows.assign(factor=rows.variant, rule=rows.stage.map(STAGES))[["factor", "rule", "seed", "length", "value"]]


def _trained(runs: pd.DataFrame) -> pd.Series:
    """The trained model's exact match at IID digits, by (factor, seed)."""
    rows = runs[(runs.metric == ACCURACY) & (runs.stage == "trained") & (runs.length == IID)]
    return rows.groupby(["variant", "seed"]).value.first().rename_axis(["factor", "seed"])


def _order(table: pd.DataFrame) -> pd.DataFrame:
    """Rows in FACTORS order, then RULES order."""
    key = {"factor": list(FACTORS | TASK_FACTORS).index, "rule": list(RULES).index}
    by = [c for c in key if c in table.columns]
    return table.sort_values(by, key=lambda s: s.map(key[s.name]), kind="stable").reset_index(drop=True)


def factor_table(runs: pd.DataFrame, task: str = STUDIED) -> pd.DataFrame:
    """One row per (factor, rule) of the stored factor runs of `task` (`results.sweep.collect` rows): seeds, trained
    (mean % at IID digits of the trained models), at each tested length L the column L (mean % over seeds at the end
    of the retraining) and "L range" ("min-max", "" for one seed), "best at L" (at the longest length: the mean over
    seeds of each course's highest point), "first wrong at" (the median place, counted from the units, of the first
    wrong digit of the wrong answers beyond IID digits, mean over seeds and lengths), "first wrong 0" (the % of
    those whose first wrong digit is a 0), and what the ABC model's bias does alone at the longest length
    (`readings.bias_reading`, mean over the seeds that store it; NaN where none does): "bias on line" (its softmax's
    weight on the anti-diagonal) and "open keys" (cross-attention keys it leaves open per step)."""
    runs = _task(runs, task)
    if runs.empty:
        return pd.DataFrame(columns=["factor", "rule", "seeds", "trained"])
    last = _last(runs, ACCURACY)
    longest = int(last.length.max())
    trained = _trained(runs).groupby("factor").mean()
    wrong = {column: _last(runs, metric) for metric, column in ((FIRST_ERROR, "first wrong at"),
                                                               (FIRST_WRONG_ZERO, "first wrong 0"))}
    bias = {column: _last(runs, metric) for metric, column in ((BIAS_ANTI_DIAGONAL, "bias on line"),
                                                              (by_construction(OPEN_KEYS, "cross"), "open keys"))}
    rows = []
    for (factor, rule), g in last.groupby(["factor", "rule"], sort=False):
        row = {"factor": factor, "rule": rule, "seeds": g.seed.nunique(), "trained": trained.get(factor)}
        for length, at in g.groupby("length", sort=True):
            lo, hi = at.value.min(), at.value.max()
            row |= {str(length): at.value.mean(), f"{length} range": f"{lo:.0f}-{hi:.0f}" if len(at) > 1 else ""}
        course = runs[(runs.metric == ACCURACY) & (runs.variant == factor) & (runs.stage == f"ABC ({rule})")
                      & (runs.length == longest)]
        row[f"best at {longest}"] = course.groupby("seed").value.max().mean()
        for column, rows_of in wrong.items():
            beyond = rows_of[(rows_of.factor == factor) & (rows_of.rule == rule) & (rows_of.length > IID)]
            row[column] = beyond.value.mean() if len(beyond) else float("nan")
        for column, rows_of in bias.items():
            at = rows_of[(rows_of.factor == factor) & (rows_of.rule == rule) & (rows_of.length == longest)]
            row[column] = at.value.mean() if len(at) else float("nan")
        rows.append(row)
    return _order(pd.DataFrame(rows))


def factor_effects(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per factor but the baseline: seeds (paired with the baseline's), effect (the mean of the paired
    effects, points), low and high (their range over seeds) and verdict, as the module's docstring states."""
    runs = _task(runs, STUDIED)
    last = _last(runs, ACCURACY)
    last = last[last.rule.isin(FACTOR_RULES)]  # the controls' extra ABC models would weigh on the regime's effect
    far = last[last.length.isin(FAR)].groupby(["factor", "seed"]).value.mean()
    fitted = pd.concat([_trained(runs), last[last.length == IID].groupby(["factor", "seed"]).value.min()], axis=1)
    trained = fitted.min(axis=1)  # the least fitted model of each (factor, seed)
    rows = []
    for factor in [f for f in FACTORS if f != "baseline" and f in far.index.get_level_values("factor")]:
        seeds = [s for s in far[factor].index if ("baseline", s) in far.index]
        if not seeds:
            continue
        effects = [far[factor, s] - far["baseline", s] for s in seeds]
        fits = all(trained.get((factor, s), 0.0) >= TRAINED for s in seeds)
        rows.append({"factor": factor, "seeds": len(seeds), "effect": sum(effects) / len(effects),
                     "low": min(effects), "high": max(effects), "verdict": effect_verdict(effects, fits)})
    return pd.DataFrame(rows, columns=["factor", "seeds", "effect", "low", "high", "verdict"])


def effect_verdict(effects: list[float], fits: bool) -> str:
    """The verdict of one factor's paired effects (points, one per seed), as the module's docstring states."""
    if not fits:
        return "not trained"
    if len(effects) < 2:
        return "one seed (not judged)"
    if all(e >= EFFECT for e in effects):
        return "helps"
    if all(e <= -EFFECT for e in effects):
        return "hurts"
    return "no clear effect"


def factor_methods(store: ResultStore) -> str:
    """The factor study's Methods section from a results store (`Paper.methods`)."""
    return factor_section(stored_runs(ABC_FACTORS, "cpu", store), "abc-factors at cpu")


def factor_section(runs: pd.DataFrame, grid: str) -> str:
    """The Methods section of the factor study (Markdown), from its stored runs (`results.sweep.stored_runs` of
    `grid`, e.g. "abc-factors at cpu"): the rule, the effects and the table, or a line saying that none is stored."""
    head = ("**The factor study** (`lengthgen run abc-factors --profile cpu`, sizing seeds outside the declared ones; "
            "`lengthgen/papers/abc/factors.py` states the factors). ")
    if runs.empty:
        return head + f"No run of {grid} is stored yet.\n"
    table, effects = factor_table(runs), factor_effects(runs)
    best = next(c for c in table.columns if c.startswith("best at"))
    judged = effects.assign(effect=effects.effect.map("{:+.1f}".format),
                            range=[f"{lo:+.1f} to {hi:+.1f}" for lo, hi in zip(effects.low, effects.high, strict=True)])
    far = ", ".join(map(str, FAR))
    rule = (f"A factor's effect is the mean, over the three rules and {far} digits, of its ABC models' exact match "
            f"at the end of retraining minus the baseline's at the same seed; it helps when that difference is at "
            f"least {EFFECT:.0f} points at every seed (at least two), hurts when it is at most -{EFFECT:.0f} at every "
            f"seed, and is not trained when one of its models (trained or ABC) is below {TRAINED:.0f}% at {IID} "
            f"digits at some seed. Exact match (%) at the end of retraining, mean over seeds (their range); "
            f"`trained` is the trained model at {IID} digits; `{best}` is the mean of each course's highest point, "
            f"what choosing a checkpoint by its test accuracy would have reported; `first wrong at` is the median "
            f"place of the first wrong digit of the wrong answers beyond {IID} digits (counted from the units, 0), "
            f"`first wrong 0` the share (%) of them whose first wrong digit is a 0; `bias on line` is the weight the "
            f"softmax of the ABC bias alone puts on cross-attention's anti-diagonal and `open keys` the source tokens "
            f"it leaves open per output step, at the longest length (– for runs stored before they were recorded).")
    parts = [head + rule, markdown_table(judged[["factor", "seeds", "effect", "range", "verdict"]]), _shown(table),
             control_reading(runs)]
    with_abc = runs[~runs.variant.isin([*NOPE_FACTORS, *SCAFFOLD_FACTORS])]  # the scaffolds' have their own tables
    for task in sorted(set(with_abc.task) - {STUDIED}):
        table = factor_table(with_abc, task)
        factors = and_list(f"`{f}`" for f in dict.fromkeys(table.factor))
        parts += [f"**{title(task)}, sized alone** ({factors}, at its own step budget; the columns as above):",
                  _shown(table)]
    parts.append(per_layer_reading(runs))
    columns = ("exact match (%) of the trained model at each length, mean over seeds, its final training loss, and the "
               "% of its answers right as the public code compares them (as numbers: `<eos>` and the number's leading "
               "zeros ignored; – where not recorded)")
    for factors, what in ((NOPE_FACTORS, "**Successor's scaffold without positions, in the regime** (Table 3's w = 1 "
                                         "NoPE model on aligned input, no ABC model; `factors.NOPE_FACTORS`): "),
                          (SCAFFOLD_FACTORS, "**Addition's scaffold with cyclic positions, in the regime** (Table 3's "
                                             "w = 1, T = 3 model on aligned input, no ABC model, with a window of one "
                                             "operand pair or one token on each side; `factors.SCAFFOLD_FACTORS`): ")):
        table = scaffold_table(runs, factors)
        if not table.empty:
            parts += [what + columns + ".", markdown_table(table.assign(
                loss=table.loss.map("{:.3f}".format), **{c: table[c].map(lambda v: "–" if v != v else f"{v:.1f}")
                                                         for c in table.columns
                                                         if c.endswith("digits") or c.startswith("as")}))]
    return "\n\n".join(p for p in parts if p) + "\n"


def scaffold_table(runs: pd.DataFrame, factors: dict = NOPE_FACTORS) -> pd.DataFrame:
    """One row per stored factor of `factors` (a scaffold's, without ABC models: NOPE_FACTORS or SCAFFOLD_FACTORS):
    seeds, loss (the final training loss, mean over seeds), "L digits" (the trained model's exact match at each tested
    length L, mean over seeds) and "as numbers at L" at the shortest and the longest length (right as the public code
    compares answers, ACCURACY_NUMBER; NaN for runs stored before it was recorded)."""
    runs = runs[runs.variant.isin(factors) & (runs.stage == "trained")] if len(runs) else runs
    if runs.empty:
        return pd.DataFrame(columns=["factor", "seeds", "loss"])
    rows, ends = [], (runs.length[runs.metric == ACCURACY].min(), runs.length[runs.metric == ACCURACY].max())
    for factor, g in runs.groupby("variant", sort=False):
        acc = g[g.metric == ACCURACY].groupby("length").value.mean()
        number = g[g.metric == ACCURACY_NUMBER].groupby("length").value.mean()
        rows.append({"factor": factor, "seeds": g.seed.nunique(),
                     "loss": g[g.metric == FINAL_TRAIN_LOSS].value.mean(),
                     **{f"{length} digits": value for length, value in acc.items()},
                     **{f"as numbers at {length}": number.get(length, float("nan")) for length in ends}})
    order = list(factors).index
    return pd.DataFrame(rows).sort_values("factor", key=lambda s: s.map(order)).reset_index(drop=True)


def control_reading(runs: pd.DataFrame) -> str:
    """What the regime's controls decide, at the longest length, seed by seed (their trained model is the regime's
    run's, so each control is paired with the paper's and the code's ABC models of the same seed): the paper's
    lines with the code's values ("paper-sums") against the paper's rule, and the code's lines with flat values
    ("code-flat") against the code's rule. Holds: >= TRAINED; fails: <= FAILED. A sentence each; "" without
    controls."""
    last = _last(_task(runs, STUDIED), ACCURACY)
    longest = last.length.max()
    at = last[last.length == longest].set_index(["factor", "rule", "seed"]).value
    regime = [f for f in FACTORS if (f, CONTROL_RULES[0]) in {(a, b) for a, b, _ in at.index}]
    if not regime:
        return ""
    factor = regime[0]
    seeds = sorted(s for f, r, s in at.index if f == factor and r == CONTROL_RULES[0])
    value = {rule: [at.get((factor, rule, s), float("nan")) for s in seeds] for rule in RULES}

    def listed(rule: str) -> str:
        return " / ".join(f"{v:.1f}" for v in value[rule])

    def every(rule: str, test) -> bool:
        return all(test(v) for v in value[rule])

    held, failed = (lambda v: v >= TRAINED), (lambda v: v <= FAILED)
    head = (f"**What the controls decide** ({factor}, seeds {', '.join(map(str, seeds))}, exact match (%) at "
            f"{longest} digits, seed by seed). ")
    if every("paper", failed) and every("paper-sums", held):
        lines = "the values decide: the paper's own lines hold when they carry the code's values (their sums)"
    elif every("paper", failed) and every("paper-sums", failed):
        lines = "the paper's lines fail whatever values they carry"
    else:
        lines = "no clear reading (the seeds disagree, or the paper's rule does not fail)"
    if every("code-flat", held):
        flat = "its lines alone suffice"
    elif every("code-flat", failed) and every("code", held):
        flat = "its values matter too"
    else:
        flat = "no clear reading"
    return (head + f"The paper's rule {listed('paper')}; its lines with the code's values (paper-sums) "
            f"{listed('paper-sums')}: {lines}. The code's rule {listed('code')}; its lines with flat values "
            f"(code-flat) {listed('code-flat')}: {flat}.")


def per_layer_reading(runs: pd.DataFrame) -> str:
    """Whether calibrating each layer from its own attention ("code-layers") does what the code's rule calibrated from
    the last layer ("code") does not, on the same trained model, seed by seed, for each task sized with
    `PER_LAYER_RULES`: exact match at IID digits and the mean over FAR. "fits where the last layer's does not" when
    only code-layers reaches TRAINED at IID; when both fit, it holds further (or less far) when the mean beyond
    differs by EFFECT points or more, else "no clear difference"; "" without such runs."""
    base, new_rule = PER_LAYER_RULES
    last = _last(runs, ACCURACY)
    last = last[last.rule.isin(PER_LAYER_RULES) & last.factor.str.endswith("per-layer")]
    if last.empty:
        return ""
    parts = []
    for (factor, seed), rows in last.groupby(["factor", "seed"], sort=False):
        at = rows.pivot_table(index="rule", columns="length", values="value")
        iid, far = at[IID], at[[n for n in FAR if n in at.columns]].mean(axis=1)
        fits = iid >= TRAINED
        if not fits[base] and fits[new_rule]:
            reading = "it fits where the last layer's table does not"
        elif not fits[new_rule]:
            reading = "it does not fit" + (" where the last layer's table does" if fits[base] else
                                           ", nor does the other")
        elif far[new_rule] - far[base] >= EFFECT:
            reading = "both fit, and it holds further"
        elif far[new_rule] - far[base] <= -EFFECT:
            reading = "both fit, and it holds less far"
        else:
            reading = "both fit, no clear difference beyond"
        task = title(runs[runs.variant == factor].task.iloc[0])
        parts.append(f"{task} (`{factor}`, seed {seed}): {iid[base]:.1f} / {iid[new_rule]:.1f} at {IID} digits, "
                     f"{far[base]:.1f} / {far[new_rule]:.1f} beyond: {reading}")
    return (f"**Calibrated per layer** (beyond the paper): the code's rule from the last layer / from each layer's "
            f"own attention (`{new_rule}`), the same trained model, exact match (%) at {IID} digits and its mean "
            f"over {', '.join(map(str, FAR))} digits; each layer's own bias counts as different beyond when the "
            f"means differ by {EFFECT:.0f} points or more. " + "; ".join(parts) + ".")


def _shown(table: pd.DataFrame) -> str:
    """A factor table as Markdown: one decimal, each length's range beside its mean."""
    lengths = [c for c in table.columns if c.isdigit()]
    best = next(c for c in table.columns if c.startswith("best at"))
    shown = table[["factor", "rule", "seeds", "trained"]].assign(
        **{f"{c} digits": [f"{v:.1f}" + (f" ({r})" if r else "") for v, r in zip(table[c], table[f"{c} range"],
                                                                                  strict=True)] for c in lengths},
        **{best: table[best].map("{:.1f}".format), "first wrong at": table["first wrong at"].map("{:.1f}".format),
           "first wrong 0": table["first wrong 0"].map("{:.0f}".format),
           "bias on line": table["bias on line"].map(lambda v: "–" if v != v else f"{v:.2f}"),
           "open keys": table["open keys"].map(lambda v: "–" if v != v else f"{v:.1f}"),
           "trained": table.trained.map("{:.1f}".format)})
    return markdown_table(shown)


def factor_course(runs: pd.DataFrame, lengths: tuple[int, ...] = FAR[1:]) -> pd.DataFrame:
    """The course of retraining: each ABC model's exact match at `lengths` after every point of its retraining, by
    factor, rule, step and length (mean, min and max over seeds), for `analysis.figures.course_curves`."""
    runs = _task(runs, STUDIED)
    rows = runs[(runs.metric == ACCURACY) & runs.stage.isin(STAGES) & runs.length.isin(lengths)]
    rows = rows[rows.stage.map(STAGES).isin(FACTOR_RULES)]  # the factors' three rules, not the controls
    rows = rows.assign(factor=rows.variant, rule=rows.stage.map(STAGES))
    course = rows.groupby(["factor", "rule", "length", "step"]).value.agg(["mean", "min", "max"]).reset_index()
    return _order(course)
