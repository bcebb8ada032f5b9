"""Readings of the attention-bias-calibration chapter: our exact match beside the paper's Tables 1 and 3, cell by cell
and model by model, under rules stated once here.

- A **cell** (task, model, length) is `verdicts.cell_verdict` of the paper's value and our seeds' range: reproduced
  when the paper's value lies within it, widened by `verdicts.TOLERANCE` points on each side; beyond the training
  length, a model whose own in-distribution cell (TRAINED_DIGITS, median over seeds) is below 90% is "not trained"
  instead: its long-length numbers say nothing.
- A **model** (task, model) is classed by its whole curve: "does not interpolate" (< 90% at TRAINED_DIGITS),
  "extrapolates" (>= 90% at every tested length), "collapses" (<= 10% at every tested length of at least
  COLLAPSE_FROM digits), else "partly". The paper's class comes from its columns (6, 10, 15, 20, 50 digits), ours from
  the lengths we tested; the verdict is "reproduced" when the classes agree, "not trained" when the paper's model
  interpolates and ours does not, else "not reproduced".
- An ABC model that does not fit where its vanilla model fits in every seed is UNFIT_WITH_BIAS, in its cells beyond
  the training length and as a model: ABC as we ran it produced a model that cannot fit, a finding on ABC, not on
  our recipe; it counts as not reproduced. A model that does not interpolate where the paper's does not either is
  NEITHER_FITS when the task's vanilla model fits in every seed, else NEITHER_FITS_UNTESTED.
"""

from collections.abc import Callable

import pandas as pd
import torch

from lengthgen.analysis.calibration import ATTENTION_KINDS, decoder_attention, open_cells
from lengthgen.analysis.compare import reach
from lengthgen.analysis.verdicts import FAILED, NOT_TRAINED, TRAINED, cell_verdict
from lengthgen.metrics import (
    ACCURACY,
    ANTI_DIAGONAL,
    BIAS_ANTI_DIAGONAL,
    FINAL_TRAIN_LOSS,
    FIRST_ERROR,
    FIRST_WRONG_ZERO,
    LINE_OPERANDS,
    LINE_TAIL,
    OPEN_KEYS,
    by_construction,
)
from lengthgen.models.positional import bias_table
from lengthgen.papers.abc.paper import UNITS
from lengthgen.seeding import generator
from lengthgen.tasks import TASKS
from lengthgen.tasks.arithmetic import INTERPOLATION_RANGE, LISTOPS

TRAINED_DIGITS = 6  # the interpolation numbers (0 .. 2^20) have at most 7 digits, most of them 6
COLLAPSE_FROM = 10  # the first length of the paper's tables past the training numbers
UNFIT_WITH_BIAS = "not reproduced (does not fit with the bias)"  # an ABC model below TRAINED at TRAINED_DIGITS
# whose vanilla models (the ones its biases came from) fit in every seed: the calibrated bias, not the recipe, keeps
# it from fitting
NEITHER_FITS = "reproduced (neither fits)"  # a model that does not interpolate, as the paper's, where the task's
# vanilla model fits in every seed under the same recipe (so the recipe can train the task)
NEITHER_FITS_UNTESTED = "inconclusive (neither fits)"  # the same where the vanilla model does not fit: our model may
# fail for reasons of our own (budget, recipe), so its agreement with the paper says nothing


def _vanilla_fits(table: pd.DataFrame) -> pd.Series:
    """For each row of an `accuracy_table`-like table: whether its task's vanilla model fits in every seed (the
    least seed >= TRAINED at TRAINED_DIGITS)."""
    vanilla = table[(table.model == "vanilla") & (table.length == TRAINED_DIGITS)].set_index("task")["min"]
    return table.task.map((vanilla >= TRAINED).to_dict()).eq(True)


def model_name(variant: str, stage: str) -> str:
    """The model's name in the paper's tables: our variant for a trained model without its ", aligned" (Table 3's
    scaffolded models are all aligned), "ABC" for ABC by either rule (kept apart in `rule`)."""
    return variant.removesuffix(", aligned") if stage == "trained" else "ABC"


def accuracy_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Exact match by (task, model, rule, length): median (`ours`), min, max over seeds and their number (an odd
    number: `compare.on_common_seeds`, so the median is one seed's value). `rule` names an ABC model's rule and
    positions ("paper", "code, NoPE", ...), "" for the other models."""
    acc = runs[runs.metric == ACCURACY].copy()
    acc["model"] = [model_name(v, s) for v, s in zip(acc.variant, acc.stage, strict=True)]
    acc["rule"] = [s.removeprefix("ABC (").removesuffix(")") if s.startswith("ABC") else "" for s in acc.stage]
    out = acc.groupby(["task", "model", "rule", "length"], sort=False).value.agg(["median", "min", "max", "count"])
    return out.reset_index().rename(columns={"median": "ours", "count": "seeds"})


def _iid(table: pd.DataFrame) -> pd.Series:
    """Each (task, model, rule)'s median at TRAINED_DIGITS (NaN where not tested)."""
    at = table[table.length == TRAINED_DIGITS].set_index(["task", "model", "rule"]).ours
    return table.set_index(["task", "model", "rule"]).index.map(at.to_dict()).to_series(index=table.index)


def ours_only(rule: str) -> bool:
    """Whether an ABC rule's models are ours alone: ABC without positions (the paper's ABC keeps the sinusoids)."""
    return "NoPE" in rule


def cells(ours: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """The paper's cells that we tested, with ours (median over seeds), its range ("min-max" over seeds, "" for one
    seed) and the cell verdict; our ABC models without positions (`ours_only`) have no cell of the paper's.

    Args:
        ours: `accuracy_table` of our runs.
        paper: (task, model, length, paper) rows, `experiments.abc_paper.table_rows`.
    """
    source_fits = _vanilla_fits(ours)
    ours = ours[~ours.rule.map(ours_only)]  # the paper has no cell for them
    table = ours.assign(iid=_iid(ours), source_fits=source_fits).merge(paper, on=["task", "model", "length"])
    table["verdict"] = [cell_verdict(p, ours, lo, hi, None if length == TRAINED_DIGITS else iid)
                        for p, ours, lo, hi, iid, length in zip(table.paper, table.ours, table["min"], table["max"],
                                                                table.iid, table.length, strict=True)]
    unfit = (table.verdict == NOT_TRAINED) & (table.model == "ABC") & table.source_fits
    table.loc[unfit, "verdict"] = UNFIT_WITH_BIAS
    table["range"] = [f"{lo:g}-{hi:g}" if n > 1 else "" for lo, hi, n in
                      zip(table["min"], table["max"], table.seeds, strict=True)]
    return table[["task", "model", "rule", "length", "paper", "ours", "range", "seeds", "verdict"]]


def cell_reasons(table: pd.DataFrame) -> list[str]:
    """The scorecard's reason for each row of a `cells` table: "" when reproduced with every seed inside the band;
    for a cell "not trained" or UNFIT_WITH_BIAS, the model's own median at TRAINED_DIGITS digits (for the latter, that
    its vanilla models fit in every seed); for the others, which side our median lies on, over how many seeds, and their
    range; and for a cell past TRAINED_DIGITS still inside the training numbers' length (Parity's 10-20 bits), so."""
    out = []
    for row, iid in zip(table.itertuples(), _iid(table), strict=True):
        seeds = f"{row.seeds} seed{'s' if row.seeds > 1 else ''}"
        if row.verdict in (NOT_TRAINED, UNFIT_WITH_BIAS):
            of = f"median of {seeds}" if row.seeds > 1 else seeds
            text = f"{iid:g}% at {TRAINED_DIGITS} digits (< {TRAINED:.0f}%; {of})"
            if row.verdict == UNFIT_WITH_BIAS:
                text += "; calibrated from vanilla models that fit in every seed"
        elif row.verdict.startswith("reproduced"):
            text = f"seeds split: {row.range}" if "split" in row.verdict else ""
        else:
            spread = f" ({row.range})" if row.seeds > 1 else ""
            text = f"median {'higher' if row.ours > row.paper else 'lower'}; {seeds}{spread}"
        inside = len(TASKS[row.task]().digits(INTERPOLATION_RANGE))
        if TRAINED_DIGITS < row.length <= inside:
            units = UNITS.get(row.task, "digits")
            text += f"{'; ' if text else ''}inside the training numbers (up to {inside} {units})"
        out.append(text)
    return out


def curve_class(curve: pd.DataFrame, value: str) -> str:
    """The class of one model's curve (rows: length and the `value` column) under the rules of this module."""
    at = dict(zip(curve.length, curve[value], strict=True))
    if at.get(TRAINED_DIGITS, 0.0) < TRAINED:
        return "does not interpolate"
    if all(v >= TRAINED for v in at.values()):
        return "extrapolates"
    far = [v for length, v in at.items() if length >= COLLAPSE_FROM]
    return "collapses" if far and all(v <= FAILED for v in far) else "partly"


def model_claims(ours: pd.DataFrame, paper: pd.DataFrame, stated: dict | None = None) -> pd.DataFrame:
    """One row per (task, model, rule) that the paper reports too: its class and the paper's, our longest length at
    >= 90% and the verdict.

    Args:
        ours: `accuracy_table` of our runs.
        paper: (task, model, length, paper) rows.
        stated: (task, model) -> the class the paper states without numbers (its Appendix C's "solved":
            "extrapolates"), for models absent from `paper`.
    """
    stated = stated or {}
    source_fits = dict(zip(ours.task, _vanilla_fits(ours), strict=True))
    rows = []
    for (task, model, rule), curve in ours.groupby(["task", "model", "rule"], sort=False):
        theirs = paper[(paper.task == task) & (paper.model == model)]
        if theirs.empty and (task, model) not in stated:
            continue
        mine = curve_class(curve, "ours")
        stated_class = curve_class(theirs, "paper") if not theirs.empty else stated[(task, model)]
        if mine == stated_class != "does not interpolate":
            verdict = "reproduced"
        elif mine == stated_class:  # two models that do not interpolate agree on that alone
            verdict = NEITHER_FITS if source_fits[task] else NEITHER_FITS_UNTESTED
        elif mine == "does not interpolate":
            verdict = UNFIT_WITH_BIAS if model == "ABC" and source_fits[task] else NOT_TRAINED
        else:
            verdict = "not reproduced"
        rows.append({"task": task, "model": model, "rule": rule, "paper": stated_class, "ours": mine,
                     "ours >= 90% up to": reach(curve.rename(columns={"ours": "value"})),
                     "longest tested": int(curve.length.max()), "verdict": verdict})
    return pd.DataFrame(rows)


@torch.no_grad()
def example_attention(model, task, example, label: str) -> list[dict]:
    """Where an encoder-decoder looks on one example (teacher-forced on its target): for every decoder layer, its
    self-attention (H, T, T) and its cross-attention (H, T, S), keys in source order (a reversed output's anti-diagonal
    as in the paper's figures). Each entry: label, weights (H, rows, cols), and the row and column tokens."""
    source, target = example
    batch = task.batch([example])
    maps = decoder_attention(model, batch)
    steps = ["<sos>", *target]
    return [{"label": f"{label}, layer {layer} {kind}", "weights": maps[kind][layer][0].numpy(), "rows": steps,
             "cols": steps if kind == "self" else list(source)}
            for layer in range(len(model.decoder.blocks)) for kind in ATTENTION_KINDS]


def bias_maps(model, rows: int, cols: int, label: str) -> list[dict]:
    """An ABC (or scaffolded) model's bias for decoder self- and cross-attention (every layer of a kind has the same),
    cut to `rows` decoder steps and `cols` source positions, cross-attention keys in source order for a source of
    `cols` tokens; closed cells NaN (CLOSED, or the public code's -1e6). Entries as `example_attention`'."""
    self_layers, cross_layers = model.decoder_layers
    table = bias_table(model).table.cpu()
    closed = ~open_cells(table)
    table = table.masked_fill(closed, float("nan"))
    steps = [str(i) for i in range(rows)]
    return [{"label": f"{label}, self", "weights": table[self_layers.start, :, :rows, :rows].numpy(), "rows": steps,
             "cols": steps},
            {"label": f"{label}, cross", "weights": table[cross_layers.start, :, :rows, :cols].flip(-1).numpy(),
             "rows": steps, "cols": [str(j) for j in range(cols)]}]


def bias_reading(model, task, rows: int, cols: int) -> dict[str, float]:
    """What the bias of a model (ABC or scaffolded) does on its own, over the first `rows` decoder steps and a source
    of `cols` tokens (self-attention: the steps so far), mean over heads and steps: how many keys it leaves open per
    step, in self- and cross-attention (OPEN_KEYS "self", "cross": 1 where it keeps one line; each extra line kept,
    e.g. a vertical one, the same source position at every step, adds up to one more); and the weight the softmax of
    the bias alone (every score equal) puts on cross-attention's anti-diagonal of the reversed output
    (BIAS_ANTI_DIAGONAL, summed over the keys `task.operand_lines_from_end` names, one per operand, over the steps
    whose keys the source has): 1 where that line alone is open or far above the rest, 1/k where k lines are open
    with equal values."""
    self_layers, cross_layers = model.decoder_layers
    table = bias_table(model).table.cpu()
    opened = open_cells(table)
    causal = torch.ones(rows, rows, dtype=torch.bool).tril()
    cross = torch.softmax(table[cross_layers.start, :, :rows, :cols], -1)  # keys counted from the source's end
    lines = task.operand_lines_from_end(torch.arange(rows), rows)  # `rows`: a target's length, its operands' width
    steps = torch.arange(rows)[torch.stack(lines).amax(0) < cols]
    return {by_construction(OPEN_KEYS, "self"):
            float((opened[self_layers.start, :, :rows, :rows] & causal).sum(-1).float().mean()),
            by_construction(OPEN_KEYS, "cross"): float(opened[cross_layers.start, :, :rows, :cols].sum(-1)
                                                        .float().mean()),
            BIAS_ANTI_DIAGONAL: float(sum(cross[:, steps, keys[steps]] for keys in lines).mean())}


def bias_readings(models: dict[str, tuple], lengths: dict[str, int]) -> pd.DataFrame:
    """`bias_reading` of each ABC model (name -> (model, task), names ending in "ABC (<rule>...)") on an example of
    its task's length in `lengths` (task -> operand digits): model, length, "open keys, self", "open keys, cross" and
    "bias on line" (BIAS_ANTI_DIAGONAL)."""
    names = {by_construction(OPEN_KEYS, "self"): "open keys, self", by_construction(OPEN_KEYS, "cross"):
             "open keys, cross", BIAS_ANTI_DIAGONAL: "bias on line"}
    rows = []
    for name, (model, task) in models.items():
        if "ABC (" in name:
            source, target = task.examples(str(lengths[task.name]), 1)[0]
            reading = bias_reading(model, task, len(target), len(source))
            rows.append({"model": name, "length": lengths[task.name]} | {names[k]: v for k, v in reading.items()})
    return pd.DataFrame(rows, columns=["model", "length", *names.values()])


def attention_on(model, task, examples, columns: dict[str, Callable[[int, int], int]],
                 kind: str = "cross") -> pd.DataFrame:
    """How much attention each head of each decoder layer puts on named keys: a probe of what a model reads (for
    N x 1, the digit a_t that step t multiplies, the digit before it, the multiplier; in self-attention, the step
    before).

    Args:
        examples: (source, target) pairs of one length.
        columns: name -> key(step t, number of keys n): the key that step t's weight is read at (a source index for
            "cross", a step for "self"); steps whose key falls outside 0 .. n - 1 are skipped.
        kind: "cross" or "self" (`abc.decoder_attention`).

    Returns:
        DataFrame layer, head, column, weight: the weight at that key, averaged over the steps that have one and over
        the examples.
    """
    if kind not in ATTENTION_KINDS:
        raise ValueError(f"unknown attention kind {kind!r}; valid: {', '.join(ATTENTION_KINDS)}")
    layers = decoder_attention(model, task.batch(examples))[kind]
    steps, keys = layers[0].shape[2], layers[0].shape[3]
    rows = []
    for name, key in columns.items():
        at = [(t, j) for t in range(steps) if 0 <= (j := key(t, keys)) < keys]
        ts, js = torch.tensor([t for t, _ in at]), torch.tensor([j for _, j in at])
        for layer, weights in enumerate(layers):
            for head, w in enumerate(weights[:, :, ts, js].mean((0, 2)).tolist()):
                rows.append({"layer": layer, "head": head, "column": name, "weight": w})
    return pd.DataFrame(rows)


def exact_match_by(examples, predictions, key: Callable[[tuple], object]) -> pd.DataFrame:
    """Exact match (%) of `predictions` (token sequences, as `train.evaluate.sequence_metrics` returns them) on
    `examples` ((source, target) pairs), grouped by `key(example)`: group, exact match, examples; groups in order of
    first appearance."""
    hits: dict[object, list[bool]] = {}
    for example, prediction in zip(examples, predictions, strict=True):
        hits.setdefault(key(example), []).append(tuple(prediction) == tuple(example[1]))
    return pd.DataFrame([{"group": g, "exact match": 100.0 * sum(h) / len(h), "examples": len(h)}
                         for g, h in hits.items()])


@torch.no_grad()
def anti_diagonal_mass(model, task, length: int, n: int) -> dict[str, float]:
    """How much of the last decoder layer's cross-attention lies on the reversed output's anti-diagonal (output digit t
    on the source digit t from the end, the cell the paper's Figs. 2, 8 light up), for `n` examples of `length` digits
    (teacher-forced): per step and operand, the largest weight any head puts on that operand's digit (the paper's
    Addition heads split the operands between them), averaged over the operands; then over the steps of the digits
    the training numbers have (t < TRAINED_DIGITS + 1) and over the steps beyond them (NaN where there are none).
    The cells of step t are the source tokens `task.operand_lines_from_end(t, width)` from the end."""
    examples = task.examples(str(length), min(n, task.splits[str(length)].size))
    weights = decoder_attention(model, task.batch(examples))["cross"][-1]  # the last layer's (B, H, T, S)
    steps = torch.arange(min(length + 1, weights.shape[2]))
    lines = task.operand_lines_from_end(steps, len(examples[0][1]))
    on_line = torch.stack([weights[:, :, steps, weights.shape[-1] - 1 - keys].amax(1).mean(0)
                           for keys in lines]).mean(0)  # (steps,)
    inside, beyond = on_line[: TRAINED_DIGITS + 1], on_line[TRAINED_DIGITS + 1:]
    return {"inside": float(inside.mean()), "beyond": float(beyond.mean()) if len(beyond) else float("nan")}


def line_read_right(runs: pd.DataFrame) -> pd.DataFrame:
    """The tidy rows of stored runs less the readings of the line (ANTI_DIAGONAL, BIAS_ANTI_DIAGONAL) made at the
    wrong keys. A run records the tail its readings skipped (LINE_TAIL), always its format's own. Runs stored before
    they recorded it skipped none, which is right only where no token follows the line's first digit: their readings
    are kept for Successor, Addition, Parity and ListOps without markers (only the sources of the models without
    positions carry them: variants naming NoPE or markers) and dropped for N x 1 and the rest. Addition's readings of
    the line are kept only from runs that record reading both operands (LINE_OPERANDS): before, they read one
    operand's digit (b's, or a's where the operands are interleaved), where the model may read the other's with
    another head."""
    line = runs.metric.str.startswith(ANTI_DIAGONAL) | (runs.metric == BIAS_ANTI_DIAGONAL)
    if not line.any():
        return runs
    run = [c for c in ("experiment", "task", "variant", "seed") if c in runs]
    ids = pd.MultiIndex.from_frame(runs[run])
    recorded = ids.isin(ids[(runs.metric == LINE_TAIL).to_numpy()])
    tailless = (runs.task != "times_digit") & ~runs.variant.str.contains("nope|markers", case=False)
    one_operand = (runs.task == "addition") & line & ~ids.isin(ids[(runs.metric == LINE_OPERANDS).to_numpy()])
    return runs[~(line & ~(recorded | tailless)) & ~one_operand]


def first_wrong_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Where the wrong answers beyond TRAINED_DIGITS go wrong, from the tidy rows of stored runs that record it: per
    task, model (named as in `stored_mass`) and length, "first wrong at" (the median position of the first wrong
    digit, counted from the units, 0), "first wrong 0" (% of them that are a 0), medians over the seeds with wrong
    answers there, and their number. Empty for runs stored before they recorded it."""
    rows = runs[runs.metric.isin([FIRST_ERROR, FIRST_WRONG_ZERO]) & (runs.length > TRAINED_DIGITS)]
    columns = ["task", "model", "length", "first wrong at", "first wrong 0", "seeds"]
    if rows.empty:
        return pd.DataFrame(columns=columns)
    rows = rows.assign(model=[model_name(v, st) if st == "trained" else st for v, st in
                              zip(rows.variant, rows.stage, strict=True)])
    table = rows.pivot_table(index=["task", "model", "length"], columns="metric", values="value", aggfunc="median",
                             sort=False)
    seeds = rows[rows.metric == FIRST_ERROR].groupby(["task", "model", "length"], sort=False).seed.nunique()
    table = table.rename(columns={FIRST_ERROR: "first wrong at", FIRST_WRONG_ZERO: "first wrong 0"}).assign(seeds=seeds)
    return table.reset_index().rename_axis(columns=None).reindex(columns=columns)


def stored_mass(runs: pd.DataFrame) -> pd.DataFrame:
    """`anti_diagonal_mass` rows (task, model, length, inside, beyond; model named as in `accuracy_table`, the ABC
    models "ABC (rule)") from the tidy rows of stored runs, each the median over seeds; empty for runs that predate
    the measurement."""
    prefix = f"{ANTI_DIAGONAL}:"
    rows = runs[runs.metric.str.startswith(prefix)]
    if rows.empty:
        return pd.DataFrame(columns=["task", "model", "length", "inside", "beyond"])
    rows = rows.assign(model=[model_name(v, st) if st == "trained" else st for v, st in
                              zip(rows.variant, rows.stage, strict=True)], where=rows.metric.str.removeprefix(prefix))
    mass = rows.pivot_table(index=["task", "model", "length"], columns="where", values="value", aggfunc="median",
                            sort=False).reset_index().rename_axis(columns=None)
    return mass.reindex(columns=["task", "model", "length", "inside", "beyond"])


FIT_READINGS = {ACCURACY: "at 6 digits", BIAS_ANTI_DIAGONAL: "bias on line", f"{OPEN_KEYS}:cross": "open keys",
                f"{ANTI_DIAGONAL}:inside": "attention on line", FINAL_TRAIN_LOSS: "training loss"}


def abc_fit(runs: pd.DataFrame) -> pd.DataFrame:
    """Why an ABC model fits its training numbers or not, from the tidy rows of stored runs: per (task, model "ABC
    (rule)"), the median over seeds of its exact match at TRAINED_DIGITS, the weight its cross-attention bias alone
    puts on the anti-diagonal and the source keys it leaves open per step (`bias_reading`), the weight its retrained
    last layer puts on the anti-diagonal at TRAINED_DIGITS (`anti_diagonal_mass`) and its final training loss; the
    number of seeds. Empty for runs that predate these readings."""
    abc = runs[runs.stage.str.startswith("ABC") & runs.metric.isin(list(FIT_READINGS))
               & ((runs.length == TRAINED_DIGITS) | (runs.metric == FINAL_TRAIN_LOSS))]
    if abc.empty or not set(FIT_READINGS) <= set(abc.metric):
        return pd.DataFrame(columns=["task", "model", *FIT_READINGS.values(), "seeds"])
    table = abc.pivot_table(index=["task", "stage"], columns="metric", values="value", aggfunc="median", sort=False)
    seeds = abc.groupby(["task", "stage"], sort=False).seed.nunique()
    table = table[list(FIT_READINGS)].rename(columns=FIT_READINGS).assign(seeds=seeds)
    return table.reset_index().rename(columns={"stage": "model"}).rename_axis(columns=None)


def attention_claim(mass: pd.DataFrame) -> pd.DataFrame:
    """Figs. 2, 8, 9's claim on `anti_diagonal_mass` rows (task, model, length, inside, beyond): the attention is
    right up to the training length (inside >= 0.5) and lost beyond it (beyond < inside / 2) -> "reproduced";
    right inside and kept beyond -> "not reproduced (kept beyond)"; not right inside -> "not reproduced (not on the
    anti-diagonal)". Read at each (task, model)'s longest length."""
    rows = []
    for (task, model), g in mass.groupby(["task", "model"], sort=False):
        last = g.loc[g.length.idxmax()]
        if last.inside < 0.5:
            verdict = "not reproduced (not on the anti-diagonal)"
        else:
            verdict = "reproduced" if last.beyond < last.inside / 2 else "not reproduced (kept beyond)"
        rows.append({"task": task, "model": model, "length": int(last.length), "inside": round(last.inside, 2),
                     "beyond": round(last.beyond, 2), "verdict": verdict})
    return pd.DataFrame(rows)


def misread_changes(operator: str, lists: list[list[int]]) -> float:
    """The share of ListOps output steps (after the first) whose value would change if the step folded in a
    neighbouring item (the one before or after its own; each neighbour that exists counted once) instead of its own:
    what a read one position off costs under `operator` ("sum", "max", "min"). `lists`: digit lists in the order they
    are folded. A property of the data, not of a model."""
    fold = LISTOPS[operator]
    changed = total = 0
    for items in lists:
        running = items[0]
        for t in range(1, len(items)):
            neighbours = [items[k] for k in (t - 1, t + 1) if k < len(items)]
            changed += sum(fold(running, d) != fold(running, items[t]) for d in neighbours)
            total += len(neighbours)
            running = fold(running, items[t])
    return changed / total


def monotone_lists(operator: str, length: int, n: int, seed: int = 0) -> list[list[int]]:
    """`n` lists of `length` digits 1-9, in the order they are folded, sorted so that every item is the running
    result so far: rising for "max", falling for "min". Every step's output is then its own item, and a read of a
    neighbour changes it whenever the neighbour differs (`misread_changes` is much higher than on uniform digits):
    lists on which a MAX or MIN model has to read each step's own item. Digits from 1: the stock lists are the
    digits of a number, whose first (the source's first item) is never 0."""
    if operator not in ("max", "min"):
        raise ValueError(f"no monotone lists for operator {operator!r}; valid: max, min")
    draws = torch.randint(1, 10, (n, length), generator=generator(seed, "monotone lists"))
    return draws.sort(dim=1, descending=operator == "min").values.tolist()
