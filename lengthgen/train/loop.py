"""Training: one update step shared by the step-based loop (set tasks, fresh batches every step) and the epoch-based
loop (seq2seq tasks: a fixed training set, dev-based lr halving, early stopping, the latest best-or-tied checkpoint
kept).
"""

import contextlib
import copy
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import torch
from tqdm.auto import tqdm

from lengthgen import snapshots
from lengthgen.config import added, ignored
from lengthgen.data import LMBatch
from lengthgen.device import device_of
from lengthgen.models.positional import offset, pose, randomized
from lengthgen.seeding import global_from, global_rng_state, restore_global_rng


@dataclass(frozen=True)
class TrainConfig:
    """How a model is trained."""

    steps: int = 3000  # gradient steps
    batch_size: int = 128  # sets per step (all sets of one step share a length)
    lr: float = 1e-3  # Adam learning rate
    min_length: int = 2  # shortest training set
    max_length: int = 16  # longest training set (the paper's argmax/dictionary setting: 2^4)
    curriculum: bool = False  # if true, the longest length grows linearly from min to max over training
    progress: bool = ignored(True)  # show a tqdm bar (does not change results)

    def length_cap(self, step: int) -> int:
        """The longest length allowed at `step` (the curriculum reaches max_length at the last step)."""
        if not self.curriculum:
            return self.max_length
        frac = (step + 1) / self.steps
        return max(self.min_length, round(self.min_length + frac * (self.max_length - self.min_length)))

    clip = None  # no gradient clipping

    def optimizer(self, params) -> torch.optim.Optimizer:
        return torch.optim.Adam(params, lr=self.lr)

    def schedule(self, opt: torch.optim.Optimizer) -> torch.optim.lr_scheduler.LRScheduler | None:
        """The learning-rate schedule stepped after every update (None: constant)."""
        return None

    def transform(self, batch, gen: torch.Generator, step: int = 0):
        """A training batch as the model sees it at `step` (unchanged here; draws nothing from `gen`)."""
        return batch

    def draw(self, task, step: int, gen: torch.Generator):
        """The training batch of `step`: a length ~ U{min_length..length_cap(step)}, then `task.sample` of it."""
        length = int(torch.randint(self.min_length, self.length_cap(step) + 1, (1,), generator=gen))
        return task.sample(self.batch_size, length, gen)


POSITION_TRANSFORMS = ("given", "offset", "pose", "randomized")
OPTIMIZERS = ("adamw", "adam")  # LMTrainConfig.optim
LR_SCHEDULES = ("linear", "constant")  # LMTrainConfig.lr_schedule


@dataclass(frozen=True)
class LMTrainConfig(TrainConfig):
    """How a transformer is trained on an `LMBatch` task: AdamW (or Adam), linear warm-up then linear decay to 0 (or
    a constant rate), gradient clipping, and a training-time transform of the position ids: `given` (as the task gives
    them), `offset` (position coupling's random shift, ids < max_positions), `pose` (PoSE, relative distances up to
    pose_length) or `randomized` (randomized positions, ids drawn below max_positions; tested with the same draw:
    `evaluate.answer_accuracy_by_length(randomize=max_positions)`). The ABC public code's recipe: optim "adam",
    lr 1e-4, betas (0.9, 0.98), eps 1e-9, lr_schedule "constant", clip None."""

    lr: float = 1e-4  # peak AdamW learning rate
    weight_decay: float = 0.0  # AdamW weight decay (Adam: its L2 penalty)
    warmup: int = 300  # steps of linear warm-up from 0 to lr
    clip: float | None = 1.0  # gradient-norm clip; None: none
    positions: str = "given"  # given, offset or pose
    max_positions: int = 256  # offset, randomized: ids stay below this (at most the model's id table)
    pose_length: int = 0  # pose: the length whose relative distances the shifted ids cover
    optim: str = added("adamw")  # "adamw" (torch.optim.AdamW) or "adam" (torch.optim.Adam)
    betas: tuple[float, float] = added((0.9, 0.999))  # the optimiser's betas (torch's default; ABC public code: 0.9,
    # 0.98)
    eps: float = added(1e-8)  # the optimiser's eps (torch's default; ABC public code: 1e-9)
    lr_schedule: str = added("linear")  # "linear": `warmup` steps up to lr, then linearly down to 0 at the last step;
    # "constant": lr at every step (warmup unused)

    def __post_init__(self):
        if self.positions not in POSITION_TRANSFORMS:
            raise ValueError(f"unknown positions {self.positions!r}; valid: {', '.join(POSITION_TRANSFORMS)}")
        if self.optim not in OPTIMIZERS:
            raise ValueError(f"unknown optim {self.optim!r}; valid: {', '.join(OPTIMIZERS)}")
        if self.lr_schedule not in LR_SCHEDULES:
            raise ValueError(f"unknown lr_schedule {self.lr_schedule!r}; valid: {', '.join(LR_SCHEDULES)}")

    def optimizer(self, params):
        if self.optim == "adam":
            return torch.optim.Adam(params, lr=self.lr, betas=self.betas, eps=self.eps, weight_decay=self.weight_decay)
        return torch.optim.AdamW(params, lr=self.lr, betas=self.betas, eps=self.eps, weight_decay=self.weight_decay)

    def schedule(self, opt):
        if self.lr_schedule == "constant":
            return None

        def factor(step: int) -> float:
            if step < self.warmup:
                return (step + 1) / self.warmup
            return max(0.0, (self.steps - step) / max(1, self.steps - self.warmup))

        return torch.optim.lr_scheduler.LambdaLR(opt, factor)

    def transform(self, batch: LMBatch, gen, step: int = 0):
        if self.positions == "offset":
            return replace(batch, ids=offset(batch.positions, self.max_positions, gen))
        if self.positions == "pose":
            return replace(batch, ids=pose(batch.positions, self.pose_length, gen))
        if self.positions == "randomized":
            return replace(batch, ids=randomized(batch.positions, self.max_positions, gen))
        return batch


@dataclass(frozen=True)
class LanguageTrainConfig(LMTrainConfig):
    """`LMTrainConfig` whose PoSE starts part-way: the paper trains its context-64 language model with plain ids for
    the first 70% of the steps and with PoSE for the last 30% (it found PoSE from the start worse at length 128)."""

    pose_from: float = 0.7  # fraction of the steps after which the `pose` transform applies

    def transform(self, batch: LMBatch, gen, step: int = 0):
        if self.positions == "pose" and step < self.pose_from * self.steps:
            return batch
        return super().transform(batch, gen, step)


@dataclass(frozen=True)
class InterpolationTrainConfig(LMTrainConfig):
    """`LMTrainConfig` on the interpolation data of an arithmetic task (`tasks.arithmetic`): every batch is drawn from
    the task's training numbers, whatever their length, as the attention-bias-calibration paper trains; min_length and
    max_length are not used."""

    def draw(self, task, step, gen):
        return task.interpolation_batch(self.batch_size, gen)


def update(model: torch.nn.Module, opt: torch.optim.Optimizer, batch, clip: float | None = None) -> float:
    """One gradient step on `model.loss(batch)` (the batch moved to the model's device; gradient norm clipped to
    `clip` if given); returns the loss."""
    loss = model.loss(batch.to(device_of(model)))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    if clip is not None:
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
    opt.step()
    return loss.item()


def seeded_noise(noise: torch.Generator | None, model: torch.nn.Module):
    """`seeding.global_from(noise)` on the model's device(s), or with None, the global RNG as it is."""
    if noise is None:
        return contextlib.nullcontext()
    return global_from(noise, cuda=device_of(model).type == "cuda")


def train(model: torch.nn.Module, task, cfg: TrainConfig, gen: torch.Generator, desc: str = "train",
          callback: Callable[[int], bool | None] | None = None, noise: torch.Generator | None = None,
          carry: list | None = None) -> dict:
    """Train `model` (anything with `.loss(batch)`) in place on `task`; the batches (`cfg.draw`), optimizer, schedule,
    clipping and batch transform are the config's. Inside `snapshots.resumable` (a run computed through the store),
    training keeps snapshots and resumes from them (`lengthgen.snapshots`).

    Args:
        callback: called with the number of steps done after every step (e.g. to evaluate the course of training);
            the model is put back in training mode after it. It must draw nothing from `gen`. When it returns
            True, training stops there (a resumed training that had stopped trains no further).
        noise: the stream the global RNG is seeded from while training (`seeded_noise`): what dropout draws, so
            that a model with dropout trains the same way every time. None: the global RNG as it is.
        carry: a list the caller fills during training (the callback's rows): kept in the snapshots and restored
            from them, so that a resumed training returns it as the uninterrupted one would. With snapshots, a
            callback needs one.

    Returns:
        {"loss": final running mean loss, "seconds": wall time, "losses": loss every 1% of training, "steps": the
        steps trained (fewer than `cfg.steps` when the callback stopped it)}.
    """
    snaps = snapshots.current()
    if snaps is not None and callback is not None and carry is None:
        raise ValueError("a resumable training with a callback needs `carry`, the list the callback fills: a resumed "
                         "training would lose what the callback did before the snapshot")
    path = snaps.claim() if snaps is not None else None
    opt = cfg.optimizer(model.parameters())
    schedule = cfg.schedule(opt)
    cuda = device_of(model).type == "cuda"
    model.train()
    losses, running, first, spent, start = [], None, 0, 0.0, time.perf_counter()
    every, end = max(1, cfg.steps // 100), cfg.steps

    def state(step: int, stopped: bool = False) -> dict:
        return {"step": step, "model": model.state_dict(), "optimizer": opt.state_dict(),
                "schedule": None if schedule is None else schedule.state_dict(), "gen": gen.get_state(),
                "rng": global_rng_state(cuda), "losses": losses, "running": running,
                "seconds": spent + time.perf_counter() - start, "carry": list(carry or []), "stopped": stopped}

    with seeded_noise(noise, model):
        saved = snaps.load(path) if snaps is not None else None
        if saved is not None:
            model.load_state_dict(saved["model"])
            opt.load_state_dict(saved["optimizer"])
            if schedule is not None:
                schedule.load_state_dict(saved["schedule"])
            gen.set_state(saved["gen"])
            restore_global_rng(saved["rng"])
            losses, running, first, spent = saved["losses"], saved["running"], saved["step"], saved["seconds"]
            if carry is not None:
                carry[:] = saved["carry"]
            if saved.get("stopped"):
                end = first
        last = time.perf_counter()
        bar = tqdm(range(first, end), desc=desc, disable=not cfg.progress, leave=False, mininterval=1.0,
                   initial=first, total=cfg.steps)
        for step in bar:
            loss = update(model, opt, cfg.transform(cfg.draw(task, step, gen), gen, step), cfg.clip)
            if schedule is not None:
                schedule.step()
            running = loss if running is None else 0.98 * running + 0.02 * loss
            if step % every == 0:
                losses.append(running)
                bar.set_postfix(loss=f"{running:.3f}", refresh=False)
            if callback is not None:
                stop = callback(step + 1)
                model.train()
                if stop:
                    end = step + 1
                    break
            if path is not None and step + 1 < cfg.steps and time.perf_counter() - last >= snaps.interval:
                snaps.save(path, state(step + 1))
                last = time.perf_counter()
        if path is not None and (saved is None or first < end):  # the end, unless read from a snapshot
            snaps.save(path, state(end, stopped=end < cfg.steps))
    model.eval()
    return {"loss": running, "seconds": spent + time.perf_counter() - start, "losses": losses, "steps": end}


@dataclass(frozen=True)
class EpochConfig:
    """How a seq2seq model is trained (defaults: the public code of Chowdhury & Caragea 2023)."""

    epochs: int = 100  # maximum number of passes over the training set
    batch_size: int = 32  # examples per step
    lr: float = 1e-3  # AdamW learning rate (weight decay 0)
    clip: float = 5.0  # gradient-norm clip
    plateau: int = 4  # halve the lr once more than this many epochs bring no better dev score (from epoch 1)
    patience: int = 50  # stop once more than this many epochs after the first bring no new best or tie
    tie: float = 0.001  # a dev score within this many points of the best is a tie: its weights are kept
    progress: bool = ignored(True)  # show a tqdm bar (does not change results)


def train_epochs(model: torch.nn.Module, examples: Sequence, collate: Callable, dev_score: Callable[[], float],
                 cfg: EpochConfig, gen: torch.Generator, desc: str = "train") -> dict:
    """Train on `examples` (reshuffled every epoch, batched by `collate`); keep the weights of the latest epoch
    whose dev score is a new best or ties the best.

    The rules follow the public code of Chowdhury & Caragea (2023): the learning rate follows torch's
    ReduceLROnPlateau (mode max, factor 1/2, patience `plateau`) from the second epoch on, where a tie is no
    improvement; for the checkpoint and early stopping a tie counts as one, so a model whose dev score has
    saturated keeps training, and is kept, until `epochs`.

    Args:
        dev_score: evaluates the model (in eval mode) on the dev set; higher is better.

    Returns:
        {"epochs", "best_epoch", "best_dev", "seconds", "history": [(epoch, mean loss, dev score, lr), ...]}.
    """
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.0, fused=True)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="max", factor=0.5, patience=cfg.plateau)
    best, best_state, best_epoch, impatience = -float("inf"), None, -1, 0
    history, start = [], time.perf_counter()
    bar = tqdm(range(cfg.epochs), desc=desc, disable=not cfg.progress, leave=False)
    for epoch in bar:
        model.train()
        order = torch.randperm(len(examples), generator=gen).tolist()
        losses = [update(model, opt, collate([examples[i] for i in order[k: k + cfg.batch_size]]), cfg.clip)
                  for k in range(0, len(order), cfg.batch_size)]
        model.eval()
        score = dev_score()
        history.append((epoch, sum(losses) / len(losses), score, opt.param_groups[0]["lr"]))
        if epoch > 0:
            plateau.step(score)
            impatience += 1
        if score > best - cfg.tie:  # a new best, or a tie with it
            best, best_epoch, impatience = score, epoch, 0
            best_state = copy.deepcopy(model.state_dict())
        bar.set_postfix(loss=f"{history[-1][1]:.3f}", dev=f"{score:.1f}", best=f"{best:.1f}", refresh=False)
        if impatience > cfg.patience:
            break
    model.load_state_dict(best_state)
    model.eval()
    return {"epochs": len(history), "best_epoch": best_epoch, "best_dev": best,
            "seconds": time.perf_counter() - start, "history": history}
