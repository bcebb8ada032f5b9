"""What the chapters say about their numbers (analysis/report.py), from hand-made frames."""

import pandas as pd

from lengthgen.analysis import compare, report


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
    side = pd.DataFrame({"variant": ["mono", "mono", "content"], "task": ["copy"] * 3, "split": ["15", "30", "15"],
                         "metric": ["accuracy"] * 3, "paper": [100.0, 100.0, 0.0], "ours": [0.0, 0.0, 0.0],
                         "seeds": [1] * 3, "verdict": ["not reproduced", "not reproduced", "reproduced"],
                         "reason": ["ours lower", "ours lower", ""]})
    grid, table, text = report.cell_parts(side, "Table 2")
    assert list(table.index.names) == ["variant", "task", "split"] and "reason" not in table.columns
    assert text.endswith("- **mono / copy** at 15, 30 (not reproduced): ours lower")
    assert report.cell_parts(side.iloc[2:], "Table 2")[2] == ""
    assert list(grid.data[0].y) == ["mono", "content"] and list(grid.data[0].x) == ["15", "30"]
    assert grid.layout.title.text == "Table 2" and "ours lower" not in grid.data[0].text[0][0]
    assert report.verdict_counts(side) == "2 not reproduced, 1 reproduced"


def test_separated_tasks_and_majority_verdict():
    sep = pd.DataFrame({"same separation": ["yes", "no", "yes"]}, index=["copy", "recopy", "lookup"])
    assert report.separated_tasks(sep) == "2 of 3 tasks: copy, lookup"
    assert report.majority_verdict(pd.Series(["reproduced"] * 3 + ["not reproduced"])) == (
        "reproduced", "3 cells reproduced, 1 cell not reproduced")
    assert report.majority_verdict(pd.Series(["a", "b"]))[0] == "mixed"
    assert report.majority_verdict(pd.Series([], dtype=str))[0] == "no stored results"


def test_fit_versus_length_separates_fitted_failures_from_unfitted_runs(runs_frame):
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


def test_fit_versus_length_counts_many_fitted_failures_per_task(runs_frame):
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


def test_seed_agreement_is_empty_without_multi_seed_cells(runs_frame):
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
    side = pd.DataFrame({"variant": ["a", "b"], "split": ["15", "30"], "paper": [100.0, 50.0], "ours": [90.0, 0.0]})
    assert report.largest_gaps(side, 1) == "b at 30: ours 0%, paper 50%"


def test_early_break_text_groups_the_runs_of_a_cell_in_seed_order():
    last = pd.DataFrame({"task": ["recopy", "recopy", "copy", "recopy"], "variant": ["locattn"] * 4,
                         "seed": [2, 0, 0, 1], "first_error": [5.0, 0.0, 12.0, 3.0],
                         "early": [True, True, False, True]}).set_index(["task", "variant", "seed"])
    assert report.early_break_text(last, {"recopy": 46, "copy": 10}) == (
        "At the longest test split, 4 runs that learned their task in distribution (iid ≥ 90%) get some outputs "
        "wrong; in 3 of them the median first error lies before the longest training target: recopy/locattn at "
        "token 0, 3, 5 (seeds 0-2; trained up to 46).")
    assert report.early_break_text(last[~last.early], {"copy": 10}).endswith("before the longest training target.")


def test_seed_protocol_names_the_seeds_kept_and_the_runs_left_out():
    runs = pd.DataFrame({"seed": [0, 0, 1, 2, 2], "key": ["a", "a", "b", "c", "d"]})
    text = report.seed_protocol(runs, [0])
    assert text == ("Medians over seed 0 (of the seeds every cell has, an odd number, lowest first); 3 stored runs of "
                    "seeds 1, 2 stay out of the medians (shown per seed where a table lists seeds).")
    assert report.seed_protocol(runs[runs.seed == 0], [0]) == ("Medians over seed 0 (of the seeds every cell has, an "
                                                              "odd number, lowest first).")
    assert report.seed_protocol(runs.iloc[:0], []) == ""


def test_ranking_text_gives_rho_p_and_verdict():
    text = report.ranking_text({"cells": 6, "rho": 0.9123, "p": 0.0112, "verdict": "reproduced"})
    assert text == ("Ranking of the 6 cells run that learned their task: Spearman's rho 0.91 (p = 0.011), "
                    "reproduced.")
