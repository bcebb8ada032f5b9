"""Snapshots of training (lengthgen/snapshots.py): a training interrupted and resumed ends where the uninterrupted one
does, bit for bit; a finished training is read back, not redone; a run through the store resumes and records it."""

import json
from dataclasses import replace

import pandas as pd
import pytest
import torch

from lengthgen import snapshots
from lengthgen.papers import EXPERIMENTS
from lengthgen.papers.abc.experiments import build_arithmetic
from lengthgen.papers.abc.factors import FACTOR_PROFILES
from lengthgen.results import sweep as sweep_module
from lengthgen.results.store import ResultStore
from lengthgen.train import loop
from lengthgen.train.loop import train

STEPS = 12


def _setup():
    """A small transformer with dropout on Successor, its training config (warm-up and decay) and its streams."""
    run = FACTOR_PROFILES["smoke"].run("dropout+xavier", 100).arithmetic
    task, models = build_arithmetic(run)
    cfg = replace(run.training("trained"), steps=STEPS, warmup=3)
    return models["trained"], task, cfg, torch.Generator().manual_seed(1), torch.Generator().manual_seed(2)


def _trained(folder=None, stop_at=None, interval=0.0):
    """Train once (inside `resumable(folder)` if given), the callback noting each step in the carried rows and
    raising at `stop_at`; returns (model, stats, rows, data stream)."""
    model, task, cfg, gen, noise = _setup()
    rows = []

    def note(step):
        if step == stop_at:
            raise KeyboardInterrupt
        rows.append({"step": step, "w": float(next(model.parameters()).detach().sum())})

    if folder is None:
        return model, train(model, task, cfg, gen, callback=note, noise=noise, carry=rows), rows, gen
    with snapshots.resumable(folder, interval):
        return model, train(model, task, cfg, gen, callback=note, noise=noise, carry=rows), rows, gen


def _same_weights(a, b) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values(), strict=True))


def test_an_interrupted_training_resumes_to_the_uninterrupted_ones_weights_rows_and_losses(tmp_path):
    whole, stats, rows, gen = _trained()
    with pytest.raises(KeyboardInterrupt):
        _trained(tmp_path, stop_at=7)
    assert torch.load(tmp_path / "train-1.pt", weights_only=True)["step"] == 6  # the last step whose snapshot holds
    resumed, again, again_rows, again_gen = _trained(tmp_path)
    assert _same_weights(whole, resumed) and again_rows == rows and [r["step"] for r in rows] == list(range(1, 13))
    assert again["losses"] == stats["losses"] and again["loss"] == stats["loss"]
    assert torch.equal(gen.get_state(), again_gen.get_state())
    assert not _same_weights(_setup()[0], resumed)  # the comparison can fail: training moved the weights


def test_a_finished_training_is_read_back_without_a_step_or_a_callback(tmp_path, monkeypatch):
    whole, stats, rows, gen = _trained(tmp_path, interval=3600.0)  # one snapshot: the end
    monkeypatch.setattr(loop, "update", lambda *a, **k: pytest.fail("a finished training trained again"))
    read, again, again_rows, again_gen = _trained(tmp_path)
    assert _same_weights(whole, read) and again_rows == rows and again["loss"] == stats["loss"]
    assert torch.equal(gen.get_state(), again_gen.get_state())  # the data stream as the training left it


def test_a_callback_without_carry_is_refused_where_it_would_lose_its_work(tmp_path):
    model, task, cfg, gen, noise = _setup()
    with snapshots.resumable(tmp_path), pytest.raises(ValueError, match="carry"):
        train(model, task, cfg, gen, callback=lambda step: None)


def test_a_run_through_the_store_resumes_after_an_interruption_and_says_so(tmp_path, monkeypatch):
    exp = EXPERIMENTS["abc-factors"]
    cfg = next(c for c in exp.configs_for("smoke") if c.factor == "dropout+xavier" and c.arithmetic.task == "successor")
    whole = sweep_module.run_and_store(exp.name, exp.run, str(tmp_path / "a"), "smoke", cfg)
    monkeypatch.setattr(snapshots, "INTERVAL", 0.0)
    real, calls = loop.update, []

    def interrupted(*args, **kwargs):  # stops in the second training (the first ABC model's), then never again
        calls.append(1)
        if len(calls) == 25:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(loop, "update", interrupted)
    store = ResultStore(tmp_path / "b")
    with pytest.raises(KeyboardInterrupt):
        sweep_module.run_and_store(exp.name, exp.run, str(store.root), "smoke", cfg)
    kept = sorted(p.name for p in store.snapshots(exp.name, cfg).iterdir())
    assert store.status(exp.name, cfg) == "missing" and kept == ["train-1.pt", "train-2.pt"]
    entry = sweep_module.run_and_store(exp.name, exp.run, str(store.root), "smoke", cfg)
    pd.testing.assert_frame_equal(pd.read_csv(f"{entry}/metrics.csv"), pd.read_csv(f"{whole}/metrics.csv"))
    meta = json.loads(open(f"{entry}/meta.json").read())
    assert {r["commit"] for r in meta["resumed"]} == {meta["git_commit"]}  # the code that began each training
    assert [(r["call"], r["step"]) for r in meta["resumed"]] == [(1, 20), (2, 4)] and "resumed" not in json.loads(
        open(f"{whole}/meta.json").read())
    assert not store.snapshots(exp.name, cfg).exists()


def test_a_training_stopped_by_its_callback_stays_stopped_when_resumed(tmp_path, monkeypatch):
    model, task, cfg, gen, noise = _setup()
    rows = []

    def stop_at_5(step):
        rows.append(step)
        return step == 5

    with snapshots.resumable(tmp_path, 0.0):
        stats = train(model, task, cfg, gen, callback=stop_at_5, noise=noise, carry=rows)
    assert rows == [1, 2, 3, 4, 5] and stats["steps"] == 5 < cfg.steps
    monkeypatch.setattr(loop, "update", lambda *a, **k: pytest.fail("a stopped training trained again"))
    again_model, _, _, again_gen, again_noise = _setup()
    again_rows = []
    with snapshots.resumable(tmp_path, 0.0):
        again = train(again_model, task, cfg, again_gen, callback=stop_at_5, noise=again_noise, carry=again_rows)
    assert again["steps"] == 5 and again_rows == rows and _same_weights(model, again_model)
