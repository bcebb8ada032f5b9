"""The factor study's readings on hand-made runs: the paired effect and its verdict, the end of the course against
its best point, the share of first wrong zeros."""

import pandas as pd
import pytest

from lengthgen.analysis.figures import course_curves
from lengthgen.metrics import ACCURACY, FIRST_ERROR, FIRST_WRONG_ZERO
from lengthgen.papers.abc.factor_readings import (
    effect_verdict,
    factor_course,
    factor_effects,
    factor_section,
    factor_table,
    per_layer_reading,
    scaffold_table,
)
from lengthgen.papers.abc.factors import SCAFFOLD_FACTORS
from lengthgen.papers.abc.prose import factor_study

LENGTHS = (6, 8, 12, 24, 50)


def run(factor: str, seed: int, far: float, trained: float = 100.0, peak: float | None = None,
        abc_iid: float = 100.0, task: str = "successor", bias: float | None = None) -> list[dict]:
    """One stored factor run: the trained model (`trained` % at 6 digits), and each rule's ABC model along a course
    of two points, 100% at 8 digits (`abc_iid` at 6 for the code's rule) and `far` % beyond at the last point
    (`peak` at 50 digits at the first), on `task`; with `bias`, the bias's weight on the anti-diagonal (the paper's
    rule: half of it) and 2 open keys."""
    rows = [{"task": task, "variant": factor, "seed": seed, "stage": "trained", "step": 3000, "length": length,
             "metric": ACCURACY, "value": trained if length == 6 else 0.0} for length in LENGTHS]
    for rule in ("paper", "code", "public"):
        for step in (100, 200):
            for length in LENGTHS:
                value = 100.0 if length <= 8 else far if step == 200 else 0.0
                if length == 6 and rule == "code":
                    value = abc_iid
                if step == 100 and length == 50 and peak is not None:
                    value = peak
                rows.append({"task": task, "variant": factor, "seed": seed, "stage": f"ABC ({rule})", "step": step,
                             "length": length, "metric": ACCURACY, "value": value})
        rows.append({"task": task, "variant": factor, "seed": seed, "stage": f"ABC ({rule})", "step": 200,
                     "length": 50, "metric": FIRST_WRONG_ZERO, "value": 80.0 if rule == "paper" else 20.0})
        if bias is not None:
            rows += [{"task": task, "variant": factor, "seed": seed, "stage": f"ABC ({rule})", "step": 200,
                      "length": 50, "metric": metric, "value": value}
                     for metric, value in (("bias_anti_diagonal", bias / 2 if rule == "paper" else bias),
                                           ("open_keys:cross", 2.0))]
        rows.append({"task": task, "variant": factor, "seed": seed, "stage": f"ABC ({rule})", "step": 200,
                     "length": 50, "metric": FIRST_ERROR, "value": 7.0 + seed - 100})
    return rows


def frame(*runs: list[dict]) -> pd.DataFrame:
    rows = pd.DataFrame([row for r in runs for row in r])
    return rows.assign(task=rows.get("task", "successor"))


def test_a_factor_helps_hurts_or_not_by_its_paired_effect_at_every_seed():
    runs = frame(run("baseline", 100, 10.0), run("baseline", 101, 30.0),
                 run("dropout", 100, 25.0), run("dropout", 101, 40.0),  # +15, +10
                 run("xavier", 100, 60.0), run("xavier", 101, 30.0),  # +50, 0: one seed only
                 run("adam", 100, 0.0), run("adam", 101, 15.0),  # -10, -15
                 run("own-schedule", 100, 90.0),
                 run("wide-deep", 100, 90.0, trained=80.0), run("wide-deep", 101, 90.0),
                 run("dropout+xavier", 100, 90.0), run("dropout+xavier", 101, 90.0, abc_iid=89.0))
    effects = factor_effects(runs).set_index("factor")
    assert effects.verdict.to_dict() == {"dropout": "helps", "xavier": "no clear effect", "adam": "hurts",
                                         "own-schedule": "one seed (not judged)", "wide-deep": "not trained",
                                         "dropout+xavier": "not trained"}  # an ABC model below 90% at 6 digits
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
    assert table.loc["code", "first wrong at"] == 7.5  # places 7 and 8, one seed each
    assert (table.trained == 100.0).all() and (table["8"] == 100.0).all()


def test_the_section_states_its_rule_and_says_when_nothing_is_stored():
    empty = factor_section(pd.DataFrame(), "abc-factors at cpu")
    assert "No run of abc-factors at cpu is stored yet" in empty
    text = factor_section(frame(run("baseline", 100, 10.0), run("dropout", 100, 50.0)), "abc-factors at cpu")
    assert "| dropout | 1 | +40.0 | +40.0 to +40.0 | one seed (not judged) |" in text
    assert "at least 10 points at every seed" in text and "| baseline | code | 1 | 100.0 |" in text


def test_the_course_averages_seeds_at_each_point_and_the_figure_has_a_panel_per_factor_and_length():
    runs = frame(run("baseline", 100, 10.0, peak=70.0), run("baseline", 101, 30.0), run("dropout", 100, 50.0))
    course = factor_course(runs).set_index(["factor", "rule", "length", "step"])
    assert course.loc[("baseline", "code", 50, 200)].tolist() == [20.0, 10.0, 30.0]  # mean, min, max over seeds
    assert course.loc[("baseline", "code", 50, 100)].tolist() == [35.0, 0.0, 70.0]
    assert set(course.index.get_level_values("length")) == {24, 50}
    fig = course_curves(factor_course(runs), "t")
    panels = {a.text for a in fig.layout.annotations}
    assert panels == {"baseline", "dropout", "24 digits", "50 digits"} and len(fig.data) == 3 * 2 * 2


def test_the_paragraph_names_the_factors_by_verdict_and_the_gain_of_choosing_a_checkpoint():
    runs = frame(run("baseline", 100, 10.0, peak=70.0), run("baseline", 101, 30.0),
                 run("dropout", 100, 50.0), run("dropout", 101, 60.0), run("adam", 100, 0.0))
    words = factor_study(factor_effects(runs), factor_table(runs))
    assert words["fs_helps"] == "dropout" and words["fs_hurts"] == "none" and words["fs_unjudged"] == "adam"
    assert words["fs_gain"] == "30"  # (70 + 30) / 2 - (10 + 30) / 2: best points against the ends
    assert words["fs_gain_where"] == "baseline, the paper's rule"  # every rule's gain is the same: the first
    assert words["fs_seeds"] == "1-2" and words["fs_points"] == "10"
    assert words["fs_base_at"] == "7.5" and words["fs_base_zero"] == "20-80" and words["fs_train_digits"] == "7"


def test_other_tasks_have_their_own_table_and_neither_enter_the_effects_nor_the_course():
    runs = frame(run("baseline", 100, 10.0), run("dropout+xavier", 100, 50.0), run("dropout+xavier", 101, 60.0),
                 run("dropout+xavier", 100, 0.0, task="addition"), run("dropout+xavier", 101, 0.0, task="addition"))
    effects = factor_effects(runs).set_index("factor")
    assert effects.effect["dropout+xavier"] == pytest.approx(40.0) and effects.seeds["dropout+xavier"] == 1
    assert factor_table(runs).loc[lambda t: t.factor == "dropout+xavier", "50"].tolist() == [55.0] * 3
    addition = factor_table(runs, "addition")
    assert addition.factor.unique().tolist() == ["dropout+xavier"] and (addition["50"] == 0.0).all()
    assert set(factor_course(runs).factor) == {"baseline", "dropout+xavier"}
    course = factor_course(runs).set_index(["factor", "rule", "length", "step"])
    assert course.loc[("dropout+xavier", "code", 50, 200), "mean"] == 55.0  # Successor's two seeds alone
    text = factor_section(runs, "abc-factors at cpu")
    assert "**Addition, sized alone** (`dropout+xavier`, at its" in text
    also = factor_section(pd.concat([runs, frame(run("xavier", 100, 90.0, task="addition"),
                                                 run("xavier", 100, 90.0, task="times_digit"))]), "abc-factors at cpu")
    assert "**N x 1, sized alone** (`xavier`, at" in also
    assert "**Addition, sized alone** (`xavier` and `dropout+xavier`, at" in also  # in FACTORS' order
    assert "| xavier | code | 1 |" in also and text.count("| dropout+xavier | code |") == 2


def test_the_bias_columns_average_the_seeds_that_store_them_and_show_a_dash_where_none_does():
    runs = frame(run("baseline", 100, 10.0, bias=0.8), run("baseline", 101, 30.0), run("dropout", 100, 50.0))
    table = factor_table(runs).set_index(["factor", "rule"])
    assert table.loc[("baseline", "code"), "bias on line"] == 0.8 and table.loc[("baseline", "paper"), "bias on line"] \
        == 0.4 and table.loc[("baseline", "code"), "open keys"] == 2.0  # seed 101 stores none: seed 100's alone
    assert table.loc[("dropout", "code"), ["bias on line", "open keys"]].isna().all()
    text = factor_section(runs, "abc-factors at cpu")
    assert "| 0.40 | 2.0 |" in text and "| – | – |" in text


def controls(seed: int, sums: float, flat: float) -> list[dict]:
    """A control run of the regime: its two ABC models' exact match at 50 digits at the end of retraining."""
    return [{"task": "successor", "variant": "dropout+xavier", "seed": seed, "stage": f"ABC ({rule})", "step": 200,
             "length": 50, "metric": ACCURACY, "value": value} for rule, value in (("paper-sums", sums),
                                                                                   ("code-flat", flat))]


def test_the_controls_say_whether_values_or_lines_decide_at_every_seed():
    from lengthgen.papers.abc.factor_readings import control_reading

    def reading(*rows):  # the regime's main runs: every rule at `far` (2% or 99%) beyond the training numbers
        return control_reading(frame(*rows))

    paper_fails = [run("dropout+xavier", 100, 2.0), run("dropout+xavier", 101, 2.0)]
    assert reading(*paper_fails) == ""  # no control stored
    values = reading(*paper_fails, controls(100, 98.0, 1.0), controls(101, 95.0, 0.0))
    assert "seeds 100, 101" in values and "paper-sums) 98.0 / 95.0: the values decide" in values
    assert "(code-flat) 1.0 / 0.0: no clear reading" in values  # the code's own rule fails here too: not its values
    lines = reading(*paper_fails, controls(100, 3.0, 99.0), controls(101, 0.0, 97.0))
    assert "the paper's lines fail whatever values they carry" in lines and "its lines alone suffice" in lines
    split = reading(*paper_fails, controls(100, 98.0, 99.0), controls(101, 5.0, 97.0))
    assert "no clear reading (the seeds disagree" in split
    code_holds = [run("dropout+xavier", s, 2.0) for s in (100, 101)]
    for r in code_holds:
        for row in r:
            if row["stage"] == "ABC (code)" and row["length"] == 50 and row["metric"] == ACCURACY:
                row["value"] = 99.0
    assert "its values matter too" in reading(*code_holds, controls(100, 98.0, 1.0), controls(101, 95.0, 0.0))


def test_the_scaffold_tables_show_the_trained_models_and_no_abc():
    def nope(factor: str, seed: int, at6: float, loss: float) -> list[dict]:
        return [{"task": "successor", "variant": factor, "seed": seed, "stage": "trained", "step": 3000,
                 "length": length, "metric": ACCURACY, "value": at6 if length == 6 else 0.0} for length in (6, 50)] + [
            {"task": "successor", "variant": factor, "seed": seed, "stage": "trained", "step": 3000, "length": 0,
             "metric": "final_train_loss", "value": loss}]

    numbers = [{"task": "successor", "variant": "nope-wide-deep", "seed": 100, "stage": "trained", "step": 3000,
                "length": length, "metric": "accuracy_number", "value": 55.0} for length in (6, 50)]
    runs = frame(run("baseline", 100, 10.0), nope("nope-wide-deep", 100, 90.0, 0.01), numbers,
                 nope("nope-long", 100, 20.0, 0.05), nope("nope-long", 101, 40.0, 0.03))
    table = scaffold_table(runs).set_index("factor")
    assert table.index.tolist() == ["nope-long", "nope-wide-deep"] and table.seeds.tolist() == [2, 1]
    assert table.loc["nope-long", "6 digits"] == 30.0 and table.loc["nope-long", "loss"] == pytest.approx(0.04)
    assert factor_effects(runs).empty and set(factor_table(runs).factor) == {"baseline"}  # not a factor of the study
    text = factor_section(runs, "abc-factors at cpu")
    assert table.loc["nope-wide-deep", "as numbers at 50"] == 55.0 and table["as numbers at 6"].isna()["nope-long"]
    assert "scaffold without positions" in text and "| nope-long | 2 | 0.040 | 30.0 | 0.0 | – | – |" in text
    assert "scaffold without positions" not in factor_section(frame(run("baseline", 100, 10.0)), "abc-factors at cpu")
    t3 = [{**row, "task": "addition", "variant": factor}
          for factor, at6 in (("T=3", 50.0), ("T=3, token window", 100.0)) for row in nope("x", 100, at6, 0.02)]
    both = frame(run("baseline", 100, 10.0), t3)
    assert scaffold_table(both, SCAFFOLD_FACTORS)["6 digits"].tolist() == [50.0, 100.0]
    assert scaffold_table(both).empty  # the T = 3 runs are not the NoPE scaffold's
    assert "| T=3, token window | 1 | 0.020 | 100.0 | 0.0 | – | – |" in factor_section(both, "abc-factors at cpu")


def per_layer_run(factor: str, task: str, seed: int, code: tuple[float, float], layers: tuple[float, float]):
    """A run with the code's rule from the last layer and from each layer: (exact match at 6 digits, beyond) each,
    along a course whose first point differs (only the last counts)."""
    rows = [{"task": task, "variant": factor, "seed": seed, "stage": "trained", "step": 3000, "length": n,
             "metric": ACCURACY, "value": 100.0 if n == 6 else 0.0} for n in LENGTHS]
    for stage, (iid, far) in (("ABC (code)", code), ("ABC (code-layers)", layers)):
        for step, scale in ((100, 0.0), (200, 1.0)):
            rows += [{"task": task, "variant": factor, "seed": seed, "stage": stage, "step": step, "length": n,
                      "metric": ACCURACY, "value": scale * (iid if n == 6 else far)} for n in LENGTHS]
    return rows


def test_the_per_layer_reading_says_whether_each_layers_own_bias_fits_or_holds_further():
    runs = frame(per_layer_run("xavier+per-layer", "addition", 100, (49.0, 0.0), (100.0, 60.0)),
                 per_layer_run("xavier+budget+per-layer", "times_digit", 100, (100.0, 26.7), (100.0, 22.7)),
                 per_layer_run("xavier+budget+per-layer", "times_digit", 101, (100.0, 20.0), (100.0, 30.0)),
                 per_layer_run("xavier+per-layer", "addition", 101, (100.0, 50.0), (40.0, 0.0)))
    text = per_layer_reading(runs)
    assert "Addition (`xavier+per-layer`, seed 100): 49.0 / 100.0 at 6 digits, 0.0 / 60.0 beyond: it fits where " \
        "the last layer's table does not" in text
    assert "N x 1 (`xavier+budget+per-layer`, seed 100): 100.0 / 100.0 at 6 digits, 26.7 / 22.7 beyond: both fit, " \
        "no clear difference beyond" in text
    assert "seed 101): 100.0 / 100.0 at 6 digits, 20.0 / 30.0 beyond: both fit, and it holds further" in text
    assert "seed 101): 100.0 / 40.0 at 6 digits, 50.0 / 0.0 beyond: it does not fit where the last layer's" in text
    assert per_layer_reading(frame(run("xavier", 100, 90.0, task="addition"))) == ""  # no per-layer run
    assert text in factor_section(pd.concat([frame(run("baseline", 100, 10.0)), runs]), "abc-factors at cpu")
