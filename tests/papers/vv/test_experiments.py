"""The vanishing-variance experiments (papers/vv/experiments.py): probe runs, internals, trajectories."""

from dataclasses import replace

import pandas as pd

from lengthgen.models.probe import ProbeConfig
from lengthgen.papers.vv.experiments import ProbeRun, run_probe
from lengthgen.train.loop import TrainConfig

TINY = ProbeRun(task="argmax", seed=0, model=ProbeConfig(width=16),
                train=TrainConfig(steps=150, batch_size=32, progress=False), eval_lengths=(8, 64), eval_samples=200)


def test_same_seed_gives_identical_metrics():
    pd.testing.assert_frame_equal(run_probe(TINY).metrics, run_probe(TINY).metrics)


def test_different_seed_gives_different_metrics():
    assert not run_probe(TINY).metrics.equals(run_probe(replace(TINY, seed=1)).metrics)


def test_training_learns_argmax_in_distribution():
    df = run_probe(replace(TINY, model=ProbeConfig(width=32), train=replace(TINY.train, steps=800))).metrics
    acc = df[(df.metric == "accuracy")].set_index("length").value
    assert acc[8] > 80  # chance is 10%
    assert acc[8] > acc[64]  # and it degrades with length


def test_internals_runs_train_the_same_model_and_read_it_at_each_length():
    from lengthgen.metrics import ACCURACY, COMPONENT_VAR, GLOBAL_MEAN, GLOBAL_VAR, MAX_WEIGHT
    from lengthgen.papers.vv.experiments import run_internals

    probe, internals = run_probe(TINY).metrics, run_internals(TINY).metrics
    plain = probe[probe.metric == ACCURACY].reset_index(drop=True)
    pd.testing.assert_frame_equal(internals[internals.metric == ACCURACY].reset_index(drop=True), plain)
    read = internals[internals.metric != ACCURACY].pivot_table(index="length", columns="metric", values="value")
    read = read[[GLOBAL_MEAN, GLOBAL_VAR, COMPONENT_VAR, MAX_WEIGHT]].dropna()
    assert list(read.index) == [8, 64]  # every reading at every evaluation length
    # the largest of N weights that sum to 1 lies in [1/N, 1]
    assert (read[MAX_WEIGHT] >= [1 / 8, 1 / 64]).all() and (read[MAX_WEIGHT] <= 1).all()
    assert (read[GLOBAL_VAR] > 0).all() and (read[COMPONENT_VAR] > 0).all()


def test_a_shorter_run_is_the_start_of_a_longer_one():
    """vv-trajectory rests on this: with a constant learning rate and one batch per step from the run's generator,
    the first k steps of a longer run are a k-step run (here: the running loss at every step, which depends on the
    weights at every step)."""
    from lengthgen.papers.vv.experiments import train_probe

    short = train_probe(replace(TINY, train=replace(TINY.train, steps=60)))[2]["losses"]
    long = train_probe(replace(TINY, train=replace(TINY.train, steps=120)))[2]["losses"]
    assert len(short) == 60 and long[:60] == short


def test_trajectory_configs_are_the_internals_configs_stopped_early():
    from lengthgen.papers import EXPERIMENTS
    from lengthgen.papers.vv.experiments import RETRIEVAL_PROFILES

    internals, trajectory = (EXPERIMENTS[n].configs_for("full") for n in ("vv-internals", "vv-trajectory"))
    stops = RETRIEVAL_PROFILES["full"].trajectory_steps
    assert [c.train.steps for c in trajectory] == [s for s in stops for _ in internals]
    assert all(replace(c, train=replace(c.train, steps=100_000)) == internals[i % len(internals)]
               for i, c in enumerate(trajectory))
    assert {c.train.steps for c in internals} == {100_000} and max(stops) < 100_000
    assert EXPERIMENTS["vv-trajectory"].labels(trajectory[0])["steps"] == 1000


def test_trajectory_runs_end_each_seed_with_its_internals_run(tmp_path):
    from lengthgen.analysis.variance import trajectory
    from lengthgen.papers import EXPERIMENTS
    from lengthgen.papers.vv.experiments import trajectory_runs
    from lengthgen.results.store import ResultStore
    from lengthgen.results.sweep import sweep

    store = ResultStore(tmp_path)
    for name in ("vv-trajectory", "vv-internals"):
        exp = EXPERIMENTS[name]
        sweep(exp, exp.configs_for("smoke"), store, "smoke", progress=False)
    runs = trajectory_runs(store, "smoke")
    assert sorted(runs.steps.unique()) == [5, 10, 20]  # trajectory_steps, then the smoke internals' 20 steps
    assert set(runs[runs.steps == 20].experiment) == {"vv-internals"}
    table, _ = trajectory(runs, (16, 64), 64)
    assert list(table.index) == [5, 10, 20] and (table.pairs == 2).all()
