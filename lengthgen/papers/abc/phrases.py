"""Words for the attention-bias-calibration chapter's prose (`prose`): numbers and ranges as the prose writes them,
seeds and counts in words, and readings of one model's curve (by seed, median over seeds, fit and collapse)
from `experiments.arithmetic_reading`'s "curves" and "claims", beside the paper's tables."""

import pandas as pd

from lengthgen.analysis.compare import reach
from lengthgen.analysis.verdicts import FAILED, TRAINED
from lengthgen.display import and_list, span, word
from lengthgen.metrics import FINAL_TRAIN_LOSS
from lengthgen.papers.abc.paper import PAPER_ROWS, paper_table
from lengthgen.papers.abc.readings import TRAINED_DIGITS, curve_class

ABC_POSITIONS, ABC_NOPE = ("ABC (paper)", "ABC (code)"), ("ABC (paper, NoPE)", "ABC (code, NoPE)")


def num(x: float) -> str:
    """A percentage (or any number) as the prose writes it: one decimal, without a trailing ".0" (100, 99.6, 0)."""
    return f"{x:.1f}".removesuffix(".0")


def loss_text(x: float) -> str:
    """A training loss: two significant digits (0.27, 0.034), or in powers of ten below 0.001 (2.2e-06)."""
    return f"{x:.1e}" if x < 1e-3 else f"{x:.2g}"


def loss_span(values) -> str:
    """The range of training losses as `loss_text`s, "lo-hi", or one when they print alike."""
    lo, hi = loss_text(min(values)), loss_text(max(values))
    return lo if lo == hi else f"{lo}-{hi}"


def seed_list(seeds) -> str:
    """ "seed 1", "seeds 0 and 2"."""
    seeds = sorted(seeds)
    return f"seed{'s' if len(seeds) > 1 else ''} {and_list(seeds)}"


def seeds_phrase(seeds, of) -> str:
    """Where something holds among the seeds `of`: "in all three seeds", "in seeds 0 and 2", "in seed 1", "in no
    seed" ("in its one seed" when there is one)."""
    seeds, n = sorted(set(seeds)), len(set(of))
    if not seeds:
        return "in no seed"
    if len(seeds) == n:
        return "in its one seed" if n == 1 else f"in all {word(n)} seeds"
    return f"in {seed_list(seeds)}"


def times(a: int, b: int) -> str:
    """How many times `b` is `a`, in words where a whole number ("three"), else to one decimal."""
    return word(a // b) if a % b == 0 else f"{a / b:.1f}"


def count_phrase(k: int, n: int) -> str:
    """ "all three", "two of three", "none of three"."""
    if k == n:
        return f"all {word(n)}"
    return f"{'none' if k == 0 else word(k)} of {word(n)}"


def by_seed(curves: pd.DataFrame, task: str, model: str) -> dict[int, dict[int, float]]:
    """seed -> {length: exact match} of one model."""
    rows = curves[(curves.task == task) & (curves.model == model)]
    return {int(s): dict(zip(g.length, g.value, strict=True)) for s, g in rows.groupby("seed")}


def median_curve(curves: pd.DataFrame, task: str, model: str) -> pd.DataFrame:
    """(length, value): the median over seeds of one model (`readings.accuracy_table`'s statistic)."""
    rows = curves[(curves.task == task) & (curves.model == model)]
    return rows.groupby("length", as_index=False).value.median()


def values(curves: pd.DataFrame, task: str, models, lengths=None) -> list[float]:
    """Every seed's exact match of `models` at `lengths` (a predicate on the length; None: all)."""
    rows = curves[(curves.task == task) & curves.model.isin([models] if isinstance(models, str) else models)]
    return rows[[lengths is None or lengths(n) for n in rows.length]].value.tolist()


def fits(curve: dict[int, float]) -> bool:
    """Whether a curve (length -> value) fits its training numbers (>= TRAINED at TRAINED_DIGITS)."""
    return curve.get(TRAINED_DIGITS, 0.0) >= TRAINED


def collapse_from(curve: dict[int, float]) -> int | None:
    """The first length beyond TRAINED_DIGITS from which every tested length is at or below FAILED (None: none)."""
    beyond = sorted(n for n in curve if n > TRAINED_DIGITS)
    for i, length in enumerate(beyond):
        if all(curve[n] <= FAILED for n in beyond[i:]):
            return length
    return None


def fit_collapse(curves: pd.DataFrame, task: str, models) -> dict[str, object]:
    """How `models` fit and collapse, seed by seed: "seeds" (those where every model fits and collapses), "at6" (the
    span at TRAINED_DIGITS of those seeds), "from" (the latest length from which they all collapse) and "far" (their
    span from there)."""
    models = [models] if isinstance(models, str) else list(models)
    curves_of = {m: by_seed(curves, task, m) for m in models}
    seeds = sorted(set.intersection(*(set(c) for c in curves_of.values())))
    ok = [s for s in seeds if all(fits(c[s]) and collapse_from(c[s]) is not None for c in curves_of.values())]
    start = max((collapse_from(c[s]) for c in curves_of.values() for s in ok), default=None)
    kept = [c[s] for c in curves_of.values() for s in ok]
    return {"seeds": ok, "all": seeds, "at6": span((c[TRAINED_DIGITS] for c in kept), num),
            "from": start,
            "far": span((v for c in kept for n, v in c.items() if start is not None and n >= start), num)}


def _claim_rows(claims: pd.DataFrame, task: str, model: str) -> pd.DataFrame:
    """The `model_claims` rows of a model as the curves name it ("ABC (code, NoPE)" -> ABC, rule "code, NoPE")."""
    name, rule = ("ABC", model.removeprefix("ABC (").removesuffix(")")) if model.startswith("ABC (") else (model, "")
    return claims[(claims.task == task) & (claims.model == name) & (claims.rule == rule)]


def claim(claims: pd.DataFrame, task: str, model: str) -> pd.Series:
    """The `model_claims` row of a model as the curves name it; a KeyError where the paper reports none."""
    rows = _claim_rows(claims, task, model)
    if rows.empty:
        raise KeyError(f"no claim for {task} / {model}")
    return rows.iloc[0]


def paper_values(task: str, model: str) -> list[float]:
    """The paper's exact match of a model at its columns (`paper.PAPER_ROWS`); ABC by either rule: "ABC"."""
    model = "ABC" if model.startswith("ABC") else model
    return next(v for t, m, v in PAPER_ROWS if (t, m) == (task, model))


def paper_class(task: str, model: str) -> str:
    """The class of the paper's curve of a model (`readings.curve_class` on its columns)."""
    table = paper_table()
    model = "ABC" if model.startswith("ABC") else model
    return curve_class(table[(table.task == task) & (table.model == model)], "paper")


def losses(runs: pd.DataFrame) -> pd.DataFrame:
    """(task, model, seed, loss): each stored model's final training loss, models named as in `curves`."""
    rows = runs[runs.metric == FINAL_TRAIN_LOSS]
    return pd.DataFrame({"task": rows.task, "seed": rows.seed, "loss": rows.value,
                         "model": [v.removesuffix(", aligned") if s == "trained" else s
                                   for v, s in zip(rows.variant, rows.stage, strict=True)]})


def loss_of(table: pd.DataFrame, task: str, models, seeds=None) -> list[float]:
    models = [models] if isinstance(models, str) else models
    rows = table[(table.task == task) & table.model.isin(models)]
    return rows[rows.seed.isin(seeds) if seeds is not None else rows.seed.notna()].loss.tolist()


def describe(curve: pd.DataFrame, unit: str = "digits") -> str:
    """One model's curve (length, value: the median over seeds) in words, by its `readings.curve_class`: "fits its
    training numbers (100% at 6 digits) and collapses beyond (0% from 8 digits)", "holds 94-98% to 24 digits", ...
    (lengths in `unit`: `paper.UNITS`)."""
    at = dict(zip(curve.length, curve.value, strict=True))
    kind = curve_class(curve, "value")
    if TRAINED_DIGITS not in at:
        return f"is not tested at {TRAINED_DIGITS} {unit} at this profile"
    fit = f"{num(at[TRAINED_DIGITS])}% at {TRAINED_DIGITS} {unit}"
    if kind == "does not interpolate":
        return f"does not fit its training numbers ({fit})"
    if kind == "extrapolates":
        return f"holds {span(at.values(), num)}% to {max(at)} {unit}"
    start = collapse_from(at)
    if kind == "collapses" and start is not None:
        return (f"fits its training numbers ({fit}) and collapses beyond "
                f"({span((v for n, v in at.items() if n >= start), num)}% from {start} {unit})")
    held = reach(curve)
    lowest = num(min(v for n, v in at.items() if n > held))
    if held <= TRAINED_DIGITS:  # below the bar from the first length beyond training, but not collapsed
        return (f"fits its training numbers ({fit}) and falls below {num(TRAINED)}% beyond them, to {lowest}% by "
                f"{max(at)}")
    return (f"fits its training numbers ({fit}), holds at least {num(TRAINED)}% to {held} {unit} and falls to "
            f"{lowest}% by {max(at)}")


PAPER_WORDS = {"collapses": "collapses", "extrapolates": "extrapolates", "partly": "holds only partly",
               "does not interpolate": "does not even interpolate"}


def versus_paper(claims: pd.DataFrame, task: str, model: str) -> str:
    """ "as in the paper", or what the paper's model does instead, or that the paper does not report the model on the
    task (N x 1's ALiBi and RoPE, which our Table 1 grids run beyond it)."""
    rows = _claim_rows(claims, task, model)
    if rows.empty:
        return "a model the paper does not report on this task"
    row = rows.iloc[0]
    if row.verdict.startswith("reproduced"):
        return "as in the paper"
    if row.verdict.startswith("inconclusive"):  # neither fits, nor does our vanilla model: agreement says nothing
        return "as the paper's model, though our vanilla model does not fit either"
    return f"where the paper's model {PAPER_WORDS[row.paper]}"

