"""Paired comparisons (analysis/stats.py) against scipy and hand-computed intervals."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from lengthgen.analysis import stats


def test_paired_comparison_matches_scipy():
    rng = np.random.default_rng(0)
    a, b = rng.normal(50, 5, 8), rng.normal(52, 5, 8)
    df = pd.DataFrame({"task": "t", "length": 16, "metric": "accuracy", "seed": list(range(8)) * 2,
                       "variant": ["x"] * 8 + ["y"] * 8, "value": np.concatenate([a, b])})
    row = stats.paired_comparison(df, "x", "y").iloc[0]
    assert row["diff"] == pytest.approx((b - a).mean())
    assert row["p_value"] == pytest.approx(sps.ttest_rel(b, a).pvalue)
    assert row["n"] == 8


def test_paired_comparison_pairs_by_seed_not_by_order():
    df = pd.DataFrame({"task": "t", "length": 16, "metric": "accuracy", "seed": [0, 1, 2, 2, 1, 0],
                       "variant": ["x"] * 3 + ["y"] * 3, "value": [1.0, 2.0, 3.0, 4.0, 3.0, 2.0]})
    row = stats.paired_comparison(df, "x", "y").iloc[0]
    assert row["diff"] == pytest.approx(1.0) and row["p_value"] == pytest.approx(0.0, abs=1e-12)


def test_paired_comparison_relative_to_a_baseline_gives_each_variants_gain_on_the_pairs_seeds():
    values = {("base", 0): 10.0, ("base", 1): 20.0, ("base", 2): 99.0,  # seed 2 has no x, y pair: left out
              ("x", 0): 13.0, ("x", 1): 21.0, ("y", 0): 15.0, ("y", 1): 24.0, ("y", 2): 0.0}
    df = pd.DataFrame([{"task": "t", "length": 16, "metric": "accuracy", "variant": v, "seed": s, "value": x}
                       for (v, s), x in values.items()])
    row = stats.paired_comparison(df, "x", "y", relative_to="base").iloc[0]
    assert (row.mean_a, row.mean_b) == (2.0, 4.5)  # x gains 3 and 1, y gains 5 and 4
    plain = stats.paired_comparison(df, "x", "y").iloc[0]
    assert (row["diff"], row.p_value, row.n) == (plain["diff"], plain.p_value, 2) and plain.mean_a == 17.0
    without_base_1 = stats.paired_comparison(df[~((df.variant == "base") & (df.seed == 1))], "x", "y",
                                             relative_to="base").iloc[0]
    assert np.isnan(without_base_1.mean_a) and np.isnan(without_base_1.mean_b)  # never a gain over other seeds


def test_paired_comparison_gives_the_95_percent_interval_of_the_mean_difference():
    df = pd.DataFrame({"task": "t", "length": 16, "metric": "accuracy", "seed": [0, 1, 2] * 2,
                       "variant": ["x"] * 3 + ["y"] * 3, "value": [5.0, 5.0, 5.0, 6.0, 7.0, 8.0]})
    row = stats.paired_comparison(df, "x", "y").iloc[0]
    # differences 1, 2, 3: mean 2, std 1; t(0.975, 2) = 4.3027
    assert row["diff"] == 2.0 and row.ci95 == pytest.approx(4.3027 / 3**0.5, rel=1e-4)
    alike = stats.paired_comparison(df.assign(value=[5.0, 5.0, 5.0, 7.0, 7.0, 7.0]), "x", "y").iloc[0]
    assert alike.ci95 == 0.0 and np.isnan(stats.paired_comparison(df[df.seed == 0], "x", "y").iloc[0].ci95)
