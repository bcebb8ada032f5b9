"""The leaderboard's grid: every mechanism on every task, one run per (task, mechanism, seed), scored by `protocol`.

A mechanism is one registry line (`MECHANISMS`). A run trains a decoder-only transformer with the mechanism's
positional scheme and id transform on the task as prompt and answer (`tasks.prompted`: the source, "=", the target),
at source lengths drawn uniformly from the task's training lengths, and scores greedy answers (exact match) at each
test length on examples drawn from the test seed, the same for every mechanism.
"""

from dataclasses import dataclass, field, replace

import pandas as pd

from lengthgen.config import ignored
from lengthgen.metrics import FINAL_TRAIN_LOSS
from lengthgen.models import build_model
from lengthgen.models.transformer import TransformerConfig
from lengthgen.registry import Registry
from lengthgen.results.store import RunOutput
from lengthgen.seeding import generator
from lengthgen.tasks import TASKS
from lengthgen.tasks.prompted import Prompted
from lengthgen.train.evaluate import answer_accuracy_by_length
from lengthgen.train.loop import LMTrainConfig, train


@dataclass(frozen=True)
class Mechanism:
    """What a mechanism changes in the decoder-only transformer: its positional scheme (`positional.POSITIONAL`, "a+b"
    composes) and its transform of the position ids (`LMTrainConfig.positions`: "randomized" is drawn at test time
    too), and where it comes from."""

    positional: str
    source: str
    positions: str = "given"


MECHANISMS = Registry("mechanism", {
    "nope": Mechanism("none", "no positions: the causal mask alone (Kazemnejad et al. 2023)"),
    "sinusoidal": Mechanism("sinusoidal", "Vaswani et al. 2017"),
    "learned": Mechanism("learned", "learned absolute positions (GPT-2)"),
    "rope": Mechanism("rope", "RoPE (Su et al. 2021)"),
    "alibi": Mechanism("alibi", "ALiBi (Press et al. 2022)"),
    "t5": Mechanism("t5", "T5's relative bias (Raffel et al. 2020)"),
    "fire": Mechanism("fire", "FIRE (Li et al. 2024)"),
    "randomized": Mechanism("sinusoidal", "randomized positions over sinusoids (Ruoss et al. 2023)", "randomized"),
    "pose": Mechanism("rope", "RoPE with PoSE's shifted ids (Zhu et al. 2024)", "pose"),
})


def in_distribution(task: str) -> int:
    """The longest training length of a task (of its source, in its own unit)."""
    source = TASKS[task]()
    return source.splits[source.train_split].max_length


@dataclass(frozen=True)
class LeaderboardRun:
    """One run of the grid: a mechanism on a task at a seed, with the model, training and test sizes. The training
    config's min_length and max_length are the task's training lengths; max_positions bounds the ids that
    "randomized" draws and that "pose" shifts to (`LMTrainConfig.pose_length`)."""

    task: str
    mechanism: str
    seed: int
    model: TransformerConfig = field(default_factory=TransformerConfig)
    train: LMTrainConfig = field(default_factory=LMTrainConfig)
    tests: tuple[int, ...] = ()  # source lengths scored; the longest training length among them
    eval_samples: int = 500  # examples per test length
    eval_seed: int = 0  # the test examples' seed: the same for every run, so mechanisms meet the same examples
    progress: bool = ignored(False)  # tqdm bars inside the run

    def training(self) -> LMTrainConfig:
        """The training config with the mechanism's id transform."""
        positions = MECHANISMS[self.mechanism].positions
        return replace(self.train, positions=positions, progress=self.progress, max_positions=self.model.max_positions,
                       pose_length=self.model.max_positions if positions == "pose" else 0)


def build_run(cfg: LeaderboardRun) -> tuple[Prompted, object]:
    """(task as prompts and answers, untrained decoder with the mechanism's scheme); the init draws from the seed."""
    task = Prompted(TASKS[cfg.task]())
    model = replace(cfg.model, positional=MECHANISMS[cfg.mechanism].positional)
    return task, build_model("decoder", model, task, seed=cfg.seed)


def run_leaderboard(cfg: LeaderboardRun) -> RunOutput:
    """Train, then exact match of greedy answers at each test length (`evaluate.answer_accuracy_by_length`, its ids
    randomized below max_positions for "randomized"); the final training loss beside. The checkpoint is the trained
    model."""
    task, model = build_run(cfg)
    training = cfg.training()
    stats = train(model, task, training, generator(cfg.seed, "train"), desc=f"{cfg.task}/{cfg.mechanism}/{cfg.seed}")
    randomize = cfg.model.max_positions if training.positions == "randomized" else 0
    rows = answer_accuracy_by_length(model, task, cfg.tests, cfg.eval_samples, cfg.eval_seed, progress=cfg.progress,
                                     randomize=randomize)
    loss = pd.DataFrame([{"length": 0, "metric": FINAL_TRAIN_LOSS, "value": stats["loss"]}])
    return RunOutput(pd.concat([rows, loss], ignore_index=True), checkpoint=model.state_dict())


def leaderboard_labels(cfg: LeaderboardRun) -> dict:
    return {"task": cfg.task, "model": "transformer", "variant": cfg.mechanism, "seed": cfg.seed}
