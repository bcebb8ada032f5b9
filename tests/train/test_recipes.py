"""The training loop's recipes beyond AdamW with warm-up: the ABC public code's optimiser (Adam 1e-4, its betas and
eps, a constant rate, no clipping); a callback along training; dropout seeded from a stream of its own."""

import pytest
import torch

from lengthgen.config import config_key
from lengthgen.models import build_model
from lengthgen.models.transformer import TransformerConfig
from lengthgen.tasks import TASKS
from lengthgen.train.loop import InterpolationTrainConfig, LMTrainConfig, train

PUBLIC = {"optim": "adam", "lr": 1e-4, "betas": (0.9, 0.98), "eps": 1e-9, "lr_schedule": "constant", "clip": None}


def test_the_default_recipe_is_adamw_with_torchs_defaults_and_keeps_its_key():
    cfg = LMTrainConfig(lr=1e-3)
    opt = cfg.optimizer([torch.nn.Parameter(torch.zeros(1))])
    assert type(opt) is torch.optim.AdamW
    group = opt.param_groups[0]
    assert (group["lr"], group["betas"], group["eps"], group["weight_decay"]) == (1e-3, (0.9, 0.999), 1e-8, 0.0)
    assert config_key(cfg) == config_key(LMTrainConfig(lr=1e-3, optim="adamw", betas=(0.9, 0.999), eps=1e-8,
                                                       lr_schedule="linear"))


def test_the_public_codes_recipe_is_adam_at_a_constant_1e_4():
    cfg = LMTrainConfig(steps=10, warmup=4, **PUBLIC)
    opt = cfg.optimizer([torch.nn.Parameter(torch.zeros(1))])
    assert type(opt) is torch.optim.Adam  # the exact type: not AdamW
    group = opt.param_groups[0]
    assert (group["lr"], group["betas"], group["eps"], group["weight_decay"]) == (1e-4, (0.9, 0.98), 1e-9, 0.0)
    assert cfg.schedule(opt) is None and cfg.clip is None  # constant: warmup unused; no clipping
    assert config_key(cfg) != config_key(LMTrainConfig(steps=10, warmup=4))
    with pytest.raises(ValueError, match="valid: adamw, adam"):
        LMTrainConfig(optim="sgd")
    with pytest.raises(ValueError, match="valid: linear, constant"):
        LMTrainConfig(lr_schedule="cosine")


def _setup(**model):
    task = TASKS["successor"](width=9)
    cfg = TransformerConfig(width=16, heads=2, layers=1, encoder_layers=0, ff=32, post_ln=True, positional="sinusoidal",
                            max_positions=16, **model)
    return task, build_model("encoder_decoder", cfg, task, seed=0, device="cpu")


def _weights(model) -> list[torch.Tensor]:
    return [p.detach().clone() for p in model.parameters()]


def _same(a, b) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a, b, strict=True))


def test_a_step_at_a_constant_rate_without_clipping_moves_the_model():
    task, model = _setup()
    before = _weights(model)
    cfg = InterpolationTrainConfig(steps=2, batch_size=8, progress=False, **PUBLIC)
    stats = train(model, task, cfg, torch.Generator().manual_seed(0))
    assert stats["loss"] > 0 and not _same(before, _weights(model))


def test_a_callback_sees_every_step_and_changes_nothing():
    cfg = InterpolationTrainConfig(steps=5, batch_size=8, warmup=1, progress=False)
    task, plain = _setup()
    train(plain, task, cfg, torch.Generator().manual_seed(0))
    task, watched = _setup()
    seen, modes = [], []

    def evaluate(step: int) -> None:  # as a course of training does: test in eval mode
        modes.append(watched.training)
        watched.eval()
        watched.predict(task.batch(task.examples("3", 4)))
        seen.append(step)

    train(watched, task, cfg, torch.Generator().manual_seed(0), callback=evaluate)
    assert seen == [1, 2, 3, 4, 5] and all(modes)  # back in training mode after every call
    assert _same(_weights(plain), _weights(watched)) and not watched.training


def test_dropout_draws_from_its_own_stream():
    cfg = InterpolationTrainConfig(steps=3, batch_size=8, warmup=1, progress=False)
    runs = []
    for global_seed in (1, 2):
        task, model = _setup(dropout=0.3, attention_dropout=0.3, ff_dropout=0.3)
        torch.manual_seed(global_seed)  # whatever the caller's global state
        state = torch.random.get_rng_state()
        train(model, task, cfg, torch.Generator().manual_seed(0), noise=torch.Generator().manual_seed(7))
        assert torch.equal(torch.random.get_rng_state(), state)  # restored
        runs.append(_weights(model))
    assert _same(*runs)
    task, other = _setup(dropout=0.3, attention_dropout=0.3, ff_dropout=0.3)
    train(other, task, cfg, torch.Generator().manual_seed(0), noise=torch.Generator().manual_seed(8))
    assert not _same(runs[0], _weights(other))  # another stream, other draws
    task, a = _setup()
    task, b = _setup()
    train(a, task, cfg, torch.Generator().manual_seed(0))
    train(b, task, cfg, torch.Generator().manual_seed(0), noise=torch.Generator().manual_seed(7))
    assert _same(_weights(a), _weights(b))  # no dropout: the stream changes nothing
