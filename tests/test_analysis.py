import numpy as np
import pandas as pd
import pytest
import torch
from scipy import stats as sps

from lengthgen.analysis import compare, figures, stats, variance, verdicts
from lengthgen.analysis.attention import top_k
from lengthgen.display import for_display, in_parts


def test_loglog_slope_exact_on_power_law():
    n = np.array([2, 4, 8, 16, 32])
    assert variance.loglog_slope(n, 3.0 * n**-0.5) == pytest.approx(-0.5)


def test_sample_counts_sum_to_length_and_match_probabilities():
    probs = torch.tensor([0.5, 0.25, 0.125, 0.125], dtype=torch.float64)
    counts = variance.sample_counts(4000, 1000, probs, torch.Generator().manual_seed(0))
    assert torch.all(counts.sum(1) == 1000)
    assert torch.allclose(counts.mean(0) / 1000, probs, atol=0.005)
    # multinomial variance of one count: N p (1 - p) = 1000 * 0.5 * 0.5 = 250
    assert counts[:, 0].var().item() == pytest.approx(250, rel=0.1)


def test_prop1_variance_falls_like_one_over_n():
    df = variance.prop1_variance([2**k for k in range(4, 15)], n_sequences=2000, seed=0)
    curve = df.groupby("length").variance.mean()
    assert variance.loglog_slope(curve.index, curve.values) == pytest.approx(-1.0, abs=0.05)


def test_prop1_mean_zero_assumption_does_not_change_the_variance():
    """Softmax averages are shift-equivariant: centring the values leaves Var(O_d) unchanged."""
    a = variance.prop1_variance([4, 64, 1024], n_sequences=300, mean_zero=True, seed=3)
    b = variance.prop1_variance([4, 64, 1024], n_sequences=300, mean_zero=False, seed=3)
    np.testing.assert_allclose(a.variance, b.variance, rtol=1e-9)


def test_global_stats_hand_computed():
    out = torch.tensor([[1.0, 3.0], [0.0, 4.0]])  # means 2, 2; variances 1, 4
    assert variance.global_stats(out) == {"global_mean": 2.0, "global_var": 2.5}


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


@pytest.mark.parametrize("paper,ours,ci95,expected", [
    (1.0, 2.0, 1.5, "reproduced"),
    (0.5, 2.0, 1.5, "reproduced"),  # on the interval's edge
    (0.0, 2.0, 1.5, "not reproduced (ours higher)"),
    (4.0, 2.0, 1.5, "not reproduced (ours lower)"),
    (2.0, 2.0, float("nan"), "inconclusive (one seed pair)"),
])
def test_gain_verdict_reads_the_papers_number_against_our_interval(paper, ours, ci95, expected):
    assert verdicts.gain_verdict(paper, ours, ci95) == expected


@pytest.mark.parametrize("pd_,pp,od,op,expected", [
    (2.0, 0.01, 1.0, 0.01, "reproduced"),
    (2.0, 0.01, -1.0, 0.01, "not reproduced (opposite sign)"),
    (2.0, 0.01, 1.0, 0.30, "inconclusive (ours not significant)"),
    (0.1, 0.60, 0.0, 0.90, "reproduced (no difference)"),
    (0.1, 0.60, 3.0, 0.001, "not reproduced (we find a difference)"),
])
def test_verdict_rules(pd_, pp, od, op, expected):
    assert verdicts.verdict(pd_, pp, od, op) == expected


@pytest.mark.parametrize("paper,lo,hi,iid,expected", [
    (95.0, 90.0, 90.0, None, "reproduced"),  # one seed: within TOLERANCE (5 points)
    (95.0, 89.0, 89.0, None, "not reproduced (ours lower)"), (5.0, 95.0, 95.0, None, "not reproduced (ours higher)"),
    (33.3, 23.0, 23.0, None, "not reproduced (ours lower)"),  # both "partial" in bands, ten points apart: off
    (33.3, 23.0, 41.0, None, "reproduced"),  # the paper's value inside our seeds' range
    (50.0, 0.0, 44.9, None, "not reproduced (ours lower)"), (50.0, 0.0, 45.0, None, "reproduced"),  # closed at 5
    (0.0, 0.0, 0.0, 40.0, "not trained"),  # agrees with the paper, but the model never learned its task
    (100.0, 100.0, 100.0, 89.9, "not trained"), (0.0, 0.0, 0.0, 90.0, "reproduced"),
    (100.0, 0.0, 0.0, 95.0, "not reproduced (ours lower)"),
    (100.0, 100.0, 100.0, float("nan"), "reproduced"),  # no iid split: not judged on it
    (100.0, 0.0, 100.0, 99.0, "reproduced (seeds split)"),  # seeds 0 / 100 / 0: the paper's 100 within their range
    (95.0, 10.0, 90.0, None, "reproduced (seeds split)"), (95.0, 10.1, 95.0, None, "reproduced"),  # band edges
    (50.0, 5.0, 89.9, None, "reproduced"), (100.0, 0.0, 80.0, None, "not reproduced (ours lower)"),
])
def test_cell_verdict_uses_our_seeds_range_and_sets_untrained_cells_apart(paper, lo, hi, iid, expected):
    assert verdicts.cell_verdict(paper, lo, hi, iid) == expected


def test_more_seeds_can_bring_a_cell_into_reproduced_but_never_take_it_out():
    """What Methods says of the range rule: added seeds only widen the range (the fit bar aside)."""
    rng, gained = np.random.default_rng(0), 0
    for _ in range(2000):
        seeds, paper = rng.choice([0.0, 3.0, 20.0, 50.0, 85.0, 97.0, 100.0], size=5), rng.uniform(0, 100)
        first = verdicts.cell_verdict(paper, seeds[:3].min(), seeds[:3].max())
        every = verdicts.cell_verdict(paper, seeds.min(), seeds.max())
        assert every.startswith("reproduced") or not first.startswith("reproduced")
        gained += every.startswith("reproduced") and not first.startswith("reproduced")
    assert gained > 100  # the other way happens, often


@pytest.mark.parametrize("mean,std,n,ours,expected", [
    (20.0, 5.0, 5, [19.0, 22.0, 21.0], "reproduced (no significant difference)"),
    (15.0, 0.15, 5, [14.0, 14.2, 13.9], "not reproduced (ours lower)"),
    (8.4, 1.2, 5, [20.0, 22.0, 21.0], "not reproduced (ours higher)"),
    (24.6, 17.5, 5, [0.0], "inconclusive (one seed)"),  # no spread of ours to test
    (15.0, 0.0, 5, [15.0, 15.0], "reproduced (no significant difference)"),  # neither varies: equal means
    (15.0, 0.0, 5, [14.0, 14.0], "not reproduced (ours lower)"),
])
def test_mean_verdict_is_welchs_test(mean, std, n, ours, expected):
    verdict, p = verdicts.mean_verdict(mean, std, n, ours)
    assert verdict == expected
    if len(ours) > 1 and std > 0:  # against the test written out: t on the two standard errors, Welch's df
        m, s2 = sum(ours) / len(ours), pd.Series(ours).var()
        se2 = s2 / len(ours) + std**2 / n
        df = se2**2 / ((s2 / len(ours)) ** 2 / (len(ours) - 1) + (std**2 / n) ** 2 / (n - 1))
        assert p == pytest.approx(2 * sps.t.sf(abs(m - mean) / se2**0.5, df))


@pytest.mark.parametrize("paper,ours,expected", [
    ([0, 10, 20, 30, 40, 50], [1, 12, 18, 35, 41, 60], "reproduced"),  # the same order: rho 1
    ([0, 10, 20, 30, 40, 50], [60, 41, 35, 18, 12, 1], "not reproduced"),  # reversed: rho -1
    ([0, 10, 20, 30], [0, 20, 10, 30], "inconclusive (too few cells)"),  # rho 0.8 on four cells: p 0.2
    ([100, 100, 100], [0, 50, 100], "inconclusive (a constant side)"),
])
def test_ranking_verdict_is_a_rank_correlation(paper, ours, expected):
    verdict, rho, _ = verdicts.ranking_verdict(paper, ours)
    assert verdict == expected
    if expected.startswith(("reproduced", "not")):
        assert rho == pytest.approx(1.0 if expected == "reproduced" else -1.0)


@pytest.mark.parametrize("fit,expected", [(89.9, "not trained"), (90.0, "reproduced (no significant difference)"),
                                          (float("nan"), "reproduced (no significant difference)"),
                                          (None, "reproduced (no significant difference)")])
def test_mean_verdict_sets_runs_that_did_not_fit_their_training_data_apart(fit, expected):
    verdict, p = verdicts.mean_verdict(20.0, 5.0, 5, [19.0, 22.0, 21.0], fit)
    assert verdict == expected and (p != p) == (expected == "not trained")  # p NaN only when not judged


def test_mean_side_by_side_keeps_every_paper_row_and_averages_our_seeds():
    paper = {"a": (20.0, 5.0), "b": (15.0, 0.15), "c": (10.0, 1.0)}
    runs = pd.DataFrame({"variant": ["b", "a", "a"], "value": [14.0, 12.0, 16.0]})
    side = compare.mean_side_by_side(paper, runs, 5)
    assert list(side.index) == ["a", "b", "c"]
    assert side.loc["a", "ours"] == 14.0 and side.loc["a", "seeds"] == 2
    assert side.loc["a", "std"] == pytest.approx(2 ** 1.5)  # sample std of 12 and 16
    assert side.verdict.tolist() == ["reproduced (no significant difference)", "inconclusive (one seed)",
                                     verdicts.NOT_RUN]
    assert side.loc["a", "p"] == pytest.approx(verdicts.mean_verdict(20.0, 5.0, 5, [12.0, 16.0])[1])
    assert side.loc["c", "seeds"] == 0 and pd.isna(side.loc["c", "ours"])
    fit = pd.DataFrame({"variant": ["b", "a", "a"], "value": [100.0, 80.0, 90.0]})  # a's median 85: not trained
    fitted = compare.mean_side_by_side(paper, runs, 5, fit=fit)
    assert fitted["in distribution"].tolist()[:2] == [85.0, 100.0] and pd.isna(fitted.loc["c", "in distribution"])
    assert fitted.verdict.tolist() == [verdicts.NOT_TRAINED, "inconclusive (one seed)", verdicts.NOT_RUN]


def test_divergences_groups_the_splits_of_a_cell_that_share_a_reason():
    side = pd.DataFrame({
        "variant": ["mono"] * 4 + ["content"] * 3,
        "task": ["copy"] * 4 + ["lookup"] * 3,
        "length": ["100", "iid", "15", "30", "7", "9", "11"],
        "verdict": ["not reproduced", "reproduced", "partly", "partly", "reproduced", "partly", "partly"],
        "reason": ["lower", "", "lower", "higher", "", "lower", "lower"]})
    table = compare.divergences(side)
    assert table.to_dict("records") == [
        {"variant": "mono", "task": "copy", "reason": "lower", "splits": "15, 100",
         "verdicts": "partly, not reproduced"},
        {"variant": "mono", "task": "copy", "reason": "higher", "splits": "30", "verdicts": "partly"},
        {"variant": "content", "task": "lookup", "reason": "lower", "splits": "9, 11", "verdicts": "partly"}]
    assert compare.divergences(side.assign(verdict="reproduced")).empty
    assert compare.divergences(side.assign(verdict=verdicts.SEEDS_SPLIT)).empty  # reproduced, seeds apart


def test_paired_side_by_side_joins_on_shared_lengths_with_a_verdict_per_length():
    ours = pd.DataFrame({"length": [16, 64, 4096], "mean_a": [97.04, 80.0, 10.0], "mean_b": [95.9, 85.0, 12.0],
                         "diff": [-1.14, 5.0, 2.0], "p_value": [0.0250, 0.00052, 0.3], "n": [20, 20, 20]})
    lengths = [16, 64]  # the paper has no row at 4096
    paper_a, paper_b = pd.Series([99.6, 98.4], index=lengths), pd.Series([99.6, 98.6], index=lengths)
    side = compare.paired_side_by_side(ours, paper_a, paper_b, pd.Series([0.8, 0.00004], index=lengths))
    assert side.N.tolist() == [16, 64]
    assert side["paper b-a"].tolist() == [0.0, 0.2] and side["ours a"].tolist() == [97.0, 80.0]
    assert side["paper p"].tolist() == ["0.8", "4e-05"] and side["ours p"].tolist() == ["0.025", "0.00052"]
    assert side.verdict.tolist() == ["not reproduced (we find a difference)", "reproduced"]


def test_top_k_sorted():
    w = torch.tensor([[0.1, 0.6, 0.3]])
    assert torch.equal(top_k(w, 2), torch.tensor([[0.6, 0.3]]))
    assert top_k(w, 10).shape == (1, 3)


def test_training_curves_dropdown_shows_exactly_one_tasks_loss_and_dev_lines():
    history = pd.DataFrame([{"task": t, "variant": v, "epoch": e, "train_loss": 1.0 / (e + 1), "dev_score": 10.0 * e}
                            for t in ("copy", "lookup") for v in ("content", "onestep", "mono") for e in range(4)])
    history = history[~((history.task == "lookup") & (history.variant == "mono"))]  # a cell not run
    fig = figures.training_curves(history, "curves")
    assert len(fig.data) == 2 * 5 and [t.visible for t in fig.data] == [True] * 6 + [False] * 4
    lookup = fig.layout.updatemenus[0].buttons[1]
    assert lookup.label == "lookup" and lookup.args[0]["visible"] == [False] * 6 + [True] * 4
    gated = history.assign(direction_gate=history.variant.map({"content": float("nan"), "onestep": 0.9, "mono": 0.1}))
    fig = figures.training_curves(gated, "curves")  # a third panel: the gates of onestep and mono, not content's
    assert len(fig.data) == 2 * 5 + 3 and [t.yaxis for t in fig.data[:8]] == ["y", "y2"] * 1 + ["y", "y2", "y3"] * 2
    assert [t.visible for t in fig.data] == [True] * 8 + [False] * 5 and fig.layout.yaxis3.range == (-0.05, 1.05)
    assert [t.name for t in fig.data if t.showlegend] == ["content", "onestep", "mono", "content", "onestep"]
    assert list(fig.data[1].y) == [0.0, 10.0, 20.0, 30.0]  # the dev row of copy/content


def _runs(rows, metric="accuracy"):
    return pd.DataFrame([dict(task=t, variant=v, seed=s, length=n, metric=metric, value=x) for t, v, s, n, x in rows])


def test_splits_sort_by_length_not_as_strings():
    assert sorted(["100", "iid", "15", "test", "30"], key=compare.split_order) == ["iid", "15", "30", "100", "test"]


def test_longest_accuracy_reads_the_longest_split_whatever_the_stored_order():
    copy = _runs([("copy", "mono", 0, "iid", 99.0), ("copy", "mono", 0, "100", 3.0), ("copy", "mono", 0, "15", 80.0),
                  ("copy", "mono", 0, "train", 1.0)])
    lookup = _runs([("lookup", "mono", 0, "11", 7.0), ("lookup", "mono", 0, "7", 50.0),
                    ("lookup", "mono", 0, "9", 9.0)])
    longest = compare.longest_accuracy(pd.concat([copy, lookup]))  # as collected: the row labels repeat
    assert longest["copy", "mono", 0] == 3.0 and longest["lookup", "mono", 0] == 7.0


def test_fit_and_length_flags_fitted_failures_by_hand():
    history = pd.DataFrame([dict(task="copy", variant=v, seed=0, epoch=e, train_loss=loss)
                            for v, e, loss in [("a", 2, 0.01), ("a", 1, 0.9),   # last epoch fits
                                               ("b", 1, 0.01), ("b", 2, 0.3),   # last epoch does not
                                               ("c", 1, 0.02)]])
    runs = _runs([("copy", "a", 0, "100", 0.0), ("copy", "b", 0, "100", 0.0), ("copy", "c", 0, "100", 95.0),
                  ("copy", "d", 0, "100", 0.0)])  # d has no history: left out
    table = compare.fit_and_length(history, runs).droplevel(["task", "seed"])
    assert list(table.index) == ["a", "b", "c"]
    assert list(table.fitted) == [True, False, True] and list(table.failed) == [True, True, False]
    assert table.train_loss["b"] == 0.3


def test_early_breaks_keeps_learned_runs_at_the_longest_split():
    accuracy = _runs([("copy", v, 0, n, x) for v, iid, far in [("a", 100.0, 0.0), ("b", 95.0, 20.0), ("c", 50.0, 0.0)]
                      for n, x in [("iid", iid), ("100", far), ("15", far)]])
    first = _runs([("copy", "a", 0, "100", 3.0), ("copy", "a", 0, "15", 12.0),  # a breaks early at 100
                   ("copy", "b", 0, "100", 11.0), ("copy", "b", 0, "15", 2.0),  # b breaks after the training range
                   ("copy", "c", 0, "100", 1.0)],                               # c never learned: left out
                  metric="first_error")
    table = compare.early_breaks(pd.concat([accuracy, first]), {"copy": 11}).droplevel(["task", "seed"])
    assert list(table.index) == ["a", "b"]
    assert list(table.first_error) == [3.0, 11.0] and list(table.early) == [True, False]
    assert list(table.trained) == [11, 11]


def test_separation_judges_the_paper_solved_and_failed_cells_at_the_longest_split():
    side = pd.DataFrame([dict(task=t, variant=v, length=n, paper=p, ours=o, iid=i,
                              verdict=verdicts.cell_verdict(p, o, o, i)) for t, v, n, p, o, i in [
        ("copy", "mono", "100", 100.0, 98.0, 100.0), ("copy", "content", "100", 0.0, 5.0, 99.0),
        ("copy", "mono", "15", 100.0, 0.0, 100.0),  # not the longest split: not judged
        ("lookup", "mono", "11", 29.9, 0.0, None),  # partial in the paper: not judged
        ("lookup", "relative", "11", 100.0, 40.0, None), ("lookup", "content", "11", 0.0, 0.0, None),
        ("lookup", "onestep", "11", 100.0, 3.0, None),  # no iid accuracy: none shown
        ("lookup", "relative", "9", 100.0, 100.0, None),
        ("recopy", "mono", "100", 100.0, 100.0, 99.0),
        ("recopy", "content", "100", 0.0, 0.0, 40.0)]])  # 0% like the paper, but never learned recopy
    runs = _runs([("lookup", "relative", s, "iid", x) for s, x in [(0, 97.0), (1, 99.0)]])  # Lookup's estimated iid
    sep = compare.separation(side, runs)
    assert sep.loc["copy", "same separation"] == "yes" and sep.loc["copy", "split"] == "100"
    assert sep.loc["copy", "paper: solved by"] == "mono" and sep.loc["copy", "ours: solved by"] == "mono"
    assert sep.loc["lookup", "same separation"] == "no" and sep.loc["lookup", "split"] == "11"
    assert sep.loc["lookup", "ours: solved by"] == "none" and sep.loc["lookup", "mechanisms"] == 4
    assert sep.loc["lookup", "off the paper's pattern (ours, ours iid)"] == "relative (40%, ≈98% iid), onestep (3%)"
    assert sep.loc["recopy", "same separation"] == "not judged" and sep.loc["recopy", "not trained"] == \
        "content (40% iid)"
    assert sep.loc["copy", "not trained"] == "none"
    assert compare.separation(side.iloc[:0], runs).empty  # no cell in common with the paper: an empty table


def test_an_iid_cell_is_judged_on_its_number_and_vouches_for_no_length_cell():
    """Table 6's PosRetrieve / OneStep, seed 0: iid 73.6 (paper 70.6), 0 at 15 (paper 0). The iid cell is within
    5 points: reproduced; the length cell of the same runs, 74% in distribution, is not trained."""
    paper = pd.DataFrame({"variant": "onestep", "task": "posretrieve", "length": ["iid", "15"], "paper": [70.6, 0.0]})
    ours = compare.median_over_seeds(_runs([("posretrieve", "onestep", 0, "iid", 73.6),
                                             ("posretrieve", "onestep", 0, "15", 0.0)]))
    side = compare.cell_side_by_side(paper, ours, lambda row: "why").set_index("length")
    assert side.verdict.tolist() == ["reproduced", verdicts.NOT_TRAINED]
    assert side.reason.tolist() == ["", "why"] and side.iid.tolist() == [73.6, 73.6]


def test_verdict_changes_lists_the_cells_whose_verdict_more_seeds_change():
    """Copy / Mono solves in seeds 0-2 and fails in 3 and 4 (paper 100): reproduced on three seeds, seeds split on
    five. Copy / Content fails in every seed (paper 0): reproduced either way, so not listed."""
    values = {"mono": [100.0, 100.0, 100.0, 0.0, 0.0], "content": [0.0] * 5}
    runs = _runs([("copy", v, s, n, x if n == "100" else 100.0) for v in values for s, x in enumerate(values[v])
                  for n in ("iid", "100")])
    paper = pd.DataFrame({"variant": ["mono", "content"], "task": "copy", "length": "100", "paper": [100.0, 0.0]})

    def side(seeds):
        return compare.cell_side_by_side(paper, compare.median_over_seeds(runs[runs.seed.isin(seeds)]),
                                         lambda row: "why")

    changes = compare.verdict_changes(side([0, 1, 2]), side([0, 1, 2, 3, 4]))
    assert changes[["variant", "verdict before", "verdict after"]].values.tolist() == [
        ["mono", "reproduced", verdicts.SEEDS_SPLIT]]
    assert changes.loc[0, ["paper", "ours before", "ours after", "lo", "hi"]].tolist() == [100.0, 100.0, 100.0, 0.0,
                                                                                            100.0]
    assert compare.verdict_changes(side([0, 1, 2]), side([0, 1, 2])).empty


def test_median_over_seeds_carries_the_cells_iid_accuracy():
    runs = _runs([("copy", "mono", 0, "iid", 80.0), ("copy", "mono", 1, "iid", 100.0),
                  ("copy", "mono", 0, "100", 0.0), ("copy", "mono", 1, "100", 50.0),
                  ("lookup", "mono", 0, "11", 7.0)])
    cells = compare.median_over_seeds(runs).set_index(["task", "length"])
    assert cells.loc[("copy", "100"), ["ours", "seeds", "iid"]].tolist() == [25.0, 2, 90.0]
    assert pd.isna(cells.loc[("lookup", "11"), "iid"])


def test_failures_by_counts_each_group():
    table = pd.DataFrame({"reads": ["right way", "right way", "wrong way", "right way"],
                          "accuracy at the longest split": [0.0, 95.0, 10.0, 50.0]})
    counts = compare.failures_by(table, "reads")
    assert counts.loc["right way"].tolist() == [1, 3] and counts.loc["wrong way"].tolist() == [1, 1]


def test_per_seed_keeps_multi_seed_cells_and_finds_band_disagreements():
    runs = _runs([("copy", "mono", 0, "15", 100.0), ("copy", "mono", 0, "100", 100.0), ("copy", "mono", 0, "iid", 100),
                  ("copy", "mono", 1, "15", 100.0), ("copy", "mono", 1, "100", 0.0), ("copy", "mono", 1, "iid", 100),
                  ("lookup", "mono", 0, "11", 95.0), ("lookup", "mono", 1, "11", 99.0),
                  ("copy", "content", 0, "100", 0.0)])  # one seed only: left out
    seeds = compare.per_seed(runs)
    assert list(seeds.columns) == ["iid", "11", "15", "100"]
    assert set(seeds.index.droplevel("seed")) == {("mono", "copy"), ("mono", "lookup")}
    assert np.isnan(seeds.loc[("mono", "lookup", 0), "100"])
    disagree = compare.seeds_disagree(seeds)
    assert disagree["mono", "copy"] and not disagree["mono", "lookup"]  # lookup's longest split is 11, both solved


def test_paper_beside_ours_puts_our_median_under_the_paper_row():
    paper = pd.DataFrame([dict(variant="mono", task="copy", length=n, paper=p) for n, p in [("15", 1.0), ("30", 2.0)]]
                         + [dict(variant="mono", task="lookup", length="7", paper=9.0)])  # not run: left out
    runs = _runs([("copy", "mono", s, "15", x) for s, x in [(0, 4.0), (1, 6.0), (2, 100.0)]], metric="edit_distance")
    table = compare.paper_beside_ours(paper, runs, "ours", metric="edit_distance")
    assert list(table.columns) == [("copy", "15"), ("copy", "30")]
    assert table.loc[("mono", "ours"), ("copy", "15")] == 6.0       # median of 4, 6, 100
    assert np.isnan(table.loc[("mono", "ours"), ("copy", "30")])    # no run at that split
    shown = for_display(table)
    assert shown.loc[("mono", "ours"), ("copy", "30")] == "–" and shown.loc[("mono", "paper"), ("copy", "30")] == 2.0


def test_in_parts_cuts_a_wide_table_by_its_first_column_level_in_order():
    columns = pd.MultiIndex.from_tuples([(t, n) for t in ("copy", "lookup", "recopy") for n in ("7", "15")])
    table = pd.DataFrame([range(6)], columns=columns)
    parts = in_parts(table, 2)
    assert [list(p.columns) for p in parts] == [list(columns[:4]), list(columns[4:])]
    assert pd.concat(parts, axis=1).equals(table)
    assert len(in_parts(table, 3)) == 1


def test_accuracy_grid_aligns_panels_and_marks_cells_not_run():
    df = pd.DataFrame([dict(source=src, variant=v, task="copy", length=n, value=x) for src, v, n, x in [
        ("paper", "content", 15, 0.0), ("paper", "mono", 15, 100.0), ("paper", "mono", 30, 98.2),
        ("ours", "mono", 30, 50.0), ("ours", "content", 15, 3.0)]])  # ours lacks mono at 15, in another order
    fig = figures.accuracy_grid(df, "grid")
    paper, ours = fig.data
    assert list(paper.y) == ["mono", "content"] and list(ours.y) == ["mono", "content"]
    assert list(paper.x) == ["copy 15", "copy 30"] and list(ours.x) == ["copy 15", "copy 30"]
    assert list(paper.text[0]) == ["100", "98.2"]
    assert list(ours.text[0]) == ["–", "50"] and list(ours.text[1]) == ["3", "–"]


def test_break_points_draws_one_box_per_split_and_the_training_length_per_task():
    df = pd.DataFrame([dict(task=t, variant=v, split=s, first_error=k) for t, v, s, k in [
        ("copy", "content", "15", 4), ("copy", "content", "100", 3), ("copy", "locattn", "100", 0),
        ("recopy", "mono", "100", 30)]])
    fig = figures.break_points(df, {"copy": 10, "recopy": 46}, "breaks")
    assert sorted({t.name for t in fig.data}) == ["100", "15"]
    lines = [shape for shape in fig.layout.shapes if shape.line.dash == "dash"]
    assert sorted((shape.y0, shape.yref) for shape in lines) == [(10, "y"), (46, "y2")]
    assert sorted(y for t in fig.data for y in t.y) == [0, 3, 4, 30]


def test_medians_use_only_an_odd_number_of_the_seeds_every_cell_has():
    cells = [("copy", "mono"), ("copy", "content"), ("lookup", "mono")]
    values = {("copy", "mono"): [0.0, 100.0, 100.0, 100.0, 100.0], ("copy", "content"): [0.0, 0.0, 0.0, 0.0, 0.0],
              ("lookup", "mono"): [50.0, 0.0, 70.0, 10.0, 60.0]}
    have = {("copy", "mono"): (0, 1, 2, 3, 4), ("copy", "content"): (0, 2, 3, 4), ("lookup", "mono"): (0, 2, 3, 4)}
    runs = _runs([(t, v, s, "100", values[t, v][s]) for t, v in cells for s in have[t, v]])
    kept, seeds = compare.on_common_seeds(runs)
    assert seeds == [0, 2, 3] and set(kept.seed) == {0, 2, 3}  # common: 0, 2, 3, 4; the highest of four left out
    medians = compare.median_over_seeds(kept).set_index(["task", "variant"])
    assert medians.loc[("copy", "mono"), "ours"] == 100.0  # seeds 0, 2, 3; seed 1, run for this cell only, left out
    assert medians.loc[("lookup", "mono"), ["ours", "lo", "hi", "seeds"]].tolist() == [50.0, 10.0, 70.0, 3]
    two = runs[runs.seed.isin([0, 2])]  # two common seeds would give copy/mono the mean of 0 and 100: one is kept
    assert compare.on_common_seeds(two)[1] == [0]
    assert compare.median_over_seeds(compare.on_common_seeds(two)[0]).set_index(["task", "variant"]).loc[
        ("copy", "mono"), "ours"] == 0.0
    assert compare.on_common_seeds(runs.iloc[:0])[1] == []


@pytest.mark.parametrize("holds,pairs,expected", [(5, 5, "reproduced"), (0, 5, "not reproduced"),
                                                  (3, 5, "partly (3 of 5 pairs)")])
def test_share_verdict_counts_the_pairs_a_claim_holds_in(holds, pairs, expected):
    assert verdicts.share_verdict(holds, pairs) == expected


@pytest.mark.parametrize("slopes,expected", [([-1.02, -0.95, -1.08], "reproduced"), ([-1.0, -0.89], "not reproduced"),
                                             ([-1.1], "not reproduced"), ([-0.5, -1.0], "not reproduced")])
def test_exponent_verdict_needs_every_slope_within_a_tenth_of_the_law(slopes, expected):
    assert verdicts.exponent_verdict(slopes, -1.0) == expected


@pytest.mark.parametrize("slope,expected", [(-0.5, "reproduced"), (-0.45, "reproduced"), (-0.9, "reproduced"),
                                            (-0.44, "partly"), (-0.01, "partly"), (0.0, "not reproduced"),
                                            (0.3, "not reproduced")])
def test_decay_verdict_reads_steeper_as_reproduced_and_slower_as_partly(slope, expected):
    assert verdicts.decay_verdict(slope, -0.5) == expected


def test_pair_readings_read_every_pair_as_the_figures_do():
    from lengthgen.analysis.attention import probe_internals
    from lengthgen.models import build_model
    from lengthgen.models.probe import ProbeConfig
    from lengthgen.tasks import TASKS

    task = TASKS["argmax"]()
    models = {(norm, seed): build_model("probe", ProbeConfig(width=16, norm=norm), task, seed=seed)
              for norm in ("baseline", "ln") for seed in (0, 1)}
    table = variance.pair_readings(models, task, (4, 32), 8)
    assert list(table.index) == [0, 1]
    parts = {n: probe_internals(models["ln", 1], task.sample(8, n, torch.Generator().manual_seed(n))) for n in (4, 32)}
    ratio = variance.global_stats(parts[32]["normed"])["global_var"] / variance.global_stats(parts[4]["normed"])[
        "global_var"]
    assert table.loc[1, "ln variance ratio"] == pytest.approx(ratio)
    assert table.loc[1, "ln max weight"] == pytest.approx(float(parts[32]["weights"].max(-1).values.mean()))
    spread = float(parts[32]["normed"].var(0).mean() / parts[4]["normed"].var(0).mean())
    assert table.loc[1, "ln spread ratio"] == pytest.approx(spread)
    assert (table.fig4 == (table["ln max weight"] > table["baseline max weight"])).all()
    nearer = (1 - table["ln variance ratio"]).abs() < (1 - table["baseline variance ratio"]).abs()
    assert (table.fig3 == nearer).all()


def test_shared_and_residue_split_the_global_variance():
    profile = torch.tensor([1.0, -1.0, 3.0, -3.0])  # the shared part: mean 0, variance 5
    wobble = torch.tensor([[0.5, -0.5, 0.0, 0.0], [-0.5, 0.5, 0.0, 0.0]])  # residues: mean 0 each, variance 1/8
    split = variance.shared_and_residue(profile + wobble)
    assert split == {"shared_var": pytest.approx(5.0), "residue_var": pytest.approx(0.125)}
    outputs = torch.randn(50, 8, generator=torch.Generator().manual_seed(0)) * 3 + torch.arange(8.0)
    split = variance.shared_and_residue(outputs)
    assert split["shared_var"] + split["residue_var"] == pytest.approx(variance.global_stats(outputs)["global_var"])


def test_pair_table_compares_each_complete_pair_at_the_far_length():
    def rows(seed, variant, var16, var_far, weight_far, spread_far=0.5):
        return [(seed, variant, 16, "global_var", var16), (seed, variant, 256, "global_var", var_far),
                (seed, variant, 16, "max_weight", 0.9), (seed, variant, 256, "max_weight", weight_far),
                (seed, variant, 16, "component_var", 2.0), (seed, variant, 256, "component_var", spread_far)]

    tidy = pd.DataFrame(rows(0, "baseline", 2.0, 0.5, 0.20) + rows(0, "ln", 1.0, 0.8, 0.30)
                        + rows(1, "baseline", 1.0, 0.9, 0.40) + rows(1, "ln", 1.0, 0.6, 0.10, spread_far=3.0)
                        + rows(2, "baseline", 1.0, 0.5, 0.1),  # no +LN run: not a pair
                        columns=["seed", "variant", "length", "metric", "value"])
    table = variance.pair_table(tidy, (16, 256))
    assert list(table.index) == [0, 1]
    assert table.loc[0, "baseline variance ratio"] == pytest.approx(0.25) and table.loc[0, "ln max weight"] == 0.3
    assert table.loc[1, "ln spread ratio"] == pytest.approx(1.5)
    assert table.fig2.tolist() == [True, False]  # both spreads 2.0 -> 0.5; +LN's 2.0 -> 3.0 grows in pair 1
    assert table.fig3.tolist() == [True, False]  # |1 - 0.8| < |1 - 0.25|; |1 - 0.6| > |1 - 0.9|
    assert table.fig4.tolist() == [True, False]  # 0.3 > 0.2; 0.1 < 0.4


def test_trajectory_reads_each_number_of_steps_on_its_complete_pairs():
    def rows(steps, seed, variant, var16, var_far, spread16, acc_far, spread_far=0.1, top_far=0.2):
        return [(steps, seed, variant, n, metric, v) for n, metric, v in [
            (16, "global_var", var16), (256, "global_var", var_far), (16, "component_var", spread16),
            (256, "component_var", spread_far), (16, "max_weight", 0.9), (256, "max_weight", top_far),
            (256, "accuracy", acc_far)]]

    tidy = pd.DataFrame(rows(1000, 0, "baseline", 2.0, 0.4, 1.0, 30.0)
                        + rows(1000, 0, "ln", 1.0, 0.9, 0.9, 20.0, top_far=0.3)
                        + rows(1000, 1, "baseline", 2.0, 0.2, 1.6, 10.0)
                        + rows(1000, 1, "ln", 1.0, 0.7, 0.5, 40.0, spread_far=1.0)
                        + rows(1000, 2, "baseline", 2.0, 0.2, 1.6, 10.0)  # no +LN run at 1,000 steps: not a pair
                        + rows(100_000, 2, "baseline", 1.0, 0.5, 0.5, 10.0)
                        + rows(100_000, 2, "ln", 1.0, 0.1, 1.0, 30.0, spread_far=2.0, top_far=0.3),
                        columns=["steps", "seed", "variant", "length", "metric", "value"])
    table, points = variance.trajectory(tidy, (16, 256), 256)
    assert list(table.index) == [1000, 100_000] and table.pairs.tolist() == [2, 1]
    assert table["Fig. 3 holds"].tolist() == [2, 0]  # +LN nearer 1 in both pairs at 1,000 steps; 0.1 vs 0.5 later
    assert table["Fig. 2 holds"].tolist() == [1, 0]  # +LN's spread grows in pair 1 (0.5 -> 1.0) and at 100,000
    assert table["Fig. 4 holds"].tolist() == [1, 1]  # +LN's largest weight 0.3 > 0.2 in pair 0 and at 100,000
    first = table.loc[1000]
    assert first["baseline global-variance ratio"] == pytest.approx(0.15)  # 0.4 / 2 and 0.2 / 2
    assert first["ln global-variance ratio"] == pytest.approx(0.8)
    assert first["baseline spread share"] == pytest.approx(0.65) and first["ln spread share"] == pytest.approx(0.7)
    assert (first["baseline accuracy at N = 256"], first["ln accuracy at N = 256"], first["ln more accurate"]) == (
        20.0, 30.0, 1)
    assert table.loc[100_000, "ln more accurate"] == 1 and table.loc[100_000, "ln spread share"] == 1.0
    assert len(points) == 3 * 2 * 3 and 2 not in set(points[points.steps == 1000].seed)  # pairs x variants x measures
    assert points.set_index(["steps", "seed", "variant", "measure"]).value[1000, 1, "ln", "spread share"] == 0.5


def test_trajectory_figure_draws_the_median_with_the_seeds_range_per_measure():
    points = pd.DataFrame({"steps": [1000, 1000, 1000, 4000], "seed": [0, 1, 2, 0], "variant": "ln",
                           "measure": ["spread share"] * 3 + ["accuracy at N = 256"], "value": [0.2, 0.9, 0.5, 30.0]})
    fig = figures.trajectory_figure(points, "t")
    assert len({t.xaxis for t in fig.data}) == 2  # one panel per measure
    assert sorted(a.text for a in fig.layout.annotations) == ["accuracy at N = 256", "spread share"]
    share = next(t for t in fig.data if list(t.x) == [1000])
    assert list(share.y) == [0.5] and list(share.error_y.array) == pytest.approx([0.4])
    assert list(share.error_y.arrayminus) == pytest.approx([0.3])


def test_ranking_leaves_untrained_cells_out():
    side = pd.DataFrame({"paper": [0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 90.0],
                         "ours": [1.0, 12.0, 18.0, 35.0, 41.0, 60.0, 0.0],
                         "verdict": ["reproduced"] * 6 + [verdicts.NOT_TRAINED]})
    rank = compare.ranking(side)
    assert rank["cells"] == 6 and rank["rho"] == pytest.approx(1.0) and rank["verdict"] == "reproduced"
    assert compare.ranking(side.assign(verdict="reproduced"))["rho"] < 1.0  # the untrained cell would break it


def test_accuracy_curves_bars_span_the_seeds_range():
    df = pd.DataFrame({"task": "successor", "variant": "abc", "length": [8, 8, 8, 16],
                       "seed": [0, 1, 2, 0], "value": [35.0, 99.0, 100.0, 10.0]})
    (trace,) = figures.accuracy_curves(df, "t").data
    assert list(trace.y) == pytest.approx([78.0, 10.0])
    assert list(trace.error_y.array) == pytest.approx([22.0, 0.0])  # up to the best seed: 100, never past it
    assert list(trace.error_y.arrayminus) == pytest.approx([43.0, 0.0])  # down to the worst seed: 35


def test_accuracy_curves_wrap_many_tasks_into_rows_each_with_its_own_lengths():
    tasks = [f"t{i}" for i in range(figures.PANELS_PER_ROW + 1)]
    df = pd.DataFrame({"task": tasks, "variant": "v", "length": [10 * (i + 1) for i in range(len(tasks))],
                       "seed": 0, "value": 50.0})
    fig = figures.accuracy_curves(df, "t")
    rows = {fig.layout[axis].domain for axis in fig.layout if axis.startswith("yaxis")}
    assert len(rows) == 2 and fig.layout.height > figures.accuracy_curves(df[df.task == "t0"], "t").layout.height
    assert {fig.layout[axis].matches for axis in fig.layout if axis.startswith("xaxis")} == {None}
