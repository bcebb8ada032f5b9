"""Experiments of the "On Vanishing Variance" chapter, and the paper's reported numbers as data."""

from dataclasses import dataclass, field, replace

import pandas as pd

from lengthgen.analysis.variance import readings
from lengthgen.config import ignored
from lengthgen.metrics import FINAL_TRAIN_LOSS
from lengthgen.models import build_model
from lengthgen.models.probe import AttentionProbe, ProbeConfig
from lengthgen.results.experiment import Experiment
from lengthgen.results.store import ResultStore, RunOutput
from lengthgen.results.sweep import stored_runs
from lengthgen.seeding import generator
from lengthgen.tasks import TASKS
from lengthgen.train.evaluate import accuracy_by_length
from lengthgen.train.loop import TrainConfig, train

PAPER_LENGTHS = tuple(2**k for k in range(4, 15))  # 2^4 ... 2^14


@dataclass(frozen=True)
class ProbeRun:
    """One training run of the attention probe plus its evaluation by length."""

    task: str  # "argmax" or "dictionary"
    seed: int  # model init and training-data seed (paired across variants)
    model: ProbeConfig = field(default_factory=ProbeConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    eval_lengths: tuple[int, ...] = PAPER_LENGTHS  # set sizes N evaluated
    eval_samples: int = 1000  # test sets per length
    eval_seed: int = 0  # seed of the test sets: shared by every run, so comparisons are paired
    progress: bool = ignored(False)  # tqdm bars inside the run


def build_probe(cfg: ProbeRun) -> tuple[object, AttentionProbe]:
    """(task, untrained probe) of a config; the initialisation draws from the config's seed."""
    task = TASKS[cfg.task]()
    return task, build_model("probe", cfg.model, task, seed=cfg.seed)


def train_probe(cfg: ProbeRun) -> tuple[AttentionProbe, object, dict]:
    """Build and train the probe of a config; returns (model, task, training stats)."""
    task, model = build_probe(cfg)
    train_cfg = replace(cfg.train, progress=cfg.progress)
    stats = train(model, task, train_cfg, generator(cfg.seed, "train"), desc=f"{cfg.task}/{cfg.model.norm}/{cfg.seed}")
    return model, task, stats


def run_probe(cfg: ProbeRun) -> RunOutput:
    """Train, then accuracy (plain and adaptive-temperature softmax) at every evaluation length; the store keeps the
    trained weights as the run's checkpoint."""
    model, task, stats = train_probe(cfg)
    df = accuracy_by_length(model, task, cfg.eval_lengths, cfg.eval_samples, cfg.eval_seed,
                            adaptive_too=True, progress=cfg.progress)
    loss = pd.DataFrame([{"length": cfg.train.max_length, "metric": FINAL_TRAIN_LOSS, "value": stats["loss"]}])
    return RunOutput(pd.concat([df, loss], ignore_index=True), checkpoint=model.state_dict())


def run_internals(cfg: ProbeRun) -> RunOutput:
    """Train as `run_probe`; then, at every evaluation length on `eval_samples` sets, the accuracy and what Figs. 2-4
    read off the model (`analysis.variance.readings`), so that the figures' claims can be judged on stored runs at
    the paper's budget (checkpoints are not committed)."""
    model, task, stats = train_probe(cfg)
    acc = accuracy_by_length(model, task, cfg.eval_lengths, cfg.eval_samples, cfg.eval_seed, progress=cfg.progress)
    loss = pd.DataFrame([{"length": cfg.train.max_length, "metric": FINAL_TRAIN_LOSS, "value": stats["loss"]}])
    return RunOutput(pd.concat([acc, readings(model, task, cfg.eval_lengths, cfg.eval_samples), loss],
                               ignore_index=True), checkpoint=model.state_dict())


def probe_labels(cfg: ProbeRun) -> dict:
    variant = cfg.model.norm + ("+curriculum" if cfg.train.curriculum else "")
    return {"task": cfg.task, "model": "probe", "variant": variant, "seed": cfg.seed}


@dataclass(frozen=True, kw_only=True)
class RetrievalSizes:
    """The sizes of one profile of the retrieval experiments (vv-internals' and vv-trajectory's fields are empty in
    the profiles they do not define)."""

    argmax_steps: int  # training steps on argmax retrieval
    dictionary_steps: int  # training steps on dictionary lookup
    batch: int  # sets per training step
    lengths: tuple[int, ...]  # set sizes N evaluated
    samples: int  # test sets per N
    seeds: tuple[int, ...]  # the profile's seeds (what `--seeds` defaults to; paired across variants)
    norms: tuple[str, ...]  # variants compared (keys of NORMS)
    width: int  # D
    compared: int  # until a task's grid is complete, its paired tests use the first `compared` seeds, declared
    # before the runs; the rest of `seeds` are stored toward the paper's grid (`compared_seeds`)
    figure_lengths: tuple[int, ...] = ()  # vv-internals: the set sizes N at which Figs. 2-4 read the argmax models
    figure_samples: int = 0  # vv-internals: test sets per N
    figure_seeds: tuple[int, ...] = ()  # vv-internals' own declared seeds (pairs)
    trajectory_steps: tuple[int, ...] = ()  # vv-trajectory: the training steps at which vv-internals is read again

    def steps(self, task: str) -> int:
        return self.argmax_steps if task == "argmax" else self.dictionary_steps

    @property
    def interim(self) -> tuple[int, ...]:
        """The first `compared` seeds: what a task's paired tests use until its grid is complete."""
        return self.seeds[:self.compared]


# quick was chosen by timing on 2 CPU cores (see book/methods.md); cpu is what the committed stored results used;
# full is the paper's (100 seeds; 100k argmax / 10k dictionary steps).
RETRIEVAL_PROFILES = {
    "smoke": RetrievalSizes(argmax_steps=20, dictionary_steps=20, batch=16, lengths=(16, 64), samples=32,
                            seeds=(0, 1), norms=("baseline", "ln"), width=16, compared=2, figure_lengths=(16, 64),
                            figure_samples=32, figure_seeds=(0, 1), trajectory_steps=(5, 10)),
    "quick": RetrievalSizes(argmax_steps=1000, dictionary_steps=800, batch=128, lengths=(16, 64, 256, 1024, 4096),
                            samples=400, seeds=tuple(range(5)), norms=("baseline", "ln"), width=64,
                            compared=5),
    "cpu": RetrievalSizes(argmax_steps=4000, dictionary_steps=4000, batch=128, lengths=PAPER_LENGTHS, samples=400,
                          seeds=tuple(range(20)), norms=("baseline", "ln", "std"), width=64, compared=20),
    "full": RetrievalSizes(argmax_steps=100_000, dictionary_steps=10_000, batch=128, lengths=PAPER_LENGTHS,
                           samples=1000, seeds=tuple(range(100)), norms=("baseline", "ln", "std"), width=64,
                           compared=20, figure_lengths=(16, 256, 4096, 16384), figure_samples=1000,
                           figure_seeds=tuple(range(5)), trajectory_steps=(1000, 4000, 10_000, 30_000)),
}


CURRICULUM_NORMS = ("baseline", "ln")  # the variants of the curriculum grid (Tables 4-5)


def compared_seeds(runs: pd.DataFrame, profile: str, task: str, norms: tuple[str, ...] | None = None
                   ) -> tuple[int, ...]:
    """The seeds that the paired tests of `profile` use on `task`, given its stored `runs` (retrieval or curriculum
    runs of the profile): every declared seed once each of the grid's variants (`norms`: the profile's by default,
    CURRICULUM_NORMS for the curriculum grid) has them all on the task (its grid complete: the paper's 100 seeds in
    `full`), else the first `compared`, declared before the runs. The rule reads which seeds are stored, never their
    results."""
    p = RETRIEVAL_PROFILES[profile]
    rows = runs[runs.task == task]
    complete = all(set(p.seeds) <= set(rows.seed[rows.variant == v]) for v in norms or p.norms)
    return p.seeds if complete else p.interim


def compared_runs(runs: pd.DataFrame, profile: str, norms: tuple[str, ...] | None = None) -> pd.DataFrame:
    """The rows of `runs` (retrieval or curriculum runs of `profile`) that its paired tests use: on each task, its
    `compared_seeds` (`norms` as there)."""
    keep = {task: compared_seeds(runs, profile, task, norms) for task in runs.task.unique()}
    return runs[[seed in keep[task] for task, seed in zip(runs.task, runs.seed, strict=True)]]


def retrieval_configs(profile: str, seeds: tuple[int, ...] | None, curriculum: bool = False) -> list[ProbeRun]:
    """Paired configs: every seed x task x norm of the profile (Tables 1-3, 6; with curriculum, 4-5)."""
    p = RETRIEVAL_PROFILES[profile]
    out = []
    for task in ("argmax", "dictionary"):
        for seed in seeds if seeds is not None else p.seeds:
            for norm in p.norms if not curriculum else CURRICULUM_NORMS:
                max_len = 256 if curriculum else 16
                if profile == "smoke":
                    max_len = min(max_len, 32)
                out.append(ProbeRun(
                    task=task, seed=seed, model=ProbeConfig(width=p.width, norm=norm, embed_dim=p.width // 2),
                    train=TrainConfig(steps=p.steps(task), batch_size=p.batch, max_length=max_len,
                                      curriculum=curriculum),
                    eval_lengths=p.lengths, eval_samples=p.samples))
    return out


VV_RETRIEVAL = Experiment(
    name="vv-retrieval",
    description="argmax retrieval + dictionary lookup, baseline vs +LN vs +std, plain and adaptive softmax "
                "(Tables 1-3, 6)",
    configs=retrieval_configs,
    run=run_probe,
    labels=probe_labels,
    build=build_probe,
    profiles=tuple(RETRIEVAL_PROFILES),
)

VV_CURRICULUM = Experiment(
    name="vv-curriculum",
    description="training on up to 256 items with a length curriculum, baseline vs +LN (Tables 4-5)",
    configs=lambda profile, seeds: retrieval_configs(profile, seeds, curriculum=True),
    run=run_probe,
    labels=probe_labels,
    build=build_probe,
    profiles=tuple(RETRIEVAL_PROFILES),
)


# Figs. 2-4 at the paper's budget: the argmax runs of vv-retrieval (same training, so the same models), baseline and
# +LN, read at four set sizes (`RetrievalSizes.figure_*`). Their own declared seeds: 5 pairs, the fewest a figure's
# verdict is read on.
FIGURE_PROFILES = tuple(p for p, sizes in RETRIEVAL_PROFILES.items() if sizes.figure_seeds)


def internals_configs(profile: str, seeds: tuple[int, ...] | None) -> list[ProbeRun]:
    """vv-retrieval's argmax configs, baseline and +LN, with the readings' lengths and sets (`figure_*`)."""
    p = RETRIEVAL_PROFILES[profile]
    return [replace(c, eval_lengths=p.figure_lengths, eval_samples=p.figure_samples)
            for c in retrieval_configs(profile, seeds if seeds is not None else p.figure_seeds)
            if c.task == "argmax" and c.model.norm in ("baseline", "ln")]


VV_INTERNALS = Experiment(
    name="vv-internals",
    description="argmax retrieval, baseline vs +LN, read at the paper's budget as Figs. 2-4 read them",
    configs=internals_configs,
    run=run_internals,
    labels=probe_labels,
    build=build_probe,
    profiles=FIGURE_PROFILES,
)


# How Figs. 2-4's readings develop with training (beyond the paper): vv-internals' configs stopped after fewer steps.
# The learning rate is constant and every step draws its batch from the run's generator in turn, so a run of k steps
# is the first k steps of the vv-internals run of its seed (on the same machine and threads; tested on the losses):
# with it, one training trajectory per seed, read at `trajectory_steps` and at the paper's 100,000 steps. Its first
# point is the chapter's live quick budget (1,000 steps, the same configs but for the readings' lengths and sets).
def trajectory_configs(profile: str, seeds: tuple[int, ...] | None) -> list[ProbeRun]:
    """vv-internals' configs at each of the profile's `trajectory_steps` (fewest steps first: a partly finished sweep
    already covers every seed early in training)."""
    return [replace(c, train=replace(c.train, steps=steps))
            for steps in RETRIEVAL_PROFILES[profile].trajectory_steps for c in internals_configs(profile, seeds)]


def trajectory_labels(cfg: ProbeRun) -> dict:
    return {**probe_labels(cfg), "steps": cfg.train.steps}


VV_TRAJECTORY = Experiment(
    name="vv-trajectory",
    description="argmax retrieval, baseline vs +LN, read as vv-internals after 1,000 to 30,000 training steps",
    configs=trajectory_configs,
    run=run_internals,
    labels=trajectory_labels,
    build=build_probe,
    profiles=tuple(p for p in FIGURE_PROFILES if RETRIEVAL_PROFILES[p].trajectory_steps),
)


def trajectory_runs(store: ResultStore, profile: str = "full") -> pd.DataFrame:
    """The stored vv-trajectory runs of `profile` and, as each seed's last point, its stored vv-internals run (steps:
    the retrieval profile's argmax steps, 100,000 at full): one tidy frame with a `steps` column, as
    `analysis.variance.trajectory` reads it."""
    internals = stored_runs(VV_INTERNALS, profile, store)
    if not internals.empty:
        internals = internals.assign(steps=RETRIEVAL_PROFILES[profile].argmax_steps)
    return pd.concat([stored_runs(VV_TRAJECTORY, profile, store), internals], ignore_index=True)


# What does the +LN effect depend on? Argmax retrieval only, paired baseline/+LN runs over a grid of
# training length, item-MLP depth and training steps (not in the paper: our follow-up of its headline).
@dataclass(frozen=True, kw_only=True)
class FactorSizes:
    """The sizes of one profile of the factor study: every combination of the first three is run."""

    max_lengths: tuple[int, ...]  # longest training set
    item_layers: tuple[int, ...]  # depth of the item MLP
    steps: tuple[int, ...]  # training steps
    seeds: tuple[int, ...]  # the profile's seeds (what `--seeds` defaults to; paired baseline/+LN)
    lengths: tuple[int, ...]  # set sizes N evaluated
    samples: int  # test sets per N
    width: int  # D
    batch: int  # sets per training step


FACTOR_PROFILES = {
    "smoke": FactorSizes(max_lengths=(8, 16), item_layers=(1,), steps=(20,), seeds=(0, 1), lengths=(16, 64),
                         samples=32, width=16, batch=16),
    "cpu": FactorSizes(max_lengths=(16, 64), item_layers=(1, 3), steps=(1000, 4000), seeds=tuple(range(5)),
                       lengths=(16, 64, 256, 1024, 4096), samples=400, width=64, batch=128),
}


def factor_configs(profile: str, seeds: tuple[int, ...] | None) -> list[ProbeRun]:
    p = FACTOR_PROFILES[profile]
    return [
        ProbeRun(task="argmax", seed=seed, model=ProbeConfig(width=p.width, norm=norm, item_layers=layers),
                 train=TrainConfig(steps=steps, batch_size=p.batch, max_length=max_len),
                 eval_lengths=p.lengths, eval_samples=p.samples)
        # seeds outermost: a partly finished sweep already covers every setting with a few seeds
        for seed in (seeds if seeds is not None else p.seeds)
        for max_len in p.max_lengths for layers in p.item_layers for steps in p.steps
        for norm in ("baseline", "ln")
    ]


def factor_labels(cfg: ProbeRun) -> dict:
    setting = f"train N<={cfg.train.max_length}, item MLP {cfg.model.item_layers} layers, {cfg.train.steps} steps"
    return {**probe_labels(cfg), "setting": setting}


VV_FACTORS = Experiment(
    name="vv-factors",
    description="argmax retrieval, baseline vs +LN across training length, item-MLP depth and steps",
    configs=factor_configs,
    run=run_probe,
    labels=factor_labels,
    build=build_probe,
    profiles=tuple(FACTOR_PROFILES),
)


VV_EXPERIMENTS = (VV_RETRIEVAL, VV_CURRICULUM, VV_FACTORS, VV_INTERNALS, VV_TRAJECTORY)
