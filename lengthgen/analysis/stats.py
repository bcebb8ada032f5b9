"""Paired comparisons across seeds (the paper's test): mean difference and paired t-test p-value."""

import pandas as pd
from scipy import stats

from lengthgen.metrics import ACCURACY, ACCURACY_ADAPTIVE


def paired_comparison(df: pd.DataFrame, a: str, b: str, metric_a: str = ACCURACY, metric_b: str | None = None,
                      by: tuple[str, ...] = ("task", "length")) -> pd.DataFrame:
    """Compare variant `b` against variant `a` seed by seed.

    Args:
        df: tidy results with columns variant, seed, metric, value and the `by` columns.
        a, b: the variants compared (b - a).
        metric_a, metric_b: the metrics compared (metric_b defaults to metric_a).

    Returns:
        One row per `by` group: mean_a, mean_b, diff (b - a), p_value (two-sided paired t-test), n (pairs).
    """
    metric_b = metric_b or metric_a
    left = df[(df.variant == a) & (df.metric == metric_a)].set_index([*by, "seed"]).value.rename("a")
    right = df[(df.variant == b) & (df.metric == metric_b)].set_index([*by, "seed"]).value.rename("b")
    paired = pd.concat([left, right], axis=1, join="inner").reset_index()
    rows = []
    for key, g in paired.groupby(list(by)):
        d = g.b - g.a
        if len(g) < 2:
            p = float("nan")
        elif d.nunique() == 1:  # no spread: the t statistic is 0/0 or ±inf
            p = 1.0 if d.iloc[0] == 0 else 0.0
        else:
            p = float(stats.ttest_rel(g.b, g.a).pvalue)
        rows.append({**dict(zip(by, key, strict=True)), "mean_a": g.a.mean(), "mean_b": g.b.mean(),
                     "diff": g.b.mean() - g.a.mean(), "p_value": p, "n": len(g)})
    return pd.DataFrame(rows)


def paired_tables(df: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """`paired_comparison` of b vs a with the plain and with the adaptive softmax (column `softmax`), one row per
    (task, N), means and differences rounded for reading."""
    plain = paired_comparison(df, a, b).assign(softmax="plain")
    adaptive = paired_comparison(df, a, b, metric_a=ACCURACY_ADAPTIVE).assign(softmax="adaptive θ")
    return pd.concat([plain, adaptive]).round({"mean_a": 1, "mean_b": 1, "diff": 2})
