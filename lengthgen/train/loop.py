"""The only training loop: Adam on task batches of random length, optional length curriculum, tqdm progress."""

import time
from dataclasses import dataclass

import torch
from tqdm.auto import tqdm

from lengthgen.config import ignored


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
        loss = model.loss(task.sample(cfg.batch_size, length, gen))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        running = loss.item() if running is None else 0.98 * running + 0.02 * loss.item()
        if step % every == 0:
            losses.append(running)
            bar.set_postfix(loss=f"{running:.3f}", refresh=False)
    model.eval()
    return {"loss": running, "seconds": time.perf_counter() - start, "losses": losses}
