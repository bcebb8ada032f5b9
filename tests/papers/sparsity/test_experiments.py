"""The sparsity chapter's experiments: configs per profile, labels, a run end to end, determinism, and what a small
decoder learns (fixed seeds, CPU)."""

from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
import torch

from lengthgen.analysis.verdicts import TRAINED
from lengthgen.config import config_dict, from_dict
from lengthgen.metrics import ACCURACY, COURSE, FINAL_TRAIN_LOSS, PPC_PARTS
from lengthgen.models.transformer import Generation
from lengthgen.papers.sparsity.experiments import (
    ASSIGNMENT_PROFILES,
    PARITY_PROFILES,
    SCRATCHPAD_PROFILES,
    SPARSITY_EXPERIMENTS,
    DecoderSizes,
    ParityRun,
    ScratchpadRun,
    assignment_reading,
    run_decoder,
    variant,
)
from lengthgen.papers.sparsity.sizing import SIZING_EXPERIMENTS, assignment_sizing, scratchpad_sizing
from lengthgen.results.store import ResultStore
from lengthgen.results.sweep import collect
from lengthgen.tasks.sparsity import ScratchpadParity, SparseParity
from lengthgen.train.evaluate import answer_accuracy_by_length
from lengthgen.train.evaluate import test_set as fixed_test_set

EXPERIMENTS = {e.name: e for e in SPARSITY_EXPERIMENTS}
SIZING = next(e for e in SIZING_EXPERIMENTS if e.name == "sparsity-sizing-assignment")
STORED = Path(__file__).parents[3] / "results"  # the committed runs


def test_variants_and_labels_of_each_experiment():
    labels = {name: [e.labels(c)["variant"] for c in e.configs_for("smoke")] for name, e in EXPERIMENTS.items()}
    assert labels["sparsity-parity"] == ["K=1", "K=2"]
    assert labels["sparsity-scratchpad"] == ["j=1 PPC", "j=1 absolute+shift", "j=1 RoPE+PoSE"]
    assert labels["sparsity-assignment"] == ["PPC", "no coupling", "no scratchpad", "RoPE+PoSE"]
    full = EXPERIMENTS["sparsity-scratchpad"].configs_for("full")
    j3 = next(c for c in full if c.task.jump == 3)
    assert (j3.train.min_length, j3.train.max_length) == (3, 10)  # combined lengths 12-40, as 10-40 for j = 1
    j2 = next(c for c in full if c.task.jump == 2)  # combined 12-39: the unit of 3 tokens never trains past j = 1's 40
    assert (j2.task.combined(j2.train.min_length), j2.task.combined(j2.train.max_length)) == (12, 39)
    assert j3.task.combined(j3.eval_lengths[-1]) == 200  # tested to combined length 200, as the paper
    assert all(c.model.positional == "learned" and c.train.positions == "offset" for c in full if c.task.coupled)


def test_the_scratchpad_regime_grid_is_the_sized_recipe_at_declared_seeds():
    regime = EXPERIMENTS["sparsity-scratchpad"].configs_for("regime")
    fitted = {(4, 128), (4, 256)}  # the first sizes at which the mechanisms fit: j = 3 PPC only at the larger
    sized = {variant(c): c for c in scratchpad_sizing("cpu", None) if (c.model.layers, c.model.width) in fitted}
    assert len(regime) == 5 * 3 and {c.seed for c in regime} == {0, 1, 2}  # j = 1, 2, 3 PPC and both ablations
    for cfg in regime:  # the model and training that fit in the sizing study, run to the end of their schedule
        assert cfg.model == sized[variant(cfg)].model and cfg.train == sized[variant(cfg)].train
        assert not cfg.course and cfg.task.combined(max(cfg.eval_lengths)) >= 198  # tested to the paper's 200
    assert {(c.model.width, c.model.heads) for c in regime if c.task.jump == 3} == {(256, 16)}
    costs = {EXPERIMENTS["sparsity-scratchpad"].cost(c) for c in regime}  # what the time estimates read of a run
    assert costs == {("scratchpad_parity", "4x128", 10_000.0), ("scratchpad_parity", "4x256", 10_000.0)}


def test_the_assignment_regime_grid_is_the_sized_ppc_recipe_in_the_papers_format():
    regime = EXPERIMENTS["sparsity-assignment"].configs_for("regime")
    ppc = next(c for c in assignment_sizing("cpu", None) if variant(c) == "PPC" and c.train.steps == 50_000)
    stored = collect(SIZING, SIZING.configs_for("cpu"), ResultStore(STORED), skip_missing=True)
    at = stored[(stored.budget == 50_000) & (stored.metric == ACCURACY) & (stored.length == 60)
                & stored.variant.str.startswith("4x128 ")]
    fit = {v.removeprefix("4x128 ") for v, value in at.groupby("variant").value.max().items() if value >= TRAINED}
    assert fit == {variant(c) for c in regime}  # what fit at that size and budget in the sizing study, no more
    assert len(regime) == len(fit) * 3 and {c.seed for c in regime} == {0, 1, 2}
    for cfg in regime:  # the size and budget at which PPC fit, run to the end of its schedule
        assert cfg.model.width == 128 and cfg.model.layers == 4 and cfg.train.steps == 50_000 and not cfg.course
        assert (cfg.task.format, cfg.task.variables, cfg.task.depth) == ("paper", 200, 2)
        assert (cfg.train.min_length, cfg.train.max_length, max(cfg.eval_lengths)) == (20, 60, 200)  # the paper's
    sized = next(c for c in regime if variant(c) == "PPC" and c.seed == 0)
    assert sized.model == ppc.model and sized.train == ppc.train


def test_the_assignment_grid_shifts_the_ids_of_ppc_only_and_reads_one_panel_per_depth():
    cfgs = EXPERIMENTS["sparsity-assignment"].configs_for("cpu")
    assert len(cfgs) == 2 * 3 * 4 and {(c.task.depth, c.task.variables) for c in cfgs} == {(2, 48), (3, 48)}
    by_variant = {EXPERIMENTS["sparsity-assignment"].labels(c)["variant"]: c for c in cfgs if c.seed == 0}
    assert {v: (c.model.positional, c.model.ppc, c.train.positions) for v, c in by_variant.items()} == {
        "PPC": ("rope", True, "offset"), "no coupling": ("rope", False, "given"),
        "no scratchpad": ("rope", False, "given"), "RoPE+PoSE": ("rope", False, "pose")}
    full = EXPERIMENTS["sparsity-assignment"].configs_for("full")
    assert {(c.task.format, c.train.max_length, max(c.eval_lengths)) for c in full} == {("paper", 60, 200)}
    assert {c.model.positional for c in full if not c.train.positions == "pose"} == {"learned"}
    assert {c.train.positions for c in full if c.model.positional == "learned"} == {"offset"}
    runs = pd.DataFrame([{"variant": v, "depth": d, "metric": m, "length": n, "value": 100.0 if n <= 3 else 0.0,
                          "seed": 0} for v in ("PPC", "no coupling") for d in (2, 3) for n in (1, 3, 9)
                         for m in (ACCURACY, FINAL_TRAIN_LOSS)])
    curves, claim = assignment_reading(runs, "cpu")
    assert set(curves.task) == {"depth 2", "depth 3"} and set(curves.metric) == {ACCURACY}
    assert claim.depth.tolist() == [2, 2, 3, 3]
    assert claim.verdict.str.startswith("not reproduced").tolist() == [True, False, True, False]
    alone = runs[runs.variant == "PPC"].assign(length=runs.length * 20)  # tokens: 20, 60, 180 at regime (20-60)
    assert ASSIGNMENT_PROFILES["regime"].variants == ("PPC",)  # the regime grid holds PPC alone
    assert assignment_reading(alone, "regime")[1].verdict.iloc[0].endswith(
        "no baseline in the grid (each left out as unfit at this size: the sizing study)")
    assert assignment_reading(runs[runs.variant == "PPC"], "cpu")[1].verdict.iloc[0].endswith(
        "no baseline stored")  # the cpu grid holds every model


def test_a_config_whose_id_table_is_too_small_is_refused():
    cfg = EXPERIMENTS["sparsity-scratchpad"].configs_for("smoke")[0]  # PPC: learned positions, a table of 32
    with pytest.raises(ValueError, match="needs position ids up to 41, beyond the model's 32"):
        replace(cfg, eval_lengths=(40,))


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_configs_survive_the_store_round_trip(name):
    for cfg in EXPERIMENTS[name].configs_for("full"):
        assert from_dict(type(cfg), config_dict(cfg)) == cfg


def test_a_smoke_run_reports_every_test_sparsity_and_is_deterministic():
    cfg = EXPERIMENTS["sparsity-parity"].configs_for("smoke")[1]
    first, again = run_decoder(cfg), run_decoder(cfg)
    metrics = first.metrics
    assert set(metrics.metric) == {f"{ACCURACY} k=1", f"{ACCURACY} k=2", FINAL_TRAIN_LOSS}
    assert metrics[metrics.metric == f"{ACCURACY} k=2"].length.tolist() == [2, 8]
    assert metrics.equals(again.metrics) and first.checkpoint.keys() == again.checkpoint.keys()


def test_a_small_decoder_learns_sparse_parity_and_holds_at_four_times_the_length():
    """k = 1 (the parity of the one bit after `*`): RoPE + PoSE, 600 steps, trained on 4-8 pairs, tested to 32."""
    sizes = DecoderSizes(width=32, heads=2, layers=2, steps=600, batch=32, lr=3e-3, warmup=50, train_lengths=(4, 8),
                         eval_lengths=(8, 32), samples=128, max_positions=80, seeds=(0,))
    cfg = ParityRun(task=SparseParity(max_k=1), model=sizes.model("rope"), train=sizes.training("pose"),
                    eval_lengths=sizes.eval_lengths, eval_samples=sizes.samples, test_ks=(1,))
    acc = run_decoder(cfg).metrics.set_index(["metric", "length"]).value
    assert acc[(f"{ACCURACY} k=1", 8)] == 100.0 and acc[(f"{ACCURACY} k=1", 32)] >= 95.0


class Halves(torch.nn.Module):
    """Writes a wrong first token where the answer starts with 1 (unless fed the true ids: an oracle run) and
    predicts wrong ids where it starts with 0 (when it predicts ids at all)."""

    width = 8

    def __init__(self, predicts_ids: bool):
        super().__init__()
        self.predicts_ids = predicts_ids
        self.anchor = torch.nn.Parameter(torch.zeros(1))  # where the model lives (the evaluation asks)

    def predict(self, batch, oracle: bool = False):
        ones = batch.answer[:, :1] == ScratchpadParity().vocab.encode(["1"])[0]
        tokens = batch.answer.clone()
        tokens[:, :1] = torch.where(ones & (not oracle), 0, tokens[:, :1])  # 0: <pad>, never an answer token
        return Generation(tokens, batch.positions[:, batch.prompt:] + (~ones).long())


class Recorder(torch.nn.Module):
    """Answers right and keeps the ids of every batch it is asked."""

    width, predicts_ids = 8, False

    def __init__(self):
        super().__init__()
        self.anchor, self.seen = torch.nn.Parameter(torch.zeros(1)), []

    def predict(self, batch, oracle: bool = False):
        self.seen.append(batch.positions)
        return Generation(batch.answer.clone(), batch.positions[:, batch.prompt:])


def test_a_randomized_evaluation_feeds_sorted_ids_below_its_bound_drawn_from_the_test_seed():
    task, first, second, plain = ScratchpadParity(jump=2), Recorder(), Recorder(), Recorder()
    for model, kwargs in ((first, {"randomize": 64}), (second, {"randomize": 64}), (plain, {})):
        answer_accuracy_by_length(model, task, [5], 16, seed=0, progress=False, **kwargs)
    ids, given = torch.cat(first.seen), torch.cat(plain.seen)
    assert torch.equal(ids, torch.cat(second.seen))  # the same draw for every model tested on the seed
    assert int(ids.max()) < 64 and not torch.equal(ids, given)
    for row, original in zip(ids, given, strict=True):  # each row: the given ids' order and ties
        assert torch.equal(row.argsort(stable=True), original.argsort(stable=True))
        assert torch.equal(row[:, None] == row[None, :], original[:, None] == original[None, :])


def test_exact_match_counts_predicted_ids_only_for_models_that_predict_them_and_splits_their_errors():
    task = ScratchpadParity(jump=2)
    with_ids = answer_accuracy_by_length(Halves(True), task, [3, 5], 20, seed=0, progress=False)
    without = answer_accuracy_by_length(Halves(False), task, [3, 5], 20, seed=0, progress=False)
    for length in (3, 5):
        first = fixed_test_set(task, length, 20, 0).answer[:, 0]
        ones = 100.0 * int((first == task.vocab.encode(["1"])[0]).sum()) / 20
        assert 0 < ones < 100
        got = with_ids[with_ids.length == length].set_index("metric").value.to_dict()
        assert got == {ACCURACY: 0.0, f"{ACCURACY} tokens": 100 - ones, f"{ACCURACY} ids": ones,
                       f"{ACCURACY} oracle": 100.0}
        assert without[without.length == length].set_index("metric").value.to_dict() == {ACCURACY: 100 - ones}
    cfg = EXPERIMENTS["sparsity-scratchpad"].configs_for("smoke")[0]
    assert isinstance(cfg, ScratchpadRun) and cfg.model.ppc  # the coupled runs are scored with their ids


def test_a_run_that_stops_when_it_fits_trains_up_to_its_first_fitting_point_and_no_further(monkeypatch):
    from lengthgen.papers.sparsity import experiments
    from lengthgen.train import evaluate

    cfg = replace(EXPERIMENTS["sparsity-assignment"].configs_for("smoke")[0], course=4, course_samples=8)
    points = iter([10.0, 95.0, 99.0, 99.0, 99.0])  # the course's exact match at steps 4, 8, 12, ...

    def scored(model, task, lengths, n, seed, metric=ACCURACY, progress=True, randomize=0):
        value = next(points) if metric == COURSE else 0.0
        return pd.DataFrame([{"length": lengths[0], "metric": metric, "value": value}])

    monkeypatch.setattr(experiments, "answer_accuracy_by_length", scored)  # the tests at the end
    monkeypatch.setattr(evaluate, "answer_accuracy_by_length", scored)  # the course (`evaluate.course_reader`)
    rows = run_decoder(replace(cfg, stop_fitted=True)).metrics
    assert rows[rows.metric == COURSE].step.tolist() == [4, 8]  # stopped at its first point >= 90%
    points = iter([10.0, 95.0, 99.0, 99.0, 99.0, 99.0])
    rows = run_decoder(cfg).metrics
    assert rows[rows.metric == COURSE].step.tolist() == [4, 8, 12, 16, 20]  # without: the whole budget


def test_the_course_of_training_is_read_without_changing_the_training():
    cfg = EXPERIMENTS["sparsity-assignment"].configs_for("smoke")[0]  # PPC: the course has its parts too
    plain, coursed = run_decoder(cfg).metrics, run_decoder(replace(cfg, course=8, course_samples=8)).metrics
    course = coursed[coursed.metric == COURSE]
    assert course.step.tolist() == [8, 16, 20] and course.length.unique().tolist() == [cfg.train.max_length]
    assert set(coursed.metric) == set(plain.metric) | {COURSE, *(f"{COURSE} {part}" for part in PPC_PARTS)}
    rest = coursed[~coursed.metric.str.startswith(COURSE)].drop(columns="step").reset_index(drop=True)
    pd.testing.assert_frame_equal(rest, plain)  # the course draws nothing the training or the tests draw


def test_each_grid_is_stored_and_read_where_its_mechanisms_fit_and_listed_before_a_run_lands(tmp_path):
    from lengthgen import scorecard
    from lengthgen.papers.sparsity.rows import READ_AT

    assert READ_AT == {"sparsity-parity": "regime", "sparsity-scratchpad": "regime", "sparsity-assignment": "regime",
                       "sparsity-language": "regime"}
    table = scorecard.grids(ResultStore(tmp_path)).set_index(["experiment", "profile"])  # an empty store
    assert table.loc[("sparsity-assignment", "regime"), ["declared", "stored"]].tolist() == [3, 0]
    assert ("sparsity-assignment", "cpu") not in table.index  # a profile not read, with nothing stored there


def test_the_scorecard_reads_live_runs_at_their_profile_and_stored_grids_where_they_are_read(tmp_path):
    from lengthgen.papers.sparsity.rows import scorecard_rows
    from lengthgen.results.sweep import sweep

    store = ResultStore(tmp_path)
    sweep(EXPERIMENTS["sparsity-parity"], EXPERIMENTS["sparsity-parity"].configs_for("smoke"), store, "smoke",
          progress=False)
    live = scorecard_rows(store, "smoke")  # a live profile: every grid that has it
    assert set(live.source) == {"Figs. 1, 7", "Figs. 1, 7 (larger k)"}
    assert scorecard_rows(store, "regime").empty  # parity is read at cpu, and nothing is stored at regime


def test_the_seed_check_runs_the_live_sizes_on_the_seeds_the_live_runs_do_not_use():
    from lengthgen.papers.sparsity.rows import SEED_CHECK

    for profiles in (PARITY_PROFILES, SCRATCHPAD_PROFILES):
        for live, seeds in SEED_CHECK.items():
            assert seeds and not set(seeds) & set(profiles[live].seeds)
