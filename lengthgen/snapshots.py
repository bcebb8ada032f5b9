"""Snapshots of training in progress, so that a run longer than a session resumes where it stopped.

While a run is computed through the results store (`results.sweep.run_and_store`), `resumable(folder)` is open and
each call of `train.loop.train` in the run, numbered in the order the run makes them, keeps a snapshot in `folder`:
every `interval` seconds while it trains, and once at its end. A snapshot holds all that training changes: the
model's and the optimizer's state, the schedule's, the step, the data stream's state, the global RNG's (what dropout
draws), the losses so far and the caller's `carry` (rows a callback filled). When the same config is run again after
an interruption, each call finds its snapshot: a finished call sets that state and returns at once; the unfinished one
continues from its last snapshot. A run's code is deterministic given its config, so it makes the same calls in the
same order, and the resumed run ends with the weights and rows the uninterrupted one would have (up to the work done
after the last snapshot, which is done again). The store removes the folder once the run's entry is written.
"""

import contextlib
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

import torch

INTERVAL = 300.0  # seconds between two snapshots of a training in progress


@dataclass
class Snapshots:
    """The snapshots of one run: `folder`, the calls of `train` made so far and the run's time before this process."""

    folder: Path
    interval: float  # seconds between two snapshots of a training in progress
    commit: str = "unknown"  # the code's commit, recorded in each snapshot (`results.provenance.git_commit`)
    calls: int = 0  # calls of `train` in this run so far
    before: float = 0.0  # seconds of the run spent by earlier processes, up to their last snapshot
    resumed: list[dict] = field(default_factory=list)  # {"call", "step", "commit"} of each call taken up again
    start: float = field(default_factory=time.perf_counter)

    def claim(self) -> Path:
        """The snapshot file of the next call of `train`."""
        self.calls += 1
        return self.folder / f"train-{self.calls}.pt"

    def seconds(self) -> float:
        """The run's wall time: earlier processes' (to their last snapshot) and this one's."""
        return self.before + time.perf_counter() - self.start

    def load(self, path: Path) -> dict | None:
        """The state a snapshot file holds, or None if there is none; counts its time and notes the resumption."""
        if not path.is_file():
            return None
        state = torch.load(path, weights_only=True, map_location="cpu")
        self.before = max(self.before, state["run_seconds"] - (time.perf_counter() - self.start))
        self.resumed.append({"call": self.calls, "step": state["step"], "commit": state["commit"]})
        return state

    def save(self, path: Path, state: dict) -> None:
        """Write a snapshot atomically (a file interrupted half-way is never read back)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        torch.save({**state, "run_seconds": self.seconds(), "commit": self.commit}, tmp)
        tmp.replace(path)


_current: ContextVar[Snapshots | None] = ContextVar("snapshots", default=None)


@contextlib.contextmanager
def resumable(folder: Path, interval: float | None = None, commit: str = "unknown") -> Iterator[Snapshots]:
    """Within the block, every `train` call keeps its snapshots in `folder` (every `interval` seconds; None:
    INTERVAL) and resumes from them; `commit` names the code that makes them."""
    token = _current.set(Snapshots(Path(folder), INTERVAL if interval is None else interval, commit))
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def current() -> Snapshots | None:
    """The open `resumable` block's snapshots, or None outside one."""
    return _current.get()
