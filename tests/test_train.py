from dataclasses import replace

import pandas as pd

from lengthgen.experiments.vanishing_variance import ProbeRun, run_probe
from lengthgen.models.probe import ProbeConfig
from lengthgen.train.loop import TrainConfig

TINY = ProbeRun(task="argmax", seed=0, model=ProbeConfig(width=16),
                train=TrainConfig(steps=150, batch_size=32, progress=False), eval_lengths=(8, 64), eval_samples=200)


def test_same_seed_gives_identical_metrics():
    pd.testing.assert_frame_equal(run_probe(TINY), run_probe(TINY))


def test_different_seed_gives_different_metrics():
    assert not run_probe(TINY).equals(run_probe(replace(TINY, seed=1)))


def test_training_learns_argmax_in_distribution():
    df = run_probe(replace(TINY, model=ProbeConfig(width=32), train=replace(TINY.train, steps=800)))
    acc = df[(df.metric == "accuracy")].set_index("length").value
    assert acc[8] > 80  # chance is 10%
    assert acc[8] > acc[64]  # and it degrades with length


def test_curriculum_caps_length():
    cfg = TrainConfig(steps=100, min_length=2, max_length=256, curriculum=True)
    caps = [cfg.length_cap(s) for s in range(100)]
    assert caps == sorted(caps) and caps[-1] == 256 and caps[0] < 10
    assert TrainConfig(max_length=16).length_cap(0) == 16
