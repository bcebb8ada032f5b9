"""The vanishing-variance paper's comparisons (papers/vv/paper.py): versus tables, gains, widening, claims."""

import pandas as pd
import pytest

from lengthgen.analysis import stats
from lengthgen.papers.vv import paper as vv_paper


def test_paired_tables_and_versus_join_ours_with_the_paper(runs_frame):
    rows = [("argmax", v, s, n, m, 90.0 + (2.0 if v == "ln" else 0.0) + s)
            for v in ("baseline", "ln") for s in range(3) for n in (16, 32) for m in ("accuracy", "accuracy_adaptive")]
    df = runs_frame(rows)
    both = stats.paired_tables(df, "baseline", "ln")
    assert set(both.softmax) == {"plain", "adaptive θ"} and (both["diff"] == 2.0).all()
    side = vv_paper.paired_table(df, "argmax", "1", "baseline", "ln", "baseline", "ln", "p ln vs baseline")
    assert side["N"].tolist() == [16, 32] and side["paper a"].tolist() == [99.6, 99.2]
    assert side["ours b-a"].tolist() == [2.0, 2.0]


def test_compare_pairs_one_comparisons_runs_and_waits_for_both_variants(runs_frame):
    rows = [(task, v, s, n, "accuracy", 90.0 + (1.0 if v == "ln" else 0.0) + s + (5.0 if task == "dictionary" else 0.0))
            for task in ("argmax", "dictionary") for v in ("baseline", "ln", "std") for s in range(3) for n in (16, 32)]
    df = runs_frame(rows)
    table3 = vv_paper.comparison("Table 3, argmax")
    pairs, side = vv_paper.compare(df, table3)
    assert set(pairs.task) == {"argmax"} and set(pairs.variant) == {"std", "ln", "baseline"} and len(pairs) == 18
    assert side["N"].tolist() == [16, 32] and side["ours b-a"].tolist() == [1.0, 1.0] and (side.seeds == 3).all()
    assert side["paper b-a"].tolist() == [0.06, 0.11]  # Table 3's deltas: +LN minus +std
    # Table 3 prints +std and +LN as gains over the baseline; ours are the same gains: std = baseline, ln = +1
    assert side["ours a"].tolist() == [0.0, 0.0] and side["ours b"].tolist() == [1.0, 1.0]
    assert vv_paper.compare(df, vv_paper.comparison("Table 1, argmax"))[1]["ours a"].tolist() == [91.0, 91.0]
    only_ln = df[~((df.task == "argmax") & (df.variant == "std"))]
    pairs, side = vv_paper.compare(only_ln, table3)
    assert set(pairs.variant) == {"ln", "baseline"} and side.empty and {"N", "seeds", "verdict"} <= set(side.columns)
    with pytest.raises(KeyError, match="valid: Table 1, argmax, "):
        vv_paper.comparison("Table 3, dictionary")


def test_gains_judge_each_variants_gain_over_the_baseline_on_the_seeds_all_three_share(runs_frame):
    gains = {"std": [1.0, 2.0, 3.0], "ln": [0.5, 0.5, None]}  # over the baseline at N = 16; seed 2 has no +LN run
    rows = [("dictionary", "baseline", s, 16, "accuracy", 90.0 + s) for s in range(3)]
    rows += [("dictionary", v, s, 16, "accuracy", 90.0 + s + g) for v, gs in gains.items()
             for s, g in enumerate(gs) if g is not None]
    args = vv_paper.comparison("Table 6, dictionary")
    read, side = vv_paper.compare(runs_frame(rows), args)
    table = vv_paper.gains(read, args).set_index("variant")
    assert (table.seeds == 2).all() and table.paper.tolist() == [0.09, 0.09]  # Table 6's gains at N = 16
    # seeds 0, 1: +std gains 1 and 2, mean 1.5 +- t(0.975, 1) * std / sqrt(2) = 12.706 * 0.7071 / 1.4142 = 6.35
    assert table.loc["+std", "ours"] == 1.5 and table.loc["+std", "ci95"] == 6.35
    assert table.loc["+std", "verdict"] == "reproduced"
    assert table.loc["+LN", "ours"] == 0.5 and table.loc["+LN", "ci95"] == 0.0  # no spread: only 0.5 itself
    assert table.loc["+LN", "verdict"] == "not reproduced (ours higher)"
    assert side["ours a"].tolist() == [1.5] and side["ours b"].tolist() == [0.5]  # the versus table's a, b columns
    assert vv_paper.gains(read[read.variant != "std"], args).empty
    plain = vv_paper.comparison("Table 2, dictionary")  # +LN against the baseline: no third variant to gain over
    none = vv_paper.gains(vv_paper.compare(runs_frame(rows), plain)[0], plain)
    assert none.empty and none.columns.equals(table.reset_index().columns)
    std_runs, same_side, same_gains = vv_paper.against_std(runs_frame(rows), "Table 6, dictionary")
    assert set(std_runs.variant) == {"std"} and len(std_runs) == 3
    pd.testing.assert_frame_equal(same_side, side)
    pd.testing.assert_frame_equal(same_gains, vv_paper.gains(read, args))


def test_widening_judges_every_cell_of_a_task_on_the_interim_seeds_and_on_the_whole_grid(runs_frame):
    gains = {"std": [1.0, 2.0, 1.5, 1.5], "ln": [0.0, 1.0, 0.6, 0.4]}  # over the baseline at N = 16, seeds 0-3
    rows = [("dictionary", "baseline", s, 16, m, 90.0 + s) for s in range(4) for m in ("accuracy", "accuracy_adaptive")]
    rows += [("dictionary", v, s, 16, m, 90.0 + s + g) for v, gs in gains.items() for s, g in enumerate(gs)
             for m in ("accuracy", "accuracy_adaptive")]
    table = vv_paper.widening(runs_frame(rows), (0, 1), "dictionary").set_index(["comparison", "N"])
    assert list(table.columns) == ["ours, seeds 0, 1", "verdict, seeds 0, 1", "ours, seeds 0-3", "verdict, seeds 0-3",
                                   "changed"]
    assert set(table.index.get_level_values("comparison")) == {
        "Table 2, dictionary", "Table 2, dictionary, adaptive θ", "Table 6, dictionary",
        "Table 6, dictionary, +std's gain", "Table 6, dictionary, +LN's gain"}
    # +std gains 1 and 2 on seeds 0, 1: 1.5 +- 6.35 holds the paper's 0.09; on 0-3: 1.5 +- 3.182 * 0.408 / 2 = 0.65
    std = table.loc[("Table 6, dictionary, +std's gain", 16)]
    assert (std["ours, seeds 0, 1"], std["verdict, seeds 0, 1"]) == ("+1.50 ± 6.35", "reproduced")
    assert (std["ours, seeds 0-3"], std["verdict, seeds 0-3"]) == ("+1.50 ± 0.65", "not reproduced (ours higher)")
    assert std.changed and not table.loc[("Table 6, dictionary, +LN's gain", 16)].changed  # 0.5 +- 0.66 holds 0.09
    assert (table.changed == (table["verdict, seeds 0, 1"] != table["verdict, seeds 0-3"])).all()
    with pytest.raises(ValueError, match="must be fewer"):
        vv_paper.widening(runs_frame(rows), (0, 1, 2, 3), "dictionary")


def test_paper_cells_lay_each_comparison_out_as_a_row_of_its_table(runs_frame):
    rows = [("argmax", v, s, n, "accuracy", 90.0 + (1.0 if v == "ln" else 0.0) + s)
            for v in ("baseline", "ln", "std") for s in range(3) for n in (16, 32)]
    df = runs_frame(rows)
    titles = [t for t in vv_paper.COMPARISONS if t.startswith(("Table 1, argmax:", "Table 3, argmax"))]
    cells = vv_paper.paper_cells({t: vv_paper.compare(df, vv_paper.COMPARISONS[t])[1] for t in titles})
    assert cells.task.tolist() == ["Table 1"] * 2 + ["Table 3"] * 2 and cells.N.tolist() == [16, 32] * 2
    assert cells.comparison.tolist()[::2] == ["argmax: +LN (b) vs baseline (a)", "argmax: +LN (b) vs +std (a)"]
    assert cells.ours.tolist() == [1.0, 1.0, 1.0, 1.0] and cells.paper.tolist()[2:] == [0.06, 0.11]
