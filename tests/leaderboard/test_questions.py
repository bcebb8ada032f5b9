"""The cross-paper questions: the ahead / behind / spread rule on hand-made boards, and the average ranking."""

import pandas as pd
import pytest

from lengthgen.errors import LengthgenError
from lengthgen.leaderboard.protocol import board, run_scores
from lengthgen.leaderboard.questions import (
    AHEAD,
    BEHIND,
    FLOOR,
    QUESTIONS,
    SCHEMES,
    TIED,
    answer,
    average_table,
    best_on_average,
    best_words,
    chance_apart,
    chance_words,
    compare,
    outside_board,
)

TRAINED = {"copy": 10, "recopy": 10, "reverse_copy": 10, "dedupe": 10}


def runs(cells: dict[tuple[str, str], tuple[list[float], float]]) -> pd.DataFrame:
    """Tidy rows: per (task, mechanism), one run per seed with `fit` % at length 10 and the seed's beyond % at 15."""
    rows = []
    for (task, variant), (beyond, fit) in cells.items():
        for seed, value in enumerate(beyond):
            rows += [{"task": task, "variant": variant, "seed": seed, "length": n, "metric": "accuracy", "value": v}
                     for n, v in ((10, fit), (15, value))]
    return pd.DataFrame(rows)


CELLS = {
    ("copy", "rope+ln"): ([60, 70, 80], 100), ("copy", "rope"): ([10, 20, 30], 100),  # apart: ahead
    ("recopy", "rope+ln"): ([1, 2, 3], 100), ("recopy", "rope"): ([10, 20, 30], 100),  # apart: behind
    ("reverse_copy", "rope+ln"): ([25, 50, 70], 100), ("reverse_copy", "rope"): ([10, 20, 30], 100),  # overlap
    ("dedupe", "rope+ln"): ([90, 90, 90], 40), ("dedupe", "rope"): ([0, 0, 0], 100),  # rope+ln did not fit
}
BOARD = board(runs(CELLS), TRAINED)


def test_a_mechanism_is_ahead_only_when_every_seed_is_and_an_untrained_cell_is_named_not_counted():
    table = compare(BOARD, QUESTIONS["ln rope"]).set_index("task")
    assert table.comparison.to_dict() == {"copy": AHEAD, "recopy": BEHIND, "reverse_copy": TIED,
                                          "dedupe": "not trained: rope+ln"}
    assert table.loc["copy", "rope+ln beyond"] == "70.0 (60.0-80.0)"
    assert answer(BOARD, QUESTIONS["ln rope"]).endswith(
        "rope+ln against rope, on the 3 tasks where both fit: ahead on 1 (copy); behind on 1 (recopy); within the "
        "seeds' spread on 1 (reverse_copy). On dedupe, not trained: rope+ln.")  # an outcome on no task: unsaid


def test_within_overlapping_beyond_ranges_the_reach_decides_as_in_the_ranking():
    def cell(variant, at_15, at_20):  # fit 100% at 10; per seed, the scores at 15 and 20
        return [{"task": "copy", "variant": variant, "seed": seed, "length": n, "metric": "accuracy", "value": v}
                for seed, (a, b) in enumerate(zip(at_15, at_20, strict=True)) for n, v in ((10, 100), (15, a), (20, b))]

    both = board(pd.DataFrame(cell("rope+ln", [95] * 3, [0] * 3) + cell("rope", [80, 85, 89], [10, 10, 20])), TRAINED)
    # beyond: rope+ln 47.5 on every seed, rope 45-54.5 (overlap); reach: rope+ln 15 on every seed, rope 10
    assert compare(both, QUESTIONS["ln rope"]).comparison.tolist() == [AHEAD]
    assert both.set_index("variant")["rank"].to_dict() == {"rope+ln": 1, "rope": 2}  # the same rule ranks them


def test_a_question_asked_on_some_tasks_reads_only_those_and_one_without_cells_says_so():
    renamed = BOARD.replace({"variant": {"rope+ln": "abc", "rope": "encdec"}})
    assert compare(renamed, QUESTIONS["abc recopy"]).task.tolist() == ["recopy"]  # the ReCopy tasks only
    assert "ahead on none; behind on 1 (recopy)" in answer(renamed, QUESTIONS["abc recopy"])
    assert answer(BOARD, QUESTIONS["abc"]).endswith("Not asked yet: no task of the board holds both abc and encdec.")
    assert "no task of the board (of recopy, reverse_recopy, " in answer(BOARD, QUESTIONS["abc recopy"])
    assert answer(BOARD, QUESTIONS["ppc"]).endswith("Not asked: the board holds no cell of variable_assignment.")


def test_the_best_scheme_on_average_compares_each_pair_over_the_tasks_both_fit_never_counting_an_untrained_cell():
    table = board(runs({
        ("copy", "rope"): ([50, 60, 70], 100), ("copy", "alibi"): ([80, 90, 95], 100),  # alibi ahead on copy
        ("copy", "nope"): ([0, 0, 0], 40),  # nope does not fit copy
        ("recopy", "rope"): ([40, 40, 40], 100), ("recopy", "alibi"): ([99, 99, 99], 50),  # alibi does not fit
        ("recopy", "nope"): ([0, 0, 0], 100),
        ("dedupe", "rope"): ([100, 100, 100], 100),  # alibi and nope did not run: not compared
    }), TRAINED)
    ranked = best_on_average(table, ("nope", "rope", "alibi", "fire")).set_index("scheme")  # fire: not on the board
    assert ranked.index.tolist() == ["rope", "alibi", "nope"] and ranked.tasks.tolist() == [2, 2, 2]  # rope fits all
    assert ranked["ahead of"].tolist() == ["nope", "rope", ""] and ranked.behind.tolist() == ["alibi", "", "rope"]
    assert ranked.loc["alibi", "no fitted task with"] == "nope"  # alibi fits only copy, nope only recopy
    assert ranked.fits.tolist() == ["2 of 2", "1 of 2", "1 of 2"]
    assert ranked["mean beyond"].tolist() == [50.0, 90.0, 0.0]  # alibi's untrained recopy is not a 0 in its mean
    assert ranked.loc["rope", "mean of lowest"] == 45.0 and ranked.loc["rope", "mean of highest"] == 55.0
    assert ranked.loc["rope", "beaten on"] == "copy (by alibi)" and ranked.loc["alibi", "not trained on"] == "recopy"
    shown = average_table(ranked.reset_index()).set_index("scheme")
    assert shown.loc["rope", "mean beyond (seeds' means)"] == "50.0 (45.0-55.0)" and "tasks" not in shown
    assert best_words(ranked.reset_index()) == (  # alibi, ahead of every scheme it meets, fits only copy
        "No scheme is clearly best on average over the 2 tasks every scheme ran. The first in the table, rope, which "
        "fits all of them, is ahead on average of nope and behind alibi.")
    alone = best_on_average(table, ("nope", "alibi"))
    assert best_words(alone) == ("No scheme fits all of the 2 tasks every scheme ran: none can be best on average "
                                 "over them.")
    close = board(runs({("copy", "rope"): ([50, 60, 70], 100), ("copy", "alibi"): ([60, 65, 75], 100)}), TRAINED)
    assert best_words(best_on_average(close, ("rope", "alibi"))) == (
        "No scheme is clearly best on average over the 1 task every scheme ran. The first in the table, alibi, which "
        "fits all of them, is ahead on average of no other scheme and level with rope.")  # alibi's mean higher
    apart = board(runs({("copy", "rope"): ([50, 60, 70], 100), ("copy", "alibi"): ([0, 1, 2], 100)}), TRAINED)
    assert best_words(best_on_average(apart, ("rope", "alibi"))) == (
        "Of the schemes that fit all of the 1 task every scheme ran, rope is clearly best on average: ahead on average "
        "of every other scheme over the tasks both fit.")
    assert best_words(best_on_average(apart, ("nope",))) == "No task of the board holds every positional scheme of " \
                                                            "the decoder yet."
    disjoint = board(runs({("copy", "rope"): ([50, 60, 70], 100), ("recopy", "alibi"): ([0, 1, 2], 100)}), TRAINED)
    assert best_on_average(disjoint, ("rope", "alibi")).empty  # no task holds both: nothing to average over
    near = board(runs({("copy", "rope"): ([10, 10.03, 10.08], 100), ("copy", "alibi"): ([10, 10.01, 10.03], 100),
                       ("copy", "fire"): ([10, 10.04, 10.1], 100)}), TRAINED)  # medians 10.03, 10.01, 10.04
    assert best_on_average(near, ("alibi", "rope", "fire")).scheme.tolist() == ["alibi", "rope", "fire"]  # 10.0 each


def cells_of(**runs: list[tuple[float, float, float]]) -> dict[str, pd.DataFrame]:
    """Per cell name, its runs at seeds 0, 1, ... as `run_scores` rows: (in distribution, beyond, reach) each."""
    return {name: pd.DataFrame([{"task": "copy", "variant": name, "seed": seed, "in distribution": fit,
                                 "beyond": beyond, "reach": reach} for seed, (fit, beyond, reach) in enumerate(rows)])
            for name, rows in runs.items()}


def test_the_chance_of_a_comparison_is_the_share_of_the_swaps_of_a_seeds_runs_that_the_rule_calls_apart():
    # each cell's runs at seeds 0-2; of the 8 ways to swap a seed's two runs between the cells, the rule calls apart
    # only no swap and the swap of every seed: 2 of 8 (the six runs dealt every way would give 2 of 20)
    c = cells_of(a=[(100, 60, 10), (100, 70, 10), (100, 80, 10)], b=[(100, 10, 10), (100, 20, 10), (100, 30, 10)])
    assert chance_apart(c["a"], c["b"]) == chance_apart(c["b"], c["a"]) == 2 / 8
    # the reach calls them apart, the beyond scores never (25 is under 30 + 1 whichever way): again 2 of 8
    c = cells_of(a=[(100, 10, 20), (100, 20, 20), (100, 30, 20)], b=[(100, 25, 10), (100, 35, 10), (100, 40, 10)])
    assert chance_apart(c["a"], c["b"]) == 2 / 8
    # a seed's runs each side of the other's: no swap puts every run of one cell above the other's
    c = cells_of(a=[(100, 25, 10), (100, 50, 10), (100, 70, 10)], b=[(100, 10, 10), (100, 20, 10), (100, 30, 10)])
    assert chance_apart(c["a"], c["b"]) == 0
    # a run that did not fit (40% in distribution): the 4 swaps that give a cell two of them leave it not trained,
    # so they are not counted; of the other 4, 2 are apart
    c = cells_of(a=[(100, 50, 0), (100, 55, 0), (40, 60, 0)], b=[(40, 0, 0), (100, 5, 0), (100, 6, 0)])
    assert chance_apart(c["a"], c["b"]) == 2 / 4
    one = cells_of(a=[(100, 60, 10)], b=[(100, 10, 10)])
    assert chance_apart(one["a"], one["b"]) == 1  # one seed: a comparison apart is apart either way round
    with pytest.raises(LengthgenError, match=r"seeds \[0\] and \[0, 1, 2\]"):
        chance_apart(one["a"], c["b"])


def test_the_chance_count_sums_each_counted_comparisons_chance_once():
    scores = run_scores(runs(CELLS), TRAINED)
    one = {"ln rope": QUESTIONS["ln rope"]}  # ahead, behind, within the spread, and dedupe not trained
    assert chance_words(scores, one) == (
        "Of the 3 comparisons counted above (both cells trained, not both at the floor), 2 came out ahead or behind; "
        "were no mechanism different from its control, 0.5 would by chance alone, on average (for each comparison, "
        "of the ways to swap a seed's two runs between its cells that leave both trained, the share the rule calls "
        "ahead or behind; summed over comparisons that share cells, so an expectation, not a test).")  # 2/8 + 2/8 + 0
    chances = compare(BOARD, QUESTIONS["ln rope"], scores).set_index("task")["chance apart"]
    assert chances.drop("dedupe").to_dict() == {"copy": 2 / 8, "recopy": 2 / 8, "reverse_copy": 0}
    assert pd.isna(chances["dedupe"])  # not counted: no chance
    assert "chance apart" not in compare(BOARD, QUESTIONS["ln rope"])  # without the runs, none
    renamed = scores.replace({"variant": {"rope+ln": "abc", "rope": "encdec"}})
    both = {k: QUESTIONS[k] for k in ("abc", "abc recopy")}  # both compare abc with encdec on recopy
    assert chance_words(renamed, both).startswith("Of the 3 comparisons counted above")  # recopy counted once
    single = run_scores(runs({("copy", "rope+ln"): ([60], 100), ("copy", "rope"): ([10], 100)}), TRAINED)
    assert chance_words(single, one).endswith(
        "1.0 would by chance alone, on average (for each comparison, of the ways to swap a seed's two runs between "
        "its cells that leave both trained, the share the rule calls ahead or behind; summed over comparisons that "
        "share cells, so an expectation, not a test). No more came out than chance would give.")  # one seed: 1 of 1
    assert chance_words(scores, {}) == ("No comparison of the questions is counted yet (none has both cells trained "
                                        "and off the floor).")  # an empty set of questions is not every question


def test_two_cells_at_0_beyond_on_every_seed_are_at_the_floor_not_within_the_spread_even_when_reaches_differ():
    def cell(variant, at_5):  # fit: 100% at 10 and 0% at 15 on every seed; the score at 5 sets the reach
        return [{"task": "copy", "variant": variant, "seed": seed, "length": n, "metric": "accuracy", "value": v}
                for seed in range(3) for n, v in ((5, at_5), (10, 100), (15, 0))]

    flat = board(pd.DataFrame(cell("rope+ln", 100) + cell("rope", 85)), TRAINED)  # reach 10 against 0
    assert flat.set_index("variant")["rank"].to_dict() == {"rope+ln": 1, "rope": 2}  # the ranking reads the reach
    assert compare(flat, QUESTIONS["ln rope"]).comparison.tolist() == [FLOOR]
    assert answer(flat, QUESTIONS["ln rope"]).endswith("where both fit: ahead on none; both under 1% beyond on 1 "
                                                       "(copy).")  # whether it is ahead is always said


def test_the_average_ranks_the_decoders_schemes_that_run_everywhere():
    assert {"nope", "rope", "alibi", "fire", "randomized"} <= set(SCHEMES)
    assert not {"coupling", "ppc", "rope+ln", "encdec", "abc", "gru+content"} & set(SCHEMES)


def test_a_scheme_that_fits_no_task_is_listed_last_and_none_is_compared_without_a_common_fitted_task():
    flat = board(runs({("copy", "nope"): ([0, 0, 0], 40), ("copy", "rope"): ([0, 0, 0], 100)}), TRAINED)
    table = best_on_average(flat, ("nope", "rope"))
    assert table.scheme.tolist() == ["rope", "nope"]  # nope not trained: no mean
    assert best_words(table) == ("rope fits all of the 1 task every scheme ran, and no other scheme fits any of them: "
                                 "none is compared.")


def test_a_question_off_the_board_is_read_from_the_first_size_at_which_its_mechanism_fits():
    def row(variant, budget, step, last):
        return {"variant": variant, "budget": budget, "fits at step": step, "last": last, "fits": last >= 90}
    study = pd.DataFrame([row("2x64 PPC", 20_000, float("nan"), 0.0), row("2x64 RoPE+PoSE", 20_000, float("nan"), 0.0),
                          row("4x128 PPC", 50_000, 34_500.0, 95.3), row("4x128 RoPE+PoSE", 50_000, float("nan"), 0.0)])
    names, where = ("PPC", "RoPE+PoSE"), "the study"
    assert answer_outside(study, names, where) == (
        "Does PPC beat RoPE with PoSE (the sparsity paper's baseline) on variable assignment? Not on this board (no "
        "model of its size fits the task); in the study, PPC first fits at 4x128 on 50,000 steps (at step 34,500), "
        "where RoPE+PoSE does not fit its training lengths (0.0% at the longest): at the smallest size where PPC "
        "fits, the two cannot be compared past the training lengths.")
    both = study.assign(last=[0.0, 0.0, 95.3, 92.0], fits=[False, False, True, True],
                        **{"fits at step": [float("nan")] * 2 + [34_500.0, 40_000.0]})
    assert answer_outside(both, names, where).endswith("where RoPE+PoSE fits too (at step 40,000): a grid at that "
                                                       "size could ask it.")
    assert answer_outside(study[study.variant.str.endswith("RoPE+PoSE")], names, where).endswith(
        "Not asked: in the study, PPC fits at no size.")
    assert answer_outside(study[study.variant != "4x128 RoPE+PoSE"], names, where).endswith(
        "where RoPE+PoSE was not run.")


def answer_outside(study: pd.DataFrame, names: tuple[str, str], where: str) -> str:
    return outside_board(QUESTIONS["ppc"], study.reset_index(drop=True), names, where)
