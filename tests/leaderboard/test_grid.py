"""The leaderboard's grid: a run's rows, read by the protocol; its mechanisms and test lengths."""

import pytest

from lengthgen.errors import LengthgenError
from lengthgen.leaderboard.grid import (
    MECHANISMS,
    LeaderboardRun,
    build_run,
    in_distribution,
    leaderboard_labels,
    run_leaderboard,
    split_length,
)
from lengthgen.leaderboard.protocol import run_scores
from lengthgen.metrics import ACCURACY, FINAL_TRAIN_LOSS
from lengthgen.models.transformer import TransformerConfig
from lengthgen.tasks import TASKS
from lengthgen.train.loop import SplitTrainConfig

TINY = TransformerConfig(width=16, heads=2, layers=1, encoder_layers=1, ff=32, max_positions=128)


def test_test_splits_are_scored_at_their_length_and_iid_at_the_longest_training_length():
    task = TASKS["modular_arithmetic"]()
    assert in_distribution(task) == 40 and split_length(task, "iid") == 40 and split_length(task, "101") == 101
    with pytest.raises(LengthgenError, match="mixes lengths 41-49"):
        split_length(task, "dev")


def test_every_mechanism_builds_its_scheme_into_the_model():
    for name, mechanism in MECHANISMS.items():
        _, model = build_run(LeaderboardRun(task="bucket_sort", mechanism=name, seed=0, model=TINY))
        assert model.cfg.positional == mechanism.positional
    with pytest.raises(LengthgenError, match="unknown mechanism 'xpos'; valid: nope, sinusoidal"):
        build_run(LeaderboardRun(task="bucket_sort", mechanism="xpos", seed=0, model=TINY))


def test_a_run_gives_exact_match_per_length_that_the_protocol_scores():
    cfg = LeaderboardRun(task="bucket_sort", mechanism="rope", seed=0, model=TINY, tests=("iid", "50", "100"),
                         eval_samples=8, train=SplitTrainConfig(steps=3, batch_size=8, warmup=1))
    rows = run_leaderboard(cfg).metrics
    acc = rows[rows.metric == ACCURACY]
    assert acc[["split", "length"]].values.tolist() == [["iid", 40], ["50", 50], ["100", 100]]
    assert acc.value.between(0, 100).all() and (rows.metric == FINAL_TRAIN_LOSS).sum() == 1
    tidy = rows.assign(**leaderboard_labels(cfg))
    scores = run_scores(tidy, {"bucket_sort": 40})
    assert scores.variant.tolist() == ["rope"] and scores.seed.tolist() == [0]
