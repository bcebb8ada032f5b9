"""The leaderboard read for its chapter: the heatmap's cells and hover, and the ranking in words."""

import numpy as np
import pandas as pd

from lengthgen.leaderboard.protocol import board
from lengthgen.leaderboard.reading import (
    at_length,
    board_table,
    cost_words,
    curves,
    heatmap,
    open_words,
    ranking_words,
)


def runs_of(values: dict[tuple[str, str], list[float]], lengths=(10, 15, 30)) -> pd.DataFrame:
    """One seed per cell: exact match at `lengths` for each (task, variant)."""
    return pd.DataFrame([{"task": task, "variant": variant, "seed": 0, "length": n, "metric": "accuracy",
                          "value": v, "wall_seconds": 60.0}
                         for (task, variant), vs in values.items() for n, v in zip(lengths, vs, strict=True)])


RUNS = runs_of({("copy", "rope"): [100.0, 95.0, 5.0], ("copy", "alibi"): [98.0, 60.0, 20.0],
                ("copy", "nope"): [30.0, 0.0, 0.0], ("reverse_copy", "rope"): [20.0, 0.0, 0.0]})
BOARD = board(RUNS, {"copy": 10, "reverse_copy": 10})


def test_the_heatmap_colours_ranked_cells_by_beyond_and_leaves_untrained_ones_grey_with_their_curve_on_hover():
    fig = heatmap(BOARD, RUNS, "t")
    grey, cells = fig.data
    assert list(cells.y) == ["rope", "alibi", "nope"] and list(cells.x) == ["copy", "reverse_copy"]
    z, g = np.array(cells.z, dtype=float), np.array(grey.z, dtype=float)
    assert z[0, 0] == 50.0 and z[1, 0] == 40.0  # (95 + 5) / 2 and (60 + 20) / 2
    assert np.isnan(z[2, 0]) and np.isnan(z[0, 1]) and g[2, 0] == 0 and g[0, 1] == 0  # not trained: grey, no score
    assert np.isnan(z[1, 1]) and np.isnan(g[1, 1]) and cells.customdata[1][1] == ""  # ALiBi never ran Reverse Copy
    assert np.isnan(g[0, 0])  # a ranked cell has no grey under it
    assert cells.text[0][0] == "50% (#1)" and cells.text[1][0] == "40% (#2)" and cells.text[2][0] == "not trained"
    hover = cells.customdata[0][0]
    assert "length 10: 100.0%" in hover and "length 30: 5.0%" in hover and "rank 1" in hover
    # with the grid's rule of where a mechanism runs, a missing cell says whether it never runs or is yet to be stored
    told = heatmap(BOARD, RUNS, "t", runs_on=lambda mechanism, task: task == "copy").data[1]
    assert told.text[1][1] == "does not run" and told.text[0][0] == "50% (#1)"
    assert heatmap(BOARD, RUNS, "t", runs_on=lambda mechanism, task: True).data[1].text[1][1] == "not stored yet"


def test_curves_take_the_median_over_seeds():
    two = pd.concat([RUNS, RUNS.assign(seed=1, value=RUNS.value / 2), RUNS.assign(seed=2, value=0.0)])
    by_length = curves(two).set_index(["task", "variant", "length"]).value
    assert by_length[("copy", "rope", 10)] == 50.0


def test_the_ranking_in_words_names_the_first_the_number_ranked_and_the_untrained():
    assert ranking_words(BOARD) == ("On copy, rope (50.0% beyond, reaching 15) ranks first of 2 trained; not trained: "
                                    "nope. On reverse_copy no mechanism fits its training lengths (rope not trained).")


def test_the_first_ranked_cell_shows_its_seeds_range_beside_its_median():
    three = pd.concat([RUNS.assign(seed=s, value=RUNS.value - s) for s in range(3)])  # seeds 0-2: 2 points lower each
    assert ranking_words(board(three, {"copy": 10, "reverse_copy": 10})).startswith(
        "On copy, rope (49.0% beyond, seeds 48.0-50.0, reaching 15) ranks first of 2 trained")


def test_tied_mechanisms_rank_first_together():
    tied = runs_of({("copy", "rope"): [100.0, 95.0, 5.0], ("copy", "alibi"): [100.0, 95.0, 5.0]})
    assert ranking_words(board(tied, {"copy": 10})) == (
        "On copy, rope (50.0% beyond, reaching 15) and alibi (50.0% beyond, reaching 15) rank first of 2 trained.")


def test_the_length_explorer_shows_each_tasks_cells_at_one_test_length_after_another():
    fig = at_length(RUNS, 1, "t").data[0]
    assert list(fig.x) == ["copy at 15", "reverse_copy at 15"] and list(fig.y) == ["rope", "alibi", "nope"]
    z = np.array(fig.z, dtype=float)
    assert z[0, 0] == 95.0 and z[1, 0] == 60.0 and z[2, 0] == 0.0 and z[0, 1] == 0.0 and np.isnan(z[1, 1])
    assert list(at_length(RUNS, 9, "t").data[0].x) == ["copy at 30", "reverse_copy at 30"]  # past the last: the last


def test_the_board_table_puts_each_scores_range_beside_it_and_none_for_one_seed():
    three = pd.concat([RUNS, RUNS.assign(seed=1, value=RUNS.value / 2), RUNS.assign(seed=2, value=0.0)])
    shown = board_table(board(three, {"copy": 10, "reverse_copy": 10})).set_index(["task", "mechanism"])
    assert shown.loc[("copy", "rope"), "beyond range"] == "0.0-50.0"
    assert shown.loc[("copy", "rope"), "seeds fit"] == "1 of 3"  # 100, 50 and 0 in distribution
    fit = pd.concat([RUNS, RUNS.assign(seed=1, value=RUNS.value * 0.95), RUNS.assign(seed=2, value=RUNS.value * 0.4)])
    ranked = board_table(board(fit, {"copy": 10, "reverse_copy": 10})).set_index(["task", "mechanism"])
    assert ranked.loc[("copy", "rope"), ["seeds fit", "status"]].tolist() == ["2 of 3", "ranked"]  # 100, 95, 40
    assert board_table(BOARD).set_index(["task", "mechanism"]).loc[("copy", "rope"), "beyond range"] == ""
    assert list(board_table(BOARD).columns) == ["task", "mechanism", "in distribution", "beyond", "beyond range",
                                               "reach", "reach range", "seeds fit", "status", "rank"]


def test_the_board_table_says_within_how_many_steps_a_cell_did_not_fit():
    shown = board_table(BOARD, {"copy": 3000, "reverse_copy": 4000}).set_index(["task", "mechanism"]).status
    assert shown[("copy", "nope")] == "not trained in 3,000 steps"
    assert shown[("reverse_copy", "rope")] == "not trained in 4,000 steps" and shown[("copy", "rope")] == "ranked"


def test_a_rows_cost_in_words_sums_its_runs_in_hours():
    runs = RUNS.assign(wall_seconds=RUNS.variant.map({"rope": 1800.0, "alibi": 90.0, "nope": 36.0}))
    assert cost_words(runs) == ("CPU-thread hours per row (every task and seed it ran, each cell at its median run's "
                                "time; its number of tasks in brackets): rope 1.00 (2), alibi 0.03 (1), nope 0.01 "
                                "(1).")  # rope: copy and reverse_copy, 0.5 h each


def test_a_task_where_every_trained_cell_is_at_the_floor_says_so_instead_of_naming_a_first():
    flat = runs_of({("copy", "rope"): [100.0, 0.0, 0.0], ("copy", "alibi"): [100.0, 1.8, 0.0],  # beyond 0.9
                    ("copy", "nope"): [20.0, 0.0, 0.0]})
    assert ranking_words(board(flat, {"copy": 10})) == (
        "On copy, all 2 trained mechanisms are at the floor beyond the training lengths (every seed under 1% exact "
        "match past them); not trained: nope.")
    alone = runs_of({("copy", "rope"): [100.0, 0.0, 0.0]})
    assert ranking_words(board(alone, {"copy": 10})) == (
        "On copy, the one trained mechanism, rope, is at the floor beyond the training lengths (every seed under 1% "
        "exact match past them).")
    off = runs_of({("copy", "rope"): [100.0, 0.0, 0.0], ("copy", "alibi"): [100.0, 2.0, 0.0]})  # beyond 1.0
    assert ranking_words(board(off, {"copy": 10})).startswith("On copy, alibi (1.0% beyond, reaching 10) ranks first")


def test_abcs_open_share_is_read_per_task_as_a_median_with_its_range_beside_the_cells_status():
    runs = pd.concat([runs_of({("copy", "abc"): [100.0, 50.0, 0.0], ("reverse_copy", "abc"): [10.0, 0.0, 0.0]}),
                      pd.DataFrame([{"task": t, "variant": "abc", "seed": 0, "length": 10, "metric": "open_share",
                                     "value": v} for t, v in (("copy", 18.2), ("reverse_copy", 2.8))])])
    assert open_words(runs, board(runs, {"copy": 10, "reverse_copy": 10})).endswith(
        "copy 18% (18-18; ranked); reverse_copy 3% (3-3; not trained).")
    assert open_words(RUNS, BOARD) == "No stored ABC run records how much of the source its bias leaves open."
