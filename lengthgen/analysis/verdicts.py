"""Verdict rules: when a number of ours reproduces a paper's number. Each rule is one documented function, tested on
hand-made cases; the tables of `compare.py` apply them cell by cell.

- `verdict`: a paired difference with its p-value (vanishing variance), judged by sign and significance;
- `gain_verdict`: a mean difference printed without a test (vanishing variance's gains over the baseline), against
  the confidence interval of ours;
- `cell_verdict`: an accuracy (%) against our median over seeds and their range, with a stated tolerance, unless our
  runs have not learned their training distribution (probing tables, arithmetic tables);
- `mean_verdict`: our mean over seeds against a paper's mean +- std over its runs, by Welch's t-test (SCAN);
- `ranking_verdict`: a table's ranking, by Spearman's rank correlation of its cells;
- `share_verdict`: a claim read on each seed pair (or task), by how many it holds in;
- `exponent_verdict` and `decay_verdict`: fitted log-log slopes against a predicted power law (vanishing variance);
- `verdict_class` and `claim_class`: the class (`CLASSES`) of any of these verdicts, and of a claim judged on several
  rows (the scorecard's totals);
- `former_cell_verdict` and `former_mean_verdict`: lenient rules (bands one run can hardly fail), never a verdict of
  the book: kept so that the scorecard can say which verdicts the strict rules changed.
"""

from scipy.stats import spearmanr, ttest_ind_from_stats

ALPHA = 0.05


def verdict(paper_diff: float, paper_p: float, ours_diff: float, ours_p: float) -> str:
    """reproduced / not reproduced (opposite, significant) / inconclusive (ours not significant) /
    reproduced (no difference) when neither is significant."""
    paper_sig, ours_sig = paper_p < ALPHA, ours_p < ALPHA
    if not paper_sig:
        return "reproduced (no difference)" if not ours_sig else "not reproduced (we find a difference)"
    if not ours_sig:
        return "inconclusive (ours not significant)"
    return "reproduced" if (paper_diff > 0) == (ours_diff > 0) else "not reproduced (opposite sign)"


def gain_verdict(paper: float, ours: float, ci95: float) -> str:
    """A mean paired difference that the paper prints without a test (e.g. a variant's gain over the baseline, in
    points): "reproduced" when it lies within the 95% t-interval of ours, ours +- ci95 (`stats.paired_comparison`),
    else "not reproduced (ours higher)" or "(ours lower)"; "inconclusive (one seed pair)" without an interval (ci95
    NaN). Strict: the interval holds our seeds' uncertainty only; the paper's mean, over its own seeds, is read as
    exact."""
    if ci95 != ci95:  # NaN
        return "inconclusive (one seed pair)"
    if abs(paper - ours) <= ci95:
        return "reproduced"
    return f"not reproduced (ours {'higher' if ours > paper else 'lower'})"


SOLVED = 90.0  # % exact match at or above which a cell is solved
FAILED = 10.0  # % exact match at or below which a cell has failed


def band(accuracy: float) -> str:
    """solved (>= SOLVED), failed (<= FAILED) or partial: how a row's claim reads a cell (`compare.separation`)."""
    return "solved" if accuracy >= SOLVED else "failed" if accuracy <= FAILED else "partial"


TRAINED = 90.0  # % exact match on the iid split: below it a run has not learned its own training distribution
NOT_TRAINED = "not trained"
SEEDS_SPLIT = "reproduced (seeds split)"
TOLERANCE = 5.0  # points: how far the paper's value may lie outside our seeds' range (from our value, with one seed)


def cell_verdict(paper: float, ours: float, lo: float, hi: float, iid: float | None = None) -> str:
    """An accuracy cell (%), judged on our median over seeds `ours` and their range [lo, hi]: "reproduced" when the
    paper's value lies within that range widened by TOLERANCE on each side and our median agrees with it: within
    TOLERANCE of it, or in the same solved or failed `band` (a "partial" median must lie within TOLERANCE). With one
    seed, lo = ours = hi. Else "not reproduced (ours lower)" or "(ours higher)", by the median. SEEDS_SPLIT
    ("reproduced (seeds split)") when it is reproduced but our seeds land both solved and failed (`band` of lo failed,
    of hi solved). "not trained", whatever the numbers, when our runs have not learned their training distribution
    (median iid accuracy `iid` below TRAINED): a model that does not fit its training lengths says nothing about
    longer ones. iid None or NaN (a cell at the training length, or a task without an iid split): not judged on it."""
    if iid is not None and iid == iid and iid < TRAINED:  # iid == iid: not NaN
        return NOT_TRAINED
    agrees = abs(ours - paper) <= TOLERANCE or band(ours) == band(paper) != "partial"
    if agrees and lo - TOLERANCE <= paper <= hi + TOLERANCE:
        return SEEDS_SPLIT if band(lo) == "failed" and band(hi) == "solved" else "reproduced"
    return f"not reproduced (ours {'lower' if ours < paper else 'higher'})"


def mean_verdict(paper_mean: float, paper_std: float, paper_n: int, ours: list[float],
                 fit: float | None = None) -> tuple[str, float]:
    """(verdict, p) of our runs' mean against a paper's mean +- std over `paper_n` runs, by Welch's t-test from the
    two samples' statistics: "reproduced (no significant difference)" at p >= ALPHA, else "not reproduced (ours
    higher / lower)". One run of ours has no spread to test: "inconclusive (one seed)", p NaN. When neither
    sample varies (both stds 0) the means must be equal. "not trained", p NaN, when `fit` (our runs' median
    in-distribution accuracy) is below TRAINED, as in `cell_verdict`; None or NaN: not judged on it."""
    if fit is not None and fit == fit and fit < TRAINED:
        return NOT_TRAINED, float("nan")
    if len(ours) < 2:
        return "inconclusive (one seed)", float("nan")
    mean = sum(ours) / len(ours)
    std = (sum((x - mean) ** 2 for x in ours) / (len(ours) - 1)) ** 0.5
    if paper_std == 0 and std == 0:
        p = 1.0 if mean == paper_mean else 0.0
    else:
        p = float(ttest_ind_from_stats(mean, std, len(ours), paper_mean, paper_std, paper_n, equal_var=False).pvalue)
    if p >= ALPHA:
        return "reproduced (no significant difference)", p
    return f"not reproduced (ours {'lower' if mean < paper_mean else 'higher'})", p


RANK_AGREEMENT = 0.5  # Spearman's rho at least this (and significant) for a table's ranking to be reproduced


def ranking_verdict(paper: list[float], ours: list[float]) -> tuple[str, float, float]:
    """(verdict, rho, p) of a table's ranking: Spearman's rank correlation of the paper's cells and ours (the same
    cells, in the same order). "reproduced" when rho >= RANK_AGREEMENT and p < ALPHA; "not reproduced" when rho is
    below it; "inconclusive" when rho reaches it without significance (too few cells) or either side is constant."""
    if len(set(paper)) < 2 or len(set(ours)) < 2:
        return "inconclusive (a constant side)", float("nan"), float("nan")
    rho, p = spearmanr(paper, ours)
    rho, p = float(rho), float(p)
    if rho < RANK_AGREEMENT:
        return "not reproduced", rho, p
    return ("reproduced" if p < ALPHA else "inconclusive (too few cells)"), rho, p


def share_verdict(holds: int, of: int, unit: str = "pairs") -> str:
    """A claim read on each of `of` units (e.g. a figure's statement on each seed pair, a table's separation on each
    task): "reproduced" when it holds in every one, "not reproduced" in none, "partly (k of n `unit`)" otherwise."""
    if holds == of:
        return "reproduced"
    return "not reproduced" if holds == 0 else f"partly ({holds} of {of} {unit})"


EXPONENT_TOLERANCE = 0.1  # relative: a fitted exponent within 10% of the predicted one agrees with it


def bars() -> dict[str, float]:
    """The bars of the verdict rules, for a chapter's prose: solved, failed, trained (% exact match), and how far
    (in %) a fitted exponent may lie from the predicted one."""
    return {"bar_solved": SOLVED, "bar_failed": FAILED, "bar_trained": TRAINED,
            "bar_exponent": 100 * EXPONENT_TOLERANCE}


def exponent_verdict(slopes, predicted: float) -> str:
    """A power law claimed exactly (Prop. 1: the variance falls like N^-1): "reproduced" when every fitted log-log
    slope (e.g. one per component) lies strictly within EXPONENT_TOLERANCE x |predicted| of `predicted`, else "not
    reproduced"."""
    margin = EXPONENT_TOLERANCE * abs(predicted)
    return "reproduced" if all(abs(s - predicted) < margin for s in slopes) else "not reproduced"


def decay_verdict(slope: float, predicted: float) -> str:
    """A decay claimed for a real model at a predicted rate (`predicted` < 0; Fig. 1: the std falls like N^-0.5):
    "reproduced" when the fitted slope is at least as steep, within EXPONENT_TOLERANCE (slope <= predicted x (1 -
    EXPONENT_TOLERANCE)); "partly" when it decays more slowly (slope < 0); "not reproduced" when it does not decay."""
    if slope <= predicted * (1 - EXPONENT_TOLERANCE):
        return "reproduced"
    return "partly" if slope < 0 else "not reproduced"


NOT_RUN = "not run yet"
CLASSES = ("reproduced", "partly", "not reproduced", NOT_TRAINED, "inconclusive", NOT_RUN)  # every verdict's class


def verdict_class(verdict: str) -> str:
    """The class of a verdict, by its first words: "reproduced (no difference)" is reproduced, "not reproduced:
    a trained baseline reaches as far" not reproduced, "not trained: ..." not trained; a verdict that names none of
    the classes (e.g. "coupled ahead, but no baseline fits its training lengths") is inconclusive."""
    return next((c for c in CLASSES if verdict.startswith(c)), "inconclusive")


def claim_class(classes: list[str]) -> str:
    """The class of a claim judged on several rows: their class when they share one; "partly" when some rows
    reproduce it (or partly) and others do not; otherwise the first class among not reproduced, not trained,
    inconclusive that a row has. No rows: not run yet."""
    judged = set(classes) - {NOT_RUN}
    if not judged:
        return NOT_RUN
    if len(judged) == 1:
        return judged.pop()
    if judged & {"reproduced", "partly"}:
        return "partly"
    return next(c for c in CLASSES if c in judged)


# Lenient rules, bands that one run could hardly fail. Not applied anywhere but in
# `scorecard.rule_changes`, which sets them beside the strict rules above on the same numbers.
FORMER_SPREAD = 2.0  # SCAN: reproduced when our mean lay within the paper's mean +- this many of its stds


def former_cell_verdict(paper: float, ours: float) -> str:
    """The former rule for an accuracy cell: "reproduced" when the paper's value and our median (%) fall in the same
    `band`, "not reproduced" when one is solved and the other failed, "partly" otherwise; no "not trained"."""
    a, b = band(paper), band(ours)
    if a == b:
        return "reproduced"
    return "not reproduced" if {a, b} == {"solved", "failed"} else "partly"


def former_mean_verdict(paper_mean: float, paper_std: float, ours: float) -> str:
    """The former rule for a mean +- std: "reproduced" when our mean `ours` lies within the paper's mean +-
    FORMER_SPREAD stds, whatever the number of our runs; else "not reproduced (ours lower / higher)"."""
    if abs(ours - paper_mean) <= FORMER_SPREAD * paper_std:
        return "reproduced"
    return f"not reproduced (ours {'lower' if ours < paper_mean else 'higher'})"
