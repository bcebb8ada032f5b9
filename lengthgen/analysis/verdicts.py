"""Verdict rules: when a number of ours reproduces a paper's number. Each rule is one documented function, tested on
hand-made cases; the tables of `compare.py` apply them cell by cell.

- `verdict`: a paired difference with its p-value (vanishing variance), judged by sign and significance;
- `accuracy_verdict`: an accuracy (%), judged by band (solved / partial / failed; probing tables), and
  `length_verdict`, the same for a test length unless our runs have not learned their training distribution;
- `spread_verdict`: a mean +- std over seeds, judged by distance in stds (SCAN).
"""

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


def band(accuracy: float) -> str:
    """solved (>= 90%), failed (<= 10%) or partial."""
    return "solved" if accuracy >= 90 else "failed" if accuracy <= 10 else "partial"


def accuracy_verdict(paper: float, ours: float) -> str:
    """reproduced when both fall in the same band (solved/partial/failed), not reproduced when one is solved and
    the other failed, partly otherwise."""
    a, b = band(paper), band(ours)
    if a == b:
        return "reproduced"
    return "not reproduced" if {a, b} == {"solved", "failed"} else "partly"


TRAINED = 90.0  # % exact match on the iid split: below it a run has not learned its own training distribution
NOT_TRAINED = "not trained"


def length_verdict(paper: float, ours: float, iid: float | None) -> str:
    """`accuracy_verdict` of a cell at a test length, unless our runs have not learned their training distribution
    (median iid accuracy `iid` below TRAINED): then "not trained", whatever the numbers, because a model that does
    not fit its training lengths says nothing about longer ones. iid None or NaN (a task without an iid split):
    `accuracy_verdict`."""
    if iid is not None and iid == iid and iid < TRAINED:  # iid == iid: not NaN
        return NOT_TRAINED
    return accuracy_verdict(paper, ours)


SPREAD = 2.0  # a mean-and-std cell is reproduced when our mean lies within the paper's mean +- SPREAD std


def spread_verdict(paper_mean: float, paper_std: float, ours: float) -> str:
    """reproduced when `ours` lies within the paper's mean +- 2 std (its spread over seeds), else not reproduced
    (higher or lower)."""
    if abs(ours - paper_mean) <= SPREAD * paper_std:
        return "reproduced"
    return f"not reproduced ({'higher' if ours > paper_mean else 'lower'})"


NOT_RUN = "not run yet"
