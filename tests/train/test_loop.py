"""The training loops and configs (train/loop.py): curriculum, the epoch loop on scripted dev scores, LM
schedules and position transforms."""

import pytest
import torch
from torch import nn

from lengthgen.data import LMBatch
from lengthgen.train.loop import EpochConfig, LanguageTrainConfig, LMTrainConfig, TrainConfig, train_epochs


def test_curriculum_caps_length():
    cfg = TrainConfig(steps=100, min_length=2, max_length=256, curriculum=True)
    caps = [cfg.length_cap(s) for s in range(100)]
    assert caps == sorted(caps) and caps[-1] == 256 and caps[0] < 10
    assert TrainConfig(max_length=16).length_cap(0) == 16


class _Counter(nn.Module):
    """A one-parameter model whose weight moves at every step, so each epoch's weights are distinct."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.zeros(()))

    def loss(self, batch):
        return -self.w * batch.sum()  # the gradient step raises w every update


def _train(scores, **cfg):
    """train_epochs on a scripted sequence of dev scores; returns (stats, weight kept, weight after each epoch)."""
    model, seen = _Counter(), []
    script = iter(scores)

    def dev_score():
        seen.append(model.w.item())
        return next(script)

    stats = train_epochs(model, [1.0] * 4, torch.tensor, dev_score,
                         EpochConfig(epochs=len(scores), batch_size=2, lr=0.1, progress=False, **cfg),
                         torch.Generator().manual_seed(0))
    return stats, model.w.item(), seen


def test_epoch_loop_keeps_the_latest_tie_with_the_best():
    stats, kept, seen = _train([50.0, 60.0, 60.0, 60.0, 55.0])
    assert stats["best_epoch"] == 3 and stats["best_dev"] == 60.0
    assert kept == seen[3] and len(set(seen)) == 5  # the weights of epoch 3, not of epoch 1 or the last one


def test_epoch_loop_stops_after_patience_non_improving_epochs():
    stats, kept, seen = _train([10.0] + [5.0] * 9, patience=3)
    assert stats["epochs"] == 5  # epochs 1..4 bring nothing: impatience 4 > 3 stops it
    assert stats["best_epoch"] == 0 and kept == seen[0]


def test_saturated_dev_score_trains_to_the_last_epoch():
    stats, kept, seen = _train([100.0] * 8, patience=3)
    assert stats["epochs"] == 8 and stats["best_epoch"] == 7 and kept == seen[7]


def test_learning_rate_halves_after_plateau_epochs_without_strict_improvement():
    stats, _, _ = _train([10.0, 20.0, 20.0, 20.0, 20.0, 20.0, 30.0], plateau=2)
    lrs = [lr for _, _, _, lr in stats["history"]]
    # the scheduler starts at epoch 1 (20 = its best); ties at epochs 2, 3, 4 are 3 > 2 bad epochs: halve after 4
    assert lrs == pytest.approx([0.1] * 5 + [0.05] * 2)


def test_lm_training_schedule_and_position_transforms():
    cfg = LMTrainConfig(steps=10, warmup=4, lr=1.0, max_positions=30, pose_length=40)
    opt = cfg.optimizer([torch.nn.Parameter(torch.zeros(1))])
    schedule = cfg.schedule(opt)
    rates = []
    for _ in range(10):
        rates.append(opt.param_groups[0]["lr"])
        opt.step()
        schedule.step()
    assert rates == pytest.approx([0.25, 0.5, 0.75, 1.0, 1.0, 5 / 6, 4 / 6, 3 / 6, 2 / 6, 1 / 6])
    batch = LMBatch(torch.zeros(3, 8, dtype=torch.long), None, 4)
    gen = torch.Generator().manual_seed(0)
    assert TrainConfig().transform(batch, gen) is batch
    shifted = LMTrainConfig(positions="offset", max_positions=30).transform(batch, gen).ids
    assert bool((shifted[:, 0] == 0).all()) and int(shifted.max()) <= 29
    assert bool((shifted[:, 1:].diff(dim=1) == 1).all())  # one shift per row
    posed = LMTrainConfig(positions="pose", pose_length=40).transform(batch, gen).ids
    assert int(posed.max()) <= 39 and bool((posed.diff(dim=1) >= 1).all())
    drawn = LMTrainConfig(positions="randomized", max_positions=64).transform(batch, gen).ids
    assert int(drawn.max()) <= 63 and bool((drawn.diff(dim=1) >= 1).all()) and int((drawn.diff(dim=1) > 1).sum()) > 0
    with pytest.raises(ValueError, match="valid: given, offset, pose, randomized"):
        LMTrainConfig(positions="shift")


def test_pose_only_in_the_last_part_of_training():
    cfg = LanguageTrainConfig(steps=10, positions="pose", pose_length=40, pose_from=0.7)
    batch = LMBatch(torch.zeros(8, 12, dtype=torch.long), None, prompt=1)
    gen = torch.Generator().manual_seed(0)
    assert cfg.transform(batch, gen, step=6) is batch
    late = cfg.transform(batch, gen, step=7).ids
    assert bool((late[:, 1:] > late[:, :-1]).all()) and int(late.max()) > 11  # in order, beyond the window
