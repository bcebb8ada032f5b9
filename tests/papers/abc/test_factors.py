"""The factor study of the attention-bias-calibration chapter: one factor changed per variant, sizing seeds outside the
declared ones, the course of retraining, the first wrong digit; a smoke run end to end, deterministic with dropout."""

from dataclasses import replace

import pandas as pd
import pytest
import torch
from torch import nn

from lengthgen.analysis.calibration import PUBLIC_CODE
from lengthgen.config import config_dict, from_dict
from lengthgen.data import EOS
from lengthgen.metrics import ACCURACY, ACCURACY_NUMBER, FIRST_ERROR, FIRST_WRONG_ZERO
from lengthgen.papers import EXPERIMENTS
from lengthgen.papers.abc.experiments import ARITHMETIC_PROFILES
from lengthgen.papers.abc.factors import (
    BASELINE,
    CONTROL_RULES,
    FACTOR_PROFILES,
    FACTOR_RULES,
    FACTORS,
    NOPE_FACTORS,
    PER_LAYER_RULES,
    SCAFFOLD_FACTORS,
    SIZING_SEEDS,
    TASK_FACTORS,
    FactorRun,
    factor_labels,
    run_factor,
    scored_rows,
)
from lengthgen.tasks import TASKS


def flat(data: dict, prefix: str = "") -> dict:
    """A nested config dict as {"a.b": value}."""
    out = {}
    for key, value in data.items():
        out |= flat(value, f"{prefix}{key}.") if isinstance(value, dict) else {f"{prefix}{key}": value}
    return out


CHANGED = {  # factor -> the fields it changes, with their values (cpu profile)
    "baseline": {},
    "dropout": {"arithmetic.model.dropout": 0.3, "arithmetic.model.attention_dropout": 0.3,
                "arithmetic.model.ff_dropout": 0.3},
    "xavier": {"arithmetic.model.embed_init": "xavier"},
    "adam": {"arithmetic.train.optim": "adam", "arithmetic.train.lr": 1e-4, "arithmetic.train.betas": [0.9, 0.98],
             "arithmetic.train.eps": 1e-9, "arithmetic.train.lr_schedule": "constant", "arithmetic.train.clip": None},
    "own-schedule": {"arithmetic.retrain_warmup": 50},
    "wide-deep": {"arithmetic.model.width": 128, "arithmetic.model.heads": 8, "arithmetic.model.layers": 3,
                  "arithmetic.model.ff": 512, "arithmetic.model.embed_scale": 128**0.5},
    "dropout+xavier": {"arithmetic.model.dropout": 0.3, "arithmetic.model.attention_dropout": 0.3,
                       "arithmetic.model.ff_dropout": 0.3, "arithmetic.model.embed_init": "xavier"},
}


def test_each_variant_changes_one_factor_of_the_chapters_cpu_successor_model():
    every = EXPERIMENTS["abc-factors"].configs_for("cpu")
    configs = [c for c in every if c.arithmetic.task == "successor" and c.arithmetic.abc == FACTOR_RULES]
    assert [c.factor for c in configs] == [f for f in FACTORS for _ in SIZING_SEEDS] and set(CHANGED) == set(FACTORS)
    baseline = flat(config_dict(configs[0]))
    for cfg in configs:
        assert from_dict(FactorRun, config_dict(cfg)) == cfg
        mine = flat(config_dict(replace(cfg, factor="baseline", arithmetic=replace(cfg.arithmetic, seed=100))))
        assert {k: v for k, v in mine.items() if baseline[k] != v} == CHANGED[cfg.factor], cfg.factor
    chapter = BASELINE.run("successor", "sinusoidal", 100)
    assert configs[0].arithmetic == replace(chapter, abc=FACTOR_RULES, operand_width=51,
                                            eval_lengths=(6, 8, 12, 24, 50))  # the first grids' model, padded to 51
    model, training = chapter.model, chapter.train
    assert (model.width, model.layers, model.dropout, model.embed_init, training.steps, training.lr) == (
        64, 2, 0.0, "normal", 3000, 1e-3)  # what the first grids ran: the keys of the stored study depend on it
    first = configs[0]
    assert (first.every, first.arithmetic.retrain_steps, first.arithmetic.eval_samples) == (100, 1000, 500)


def test_table1s_other_tasks_are_sized_in_the_regime_alone_at_their_own_budgets_with_room_for_both_operands():
    runs = [c for c in EXPERIMENTS["abc-factors"].configs_for("cpu")
            if c.arithmetic.task != "successor" and c.factor not in SCAFFOLD_FACTORS]  # those: Table 3's scaffold
    assert [(c.factor, c.arithmetic.task, c.arithmetic.seed) for c in runs] == [
        ("dropout+xavier", task, seed) for task in ("addition", "times_digit") for seed in SIZING_SEEDS] + [
        ("xavier", task, seed) for task in ("addition", "times_digit") for seed in SIZING_SEEDS] + [
        ("xavier+budget", "times_digit", seed) for seed in SIZING_SEEDS] + [
        ("xavier+own-schedule", "addition", seed) for seed in SIZING_SEEDS] + [
        ("xavier+per-layer", "addition", seed) for seed in SIZING_SEEDS] + [
        ("xavier+budget+per-layer", "times_digit", seed) for seed in SIZING_SEEDS]  # without dropout
    xavier = [c for c in runs if c.factor == "xavier"][0].arithmetic
    assert (xavier.model.dropout, xavier.model.embed_init, xavier.train.steps) == (0.0, "xavier", 30_000)
    run = runs[0].arithmetic
    assert (run.train.steps, run.retrain_steps, runs[0].every, run.operand_width) == (30_000, 3_000, 300, 51)
    own = [c for c in runs if c.factor == "xavier+own-schedule"][0].arithmetic  # Addition's Xavier model, its ABC
    # models warmed up over their own 5%
    assert replace(own, retrain_warmup=None) == xavier and own.training("abc_code").warmup == 150
    budget = runs[-10].arithmetic  # N x 1 at a budget of its own, and ABC's retraining with its own warm-up
    assert (budget.train.steps, budget.train.warmup, budget.retrain_steps, budget.training("abc_code").warmup) == (
        7_500, 375, 3_000, 150)
    assert replace(budget, train=xavier_times(runs).train, retrain_steps=1_000, retrain_warmup=None) == \
        xavier_times(runs)  # otherwise the Xavier model of N x 1
    base = {(c.factor, c.arithmetic.task, c.arithmetic.seed): c.arithmetic for c in runs}
    for cfg in (c for c in runs if c.factor.endswith("per-layer")):  # the regime's recipe of each task, the same
        # trained model; its ABC models the code's rule calibrated from the last layer and from each layer
        recipe = cfg.factor.removesuffix("+per-layer")
        assert cfg.arithmetic == replace(base[recipe, cfg.arithmetic.task, cfg.arithmetic.seed], abc=PER_LAYER_RULES)
    assert PER_LAYER_RULES == ("code", "code-layers")
    last_times = [c for c in runs if (c.arithmetic.task, c.factor) == ("times_digit", "xavier")][-1]
    times = last_times.arithmetic  # N x 1 at its own budget (it did not fit at Successor's 3,000 steps)
    assert (times.train.steps, times.retrain_steps, last_times.every, times.operand_width) == (15_000, 1_000, 100, 51)
    assert (run.model.dropout, run.model.embed_init, run.model.max_positions) == (0.3, "xavier", 128)
    assert run.model.width == BASELINE.width  # the baseline's model otherwise


def test_the_nope_scaffold_is_the_regime_grids_successor_model_with_one_change_and_no_abc():
    every = EXPERIMENTS["abc-factors"].configs_for("cpu")
    nope = [c for c in every if c.factor in NOPE_FACTORS]
    assert [(c.factor, c.arithmetic.seed) for c in nope] == [(f, s) for f in NOPE_FACTORS for s in SIZING_SEEDS]
    sized = next(r for r in EXPERIMENTS["abc-scaffolding"].configs_for("regime", seeds=(100,))
                 if r.task == "successor" and r.model.positional == "none+bias")
    runs = {c.factor: replace(c.arithmetic, eval_lengths=sized.eval_lengths) for c in nope if c.arithmetic.seed == 100}
    assert runs["nope-markers-offset0"] == sized  # the grid's scaffold without positions is the one sized last
    grid = replace(sized, markers=False, window_offset=None)  # the one the factors change
    assert runs["nope-long"] == replace(grid, train=replace(grid.train, steps=15_000, warmup=750))
    wide = runs["nope-wide-deep"]
    assert wide == replace(grid, model=replace(grid.model, width=128, heads=8, layers=3, ff=512, embed_scale=128**0.5))
    assert runs["nope-markers"] == replace(grid, markers=True)  # its sources between <sos> and <eos>
    assert runs["nope-markers-offset0"] == replace(grid, markers=True, window_offset=0)
    assert all(c.arithmetic.abc == () and c.arithmetic.stages() == {"trained": "trained"} for c in nope)
    assert len({factor_labels(c)["variant"] for c in every}) == len(FACTORS | NOPE_FACTORS | TASK_FACTORS |
                                                                   SCAFFOLD_FACTORS)  # apart


def test_the_t3_scaffold_runs_are_the_regime_grids_addition_scaffold_and_the_one_with_a_wider_window():
    every = EXPERIMENTS["abc-factors"].configs_for("cpu")
    scaffolds = [c for c in every if c.factor in SCAFFOLD_FACTORS]
    assert [(c.factor, c.arithmetic.task, c.arithmetic.seed) for c in scaffolds] == [
        (f, "addition", s) for f in SCAFFOLD_FACTORS for s in SIZING_SEEDS]
    grid = next(r for r in EXPERIMENTS["abc-scaffolding"].configs_for("regime", seeds=(100,))
                if r.task == "addition" and r.model.positional == "cyclic+bias")
    runs = {c.factor: c.arithmetic for c in scaffolds if c.arithmetic.seed == 100}
    study = FACTOR_PROFILES["cpu"]
    assert runs["T=3, token window"] == replace(grid, eval_lengths=study.eval_lengths, eval_samples=study.samples)
    assert runs["T=3"] == replace(runs["T=3, token window"], window_span="strides")  # as the grid first ran it
    assert all(c.arithmetic.abc == () for c in scaffolds)


def test_a_smoke_nope_scaffold_trains_a_windowed_model_without_positions():
    cfg = FACTOR_PROFILES["smoke"].nope_scaffold("nope-wide-deep", 100)
    model = EXPERIMENTS["abc-factors"].build(cfg)[1]["trained"]
    assert model.cfg.positional == "none+bias" and model.cfg.layers == 3 and cfg.arithmetic.aligned
    table = next(v for k, v in model.state_dict().items() if k.endswith(".table"))
    assert bool((table <= -1e9).any()) and bool((table == 0).any())  # the window: open cells and closed ones
    rows = run_factor(cfg).metrics
    assert set(rows.stage) == {"trained"} and set(rows[rows.metric == ACCURACY].length) == {1, 3, 8}


def xavier_times(runs) -> object:
    """The last seed's N x 1 run with Xavier embeddings alone."""
    return [c.arithmetic for c in runs if (c.factor, c.arithmetic.task) == ("xavier", "times_digit")][-1]


def test_the_controls_retrain_the_regimes_successor_model_with_two_other_rules():
    every = EXPERIMENTS["abc-factors"].configs_for("cpu")
    controls = [c for c in every if c.arithmetic.abc == CONTROL_RULES]
    assert [(c.factor, c.arithmetic.task, c.arithmetic.seed) for c in controls] == [
        ("dropout+xavier", "successor", seed) for seed in SIZING_SEEDS]
    regime = {c.arithmetic.seed: c for c in every if c.factor == "dropout+xavier" and c not in controls
              and c.arithmetic.task == "successor"}
    for c in controls:  # the same trained model and course: only the ABC models differ
        assert replace(c, arithmetic=replace(c.arithmetic, abc=FACTOR_RULES)) == regime[c.arithmetic.seed]
    assert list(controls[0].arithmetic.stages().values()) == ["trained", "ABC (paper-sums)", "ABC (code-flat)"]
    cfg = FACTOR_PROFILES["smoke"].run("dropout+xavier", 100, rules=CONTROL_RULES)
    trained = EXPERIMENTS["abc-factors"].build(cfg)[1]["trained"].state_dict()
    also = EXPERIMENTS["abc-factors"].build(FACTOR_PROFILES["smoke"].run("dropout+xavier", 100))[1]["trained"]
    assert all(torch.equal(v, also.state_dict()[k]) for k, v in trained.items())  # the same initial weights


def test_the_study_runs_on_sizing_seeds_outside_every_declared_seed():
    declared = {seed for sizes in ARITHMETIC_PROFILES.values() for seed in sizes.seeds}
    for profile in FACTOR_PROFILES:
        seeds = {c.arithmetic.seed for c in EXPERIMENTS["abc-factors"].configs_for(profile)}
        assert seeds <= set(SIZING_SEEDS) and not seeds & declared
    assert EXPERIMENTS["abc-factors"].profiles == ("smoke", "cpu")


def test_the_factors_build_what_they_say():
    runs = {c.factor: c.arithmetic for c in EXPERIMENTS["abc-factors"].configs_for("cpu", seeds=(100,))}
    params = [nn.Parameter(torch.zeros(1))]
    for key in ("trained", "abc_public"):
        opt = runs["adam"].training(key).optimizer(params)
        assert type(opt) is torch.optim.Adam and opt.param_groups[0]["lr"] == 1e-4
        assert runs["adam"].training(key).schedule(opt) is None
        assert type(runs["baseline"].training(key).optimizer(params)) is torch.optim.AdamW
    assert runs["baseline"].training("abc_code").warmup == runs["baseline"].training("trained").warmup == 150
    assert runs["own-schedule"].training("abc_code").warmup == 50
    assert runs["own-schedule"].training("trained") == runs["baseline"].training("trained")
    assert runs["baseline"].training("abc_code") == replace(runs["baseline"].train, steps=1000, progress=False)
    model = EXPERIMENTS["abc-factors"].build(FactorRun("wide-deep", runs["wide-deep"]))[1]["abc_paper"]
    assert len(model.decoder.blocks) == 3 and model.cfg.width == 128 and model.decoder.blocks[0].self_attn.heads == 8


def test_the_course_points():
    run = FACTOR_PROFILES["cpu"].run("baseline", 100)
    assert run.points() == list(range(100, 1001, 100))
    assert replace(run, every=300).points() == [300, 600, 900, 1000]
    with pytest.raises(ValueError, match="valid: baseline, dropout"):
        FactorRun(factor="lr")


def test_a_smoke_run_tests_every_rule_along_its_retraining_and_repeats_itself_with_dropout():
    cfg = FACTOR_PROFILES["smoke"].run("dropout", 100)
    out = run_factor(cfg)
    rows = out.metrics
    assert list(rows.columns) == ["stage", "step", "length", "metric", "value"]
    assert list(dict.fromkeys(rows.stage)) == ["trained", "ABC (paper)", "ABC (code)", "ABC (public)"]
    acc = rows[rows.metric == ACCURACY]
    assert set(acc[acc.stage == "trained"].step) == {20}
    for stage in ("ABC (paper)", "ABC (code)", "ABC (public)"):
        assert sorted(set(acc[acc.stage == stage].step)) == [5, 10]
        assert set(acc[acc.stage == stage].length) == {1, 3, 8}
    wrong = rows[rows.metric.isin([FIRST_ERROR, FIRST_WRONG_ZERO])]
    assert len(wrong) and wrong.value.between(0, 100).all()
    table = next(v for k, v in out.checkpoint.items() if k.startswith("abc_public.") and k.endswith(".table"))
    assert bool((table == PUBLIC_CODE).any())  # the public code's closed cells, as it closes them
    again = run_factor(cfg).metrics
    pd.testing.assert_frame_equal(rows, again)  # dropout draws from the run's own streams


class WritesZeros(nn.Module):
    """Predicts each target, but with a 0 at every output place from `place` on (the collapse the chapter asks
    about: the model writes the padding's zeros where the training numbers had no digits)."""

    def __init__(self, zero: int, place: int = 7):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(1))
        self.zero, self.place = zero, place

    def predict(self, batch):
        out = batch.tgt.clone()
        digits = out != EOS
        digits[:, : self.place] = False
        return out.masked_fill(digits, self.zero)


def test_the_first_wrong_digit_of_a_model_that_writes_zeros_beyond_the_training_digits():
    task = TASKS["successor"](width=15)
    model = WritesZeros(task.vocab.encode(["0"])[0])
    run = replace(FACTOR_PROFILES["smoke"].run("baseline", 100).arithmetic, operand_width=15, eval_lengths=(6, 12))
    rows = pd.DataFrame(scored_rows(model, task, run, "trained", 7, 40)).set_index(["length", "metric"]).value
    assert rows[6, ACCURACY] == 100.0 and (6, FIRST_ERROR) not in rows  # 6 digits and a carry fit in 7 places
    assert rows[12, ACCURACY] < 5.0 and rows[12, FIRST_WRONG_ZERO] == 100.0  # every first wrong digit: a 0
    assert rows[12, FIRST_ERROR] == 7.0  # the median answer goes wrong at the first place beyond the training digits


class RunsOn(nn.Module):
    """Predicts each target, then one 0 more before its <eos> (a model that cannot tell where the padding ends)."""

    def __init__(self, zero: int):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(1))
        self.zero = zero

    def predict(self, batch):
        zeros = torch.full_like(batch.tgt[:, :1], self.zero)
        return torch.cat([batch.tgt[:, :-1], zeros, batch.tgt[:, -1:]], 1)


def test_an_answer_that_runs_on_with_a_zero_is_wrong_by_exact_match_and_right_as_the_public_code_compares():
    task = TASKS["successor"](width=15)
    run = replace(FACTOR_PROFILES["smoke"].run("baseline", 100).arithmetic, operand_width=15, eval_lengths=(6, 12))
    rows = pd.DataFrame(scored_rows(RunsOn(task.vocab.encode(["0"])[0]), task, run, "trained", 7, 40))
    rows = rows.set_index(["length", "metric"]).value
    assert rows[6, ACCURACY] == rows[12, ACCURACY] == 0.0 and rows[12, FIRST_ERROR] == 15.0  # where <eos> belongs
    assert rows[6, ACCURACY_NUMBER] == rows[12, ACCURACY_NUMBER] == 100.0
    zeros = pd.DataFrame(scored_rows(WritesZeros(task.vocab.encode(["0"])[0]), task, run, "trained", 7, 40))
    assert zeros.set_index(["length", "metric"]).value[12, ACCURACY_NUMBER] < 5.0  # wrong digits stay wrong
