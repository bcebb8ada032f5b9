"""The leaderboard's scoring, seeds and ranking against hand-computed values."""

import math

import pandas as pd
import pytest

from lengthgen.errors import LengthgenError
from lengthgen.leaderboard.protocol import (
    MARGIN,
    RANKED,
    at_floor,
    cell_scores,
    clearly_ahead,
    ranking,
    row_costs,
    run_scores,
)
from lengthgen.metrics import ACCURACY, FINAL_TRAIN_LOSS


def tidy(curves: dict) -> pd.DataFrame:
    """Tidy rows from {(task, variant, seed): {length: exact match}}, with a training-loss row each (not read)."""
    rows = [{"task": t, "variant": v, "seed": s, "length": n, "metric": ACCURACY, "value": x}
            for (t, v, s), curve in curves.items() for n, x in curve.items()]
    rows += [{"task": t, "variant": v, "seed": s, "length": 0, "metric": FINAL_TRAIN_LOSS, "value": 0.1}
             for t, v, s in curves]
    return pd.DataFrame(rows)


TRAINED = {"copy": 10}


def test_a_run_is_scored_within_and_beyond_its_training_lengths():
    runs = tidy({("copy", "rope", 0): {10: 100.0, 15: 95.0, 30: 60.0, 100: 0.0},
                 ("copy", "nope", 0): {10: 80.0, 15: 100.0, 30: 100.0, 100: 100.0}})
    scores = run_scores(runs, TRAINED).set_index("variant")
    assert scores.loc["rope", ["in distribution", "beyond", "reach"]].tolist() == [100.0, 155 / 3, 15]
    assert scores.loc["nope", ["in distribution", "beyond", "reach"]].tolist() == [80.0, 100.0, 0]  # 80 at 10: no reach


def test_a_run_must_test_lengths_on_both_sides_of_its_training_lengths_and_its_task_must_be_known():
    with pytest.raises(LengthgenError, match="tests no length beyond its training lengths"):
        run_scores(tidy({("copy", "rope", 0): {5: 100.0, 10: 100.0}}), TRAINED)
    with pytest.raises(LengthgenError, match="tests no length within"):
        run_scores(tidy({("copy", "rope", 0): {15: 100.0}}), TRAINED)
    with pytest.raises(LengthgenError, match="no training length for task 'scan'; known: copy"):
        run_scores(tidy({("scan", "rope", 0): {15: 100.0}}), TRAINED)


def cells_of(curves: dict) -> pd.DataFrame:
    return cell_scores(run_scores(tidy(curves), TRAINED)).set_index("variant")


def test_a_cell_is_the_median_of_its_seeds_with_their_spread_and_is_not_trained_below_the_bar():
    cells = cells_of({("copy", "rope", 0): {10: 100.0, 30: 10.0}, ("copy", "rope", 1): {10: 95.0, 30: 90.0},
                      ("copy", "rope", 2): {10: 40.0, 30: 50.0},
                      ("copy", "nope", 0): {10: 85.0, 30: 100.0}})
    rope = cells.loc["rope"]
    assert [rope["in distribution"], rope.beyond, rope.reach] == [95.0, 50.0, 10]  # medians of (100, 95, 40) ...
    assert [rope["beyond lo"], rope["beyond hi"], rope["reach lo"], rope["reach hi"]] == [10.0, 90.0, 0, 30]
    assert rope.seeds == 3 and rope.status == RANKED
    assert cells.loc["nope", "status"] == "not trained"  # 85 < 90 in distribution, however high beyond


def test_a_cell_with_an_even_number_of_seeds_is_refused():
    with pytest.raises(LengthgenError, match="copy / rope has 2 seeds; a cell needs an odd number"):
        cells_of({("copy", "rope", 0): {10: 100.0, 30: 10.0}, ("copy", "rope", 1): {10: 95.0, 30: 90.0}})


def test_the_ranking_orders_trained_cells_by_beyond_then_reach_shares_ties_and_never_ranks_untrained_ones():
    cells = cell_scores(run_scores(tidy({
        ("copy", "a", 0): {10: 100.0, 15: 100.0, 30: 0.0},  # beyond 50, reach 15
        ("copy", "b", 0): {10: 100.0, 15: 0.0, 30: 100.0},  # beyond 50, reach 10: behind a on reach
        ("copy", "c", 0): {10: 100.0, 15: 100.0, 30: 100.0},  # beyond 100: first
        ("copy", "d", 0): {10: 100.0, 15: 100.0, 30: 0.0},  # a's twin: shares its place
        ("copy", "e", 0): {10: 50.0, 15: 100.0, 30: 100.0},  # not trained: no place
        ("lookup", "a", 0): {6: 100.0, 7: 0.0, 9: 0.0}}), {**TRAINED, "lookup": 6}))
    ranked = ranking(cells)
    assert ranked[["task", "variant"]].apply(tuple, axis=1).tolist() == [
        ("copy", "c"), ("copy", "a"), ("copy", "d"), ("copy", "b"), ("copy", "e"), ("lookup", "a")]
    places = dict(zip(ranked.task + "/" + ranked.variant, ranked["rank"], strict=True))
    assert [places[k] for k in ("copy/c", "copy/a", "copy/d", "copy/b", "lookup/a")] == [1, 2, 2, 4, 1]
    assert math.isnan(places["copy/e"])


def test_a_rows_cost_sums_each_of_its_runs_wall_time_once():
    rows = pd.DataFrame([{"task": t, "variant": v, "seed": s, "length": n, "wall_seconds": w}
                         for t, v, s, w in (("copy", "rope", 0, 1800.0), ("copy", "rope", 1, 1800.0),
                                            ("bucket_sort", "rope", 0, 3600.0), ("copy", "nope", 0, 900.0))
                         for n in (10, 15, 30)])  # each run's wall time on each of its rows
    costs = row_costs(rows)
    assert costs["rope"] == 2.0 and costs["nope"] == 0.25


def test_a_rows_cost_takes_each_cells_median_run_so_one_slowed_run_does_not_swell_it():
    rows = pd.DataFrame([{"task": "copy", "variant": "rope", "seed": s, "length": 10, "wall_seconds": w}
                         for s, w in ((0, 1200.0), (1, 1200.0), (2, 36000.0))])  # seed 2 shared the machine
    assert row_costs(rows)["rope"] == 1.0  # 3 runs x the median 1,200 s, not the sum's 10.67 h


def test_cells_the_seeds_spread_cannot_tell_apart_share_a_rank():
    def cell(variant, beyond, reach, status=RANKED):  # (lowest, median, highest) over the seeds
        return {"task": "copy", "variant": variant, "beyond lo": beyond[0], "beyond": beyond[1], "beyond hi": beyond[2],
                "reach lo": reach[0], "reach": reach[1], "reach hi": reach[2], "status": status}

    cells = pd.DataFrame([cell("a", (40, 50, 60), (10, 15, 15)), cell("b", (45, 55, 65), (10, 10, 15)),
                          cell("c", (70, 80, 90), (10, 10, 10)),  # above a's and b's highest: ahead of both
                          cell("d", (40, 50, 60), (30, 30, 30)),  # a's beyond, above a's and b's highest reach
                          cell("e", (0, 0, 0), (10, 10, 10)), cell("f", (0, 0, 0), (10, 10, 10)),
                          cell("g", (90, 95, 99), (0, 0, 0), status="not trained")])
    ranked = ranking(cells)
    assert dict(zip(ranked.variant, ranked["rank"], strict=True)) == pytest.approx(
        {"c": 1, "d": 2, "b": 3, "a": 3, "e": 5, "f": 5, "g": math.nan}, nan_ok=True)  # b: behind c and d
    assert ranked.variant.tolist() == ["c", "d", "b", "a", "e", "f", "g"]  # by rank, then median beyond, then reach


def test_beyond_scores_less_than_the_margin_apart_do_not_order_two_cells():
    def cell(variant, lo, hi):  # every seed reaching 10
        return {"task": "copy", "variant": variant, "beyond lo": lo, "beyond": (lo + hi) / 2, "beyond hi": hi,
                "reach lo": 10, "reach": 10, "reach hi": 10, "status": RANKED}

    # the lookup-table case: 3 of 2,500 examples right on every seed of both, one mean rounded up by 2e-17
    rounded = pd.DataFrame([cell("learned", 0.12000000000000002, 0.16), cell("sinusoidal", 0.04, 0.12)])
    assert ranking(rounded)["rank"].tolist() == [1, 1]
    assert not clearly_ahead(rounded.iloc[0], rounded.iloc[1])
    near = pd.DataFrame([cell("a", 10.0 + MARGIN - 0.1, 12.0), cell("b", 8.0, 10.0)])  # 0.9 points apart
    assert ranking(near)["rank"].tolist() == [1, 1]
    apart = pd.DataFrame([cell("a", 10.0 + MARGIN, 12.0), cell("b", 8.0, 10.0)])  # one point apart: ordered
    assert ranking(apart).set_index("variant")["rank"].to_dict() == {"a": 1, "b": 2}
    assert at_floor(cell("x", 0.0, MARGIN - 0.01)) and not at_floor(cell("x", 0.0, MARGIN))


def test_a_difference_of_one_point_in_computed_means_orders_cells_despite_float_rounding():
    cells = cell_scores(run_scores(tidy({
        **{("copy", "a", s): {10: 100.0, 15: 4.6, 30: 0.0, 100: 0.0} for s in range(3)},  # beyond 4.6 / 3
        **{("copy", "b", s): {10: 100.0, 15: 1.6, 30: 0.0, 100: 0.0} for s in range(3)}}), TRAINED))  # 1.6 / 3
    a, b = (cells.set_index("variant").loc[v] for v in ("a", "b"))
    assert a["beyond lo"] - b["beyond hi"] < MARGIN  # 0.9999999999999999: one point, as the floats have it
    assert clearly_ahead(a, b) and ranking(cells).set_index("variant")["rank"].to_dict() == {"a": 1, "b": 2}


def test_within_the_margin_the_higher_reach_decides():
    def cell(variant, beyond, reach):  # every seed alike
        return pd.Series({"task": "copy", "variant": variant, "beyond lo": beyond, "beyond": beyond,
                          "beyond hi": beyond, "reach lo": reach, "reach": reach, "reach hi": reach, "status": RANKED})

    a, b = cell("a", 10.0, 15), cell("b", 10.5, 10)  # b higher by half a point, a reaching further
    assert clearly_ahead(a, b) and not clearly_ahead(b, a)
