"""The factor study's readings on hand-made runs: the paired effect and its verdict, the end of the course against
its best point, the share of first wrong zeros."""

import pandas as pd
import pytest

from lengthgen.metrics import ACCURACY
from lengthgen.papers.abc.factor_readings import effect_verdict, factor_effects, factor_section, factor_table
from lengthgen.papers.abc.factors import FIRST_WRONG_ZERO

LENGTHS = (6, 8, 12, 24, 50)


def run(factor: str, seed: int, far: float, trained: float = 100.0, peak: float | None = None) -> list[dict]:
    """One stored factor run: the trained model (`trained` % at 6 digits), and each rule's ABC model along a course
    of two points, 100% at 6 and 8 digits and `far` % beyond at the last point (`peak` at 50 digits at the first)."""
    rows = [{"variant": factor, "seed": seed, "stage": "trained", "step": 3000, "length": length,
             "metric": ACCURACY, "value": trained if length == 6 else 0.0} for length in LENGTHS]
    for rule in ("paper", "code", "public"):
        for step in (100, 200):
            for length in LENGTHS:
                value = 100.0 if length <= 8 else far if step == 200 else 0.0
                if step == 100 and length == 50 and peak is not None:
                    value = peak
                rows.append({"variant": factor, "seed": seed, "stage": f"ABC ({rule})", "step": step,
                             "length": length, "metric": ACCURACY, "value": value})
        rows.append({"variant": factor, "seed": seed, "stage": f"ABC ({rule})", "step": 200, "length": 50,
                     "metric": FIRST_WRONG_ZERO, "value": 80.0 if rule == "paper" else 20.0})
    return rows


def frame(*runs: list[dict]) -> pd.DataFrame:
    return pd.DataFrame([row for r in runs for row in r])


def test_a_factor_helps_hurts_or_not_by_its_paired_effect_at_every_seed():
    runs = frame(run("baseline", 100, 10.0), run("baseline", 101, 30.0),
                 run("dropout", 100, 25.0), run("dropout", 101, 40.0),  # +15, +10
                 run("xavier", 100, 60.0), run("xavier", 101, 30.0),  # +50, 0: one seed only
                 run("adam", 100, 0.0), run("adam", 101, 15.0),  # -10, -15
                 run("own-schedule", 100, 90.0),
                 run("wide-deep", 100, 90.0, trained=80.0), run("wide-deep", 101, 90.0))
    effects = factor_effects(runs).set_index("factor")
    assert effects.verdict.to_dict() == {"dropout": "helps", "xavier": "no clear effect", "adam": "hurts",
                                         "own-schedule": "one seed (not judged)", "wide-deep": "not trained"}
    assert effects.effect["dropout"] == pytest.approx(12.5) and effects.low["dropout"] == pytest.approx(10.0)
    assert effects.effect["xavier"] == pytest.approx(25.0) and effects.seeds["own-schedule"] == 1
    # just short of the threshold at one seed: not "helps"
    assert effect_verdict([10.0, 9.9], fits=True) == "no clear effect" and effect_verdict([-9.9, -30], True) != "hurts"


def test_the_table_reads_the_end_of_the_course_and_its_best_point_apart():
    runs = frame(run("baseline", 100, 10.0, peak=70.0), run("baseline", 101, 30.0, peak=20.0))
    table = factor_table(runs).set_index("rule")
    assert table.index.tolist() == ["paper", "code", "public"] and (table.seeds == 2).all()
    assert table.loc["code", "50"] == pytest.approx(20.0) and table.loc["code", "50 range"] == "10-30"
    assert table.loc["code", "best at 50"] == pytest.approx((70.0 + 30.0) / 2)  # each seed's highest point
    assert table.loc["paper", "first wrong 0"] == 80.0 and table.loc["code", "first wrong 0"] == 20.0
    assert (table.trained == 100.0).all() and (table["8"] == 100.0).all()


def test_the_section_states_its_rule_and_says_when_nothing_is_stored():
    empty = factor_section(pd.DataFrame(), "abc-factors at cpu")
    assert "No run of abc-factors at cpu is stored yet" in empty
    text = factor_section(frame(run("baseline", 100, 10.0), run("dropout", 100, 50.0)), "abc-factors at cpu")
    assert "| dropout | 1 | +40.0 | +40.0 to +40.0 | one seed (not judged) |" in text
    assert "at least 10 points at every seed" in text and "| baseline | code | 1 | 100.0 |" in text
