"""Training: one update step shared by the step-based loop (set tasks, fresh batches every step) and the epoch-based
loop (seq2seq tasks: a fixed training set, dev-based lr halving, early stopping, the latest best-or-tied checkpoint
kept).
"""

import copy
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from tqdm.auto import tqdm

from lengthgen.config import ignored
from lengthgen.device import device_of


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


def train(model: torch.nn.Module, task, cfg: TrainConfig, gen: torch.Generator, desc: str = "train") -> dict:
    """Train `model` (anything with `.loss(batch)`) in place on `task`; lengths ~ U{min..cap(step)}.

    Returns:
        {"loss": final running mean loss, "seconds": wall time, "losses": loss every 1% of training}.
    """
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    model.train()
    losses, running, start = [], None, time.perf_counter()
    every = max(1, cfg.steps // 100)
    bar = tqdm(range(cfg.steps), desc=desc, disable=not cfg.progress, leave=False, mininterval=1.0)
    for step in bar:
        cap = cfg.length_cap(step)
        length = int(torch.randint(cfg.min_length, cap + 1, (1,), generator=gen))
        loss = update(model, opt, task.sample(cfg.batch_size, length, gen))
        running = loss if running is None else 0.98 * running + 0.02 * loss
        if step % every == 0:
            losses.append(running)
            bar.set_postfix(loss=f"{running:.3f}", refresh=False)
    model.eval()
    return {"loss": running, "seconds": time.perf_counter() - start, "losses": losses}


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
