"""What the chapters say about their numbers, from hand-made frames: report texts, generations, SCAN reasons,
figure frames."""

import numpy as np
import pandas as pd
import pytest
import torch

from lengthgen.analysis import compare, report, stats, variance
from lengthgen.errors import LengthgenError
from lengthgen.papers.mla import experiments as mla
from lengthgen.papers.vv import paper as vv_paper
from lengthgen.tasks import TASKS


def runs_frame(rows):
    return pd.DataFrame(rows, columns=["task", "variant", "seed", "length", "metric", "value"])


def test_provenance_summary_counts_runs_seeds_commits_and_hours():
    prov = pd.DataFrame({"key": ["a", "a", "b"], "seed": [0, 0, 2], "git_commit": ["1234567890", "1234567890", "abc"],
                         "date": ["2026-11-20T10:00:00", "2026-11-20T10:00:00", "2026-11-21T12:30:00"],
                         "device": ["cpu:X x1 threads"] * 3, "torch_version": ["2.13.0"] * 3,
                         "wall_seconds": [3600.0, 3600.0, 1800.0]})
    text = report.provenance_summary(prov, "mla-main", 240, "full")
    assert text.startswith("**mla-main**: 2 of 240 full-profile runs stored (seeds 0, 2); commits 12345678, abc;")
    assert "2026-11-20T10:00 to 2026-11-21T12:30 UTC; 1.5 CPU-thread hours" in text
    assert "2 on cpu:X x1 threads with torch 2.13.0 (1.5 h)" in text
    assert "lengthgen run vv-factors --profile cpu" in report.provenance_summary(prov.iloc[:0], "vv-factors", 4, "cpu")


def test_divergence_reason_names_budget_seeds_and_wrong_way_readers():
    directions = pd.DataFrame({"task": ["copy", "copy"], "variant": ["mono", "mono"], "seed": [0, 1],
                               "gate": [0.02, 0.98], "reads": ["wrong way", "right way"]})
    reason = report.divergence_reason("2000 examples x 5 epochs", directions)
    lower = pd.Series({"task": "copy", "variant": "mono", "paper": 100.0, "ours": 40.0, "seeds": 2,
                       "verdict": "partly"})
    assert reason(lower) == ("ours lower; 2000 examples x 5 epochs, 2 seeds; 1 of 2 seeds read the task the wrong "
                             "way (g = 0.02)")
    higher = pd.Series({"task": "copy", "variant": "content", "paper": 0.0, "ours": 50.0, "seeds": 1,
                        "verdict": "partly"})
    assert reason(higher) == "ours higher; 1 seed"
    reversed_higher = pd.Series({"task": "copy", "variant": "mono", "paper": 0.0, "ours": 50.0, "seeds": 2,
                                 "verdict": "partly"})  # a wrong-way reading can beat the paper (inverted tasks)
    assert reason(reversed_higher) == "ours higher; 2 seeds; 1 of 2 seeds read the task the wrong way (g = 0.02)"
    untrained = pd.Series({"task": "copy", "variant": "content", "paper": 0.0, "ours": 0.0, "seeds": 1, "iid": 47.0,
                           "verdict": "not trained"})
    assert reason(untrained) == "47% in distribution (< 90%); 2000 examples x 5 epochs, 1 seed"
    estimated = pd.Series({"task": "lookup", "variant": "content", "paper": 0.0, "ours": 0.0, "seeds": 1, "iid": 88.7,
                           "verdict": "not trained"})
    assert reason(estimated) == "≈89% in distribution (< 90%); 2000 examples x 5 epochs, 1 seed"
    fits = {("content", "copy"): 70.6, ("mono", "copy"): 99.0}  # the paper's own iid accuracies (Table 6 has them)
    with_paper = report.divergence_reason("full protocol", paper_fit=fits)
    assert with_paper(untrained) == ("47% in distribution (< 90%); the paper's runs: 70.6%, below the bar too; "
                                     "full protocol, 1 seed")
    assert with_paper(untrained.replace("content", "mono")) == "47% in distribution (< 90%); full protocol, 1 seed"


def test_cells_lists_each_divergence_under_the_table():
    side = pd.DataFrame({"variant": ["mono", "mono", "content"], "task": ["copy"] * 3, "length": ["15", "30", "15"],
                         "metric": ["accuracy"] * 3, "paper": [100.0, 100.0, 0.0], "ours": [0.0, 0.0, 0.0],
                         "seeds": [1] * 3, "verdict": ["not reproduced", "not reproduced", "reproduced"],
                         "reason": ["ours lower", "ours lower", ""]})
    table, text = report.cells(side)
    assert list(table.index.names) == ["variant", "task", "length"] and "reason" not in table.columns
    assert text.endswith("- **mono / copy** at 15, 30 (not reproduced): ours lower")
    assert report.cells(side.iloc[2:])[1] == ""
    assert report.verdict_counts(side) == "2 not reproduced, 1 reproduced"


def test_separated_tasks_and_majority_verdict():
    sep = pd.DataFrame({"same separation": ["yes", "no", "yes"]}, index=["copy", "recopy", "lookup"])
    assert report.separated_tasks(sep) == "2 of 3 tasks: copy, lookup"
    assert report.majority_verdict(pd.Series(["reproduced"] * 3 + ["not reproduced"])) == (
        "reproduced", "3 cells reproduced, 1 cell not reproduced")
    assert report.majority_verdict(pd.Series(["a", "b"]))[0] == "mixed"
    assert report.majority_verdict(pd.Series([], dtype=str))[0] == "no stored results"


def test_fit_versus_length_separates_fitted_failures_from_unfitted_runs():
    history = pd.DataFrame({"task": ["copy"] * 3, "variant": ["a", "b", "c"], "seed": [0] * 3, "epoch": [0] * 3,
                            "train_loss": [0.01, 0.02, 0.8]})
    runs = runs_frame([("copy", v, 0, "100", "accuracy", acc) for v, acc in (("a", 0.0), ("b", 100.0), ("c", 0.0))])
    text = report.fit_versus_length(history, runs)
    assert text.startswith("2 of 3 runs end with a training loss below 0.05; 1 of them fails")
    assert ": copy/a (seed 0)." in text and "The other one ends at a loss of 0.80: it has not fitted" in text
    two_unfit = report.fit_versus_length(history.assign(train_loss=[0.7, 0.02, 0.8]), runs)
    assert "0 of them fail (" in two_unfit and "The other 2 end at a loss of 0.70–0.80: they have not" in two_unfit
    for some_unfit in (text, two_unfit):
        assert some_unfit.endswith("test scores do not separate a failure to learn from a failure to generalise.")
    all_fit = report.fit_versus_length(history.assign(train_loss=0.01), runs)
    assert all_fit.endswith("not carried to longer inputs: copy/a (seed 0), copy/c (seed 0).")  # no "other" runs


def test_fit_versus_length_counts_many_fitted_failures_per_task():
    n = report.NAMED_RUNS + 1  # one more failing run than are named: copy fails n - 1 of n, lookup 1 of 2
    cells = [("copy", f"v{i}", 0, acc) for i, acc in enumerate([0.0] * (n - 1) + [100.0])]
    cells += [("lookup", "a", 0, 0.0), ("lookup", "b", 0, 100.0), ("lookup", "c", 0, 0.0)]
    history = pd.DataFrame({"task": [t for t, *_ in cells], "variant": [v for _, v, *_ in cells], "seed": 0,
                            "epoch": 0, "train_loss": [0.01] * (len(cells) - 1) + [0.9]})
    runs = runs_frame([(t, v, s, "100", "accuracy", acc) for t, v, s, acc in cells])
    text = report.fit_versus_length(history, runs)
    assert f"{n} of them fail (≤ 10%)" in text and "(seed" not in text
    assert f"longer inputs; per task, failing of fitted: copy {n - 1} of {n}, lookup 1 of 2. The other one" in text


def test_gate_course_summary_names_the_runs_whose_gate_changed_side():
    course = pd.DataFrame({"task": ["copy", "reverse_copy", "lookup"], "variant": ["onestep", "mono", "mono"],
                           "seed": [0, 1, 0], "first": [0.3, 0.95, 0.99], "last": [0.98, 0.97, 0.99],
                           "starts": ["undecided", "wrong way", "right way"],
                           "ends": ["right way", "wrong way", "right way"], "crossings": [1, 2, 0],
                           "settled": [1, 2, 0]})
    assert report.gate_course_summary(course) == (
        "The gate is recorded after every epoch in 3 runs; it never changes side of 0.5 in 1 of them; copy/onestep "
        "(seed 0) changes side once, the last after epoch 1 (g 0.30 after the first epoch, undecided; 0.98 at the "
        "end, right way); reverse_copy/mono (seed 1) changes side 2 times, the last after epoch 2 (g 0.95 after the "
        "first epoch, wrong way; 0.97 at the end, wrong way). At the end: 2 reading the right way, 1 reading the "
        "wrong way.")
    many = pd.concat([course.iloc[:2]] * (report.NAMED_RUNS // 2 + 1), ignore_index=True)
    assert "; it does in the others (per task: copy 7, reverse_copy 7). At the end: 7 reading the right way, 7 " \
           "reading the wrong way." in report.gate_course_summary(many)
    assert report.gate_course_summary(course.iloc[:0]) == "No run records its direction gate after every epoch."


def test_lean_outcomes_counts_each_side_and_tests_the_two_by_two_table():
    rows = ([("bi_relative", "needed way", "right way")] * 4 + [("bi_relative", "other way", "wrong way")] * 3
            + [("bi_relative", "other way", "right way"), ("mono", "other way", "right way"),
               ("mono", "needed way", "undecided")])
    table = pd.DataFrame(rows, columns=["variant", "leans", "reads"])
    counts, text = report.lean_outcomes(table)
    assert counts.to_dict("list") == {"leaned the needed way": ["4 of 4", "0 of 1"],
                                      "leaned the other way": ["1 of 4", "1 of 1"]}
    assert list(counts.index) == ["bi_relative", "mono"]
    # right way / not: needed way 4 / 1, other way 2 / 3; Fisher's exact test of [[4, 1], [2, 3]]: p = 0.5238
    assert text == "Over all 10 runs: odds ratio 6.0 for ending the right way after leaning the needed way, " \
                   "Fisher's exact p = 0.52."


def test_direction_summary_names_the_runs_off_the_right_way():
    table = pd.DataFrame({"task": ["copy", "reverse_copy"], "variant": ["mono", "mono"], "seed": [0, 0],
                          "gate": [0.99, 0.95], "reads": ["right way", "wrong way"],
                          "accuracy at the longest split": [100.0, 0.0]})
    text = report.direction_summary(table)
    assert text.startswith("1 of 2 runs read their task the right way; reverse_copy/mono (seed 0) reads the wrong "
                           "way (g = 0.95, 0% at the longest split).")
    assert "0 of 1 run reading the right way, 1 of 1 run reading the wrong way" in text
    two = report.direction_outcomes(pd.concat([table, table]))
    assert two == ("Failing (≤ 10%) at the longest split: 0 of 2 runs reading the right way, 2 of 2 runs reading the "
                   "wrong way.")
    off = pd.DataFrame({"task": ["lookup"] * report.NAMED_RUNS + ["copy"], "variant": "mono",
                        "seed": range(report.NAMED_RUNS + 1), "gate": 0.5, "reads": "undecided",
                        "accuracy at the longest split": 0.0}).assign(reads=lambda d: d.reads.where(d.seed > 0,
                                                                                                    "wrong way"))
    many = report.direction_summary(pd.concat([table, off]))  # more runs off the right way than are named
    assert many.startswith(f"1 of {report.NAMED_RUNS + 3} runs read their task the right way; the other "
                           f"{report.NAMED_RUNS + 2} read it the wrong way (2) or are undecided "
                           f"({report.NAMED_RUNS}), per task: reverse_copy 1, lookup {report.NAMED_RUNS}, copy 1. ")
    assert "(seed" not in many


def test_seed_agreement_is_empty_without_multi_seed_cells():
    assert report.seed_agreement(pd.DataFrame()) == []
    seeds = compare.per_seed(runs_frame([("copy", "mono", s, "100", "accuracy", v) for s, v in ((0, 100), (1, 0))]))
    parts = report.seed_agreement(seeds)
    assert parts[2] == "At the longest split the seeds of 1 of 1 such cells land in different bands (solved / " \
                       "partial / failed)."


def test_paired_headline_reads_sign_and_significance():
    comparison = pd.DataFrame({"task": ["argmax", "argmax"], "length": [16, 4096], "mean_a": [99.0, 60.0],
                               "mean_b": [99.0, 50.0], "diff": [0.0, -10.0], "p_value": [1.0, 0.001], "n": [5, 5]})
    assert report.paired_headline(comparison, "baseline", "+LN") == (
        "- **argmax** at N = 4096: baseline 60.0%, +LN 50.0% (+LN − baseline = -10.00 points, paired p = 0.001, "
        "5 seeds): +LN worse")


def test_compute_hours_sums_per_group_and_device():
    spent = pd.DataFrame({"experiment": ["a", "a", "b"], "device": ["x", "y", "x"], "hours": [1.0, 2.0, 0.5]})
    text, table = report.compute_hours(spent, ["experiment"])
    assert text == "3 stored runs, 3.5 CPU-thread hours in all."
    assert table.loc["all", "all"] == 3.5 and table.loc["b", "y"] == "–"


def test_largest_gaps_orders_by_distance_from_the_paper():
    side = pd.DataFrame({"variant": ["a", "b"], "length": ["15", "30"], "paper": [100.0, 50.0], "ours": [90.0, 0.0]})
    assert report.largest_gaps(side, 1) == "b at 30: ours 0%, paper 50%"


def test_generations_and_their_changes():
    def cfg(tie, revision):
        train = {"epochs": 100} | ({"tie": 0.001} if tie else {})
        return {"task": "copy", "seed": 0, "train": train, "model": {"attention": "mono"} | (
            {"revision": 2} if revision else {})}

    assert [mla.generation(cfg(t, r)) for t, r in ((False, False), (True, False), (True, True))] == list(
        mla.GENERATIONS)
    entries = [(cfg(True, False), pd.DataFrame({"length": ["100", "train"], "metric": ["accuracy", "best_epoch"],
                                                "value": [0.0, 7.0]}), {"profile": "full"}),
               (cfg(True, True), pd.DataFrame({"length": ["100", "train"], "metric": ["accuracy", "best_epoch"],
                                               "value": [99.0, 50.0]}), {"profile": "full"}),
               (cfg(True, True), pd.DataFrame({"length": ["100"], "metric": ["accuracy"], "value": [1.0]}),
                {"profile": "quick"})]
    every = mla.stored_generations(entries)
    assert len(every) == 4  # the quick entry is left out
    table, moved, cells = mla.generation_changes(every, mla.GENERATIONS[1], mla.GENERATIONS[2], ("100",))
    assert (moved, cells) == (1, 1)
    assert table.iloc[0]["epoch kept"] == "7 -> 50" and table.iloc[0]["accuracy, latest tie, rev 2"] == "99"


def test_scan_reason_names_the_rows_the_public_code_ran_unmixed():
    def row(verdict, seeds, p):
        return pd.Series({"verdict": verdict, "seeds": seeds, "p": p, "in distribution": 100.0})

    assert mla.scan_reason("mix_onestep_pr", row("inconclusive (one seed)", 1, None)) == (
        "one seed: no spread to test against the paper's 5 runs; the paper's row ran unmixed (public code), ours mixes")
    assert mla.scan_reason("content", row("not reproduced (ours lower)", 3, 0.0123)) == (
        "Welch's t-test, 3 seeds against the paper's 5: p = 0.012")
    assert mla.scan_reason("content", row("reproduced (no significant difference)", 3, 0.4)) == ""


def test_scan_side_judges_the_common_seeds_and_sets_unfitted_mechanisms_apart():
    """Hand-made SCAN runs: content at seeds 0-3 (seed 3 not common: left out), mono at seeds 0-2 with dev exact
    match 100 / 80 / 70 (median 80: not trained); test accuracy 10 / 12 / 14 (content) -> mean 12."""
    rows = []
    for variant, seeds, tests, devs in (("content", (0, 1, 2, 3), (10.0, 12.0, 14.0, 90.0), (100.0,) * 4),
                                        ("mono", (0, 1, 2), (15.0, 15.0, 15.0), (100.0, 80.0, 70.0))):
        for seed, test, dev in zip(seeds, tests, devs, strict=True):
            rows += [{"task": "scan", "variant": variant, "seed": seed, "length": "test", "metric": "accuracy",
                      "value": test},
                     {"task": "scan", "variant": variant, "seed": seed, "length": "train", "metric": "best_dev",
                      "value": dev}]
    side = mla.scan_side(pd.DataFrame(rows))
    assert side.loc["content", "ours"] == 12.0 and side.loc["content", "seeds"] == 3
    assert side.loc["content", "in distribution"] == 100.0
    assert side.loc["content", "verdict"] == "not reproduced (ours lower)"  # paper 17.6 +- 4.1
    assert side.loc["mono", "verdict"] == "not trained" and side.loc["mono", "in distribution"] == 80.0
    assert side.loc["mono", "reason"] == "median dev exact match 80% < 90%: the runs did not fit their training split"
    assert side.loc["relative", "verdict"] == "not run yet" and side.loc["relative", "reason"] == ""
    empty = mla.scan_side(pd.DataFrame())
    assert (empty.verdict == "not run yet").all() and len(empty) == len(side)


def test_with_fit_estimates_adds_an_estimated_iid_row_to_lookup_runs():
    """Lookup / mono seed 0 (full profile: 1,000 dev examples, half held out): 2 x 55.5 - 11.4 = 99.6; seed 1 (quick
    sizes: 300 dev examples, all held out): its dev score 70; seed 2 lacks split 7, Reverse Lookup has an iid row
    already, Copy is not estimated: none of them gets a row."""
    def run(task, seed, profile, dev, accuracy):
        cells = {("train", "best_dev"): dev, **{(split, "accuracy"): v for split, v in accuracy.items()}}
        return [{"task": task, "variant": "mono", "seed": seed, "length": length, "metric": metric, "value": v,
                 "profile": profile, "key": f"{task}{seed}"} for (length, metric), v in cells.items()]
    rows = (run("lookup", 0, "full", 55.5, {"7": 11.4, "11": 1.0}) + run("lookup", 1, "quick", 70.0, {"7": 5.0})
            + run("lookup", 2, "full", 60.0, {"11": 0.0})
            + run("reverse_lookup", 0, "full", 50.0, {"7": 0.0, "iid": 42.0})
            + run("copy", 0, "full", 100.0, {"15": 100.0}))
    runs = pd.DataFrame(rows)
    out = mla.with_fit_estimates(runs)
    assert out.iloc[: len(runs)].equals(runs)
    added = out.iloc[len(runs):].set_index("seed")
    assert list(added.index) == [0, 1] and set(added.task) == {"lookup"} and set(added.length) == {"iid"}
    assert added.value.tolist() == pytest.approx([99.6, 70.0]) and set(added.metric) == {"accuracy"}
    assert added.key.tolist() == ["lookup0", "lookup1"] and added.profile.tolist() == ["full", "quick"]
    assert mla.with_fit_estimates(runs.iloc[:0]).empty


def test_early_break_text_groups_the_runs_of_a_cell_in_seed_order():
    last = pd.DataFrame({"task": ["recopy", "recopy", "copy", "recopy"], "variant": ["locattn"] * 4,
                         "seed": [2, 0, 0, 1], "first_error": [5.0, 0.0, 12.0, 3.0],
                         "early": [True, True, False, True]}).set_index(["task", "variant", "seed"])
    assert report.early_break_text(last, {"recopy": 46, "copy": 10}) == (
        "At the longest test split, 4 runs that learned their task in distribution (iid ≥ 90%) get some outputs "
        "wrong; in 3 of them the median first error lies before the longest training target: recopy/locattn at "
        "token 0, 3, 5 (seeds 0-2; trained up to 46).")
    assert report.early_break_text(last[~last.early], {"copy": 10}).endswith("before the longest training target.")


def test_task_table_and_scan_constructions():
    table = mla.task_table(("copy",))
    src, tgt = TASKS["copy"]().examples("train", 1)[0]
    assert table.loc["copy", "source"] == " ".join(src) == table.loc["copy", "target"]
    assert table.loc["copy", "splits"].startswith("train (10,000), dev (2,000)")
    kinds = mla.scan_constructions(TASKS["scan"]())
    assert set(kinds) == {"and", "after", "single"} and kinds["jump around left thrice"] == "single"


def test_paired_tables_and_versus_join_ours_with_the_paper():
    rows = [("argmax", v, s, n, m, 90.0 + (2.0 if v == "ln" else 0.0) + s)
            for v in ("baseline", "ln") for s in range(3) for n in (16, 32) for m in ("accuracy", "accuracy_adaptive")]
    df = runs_frame(rows)
    both = stats.paired_tables(df, "baseline", "ln")
    assert set(both.softmax) == {"plain", "adaptive θ"} and (both["diff"] == 2.0).all()
    side = vv_paper.versus(df, "argmax", "1", "baseline", "ln", "baseline", "ln", "p ln vs baseline")
    assert side["N"].tolist() == [16, 32] and side["paper a"].tolist() == [99.6, 99.2]
    assert side["ours b-a"].tolist() == [2.0, 2.0]


def test_compare_pairs_one_comparisons_runs_and_waits_for_both_variants():
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


def test_gains_judge_each_variants_gain_over_the_baseline_on_the_seeds_all_three_share():
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


def test_widening_judges_every_cell_of_a_task_on_the_interim_seeds_and_on_the_whole_grid():
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


def test_budget_claim_row_names_the_stored_pairs_and_judges_cells_beyond_training():
    side = pd.DataFrame({"N": [16, 32, 64], "seeds": [4, 4, 3],
                         "verdict": ["not reproduced (opposite sign)", "inconclusive", "inconclusive"]})
    claim, verdict, counts = vv_paper.budget_claim_row("Table 3, argmax", "100,000 steps", side, 20)
    assert claim == "Table 3: +LN beats +std, argmax, at the paper's 100,000 steps (4 of 20 declared pairs stored)"
    assert (verdict, counts) == ("inconclusive", "2 cells inconclusive")
    empty = vv_paper.compare(runs_frame([]), vv_paper.comparison("Table 6, dictionary"))[1]
    assert vv_paper.budget_claim_row("Table 6, dictionary", "10,000 steps", empty, 20)[:2] == (
        "Table 6: +LN close to +std, dictionary, at the paper's 10,000 steps (0 of 20 declared pairs stored)",
        "no stored results")


def test_claim_rows_judge_each_comparison_by_its_cells_beyond_training():
    assert set(vv_paper.CLAIMS) == {title.split(":")[0] for title in vv_paper.COMPARISONS}
    cells = pd.DataFrame([("Table 1, argmax", 16, "not reproduced (opposite sign)"),  # at training N: not judged
                          ("Table 1, argmax", 32, "reproduced"), ("Table 1, argmax", 64, "reproduced"),
                          ("Table 3, argmax", 32, "reproduced"), ("Table 3, argmax", 64, "inconclusive")],
                         columns=["comparison", "N", "verdict"])
    rows = {claim: (verdict, counts) for claim, verdict, counts in vv_paper.claim_rows(cells, "cpu runs")}
    assert rows["Table 1: +LN beats baseline at OOD N, argmax, cpu runs"] == ("reproduced", "2 cells reproduced")
    assert rows["Table 3: +LN beats +std, argmax, cpu runs"][0] == "mixed"
    assert rows["Table 6: +LN close to +std, dictionary, cpu runs"][0] == "no stored results"


def test_component_values_and_global_table_by_hand():
    normed = torch.tensor([[1.0, 3.0], [2.0, 2.0]])  # per-vector mean 2, 2; variance 1, 0
    internals = {("ln", 16): {"normed": normed}, ("ln", 64): {"normed": 2 * normed}}
    values = variance.component_values(internals, components=2)
    assert len(values) == 8 and set(values.component) == {"o0", "o1"}
    table = variance.global_table(internals, reference=16).set_index("length")
    assert table.global_var.tolist() == [1.0, 4.0]  # (1 + 0) / 2 = 0.5 at 16; scaled by 2 -> 2.0; both / 0.5
    assert table.global_mean.tolist() == [4.0, 8.0]


def test_paper_and_ours_keeps_the_tasks_we_ran_at_the_splits_asked():
    paper = pd.DataFrame({"variant": ["mono"] * 3, "task": ["copy", "copy", "lookup"], "length": ["15", "iid", "7"],
                          "paper": [100.0, 100.0, 90.0]})
    ours = pd.DataFrame({"variant": ["mono"], "task": ["copy"], "length": ["15"], "ours": [80.0], "seeds": [1]})
    both = compare.paper_and_ours(paper, ours, "ours", ("15",))
    assert both[["source", "value"]].values.tolist() == [["paper", 100.0], ["ours", 80.0]]


@pytest.mark.parametrize("attention_name", ["mono", "content"])
def test_attention_helpers_on_an_untrained_model(attention_name):
    from lengthgen.analysis import attention
    from lengthgen.models import Seq2SeqConfig
    from lengthgen.papers.mla.experiments import Seq2SeqRun, build

    task, model = build(Seq2SeqRun(task="copy", seed=0, model=Seq2SeqConfig(attention=attention_name)))
    maps = attention.attention_maps({attention_name: (model, task)}, ["iid", "15"])
    assert [m["label"].split(" ")[0] for m in maps[attention_name]] == ["iid", "15"]
    assert all(abs(m["weights"].sum(-1) - 1).max() < 1e-4 for m in maps[attention_name])  # rows sum to one
    focus = attention.first_step_focus(model, task, "iid", 3)
    assert 0 <= focus["focus after the first step"] <= 1 and focus["iid accuracy"] == 0.0
    gate = attention.mono_gate(model, task, task.examples("iid", 1)[0])
    assert gate == (20.0 if attention_name == "mono" else None)  # b's initial value, or no such hook point
    failures = attention.first_failures({("copy", attention_name): (model, task)}, "iid", tries=3, limit=1)
    assert len(failures) == 1 and failures[0]["prediction"] != failures[0]["target"]


def test_run_lags_measure_how_far_the_focus_trails_each_run_by_hand():
    from lengthgen.analysis import attention

    source = ["START", *"4447999", "END"]  # runs at positions 1-3, 4, 5-7
    assert attention.source_runs(source[1:-1]) == [(1, 3), (4, 4), (5, 7)]
    weights = np.zeros((3, 9))
    weights[0, 1] = weights[1, 2] = 1.0  # on the first run's start; two positions behind the second run
    weights[2, [5, 7]] = 0.5  # spread over the third run: its mean position 6 lies one past the run's start
    decoded = [{"source": source, "target": list("479"), "prediction": list("478"), "weights": weights}]
    lags = attention.run_lags(decoded)
    assert lags.to_dict("list") == {"step": [0, 1, 2], "lag": [0.0, 2.0, -1.0], "largest weight": [1.0, 1.0, 0.5],
                                    "right": [True, True, False]}
    short = {**decoded[0], "prediction": ["4"], "weights": weights[:1]}  # the decoding stopped after one step
    assert attention.run_lags([short]).step.tolist() == [0]
    with pytest.raises(LengthgenError, match="DeDupe"):  # a Copy example: its target is not the source's runs
        attention.run_lags([{**decoded[0], "target": list("4447999")}])


def test_first_errors_classify_each_decodings_first_wrong_token_by_hand():
    from lengthgen.analysis import attention

    source = ["START", *"4447999", "END"]  # runs at positions 1-3, 4, 5-7
    weights = np.zeros((3, 9))
    weights[0, 2] = 1.0
    weights[1, [5, 6]] = 0.5  # step 1 should read the one-position run at 4; its focus 5.5 is 1.5 past that run's end
    example = {"source": source, "target": list("479"), "weights": weights}
    decoded = [{**example, "prediction": list(p)} for p in ("479", "49", "449", "489", "47", "4799")]
    errors = attention.first_errors(decoded)
    assert errors.drop(columns=["run length", "past run end"]).to_dict("list") == {
        "step": [1, 1, 1, 2, 3], "kind": ["skip", "repeat", "other", "length", "length"]}
    assert errors["run length"].tolist()[:3] == [1, 1, 1] and errors["run length"].iloc[3:].isna().all()
    assert errors["past run end"].tolist()[:3] == [1.5, 1.5, 1.5]
    assert attention.first_errors(decoded[:1]).empty and list(attention.first_errors([])) == list(errors)
    with pytest.raises(LengthgenError, match="first_errors needs targets"):  # a Copy example
        attention.first_errors([{**decoded[1], "target": list("4447999")}])


def test_steps_to_first_error_stop_at_each_decodings_first_wrong_step_by_hand():
    from lengthgen.analysis import attention

    source = ["START", *"4447999", "END"]  # runs at positions 1-3, 4, 5-7
    weights = np.zeros((3, 9))
    weights[0, 1] = weights[1, 4] = 1.0  # on the first two runs' starts
    weights[2, 6] = 1.0  # one past the third run's start
    example = {"source": source, "target": list("479"), "weights": weights}
    right, skip, runs_on = ({**example, "prediction": list(p)} for p in ("479", "49", "4799"))
    stopped = {**example, "prediction": ["4"], "weights": weights[:1]}  # ends after its first token
    steps = attention.steps_to_first_error([right, skip, stopped, runs_on])
    assert steps.drop(columns="lag").to_dict("list") == {
        "example": [0, 0, 0, 1, 1, 2, 2, 3, 3, 3], "step": [0, 1, 2, 0, 1, 0, 1, 0, 1, 2],
        "run length": [3, 1, 3, 3, 1, 3, 1, 3, 1, 3], "error": ["", "", "", "", "skip", "", "length", "", "", ""]}
    assert steps.lag.tolist()[:5] == [0.0, 0.0, -1.0, 0.0, 0.0] and np.isnan(steps.lag.iloc[6])
    assert list(attention.steps_to_first_error([])) == list(steps)


def test_seed_protocol_names_the_seeds_kept_and_the_runs_left_out():
    runs = pd.DataFrame({"seed": [0, 0, 1, 2, 2], "key": ["a", "a", "b", "c", "d"]})
    text = report.seed_protocol(runs, [0])
    assert text == ("Medians over seed 0 (of the seeds every cell has, an odd number, lowest first); 3 stored runs of "
                    "seeds 1, 2 stay out of the medians (shown per seed where a table lists seeds).")
    assert report.seed_protocol(runs[runs.seed == 0], [0]) == ("Medians over seed 0 (of the seeds every cell has, an "
                                                              "odd number, lowest first).")
    assert report.seed_protocol(runs.iloc[:0], []) == ""


def test_table_claims_judge_ranking_and_separation():
    side = pd.DataFrame({"paper": [0.0, 20.0, 40.0, 60.0, 100.0, 100.0], "ours": [1.0, 10.0, 50.0, 70.0, 99.0, 0.0],
                         "verdict": ["reproduced"] * 5 + ["not trained"]})  # the untrained cell is not ranked
    sep = pd.DataFrame({"same separation": ["yes", "no", "not judged"]}, index=["copy", "lookup", "recopy"])
    (claim, verdict, evidence), (sep_claim, sep_verdict, sep_evidence) = report.table_claims("Table 2", side, sep)
    assert (claim, verdict) == ("Table 2: ranking of the cells", "reproduced")
    assert evidence.startswith("Spearman's rho 1.00 (p = ") and evidence.endswith(
        ") over the 5 cells whose runs learned their task; cells: 5 reproduced, 1 not trained")
    assert sep_verdict == "partly (1 of 2 tasks)"
    assert sep_evidence.endswith("1 of 3 tasks: copy; 1 not judged (runs that did not learn the task)")
    assert report.table_claims("T", side, sep.iloc[2:])[1][1] == "not trained"
    constant = report.table_claims("T", side.assign(ours=50.0))[0]
    assert constant[1].startswith("inconclusive") and constant[2].startswith("no rank correlation over the 5 cells")
    assert len(report.table_claims("SCAN", side.rename(columns={"paper": "paper mean"}), paper="paper mean")) == 1
    swapped = side.assign(ours=side.ours[::-1].values)
    assert report.table_claims("T", swapped)[0][1] == "not reproduced"


def test_ranking_text_gives_rho_p_and_verdict():
    text = report.ranking_text({"cells": 6, "rho": 0.9123, "p": 0.0112, "verdict": "reproduced"})
    assert text == ("Ranking of the 6 cells run that learned their task: Spearman's rho 0.91 (p = 0.011), "
                    "reproduced.")


def test_trajectory_evidence_gives_each_number_of_steps_its_counts():
    table = pd.DataFrame({"pairs": [5, 3], "Fig. 2 holds": [4, 3], "Fig. 3 holds": [5, 0], "Fig. 4 holds": [0, 2],
                          "ln more accurate": [1, 3]}, index=pd.Index([1000, 100_000], name="steps"))
    assert report.trajectory_evidence(table) == (
        "1,000 steps: Fig. 2 in 4, Fig. 3 in 5, Fig. 4 in 0 of 5 pairs, +LN more accurate in 1; "
        "100,000 steps: Fig. 2 in 3, Fig. 3 in 0, Fig. 4 in 2 of 3 pairs, +LN more accurate in 3")


@pytest.mark.parametrize("paper", ["sparsity", "abc"])
def test_a_claims_table_lists_each_claim_with_an_experiment_that_tests_it(paper):
    import importlib

    from lengthgen.papers import EXPERIMENTS

    claims = importlib.import_module(f"lengthgen.papers.{paper}.paper").CLAIMS
    table = report.claims_table(claims)
    assert list(table.columns) == ["where", "the paper states", "our experiment"] and len(table) == len(claims)
    assert set(table["our experiment"]) <= set(EXPERIMENTS)  # each claim names a runnable experiment


def test_table4_borrows_onestep_from_table2_and_judges_the_common_seeds():
    """Hand-made Copy runs: OneStep w/o Step 2 at seeds 0-2 (100 / 50 / 0 at length 15); Table 2's OneStep at seeds
    0-3 (seed 3 is not common: left out) and its Content (not a Table 4 row). Medians over seeds 0-2: 50 and 100."""
    def run(variant, seed, value):
        return [(task, variant, seed, length, "accuracy", v) for task, length, v in
                (("copy", "iid", 100.0), ("copy", "15", value))]
    ablations = runs_frame(sum((run("onestep_no_step2", s, v) for s, v in ((0, 100.0), (1, 50.0), (2, 0.0))), []))
    main = runs_frame(sum((run("onestep", s, 100.0) for s in range(4)), []) + run("content", 0, 100.0))
    runs = mla.with_unablated("mla-ablations", ablations, main)
    assert set(runs.variant) == {"onestep_no_step2", "onestep"} and len(runs) == len(ablations) + 8
    assert mla.with_unablated("mla-variants", ablations, main) is ablations
    assert mla.with_unablated("mla-ablations", ablations, main.iloc[:0]) is ablations
    side, balanced, seeds = mla.against_paper("mla-ablations", runs, "full protocol")
    assert seeds == [0, 1, 2] and set(balanced.seed) == {0, 1, 2}
    cell = side.set_index(["variant", "task", "length"])
    assert cell.loc[("onestep_no_step2", "copy", "15"), "ours"] == 50.0
    assert cell.loc[("onestep_no_step2", "copy", "15"), "verdict"] == "reproduced (seeds split)"  # paper 100
    assert cell.loc[("onestep", "copy", "15"), "ours"] == 100.0
    assert "content" not in set(side.variant)
    assert mla.against_paper("mla-ablations", runs.iloc[:0], "full protocol")[0].empty


def test_first_seeds_changes_judges_the_table_again_on_its_first_seeds():
    """Hand-made Copy / OneStep runs (paper: 100 at 15, 30 and 100): seeds 0-2 solve every split, seeds 3 and 4 fail
    all three. On seeds 0-2 each cell is reproduced; on 0-4 each is reproduced with its seeds split."""
    values = [100.0, 100.0, 100.0, 0.0, 0.0]
    runs = runs_frame([("copy", "onestep", s, n, "accuracy", 100.0 if n == "iid" else v)
                       for s, v in enumerate(values) for n in ("iid", "15", "30", "100")])
    side, _, seeds = mla.against_paper("mla-main", runs, "full protocol")
    changes, first = mla.first_seeds_changes("mla-main", runs, side, "full protocol")
    assert seeds == [0, 1, 2, 3, 4] and first == [0, 1, 2]
    assert changes.length.tolist() == ["15", "30", "100"]
    assert set(changes["verdict before"]) == {"reproduced"} and set(changes["verdict after"]) == {
        "reproduced (seeds split)"}
    text, table = report.first_seeds_parts(changes, first, len(side), seeds)
    assert text == ("Judged on its first seeds 0-2 alone, 3 of the 3 cells had another verdict: 3 from *reproduced* "
                    "to *reproduced (seeds split)* (the cells below).")
    assert table.equals(changes.round(1))
    assert report.first_seeds_parts(changes.iloc[:0], first, 3, seeds) == (
        "Judged on its first seeds 0-2 alone, none of the 3 cells had another verdict.", "")
    three = runs[runs.seed < 3]
    assert mla.first_seeds_changes("mla-main", three, side, "full protocol")[0].empty
    assert report.first_seeds_parts(changes.iloc[:0], [0, 1, 2], 3, [0, 1, 2]) == ("", "")
