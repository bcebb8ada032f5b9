"""The leaderboard's grid: every mechanism on every task, one run per (task, mechanism, seed), scored by `protocol`.

A mechanism is one registry line (`MECHANISMS`); a run trains the encoder-decoder transformer with the mechanism's
positional scheme on the task's training split (`SplitTrainConfig`) and scores greedy decoding on each test split,
exact match per length (`in_distribution` for the `iid` split: its examples have the training lengths).
"""

from dataclasses import dataclass, field, replace

import pandas as pd

from lengthgen.config import ignored
from lengthgen.errors import LengthgenError
from lengthgen.metrics import ACCURACY, FINAL_TRAIN_LOSS
from lengthgen.models import build_model
from lengthgen.models.transformer import TransformerConfig
from lengthgen.registry import Registry
from lengthgen.results.store import RunOutput
from lengthgen.seeding import generator
from lengthgen.tasks import TASKS
from lengthgen.train.evaluate import sequence_metrics
from lengthgen.train.loop import SplitTrainConfig, train


@dataclass(frozen=True)
class Mechanism:
    """What a mechanism changes in the encoder-decoder transformer: its positional scheme (`positional.POSITIONAL`,
    "a+b" composes), and where it comes from."""

    positional: str
    source: str


MECHANISMS = Registry("mechanism", {
    "nope": Mechanism("none", "no positions (Kazemnejad et al. 2023)"),
    "sinusoidal": Mechanism("sinusoidal", "Vaswani et al. 2017"),
    "learned": Mechanism("learned", "learned absolute positions"),
    "rope": Mechanism("sinusoidal+rope", "RoPE (Su et al. 2021), sinusoids for cross-attention"),
    "alibi": Mechanism("sinusoidal+alibi", "ALiBi (Press et al. 2022), sinusoids for cross-attention"),
    "t5": Mechanism("sinusoidal+t5", "T5's relative bias (Raffel et al. 2020), sinusoids for cross-attention"),
    "fire": Mechanism("sinusoidal+fire", "FIRE (Li et al. 2024), sinusoids for cross-attention"),
})


def in_distribution(task) -> int:
    """The longest training length of a task: the length its `iid` split is scored at."""
    return task.splits[task.train_split].max_length


def split_length(task, split: str) -> int:
    """The length a test split is scored at: its own (a split of one length), or the training length for `iid`."""
    spec = task.splits[split]
    if split == "iid":
        return in_distribution(task)
    if spec.min_length != spec.max_length:
        raise LengthgenError(f"{task.name}/{split} mixes lengths {spec.min_length}-{spec.max_length}; the "
                             f"leaderboard scores splits of one length (or iid)")
    return spec.max_length


@dataclass(frozen=True)
class LeaderboardRun:
    """One run of the grid: a mechanism on a task at a seed, with the model, training and test sizes."""

    task: str
    mechanism: str
    seed: int
    model: TransformerConfig = field(default_factory=TransformerConfig)
    train: SplitTrainConfig = field(default_factory=SplitTrainConfig)
    tests: tuple[str, ...] = ("iid",)  # the task's splits scored
    eval_samples: int = 500  # examples per test split
    progress: bool = ignored(False)  # tqdm bars inside the run


def build_run(cfg: LeaderboardRun) -> tuple[object, object]:
    """(task, untrained encoder-decoder with the mechanism's positional scheme); the init draws from the seed."""
    task = TASKS[cfg.task]()
    model = replace(cfg.model, positional=MECHANISMS[cfg.mechanism].positional)
    return task, build_model("encoder_decoder", model, task, seed=cfg.seed)


def run_leaderboard(cfg: LeaderboardRun) -> RunOutput:
    """Train on the task's training split, then exact match of greedy decoding on each test split (`eval_samples`
    examples), by the split's length; the final training loss beside. The checkpoint is the trained model."""
    task, model = build_run(cfg)
    stats = train(model, task, replace(cfg.train, progress=cfg.progress), generator(cfg.seed, "train"),
                  desc=f"{cfg.task}/{cfg.mechanism}/{cfg.seed}", noise=generator(cfg.seed, "noise"))
    model.eval()
    rows = [{"split": split, "length": split_length(task, split), "metric": ACCURACY,
             "value": sequence_metrics(task, model, task.examples(split, cfg.eval_samples))[ACCURACY]}
            for split in cfg.tests]
    rows.append({"split": "train", "length": 0, "metric": FINAL_TRAIN_LOSS, "value": stats["loss"]})
    return RunOutput(pd.DataFrame(rows), checkpoint=model.state_dict())


def leaderboard_labels(cfg: LeaderboardRun) -> dict:
    return {"task": cfg.task, "model": "transformer", "variant": cfg.mechanism, "seed": cfg.seed}
