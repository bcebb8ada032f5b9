"""Paper vs ours, cell by cell: both differences with their p-values and a verdict per cell."""

import pandas as pd

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


def side_by_side(ours: pd.DataFrame, paper_a: pd.Series, paper_b: pd.Series, paper_p: pd.Series) -> pd.DataFrame:
    """Join our paired comparison (columns length, mean_a, mean_b, diff, p_value, n) with the paper's rows
    (Series indexed by length) on the lengths both have; add a verdict per length."""
    rows = []
    for r in ours.itertuples():
        if r.length not in paper_a.index:
            continue
        pa, pb, pp = paper_a[r.length], paper_b[r.length], paper_p[r.length]
        rows.append({"N": r.length, "paper a": pa, "paper b": pb, "paper b-a": round(pb - pa, 2), "paper p": pp,
                     "ours a": round(r.mean_a, 1), "ours b": round(r.mean_b, 1), "ours b-a": round(r.diff, 2),
                     "ours p": float(f"{r.p_value:.2g}"), "seeds": r.n,
                     "verdict": verdict(pb - pa, pp, r.diff, r.p_value)})
    return pd.DataFrame(rows)
