"""Ours beside the paper's (analysis/compare.py): side-by-side tables, medians over seeds, divergences,
separations, on hand-made frames."""

import numpy as np
import pandas as pd
import pytest

from lengthgen.analysis import compare, verdicts
from lengthgen.display import for_display
from lengthgen.results.store import split_and_length


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
        "split": ["100", "iid", "15", "30", "7", "9", "11"],
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


def _runs(rows, metric="accuracy"):
    """Collected runs as the store reads them (`split`, integer `length`) from rows (task, variant, seed, the split's
    name, value)."""
    return split_and_length(pd.DataFrame([dict(task=t, variant=v, seed=s, length=n, metric=metric, value=x)
                                          for t, v, s, n, x in rows]))


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
    side = pd.DataFrame([dict(task=t, variant=v, split=n, paper=p, ours=o, iid=i,
                              verdict=verdicts.cell_verdict(p, o, o, o, i)) for t, v, n, p, o, i in [
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
    paper = pd.DataFrame({"variant": "onestep", "task": "posretrieve", "split": ["iid", "15"], "paper": [70.6, 0.0]})
    ours = compare.median_over_seeds(_runs([("posretrieve", "onestep", 0, "iid", 73.6),
                                             ("posretrieve", "onestep", 0, "15", 0.0)]))
    side = compare.cell_side_by_side(paper, ours, lambda row: "why").set_index("split")
    assert side.verdict.tolist() == ["reproduced", verdicts.NOT_TRAINED]
    assert side.reason.tolist() == ["", "why"] and side.iid.tolist() == [73.6, 73.6]


def test_verdict_changes_lists_the_cells_whose_verdict_more_seeds_change():
    """Copy / Mono solves in seeds 0-2 and fails in 3 and 4 (paper 100): reproduced on three seeds, seeds split on
    five. Copy / Content fails in every seed (paper 0): reproduced either way, so not listed."""
    values = {"mono": [100.0, 100.0, 100.0, 0.0, 0.0], "content": [0.0] * 5}
    runs = _runs([("copy", v, s, n, x if n == "100" else 100.0) for v in values for s, x in enumerate(values[v])
                  for n in ("iid", "100")])
    paper = pd.DataFrame({"variant": ["mono", "content"], "task": "copy", "split": "100", "paper": [100.0, 0.0]})

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
    cells = compare.median_over_seeds(runs).set_index(["task", "split"])
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
    paper = pd.DataFrame([dict(variant="mono", task="copy", split=n, paper=p) for n, p in [("15", 1.0), ("30", 2.0)]]
                         + [dict(variant="mono", task="lookup", split="7", paper=9.0)])  # not run: left out
    runs = _runs([("copy", "mono", s, "15", x) for s, x in [(0, 4.0), (1, 6.0), (2, 100.0)]], metric="edit_distance")
    table = compare.paper_beside_ours(paper, runs, "ours", metric="edit_distance")
    assert list(table.columns) == [("copy", "15"), ("copy", "30")]
    assert table.loc[("mono", "ours"), ("copy", "15")] == 6.0       # median of 4, 6, 100
    assert np.isnan(table.loc[("mono", "ours"), ("copy", "30")])    # no run at that split
    shown = for_display(table)
    assert shown.loc[("mono", "ours"), ("copy", "30")] == "–" and shown.loc[("mono", "paper"), ("copy", "30")] == 2.0


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
    assert compare.on_common_seeds(runs, odd=False)[1] == [0, 2, 3, 4]  # a seed check reads every common seed
    assert compare.on_common_seeds(two, odd=False)[1] == [0, 2]


def test_ranking_leaves_untrained_cells_out():
    side = pd.DataFrame({"paper": [0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 90.0],
                         "ours": [1.0, 12.0, 18.0, 35.0, 41.0, 60.0, 0.0],
                         "verdict": ["reproduced"] * 6 + [verdicts.NOT_TRAINED]})
    rank = compare.ranking(side)
    assert rank["cells"] == 6 and rank["rho"] == pytest.approx(1.0) and rank["verdict"] == "reproduced"
    assert compare.ranking(side.assign(verdict="reproduced"))["rho"] < 1.0  # the untrained cell would break it


def test_paper_and_ours_keeps_the_tasks_we_ran_at_the_splits_asked():
    paper = pd.DataFrame({"variant": ["mono"] * 3, "task": ["copy", "copy", "lookup"], "split": ["15", "iid", "7"],
                          "paper": [100.0, 100.0, 90.0]})
    ours = pd.DataFrame({"variant": ["mono"], "task": ["copy"], "split": ["15"], "ours": [80.0], "seeds": [1]})
    both = compare.paper_and_ours(paper, ours, "ours", ("15",))
    assert both[["source", "value"]].values.tolist() == [["paper", 100.0], ["ours", 80.0]]


def test_reach_is_the_longest_length_before_the_curve_first_drops_below_the_bar():
    from lengthgen.analysis.compare import reach

    assert reach(pd.DataFrame({"length": [5, 10, 20, 40], "value": [100, 95, 80, 99]})) == 10
    assert reach(pd.DataFrame({"length": [5, 10], "value": [50, 95]})) == 0
