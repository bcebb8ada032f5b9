"""Paired comparisons across seeds (the paper's test): mean difference and paired t-test p-value; the Student's t
half-width of a mean's confidence interval (`t_half_width`)."""

import pandas as pd
from scipy import stats

from lengthgen.metrics import ACCURACY, ACCURACY_ADAPTIVE


def t_half_width(values: pd.Series, quantile: float) -> float:
    """Student's t quantile times the standard error of the mean of `values` (ddof 1): the half-width of a two-sided
    interval at quantile 0.975 (95%), the distance to a one-sided lower bound at 0.95."""
    return float(stats.t.ppf(quantile, len(values) - 1) * values.std() / len(values) ** 0.5)


def paired_comparison(df: pd.DataFrame, a: str, b: str, metric_a: str = ACCURACY, metric_b: str | None = None,
                      by: tuple[str, ...] = ("task", "length"), relative_to: str | None = None) -> pd.DataFrame:
    """Compare variant `b` against variant `a` seed by seed.

    Args:
        df: tidy results with columns variant, seed, metric, value and the `by` columns.
        a, b: the variants compared (b - a).
        metric_a, metric_b: the metrics compared (metric_b defaults to metric_a).
        relative_to: optional third variant: mean_a and mean_b are then the mean gains a - it and b - it (each in
            its own metric) over the seeds of the a, b pairs, NaN where it lacks one of them; the way a paper prints
            two variants as deltas against a baseline. diff, p_value and n stay those of b against a.

    Returns:
        One row per `by` group: mean_a, mean_b, diff (b - a), p_value (two-sided paired t-test), ci95 (half-width
        of the t-interval of diff at 95%: diff +- ci95; NaN with one pair, 0 when every pair differs alike), n (pairs).
    """
    metric_b = metric_b or metric_a

    def values(variant: str, metric: str) -> pd.Series:
        return df[(df.variant == variant) & (df.metric == metric)].set_index([*by, "seed"]).value

    paired = pd.concat([values(a, metric_a).rename("a"), values(b, metric_b).rename("b")], axis=1, join="inner")
    if relative_to is None:
        paired["base_a"] = paired["base_b"] = 0.0
    else:
        paired["base_a"] = values(relative_to, metric_a).reindex(paired.index)
        paired["base_b"] = values(relative_to, metric_b).reindex(paired.index)
    rows = []
    for key, g in paired.reset_index().groupby(list(by)):
        d = g.b - g.a
        if len(g) < 2:
            p = ci95 = float("nan")
        elif d.nunique() == 1:  # no spread: the t statistic is 0/0 or ±inf
            p, ci95 = (1.0 if d.iloc[0] == 0 else 0.0), 0.0
        else:
            p = float(stats.ttest_rel(g.b, g.a).pvalue)
            ci95 = t_half_width(d, 0.975)
        rows.append({**dict(zip(by, key, strict=True)), "mean_a": (g.a - g.base_a).mean(skipna=False),
                     "mean_b": (g.b - g.base_b).mean(skipna=False), "diff": d.mean(),
                     "p_value": p, "ci95": ci95, "n": len(g)})
    return pd.DataFrame(rows)


def paired_tables(df: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """`paired_comparison` of b vs a with the plain and with the adaptive softmax (column `softmax`), one row per
    (task, N), means and differences rounded for reading."""
    plain = paired_comparison(df, a, b).assign(softmax="plain")
    adaptive = paired_comparison(df, a, b, metric_a=ACCURACY_ADAPTIVE).assign(softmax="adaptive θ")
    return pd.concat([plain, adaptive]).round({"mean_a": 1, "mean_b": 1, "diff": 2})
