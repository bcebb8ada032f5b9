"""Experiments of "The Role of Sparsity for Length Generalization" (Golowich et al. 2025): decoder-only transformers
on sparse parity (Figs. 1, 7), parity with a scratchpad and jumps (Figs. 2, 8) and variable assignment (Fig. 3).

Every run trains one `DecoderOnly` through the one training loop (`LMTrainConfig`: AdamW, warm-up and linear decay,
clipping, the run's training-time id transform) and scores exact match of its greedy answers by length: every
token, and every position id where the model predicts them (PPC).
"""

from dataclasses import dataclass, field, replace

import pandas as pd

from lengthgen.analysis.verdicts import TRAINED
from lengthgen.config import added, ignored
from lengthgen.display import model_size
from lengthgen.metrics import ACCURACY, FINAL_TRAIN_LOSS
from lengthgen.models import build_model
from lengthgen.models.transformer import DecoderOnly, TransformerConfig
from lengthgen.papers.sparsity import readings as sparsity
from lengthgen.results.experiment import Experiment
from lengthgen.results.store import RunOutput
from lengthgen.seeding import generator
from lengthgen.tasks.sparsity import ScratchpadParity, SparseParity, VariableAssignment
from lengthgen.train.evaluate import answer_accuracy_by_length, course_reader
from lengthgen.train.loop import LMTrainConfig, train

HEAD_WIDTH = 16  # the width of each head of a model sized by `DecoderSizes.at` (that of the chapter's 2x64 models)


@dataclass(frozen=True)
class DecoderRun:
    """What every run of the chapter shares: a seed, the model, its training and its evaluation."""

    seed: int = 0  # model init and training-data seed
    model: TransformerConfig = field(default_factory=TransformerConfig)
    train: LMTrainConfig = field(default_factory=LMTrainConfig)
    eval_lengths: tuple[int, ...] = ()  # lengths evaluated (in the task's unit)
    eval_samples: int = 192  # test prompts per length
    eval_seed: int = 0  # seed of the test sets, shared by every run (paired comparisons)
    course: int = added(0)  # > 0: every this many steps, exact match at the longest training length ("course"
    # rows: the course of training, for sizing); 0: none
    course_samples: int = added(64)  # test prompts of each point of the course
    stop_fitted: bool = added(False)  # with a course: stop training at its first point that fits (>= TRAINED),
    # a sizing run's answer to "how many steps does this size need?"
    progress: bool = ignored(False)  # tqdm bars inside the run

    def __post_init__(self):
        """A model with a table of ids (learned positions, a bias table, a PPC head) must cover every id it will be
        tested on: refuse the config now rather than after training."""
        if self.model.positional in ("learned", "bias") or self.model.ppc:
            for _, task, lengths in self.evaluations():
                if lengths and (top := task.max_id(max(lengths))) >= self.model.max_positions:
                    raise ValueError(f"{task.name} at length {max(lengths)} needs position ids up to {top}, beyond "
                                     f"the model's {self.model.max_positions} (max_positions)")

    def evaluations(self) -> list[tuple[str, object, tuple[int, ...]]]:
        """(metric name, task, lengths) of each evaluation."""
        return [(ACCURACY, self.task, self.eval_lengths)]

    def steps(self) -> int:
        """The training steps it runs (`Experiment.steps`)."""
        return self.train.steps

    def size(self) -> str:
        """The model's layers and width, "4x128" (`Experiment.size`)."""
        return model_size(self.model.layers, self.model.width)


@dataclass(frozen=True)
class ParityRun(DecoderRun):
    """Sparse parity: trained with k up to a bound, evaluated at each test sparsity k separately."""

    task: SparseParity = field(default_factory=SparseParity)
    test_ks: tuple[int, ...] = (1, 2, 3, 4)  # test sparsities, one metric each ("accuracy k=3")

    def evaluations(self):
        return [(f"{ACCURACY} k={k}", self.task.with_k(k), tuple(n for n in self.eval_lengths if n >= k))
                for k in self.test_ks]


@dataclass(frozen=True)
class ScratchpadRun(DecoderRun):
    """Parity with a scratchpad (lengths in scratchpad tokens; the chapter plots combined lengths)."""

    task: ScratchpadParity = field(default_factory=ScratchpadParity)


@dataclass(frozen=True)
class AssignmentRun(DecoderRun):
    """Variable assignment with (or without) a scratchpad."""

    task: VariableAssignment = field(default_factory=VariableAssignment)


def build_decoder_run(cfg: DecoderRun) -> tuple[object, DecoderOnly]:
    """(task, untrained decoder) of a config; the initialisation draws from the config's seed."""
    return cfg.task, build_model("decoder", cfg.model, cfg.task, seed=cfg.seed)


def run_decoder(cfg: DecoderRun) -> RunOutput:
    """Train (with `course` > 0, reading exact match at the longest training length along the way: rows of metric
    COURSE with the step; with `stop_fitted`, up to the first point that fits), then exact match by length for each
    evaluation and, for a PPC model, its lookup's attention (`readings.lookup_by_length`); the store keeps the weights
    as the checkpoint."""
    task, model = build_decoder_run(cfg)
    labels = decoder_labels(cfg)
    course: list[dict] = []
    read = course_reader(model, task, cfg.train.max_length, cfg.course, cfg.train.steps, cfg.course_samples,
                         cfg.eval_seed + 1, course, TRAINED if cfg.stop_fitted else None) if cfg.course else None
    stats = train(model, task, replace(cfg.train, progress=cfg.progress), generator(cfg.seed, "train"),
                  desc=f"{labels['task']}/{labels['variant']}/{cfg.seed}", callback=read, carry=course)
    frames = [answer_accuracy_by_length(model, t, lengths, cfg.eval_samples, cfg.eval_seed, metric, cfg.progress)
              for metric, t, lengths in cfg.evaluations()]
    if cfg.model.ppc:  # where its lookup attends, the true ids fed in
        frames.append(sparsity.lookup_by_length(model, task, cfg.eval_lengths, cfg.train.max_length, cfg.eval_seed))
    loss = pd.DataFrame([{"length": cfg.train.max_length, "metric": FINAL_TRAIN_LOSS, "value": stats["loss"]}])
    return RunOutput(pd.concat([*frames, loss, *([pd.DataFrame(course)] if course else [])], ignore_index=True),
                     checkpoint=model.state_dict())


def variant(cfg: DecoderRun) -> str:
    """The run's name in tables: the training sparsity bound, the jump, or the coupling variant."""
    if isinstance(cfg, ParityRun):
        return f"K={cfg.task.max_k}"
    if isinstance(cfg, AssignmentRun):  # the paper's names of Fig. 3's panels
        return ("PPC" if cfg.model.ppc else "RoPE+PoSE" if cfg.train.positions == "pose" else
                "no coupling" if cfg.task.scratchpad else "no scratchpad")
    setting = ("PPC" if cfg.model.ppc else "coupled") if cfg.task.coupled else (
        "RoPE+PoSE" if cfg.train.positions == "pose" else "absolute+shift")
    return f"j={cfg.task.jump} {setting}"


def decoder_labels(cfg: DecoderRun) -> dict:
    depth = {"depth": cfg.task.depth} if isinstance(cfg, AssignmentRun) else {}
    return {"task": cfg.task.name, "model": "decoder", "variant": variant(cfg), "seed": cfg.seed} | depth


@dataclass(frozen=True, kw_only=True)
class DecoderSizes:
    """The sizes of one profile of one experiment of the chapter (each experiment's own fields default to empty)."""

    width: int  # D
    heads: int  # H
    layers: int  # decoder blocks
    steps: int  # training steps
    batch: int  # sequences per step
    lr: float  # peak AdamW learning rate
    warmup: int  # warm-up steps
    train_lengths: tuple[int, int]  # shortest and longest training length (the task's unit)
    eval_lengths: tuple[int, ...]  # lengths evaluated
    samples: int  # test prompts per length
    max_positions: int  # id table of learned positions and the PPC head; PoSE's target; offsets stay below it
    seeds: tuple[int, ...]  # the profile's seeds (the --seeds default)
    bounds: tuple[int, ...] = ()  # sparse parity: the training bounds K, one model each (k ~ U{1..K})
    test_ks: tuple[int, ...] = ()  # sparse parity: the sparsities k tested, each separately
    jumps: tuple[int, ...] = ()  # parity with a scratchpad: the jump lengths j of the coupled models
    jump_models: tuple[tuple[int, int, int], ...] = ()  # (j, layers, width) of a jump whose model is larger than the
    # profile's (`at`)
    depths: tuple[int, ...] = ()  # variable assignment: the chain depths d
    positions: str = ""  # variable assignment: the positional scheme of its models but RoPE + PoSE
    variables: int = 0  # variable assignment: the number of variable names
    format: str = "ours"  # variable assignment: its format (`tasks.sparsity.ASSIGNMENT_FORMATS`)
    variants: tuple[str, ...] = ()  # scratchpad, variable assignment: the models the grid holds (`variant`; empty: all)
    left_out: str = ""  # why the models not in `variants` are left out (the readings say it where a baseline is absent)

    def at(self, layers: int, width: int) -> "DecoderSizes":
        """These sizes with another model size, its heads HEAD_WIDTH wide."""
        return replace(self, layers=layers, width=width, heads=max(1, width // HEAD_WIDTH))

    def model(self, positional: str, ppc: bool = False) -> TransformerConfig:
        return TransformerConfig(width=self.width, heads=self.heads, layers=self.layers, ff=4 * self.width,
                                 positional=positional, max_positions=self.max_positions, ppc=ppc)

    def training(self, positions: str, lengths: tuple[int, int] | None = None) -> LMTrainConfig:
        lo, hi = lengths or self.train_lengths
        return LMTrainConfig(steps=self.steps, batch_size=self.batch, lr=self.lr, warmup=self.warmup, min_length=lo,
                             max_length=hi, positions=positions, max_positions=self.max_positions,
                             pose_length=self.max_positions)


# Sparse parity (lengths in pairs: the paper's 20-50 training and up to 500 test tokens are 10-25 and 250 pairs).
# quick and cpu were chosen by timing on 2 CPU cores (book/methods.md); full is the paper's (GPT-NeoX 12 x 16 x 1024).
PARITY_PROFILES = {
    "smoke": DecoderSizes(width=16, heads=2, layers=1, steps=20, batch=8, lr=1e-3, warmup=5, train_lengths=(2, 4),
                          eval_lengths=(2, 8), samples=16, max_positions=64, seeds=(0,), bounds=(1, 2), test_ks=(1, 2)),
    "quick": DecoderSizes(width=64, heads=4, layers=2, steps=2000, batch=64, lr=1e-3, warmup=100,
                          train_lengths=(10, 25), eval_lengths=(10, 25, 50, 100, 250), samples=256, max_positions=512,
                          seeds=(0,), bounds=(1,), test_ks=(1, 2, 3, 4)),
    "cpu": DecoderSizes(width=64, heads=4, layers=2, steps=4000, batch=64, lr=1e-3, warmup=100, train_lengths=(10, 25),
                        eval_lengths=(10, 25, 50, 100, 175, 250), samples=512, max_positions=512, seeds=(0, 1, 2),
                        bounds=(1, 2, 3, 4), test_ks=(1, 2, 3, 4, 5, 6)),
    "full": DecoderSizes(width=1024, heads=16, layers=12, steps=50_000, batch=64, lr=1e-4, warmup=300,
                         train_lengths=(10, 25), eval_lengths=tuple(range(10, 251, 10)), samples=512,
                         max_positions=512, seeds=(0,), bounds=(4, 6, 8, 10, 12), test_ks=tuple(range(1, 13))),
}
# regime: cpu's grid at 4x128 (heads of width 16, the sizing study's, the other regime grids' size), where the size
# control (sizing.PARITY_SIZE_CONTROL, cpu's steps) held K = 3's every k <= K at >= 94.9% to the longest length on
# both sizing seeds, which cpu's 2x64 did on none of the grid's seeds. The rule, set before its larger bounds' runs
# were read: the scorecard moves to it once it is complete only if every bound fits there (its worst k <= K >=
# TRAINED at the longest training length, the mean over the declared seeds; `prose.stored_parity_fit` holds it), so
# that no row is judged on an unfit model; else the cpu grid stays the scorecard's. Every bound fits on the complete
# grid, so the scorecard reads it, and the chapter reads the cpu grid beside it (`prose.parity_beside`).
PARITY_PROFILES["regime"] = replace(PARITY_PROFILES["cpu"], width=128, heads=8, layers=4)
# quick holds what one seed can judge. Sparse parity: K = 1, whose verdicts the cpu grid reads the same on each of its
# seeds (K >= 2's do not: the fall from k = 1 to k = 2 within K = 2 shows on one seed of three). Scratchpad: j = 1 PPC
# on cpu's 4,000 steps, at which it fit on each cpu seed (on 2,000 steps it fit one of two quick seeds); Fig. 8's
# ablations need 4x128, or at 2x64 most of 10,000 steps (sizing study), past a chapter's minutes: the stored grid
# judges them.
# The seeds of the chapter's seed check: quick's sizes on seeds its live runs do not use, stored (--profile quick
# --seeds 3,4), so that each live verdict is also read beyond its seed; not 1-2, on which the cpu grid that chose
# quick's sizes trained the same recipes.
QUICK_SEEDS = (3, 4)


def parity_configs(profile: str, seeds: tuple[int, ...] | None) -> list[ParityRun]:
    """One model per training sparsity bound K (`parity_runs`)."""
    return parity_runs(PARITY_PROFILES[profile], seeds)


def parity_runs(p: DecoderSizes, seeds: tuple[int, ...] | None) -> list[ParityRun]:
    """One model per training sparsity bound K (k ~ U{1..K}), RoPE + PoSE, as the paper's Fig. 1; at sizes `p`."""
    return [ParityRun(task=SparseParity(max_k=bound), seed=seed, model=p.model("rope"), train=p.training("pose"),
                      eval_lengths=p.eval_lengths, eval_samples=p.samples, test_ks=p.test_ks)
            for bound in p.bounds for seed in (seeds if seeds is not None else p.seeds)]


# Parity with a scratchpad (lengths in scratchpad tokens; combined length = (j + 1) x that; the paper trains on
# combined lengths 10-40 and tests to 200). Learned absolute positions, as the paper. regime is the smallest size of
# the sizing study (sizing.py) at which every mechanism fit within its 10,000 steps: 4x128, and 4x256 for j = 3 PPC,
# which fit at no smaller size.
SCRATCHPAD_PROFILES = {
    "smoke": DecoderSizes(width=16, heads=2, layers=1, steps=20, batch=8, lr=1e-3, warmup=5, train_lengths=(2, 4),
                          eval_lengths=(2, 4, 6), samples=16, max_positions=32, seeds=(0,), jumps=(1,)),
    "quick": DecoderSizes(width=64, heads=4, layers=2, steps=4000, batch=64, lr=1e-3, warmup=100, train_lengths=(5, 20),
                          eval_lengths=(5, 10, 20, 30, 40, 60), samples=128, max_positions=210, seeds=(0,), jumps=(1,),
                          variants=("j=1 PPC",)),
    "cpu": DecoderSizes(width=64, heads=4, layers=2, steps=4000, batch=64, lr=1e-3, warmup=100, train_lengths=(5, 20),
                        eval_lengths=(5, 10, 20, 30, 40, 60, 80, 100), samples=192, max_positions=210, seeds=(0, 1, 2),
                        jumps=(1, 2, 3)),
    "regime": DecoderSizes(width=128, heads=8, layers=4, steps=10_000, batch=64, lr=1e-3, warmup=100,
                           train_lengths=(5, 20), eval_lengths=(5, 10, 20, 30, 40, 60, 80, 100), samples=192,
                           max_positions=210, seeds=(0, 1, 2), jumps=(1, 2, 3), jump_models=((3, 4, 256),)),
    "full": DecoderSizes(width=1024, heads=16, layers=12, steps=50_000, batch=64, lr=1e-4, warmup=300,
                         train_lengths=(5, 20), eval_lengths=tuple(range(5, 101, 5)), samples=192, max_positions=210,
                         seeds=tuple(range(10)), jumps=(1, 2, 3, 4)),
}


def scratchpad_configs(profile: str, seeds: tuple[int, ...] | None) -> list[ScratchpadRun]:
    """Each jump j with coupled ids and PPC (Fig. 2), and for j = 1 the ablations of Fig. 8 (`scratchpad_runs`)."""
    return scratchpad_runs(SCRATCHPAD_PROFILES[profile], seeds)


def scratchpad_runs(p: DecoderSizes, seeds: tuple[int, ...] | None) -> list[ScratchpadRun]:
    """Each jump j with coupled ids and PPC (Fig. 2), and for j = 1 the ablations of Fig. 8: absolute positions
    with a random shift (no coupling), and RoPE + PoSE; at sizes `p`. Every j trains on the combined lengths of j = 1
    that its unit of j + 1 tokens fits (j = 2: 12-39 for j = 1's 10-40)."""
    out = []
    for seed in seeds if seeds is not None else p.seeds:
        for jump in p.jumps:
            # combined lengths inside j=1's (the scratchpad's unit is j + 1 tokens): no jump trains longer than j = 1
            lo, hi = -(-2 * p.train_lengths[0] // (jump + 1)), 2 * p.train_lengths[1] // (jump + 1)
            lengths = tuple(dict.fromkeys(max(1, 2 * n // (jump + 1)) for n in p.eval_lengths))
            q = next((p.at(layers, width) for j, layers, width in p.jump_models if j == jump), p)
            out.append(ScratchpadRun(task=ScratchpadParity(jump=jump), seed=seed, model=q.model("learned", ppc=True),
                                     train=q.training("offset", (lo, hi)), eval_lengths=lengths,
                                     eval_samples=q.samples))
        for positional, positions in (("learned", "offset"), ("rope", "pose")):
            out.append(ScratchpadRun(task=ScratchpadParity(coupled=False), seed=seed, model=p.model(positional),
                                     train=p.training(positions), eval_lengths=p.eval_lengths,
                                     eval_samples=p.samples))
    return [run for run in out if not p.variants or variant(run) in p.variants]


# Variable assignment. cpu: our format (a separator after every step, the query copied; lengths in chains, trained
# on 1-3 and tested to 3x, 9 chains) with RoPE (no run with learned ids at this size is stored); it stands beside
# regime as a comparison of format, positions and size at once. regime and full: the
# paper's format (Appendix E.3; lengths in tokens, trained on 20-60 and tested to 200, max id 230) with its learned
# absolute ids; regime is the sizing study's first size at which PPC fit (4x128 on the paper's 50,000 steps), at
# depth 2 only: a depth's grid costs ~26 CPU-hours at that size, so the paper's deeper panels are full's, for a GPU.
# It holds PPC alone: after the 50,000 steps (sizing seed 100) no baseline fit its training lengths at that size (at 60
# tokens: no coupling 0.5%, no scratchpad 7.8%, RoPE + PoSE 0.0% at training loss 3.9), so their cells would say
# nothing about longer lengths.
ASSIGNMENT_PROFILES = {
    "smoke": DecoderSizes(width=16, heads=2, layers=1, steps=20, batch=8, lr=1e-3, warmup=5, train_lengths=(1, 2),
                          eval_lengths=(1, 3), samples=16, max_positions=64, seeds=(0,), depths=(2,), positions="rope",
                          variables=200),
    "cpu": DecoderSizes(width=64, heads=4, layers=2, steps=10_000, batch=64, lr=1e-3, warmup=100, train_lengths=(1, 3),
                        eval_lengths=(1, 2, 3, 4, 5, 6, 9), samples=192, max_positions=128, seeds=(0, 1, 2),
                        depths=(2, 3), positions="rope", variables=48),
    "regime": DecoderSizes(width=128, heads=8, layers=4, steps=50_000, batch=32, lr=1e-3, warmup=300,
                           train_lengths=(20, 60), eval_lengths=(20, 40, 60, 80, 100, 120, 150, 200), samples=192,
                           max_positions=256, seeds=(0, 1, 2), depths=(2,), positions="learned", variables=200,
                           format="paper", variants=("PPC",),
                           left_out="each left out as unfit at this size: the sizing study"),
    "full": DecoderSizes(width=1024, heads=16, layers=12, steps=50_000, batch=32, lr=1e-4, warmup=300,
                         train_lengths=(20, 60), eval_lengths=tuple(range(20, 201, 20)), samples=192,
                         max_positions=256, seeds=(0, 1, 2), depths=(2, 3, 4, 5), positions="learned", variables=200,
                         format="paper"),
}


def assignment_configs(profile: str, seeds: tuple[int, ...] | None) -> list[AssignmentRun]:
    """Per depth d: PPC and its three baselines (`assignment_runs`)."""
    return assignment_runs(ASSIGNMENT_PROFILES[profile], seeds)


def assignment_runs(p: DecoderSizes, seeds: tuple[int, ...] | None) -> list[AssignmentRun]:
    """Per depth d, at sizes `p`: PPC (coupled ids predicted by the model; Fig. 3a), no coupling (3b) and no
    scratchpad (3c), all three with the sizes' positions, and RoPE + PoSE (3d). PPC always trains with position
    coupling's random shift of the ids (its head must have seen the ids of longer prompts), the others with learned
    ids only (RoPE does not see a shift)."""
    scheme = p.positions
    shift = "offset" if scheme == "learned" else "given"
    variants = (  # (task options, positional scheme, PPC head, id transform)
        ({}, scheme, True, "offset"),
        ({"coupled": False}, scheme, False, shift),
        ({"coupled": False, "scratchpad": False}, scheme, False, shift),
        ({"coupled": False}, "rope", False, "pose"),
    )
    runs = [AssignmentRun(task=VariableAssignment(depth=depth, variables=p.variables, format=p.format, **options),
                          seed=seed, model=p.model(positional, ppc), train=p.training(positions),
                          eval_lengths=p.eval_lengths, eval_samples=p.samples)
            for depth in p.depths for seed in (seeds if seeds is not None else p.seeds)
            for options, positional, ppc, positions in variants]
    return [run for run in runs if not p.variants or variant(run) in p.variants]


def decoder_experiment(name: str, description: str, configs, profiles: dict, labels=decoder_labels,
                       stored: str = "") -> Experiment:
    """An experiment of decoder runs (`run_decoder`): its time estimates read each run's steps and model size."""
    return Experiment(name=name, description=description, configs=configs, run=run_decoder, labels=labels,
                      build=build_decoder_run, profiles=tuple(profiles), stored=stored, steps=DecoderRun.steps,
                      size=DecoderRun.size)


# The grids are stored and read at regime: the sizing study's larger models where the paper's mechanisms did not fit at
# cpu (sizing.py); for sparse parity, the size at which its larger bounds hold far (PARITY_PROFILES' comment)
SPARSITY_EXPERIMENTS = (
    decoder_experiment("sparsity-parity", "sparse parity by training bound K, test sparsity k and length "
                       "(Figs. 1, 7)", parity_configs, PARITY_PROFILES, stored="regime"),
    decoder_experiment("sparsity-scratchpad", "parity with a scratchpad: jumps with PPC, and the ablations "
                       "(Figs. 2, 8)", scratchpad_configs, SCRATCHPAD_PROFILES, stored="regime"),
    decoder_experiment("sparsity-assignment", "variable assignment: PPC vs no coupling, no scratchpad, RoPE+PoSE "
                       "(Fig. 3)", assignment_configs, ASSIGNMENT_PROFILES, stored="regime"),
)


def parity_reading(runs: pd.DataFrame, profile: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(accuracy by K, k and length; the T1 table per bound K; T1 within each bound and beyond the trained k,
    `readings.k_claims`) of a profile's sparse-parity runs, judged at its longest training length, on the seeds every
    cell has (`readings.judged`)."""
    table = sparsity.by_k(sparsity.judged(runs))
    trained = PARITY_PROFILES[profile].train_lengths[1]
    return table, sparsity.sparsity_claim(table, trained), sparsity.k_claims(table, trained)


def scratchpad_reading(runs: pd.DataFrame, profile: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(accuracy curves by combined length; the T2 table of Fig. 8, the j = 1 models only: the coupled one and its
    two ablations; the jumps' table of Fig. 2, a jump on a larger model read against the next smaller one on that
    model where the runs hold it, the jump control's "4x256 j=2 PPC") of a profile's scratchpad runs, judged at the
    longest combined training length of j = 1, on the seeds every cell has (`readings.judged`)."""
    runs = sparsity.judged(runs)
    curves = sparsity.with_combined_length(runs[runs.metric == ACCURACY])
    trained = ScratchpadParity(jump=1).combined(SCRATCHPAD_PROFILES[profile].train_lengths[1])
    first_jump = curves[curves.variant.str.startswith("j=1 ")]  # the larger jumps are Fig. 2's, not ablations
    larger = SCRATCHPAD_PROFILES[profile].jump_models  # a jump on a larger model, and j - 1 on it where stored
    same_size = {j: f"{model_size(layers, width)} j={j - 1} PPC" for j, layers, width in larger}
    return (curves, sparsity.coupling_claim(first_jump, trained, coupled="j=1 PPC"),
            sparsity.jump_claim(curves, trained, frozenset(same_size), same_size))


def assignment_reading(runs: pd.DataFrame, profile: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(accuracy curves, one panel per depth; the T2 table of each depth) of a profile's variable-assignment runs,
    judged at its longest training length (in chains), on the seeds every cell has (`readings.judged`)."""
    runs = sparsity.judged(runs)
    curves = runs[runs.metric == ACCURACY]
    curves = curves.assign(task="depth " + curves.depth.astype(str))  # the figure's panels
    sizes = ASSIGNMENT_PROFILES[profile]
    absent = f"no baseline in the grid ({sizes.left_out})" if sizes.left_out else "no baseline stored"
    return curves, sparsity.assignment_claim(curves, sizes.train_lengths[1], absent)
