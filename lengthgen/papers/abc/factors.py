"""The factor study of the attention-bias-calibration chapter: what in the paper's set-up makes ABC extrapolate?

On Successor, the model of the chapter's first `cpu` grids (`BASELINE`: 2 post-LN decoder layers of width 64, 4 heads,
no encoder layer, sinusoidal positions, AdamW 1e-3 with warm-up and linear decay, batch 64, 3,000 steps, no dropout,
token embeddings N(0, 0.02); ABC's retraining 1,000 steps) with ONE factor changed at a time (`FACTORS`), each from
the paper's regime, its public code's, or (own-schedule) a repair of ours:

- "baseline": that model as it is;
- "dropout": dropout 0.3 after the embeddings, on every sublayer's output, inside the feed-forward layer and on the
  attention weights (the public code's torch layers);
- "xavier": token embeddings Xavier-uniform (then times sqrt(D), as every model here), not N(0, 0.02);
- "adam": the public code's optimiser: Adam, lr 1e-4, betas (0.9, 0.98), eps 1e-9, constant, no clipping (the
  paper states Adam at 1e-5; that rate is not among the factors);
- "own-schedule": ABC's retraining warms up over its own first 5% (as the first training does over its own), not
  over the first training's 150 steps (ours: the public code retrains at its constant rate, with no warm-up);
- "wide-deep": the public code's Successor: 3 decoder layers of width 128, 8 heads, FF 512;
- "dropout+xavier": the two factors that helped on the first sizing seed, together (a candidate for the stored
  grids' regime).

Every run trains the model, then retrains one ABC model per rule (`FACTOR_RULES`: the paper's, "code" and the public
code's calibration as it is, `analysis.calibration`), each with the sinusoids, and tests each ABC model every `every`
retraining steps (the course of retraining: no checkpoint is chosen by its test accuracy) at 6 (in distribution), 8,
12, 24 and 50 digits: exact match, and on the wrong answers where the first wrong digit falls and whether it is a 0;
and what each ABC model's bias does alone: the keys it leaves open per step, its weight on the anti-diagonal
(`experiments.bias_rows`).
Operands are padded to 51 digits (the chapter's `cpu` grids pad to 25, which cannot test 50 digits).

Two controls decide why the paper's rule fails in the regime where the code's holds (both search the same lines): the
regime's trained model again, with one ABC model keeping the paper's lines at their sums ("paper-sums") and one keeping
the code's lines at 0 each ("code-flat"; `analysis.calibration.Rule.carries`). If the values a rule gives its lines
decide, "paper-sums" holds and "code-flat" fails; if the lines kept decide, the reverse.

Beyond Successor, the candidate regime (`FactorSizes.regime`, "dropout+xavier") runs alone on Table 1's other tasks,
each at its own budget (`ArithmeticSizes.per_task`: Addition 30,000 steps, ABC 3,000; N x 1 NX1_STEPS), padded to 51
digits with 128 positions (Addition's two operands need them): does the vanilla model fit its training numbers there,
and does ABC extrapolate? (`regime_tasks`) Their dropout masks are drawn as the stored grids draw them ("bits", the
same distribution as torch's, a training step 1.6x faster: `lengthgen bench --suite dropout`).

Table 3's scaffold without positions (w = 1, NoPE, aligned input) did not fit Successor in the regime (the grid's
declared seeds 0 and 1: 0% at 6 digits, training loss 0.06), where the paper reports ~100% to 50 digits. With content
alone, the three source digits a window of w = 1 leaves open differ only in what the decoder can infer from the steps
before (two layers can intersect the window's digits with the previous step's, in principle). Two changes of the
regime's scaffold are sized (`NOPE_FACTORS`, `FactorSizes.nope_factors`): five times the steps ("nope-long") and the
public code's Successor depth and width ("nope-wide-deep", 3 layers of width 128). Neither fitted: every answer ran
one 0 past its end and about half had a wrong units digit, the two ends of the source, where our sources carry no
marker and the public code's carry its <sos> and <eos>; "nope-markers" gives the source those markers. There the
answers ended right and half still had a wrong units digit: the window centred on the digit a step writes holds that
digit and its higher neighbour, which without positions look alike. "nope-markers-offset0" moves the window one key
back, to the digit a step writes and the two below it, which the decoder has already written (plus one): the digit
that is new to the window is the one to write.

N x 1 with Xavier alone (no dropout) fitted its training numbers (sizing seed 100), but its ABC models, retrained for
1,000 steps of which 750 were the trained model's warm-up, reached 3-74% at 6 digits, still rising: "xavier+budget"
(`TASK_FACTORS`) sizes it at half the steps and three times the retraining, with ABC's own warm-up. Addition's ABC
models in the regime (Xavier alone, 3,000 retraining steps) did not all fit either (the grid's seed 0: ABC (code)
49% at 6 digits): 1,500 of their steps were the trained model's warm-up, so "xavier+own-schedule" gives them their
own (150 steps). It changed nothing (sizing seed 100: ABC (code) 51% at 6 digits against 50% with the inherited
warm-up, the paper's rule 0% against 0%, the public code's 100% against 99.8%, every rule 0% from 12 digits), so the
regime keeps the inherited schedule on Addition.

ABC calibrates every decoder layer's bias from the last layer's attention. Where a trained model reads the digits it
needs in different layers (Addition's operands and carry, N x 1's multiplier), that table can close in the first
layer what only the first layer read. "xavier+per-layer" (Addition) and "xavier+budget+per-layer" (N x 1) retrain,
beside the code's rule as it is, the same rule with each layer's bias calibrated from that layer's own attention
("code-layers", beyond the paper): the regime's recipe of each task, its trained model unchanged.

Table 3's aligned Addition scaffold with cyclic positions (w = 1, T = 3) did not fit its training numbers in the
regime as first run (declared seeds 0-2: 53%, 49% and 49% at 6 digits, the first wrong digit most often the units
digit). That window opened w operand pairs on each side of a step's pair, six keys for two interleaved operands, and
six consecutive keys hold each of T = 3's ids twice: the digit a step adds and one it must not add look alike to the
positions. The paper's A.4 opens w *positions* on each side, four keys, in which the step's two digits carry ids of
their own. `SCAFFOLD_FACTORS` runs the scaffold with the wider window ("T=3") and with the paper's ("T=3, token
window", the regime's since) on the same sizing seeds.

The seeds are sizing seeds, 100, 101 and 102, outside every seed the chapter's grids declare (0, 1, 2): no run of
this study enters a declared cell's median.
"""

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import pandas as pd

from lengthgen.config import ignored
from lengthgen.metrics import FINAL_TRAIN_LOSS, LINE_TAIL
from lengthgen.papers.abc.experiments import (
    ARITHMETIC_PROFILES,
    ArithmeticRun,
    ArithmeticSizes,
    arithmetic_steps,
    bias_rows,
    build_arithmetic,
    calibrate_abc,
    length_scores,
)
from lengthgen.results.experiment import Experiment
from lengthgen.results.store import RunOutput
from lengthgen.seeding import generator
from lengthgen.train.loop import train

SIZING_SEEDS = (100, 101, 102)  # outside the chapter's declared seeds (every profile's `ArithmeticSizes.seeds`)
FACTOR_RULES = ("paper", "code", "public")  # the ABC models of every run, all with the trained model's sinusoids
CONTROL_RULES = ("paper-sums", "code-flat")  # the regime's control runs on Successor (`experiments.ABC_RULES`)
PUBLIC_SUCCESSOR = {"width": 128, "heads": 8, "layers": 3, "ff": 512}  # the public code's Successor model


def _dropout(run: ArithmeticRun) -> ArithmeticRun:
    return replace(run, model=replace(run.model, dropout=0.3, attention_dropout=0.3, ff_dropout=0.3))


def _xavier(run: ArithmeticRun) -> ArithmeticRun:
    return replace(run, model=replace(run.model, embed_init="xavier"))


def _adam(run: ArithmeticRun) -> ArithmeticRun:
    return replace(run, train=replace(run.train, optim="adam", lr=1e-4, betas=(0.9, 0.98), eps=1e-9,
                                      lr_schedule="constant", clip=None))


def _own_schedule(run: ArithmeticRun) -> ArithmeticRun:
    return replace(run, retrain_warmup=max(1, run.retrain_steps // 20))  # the sizes' rule (`ArithmeticSizes.run`)


def _wide_deep(run: ArithmeticRun) -> ArithmeticRun:
    model = replace(run.model, **PUBLIC_SUCCESSOR, embed_scale=PUBLIC_SUCCESSOR["width"] ** 0.5)
    return replace(run, model=model)


# factor -> how it changes the baseline's run (the name is the variant in tables)
FACTORS: dict[str, Callable[[ArithmeticRun], ArithmeticRun]] = {
    "baseline": lambda run: run, "dropout": _dropout, "xavier": _xavier, "adam": _adam,
    "own-schedule": _own_schedule, "wide-deep": _wide_deep, "dropout+xavier": lambda run: _xavier(_dropout(run))}
NOPE_STEPS = 15_000  # "nope-long": five times the regime's Successor budget


def _long(run: ArithmeticRun) -> ArithmeticRun:
    return replace(run, train=replace(run.train, steps=NOPE_STEPS, warmup=NOPE_STEPS // 20))  # the sizes' warm-up rule


# factor -> how it changes the regime's w = 1 scaffold without positions on Successor (a variant of its own: these
# runs have no ABC models, and their names differ from FACTORS' so that tables never mix the two)
NOPE_FACTORS: dict[str, Callable[[ArithmeticRun], ArithmeticRun]] = {
    "nope-long": _long, "nope-wide-deep": _wide_deep, "nope-markers": lambda run: replace(run, markers=True),
    "nope-markers-offset0": lambda run: replace(run, markers=True, window_offset=0)}
NX1_BUDGET = (7_500, 3_000)  # "xavier+budget" on N x 1: training steps (half of NX1_STEPS: its Xavier model fitted by
# step 4,675 of them, sizing seed 100) and ABC's retraining (1,000 steps, 750 of them the trained model's warm-up, left
# its ABC models below 75% at 6 digits and still rising)


def _budget(run: ArithmeticRun) -> ArithmeticRun:
    steps, retrain = NX1_BUDGET
    return _own_schedule(replace(_xavier(run), train=replace(run.train, steps=steps, warmup=steps // 20),
                                 retrain_steps=retrain))


# factor -> Table 3's aligned scaffold with cyclic positions (w = 1, T = 3) in the regime (`FactorSizes.scaffold`):
# with a window of w operand pairs on each side, and with the paper's (w tokens on each side:
# `positional.windowed_table`), inside which each of T = 3's ids marks one key, where the wider one holds each twice
SCAFFOLD_FACTORS: dict[str, Callable[[ArithmeticRun], ArithmeticRun]] = {
    "T=3": lambda run: replace(run, window_span="strides"), "T=3, token window": lambda run: replace(
        run, window_span="tokens")}


PER_LAYER_RULES = ("code", "code-layers")  # the code's rule calibrated from the last layer, and from each layer


def _per_layer(run: ArithmeticRun) -> ArithmeticRun:
    return replace(run, abc=PER_LAYER_RULES)


# factor -> how it changes a task of the regime sized beside it (`FactorSizes.task_factors`; not a factor of Successor)
TASK_FACTORS: dict[str, Callable[[ArithmeticRun], ArithmeticRun]] = {
    "xavier+budget": _budget, "xavier+own-schedule": lambda run: _own_schedule(_xavier(run)),
    "xavier+per-layer": lambda run: _per_layer(_xavier(run)),
    "xavier+budget+per-layer": lambda run: _per_layer(_budget(run))}


@dataclass(frozen=True)
class FactorRun:
    """One run of the factor study: a model and its ABC models, tested along the course of retraining."""

    factor: str = "baseline"  # the factor changed from the baseline (a FACTORS name)
    arithmetic: ArithmeticRun = field(default_factory=lambda: ArithmeticRun(abc=FACTOR_RULES))  # task, model,
    # training, ABC models (one per rule), test lengths and samples (the last point of the course: eval_samples)
    every: int = 100  # ABC retraining steps between two points of the course
    course_samples: int = 100  # examples per length at each point of the course but the last
    progress: bool = ignored(False)  # tqdm bars inside the run

    def __post_init__(self):
        if self.factor not in FACTORS | NOPE_FACTORS | TASK_FACTORS | SCAFFOLD_FACTORS:
            raise ValueError(f"unknown factor {self.factor!r}; valid: "
                             f"{', '.join([*FACTORS, *NOPE_FACTORS, *TASK_FACTORS, *SCAFFOLD_FACTORS])}")
        if self.every < 1:
            raise ValueError(f"every {self.every}: the course needs at least one step between its points")

    def points(self) -> list[int]:
        """The retraining steps after which the ABC models are tested: every `every`, and the last."""
        last = self.arithmetic.retrain_steps
        return sorted({*range(self.every, last + 1, self.every), last} - {0})


@dataclass(frozen=True, kw_only=True)
class FactorSizes:
    """The sizes of one profile of the factor study."""

    sizes: ArithmeticSizes  # the baseline's model, training and ABC (its Successor sizes)
    operand_width: int  # operands padded to this many digits (tests reach operand_width - 1)
    eval_lengths: tuple[int, ...]  # operand lengths tested
    samples: int  # at most, per length, at the end of each training
    course_points: int  # points of each retraining's course (every retrain_steps / course_points steps)
    course_samples: int  # at most, per length, at the other points of the course
    seeds: tuple[int, ...]  # sizing seeds
    regime: str = "dropout+xavier"  # the candidate regime of the stored grids (a FACTORS name)
    regime_tasks: dict[str, int] = field(default_factory=dict)  # task -> max_positions: beyond Successor, tasks
    # sized in the regime alone (at the task's own budget: `ArithmeticSizes.per_task`)
    regime_mask: str = "bits"  # how the regime tasks' runs draw their dropout masks (`models.dropout`): the stored
    # grids' way; Successor's runs keep torch's, with which they were stored
    task_factors: tuple[tuple[str, str], ...] = ()  # (task, factor): a regime task also sized with another factor
    nope_factors: tuple[str, ...] = ()  # NOPE_FACTORS sized on the regime's Successor scaffold without positions
    scaffold_profile: str = "regime"  # the ARITHMETIC_PROFILES entry whose recipe `scaffold` runs
    scaffold_factors: tuple[tuple[str, str], ...] = ()  # (task, SCAFFOLD_FACTORS factor): Table 3's T = 3 scaffold

    def _sizes(self, task: str) -> ArithmeticSizes:
        return replace(self.sizes.for_task(task), operand_width=self.operand_width, eval_lengths=self.eval_lengths,
                       samples=self.samples, max_positions=self.regime_tasks.get(task, self.sizes.max_positions))

    def _factor_run(self, factor: str, run: ArithmeticRun) -> FactorRun:
        return FactorRun(factor=factor, arithmetic=run, every=max(1, run.retrain_steps // self.course_points),
                         course_samples=self.course_samples)

    def run(self, factor: str, seed: int, task: str = "successor", rules: tuple[str, ...] = FACTOR_RULES) -> FactorRun:
        baseline = self._sizes(task).run(task, "sinusoidal", seed, abc=rules)
        if task in self.regime_tasks:
            baseline = replace(baseline, model=replace(baseline.model, dropout_mask=self.regime_mask))
        return self._factor_run(factor, (FACTORS | TASK_FACTORS)[factor](baseline))

    def nope_scaffold(self, factor: str, seed: int) -> FactorRun:
        """Table 3's w = 1 scaffold without positions on aligned Successor, in the regime (its dropout masks drawn as
        the grids draw them), changed by a NOPE_FACTORS factor; no ABC model."""
        scaffold = self._sizes("successor").run("successor", "none+bias", seed, window=1, aligned=True)
        regime = FACTORS[self.regime](replace(scaffold, model=replace(scaffold.model, dropout_mask=self.regime_mask)))
        return self._factor_run(factor, NOPE_FACTORS[factor](regime))


    def scaffold(self, factor: str, seed: int, task: str) -> FactorRun:
        """Table 3's aligned scaffold with cyclic positions (w = 1, T = 3) on `task`, as `scaffold_profile` runs it
        but tested at the study's lengths, changed by a SCAFFOLD_FACTORS factor; no ABC model."""
        sizes = replace(ARITHMETIC_PROFILES[self.scaffold_profile], eval_lengths=self.eval_lengths,
                        samples=self.samples)
        return self._factor_run(factor, SCAFFOLD_FACTORS[factor](sizes.run(task, "cyclic+bias", seed, window=1,
                                                                           aligned=True)))


# N x 1 in the regime: at Successor's 3,000 steps its vanilla model did not fit (sizing seed 100: 10.8% at 6 digits,
# training loss 0.24, where the first grids' model without dropout fitted at 3,000), nor at five times that (43%,
# loss 0.16); `task_factors` sizes it without dropout too
NX1_STEPS = 15_000
# the model the factors change: the chapter's `cpu` sizes before this study chose its regime (Addition's budget too;
# N x 1's is the regime's own)
BASELINE = ArithmeticSizes(width=64, heads=4, encoder_layers=0, layers=2, steps=3000, batch=64, lr=1e-3, dropout=0.0,
                           retrain_steps=1000, abc_samples=128, operand_width=25,
                           eval_lengths=(6, 8, 10, 12, 15, 20, 24), samples=500, max_positions=64, seeds=SIZING_SEEDS,
                           tasks=("successor", "addition"), per_task={"addition": {"steps": 30_000,
                                                                                   "retrain_steps": 3_000},
                                                                      "times_digit": {"steps": NX1_STEPS}})
# (its width, tests and samples give way to the study's: `FactorSizes`)
FACTOR_PROFILES = {
    "smoke": FactorSizes(sizes=ARITHMETIC_PROFILES["smoke"], operand_width=9, eval_lengths=(1, 3, 8), samples=16,
                         course_points=2, course_samples=8, seeds=SIZING_SEEDS[:1], regime_tasks={"addition": 24},
                         nope_factors=("nope-wide-deep",), scaffold_profile="smoke",
                         scaffold_factors=(("addition", "T=3, token window"),)),
    "cpu": FactorSizes(sizes=BASELINE, operand_width=51, eval_lengths=(6, 8, 12, 24, 50),
                       samples=500, course_points=10, course_samples=100, seeds=SIZING_SEEDS,
                       regime_tasks={"addition": 128, "times_digit": 128},
                       task_factors=(("addition", "xavier"), ("times_digit", "xavier"),
                                     ("times_digit", "xavier+budget"), ("addition", "xavier+own-schedule"),
                                     ("addition", "xavier+per-layer"), ("times_digit", "xavier+budget+per-layer")),
                       nope_factors=tuple(NOPE_FACTORS),
                       scaffold_factors=tuple(("addition", factor) for factor in SCAFFOLD_FACTORS)),
}


def factor_configs(profile: str, seeds: tuple[int, ...] | None) -> list[FactorRun]:
    """Every factor on Successor at every seed of the profile (or `seeds`); then the regime on each regime task; then
    the regime's controls on Successor (CONTROL_RULES); then the regime tasks sized with another factor
    (`task_factors`: Addition and N x 1 with Xavier embeddings alone, no dropout, because with dropout too neither
    fitted at its budget: sizing seed 100, Addition 0% at 6 digits after 30,000 steps, N x 1 43% after 15,000; and
    N x 1 with Xavier alone at a budget of its own, `TASK_FACTORS`);
    then the regime's Successor scaffold without positions, changed by each of `nope_factors`; then Table 3's
    scaffold with cyclic positions as `scaffold_factors` change it."""
    p = FACTOR_PROFILES[profile]
    seeds = seeds if seeds is not None else p.seeds
    return [*(p.run(factor, seed) for factor in FACTORS for seed in seeds),
            *(p.run(p.regime, seed, task) for task in p.regime_tasks for seed in seeds),
            *(p.run(p.regime, seed, rules=CONTROL_RULES) for seed in seeds),
            *(p.run(factor, seed, task) for task, factor in p.task_factors for seed in seeds),
            *(p.nope_scaffold(factor, seed) for factor in p.nope_factors for seed in seeds),
            *(p.scaffold(factor, seed, task) for task, factor in p.scaffold_factors for seed in seeds)]


def factor_labels(cfg: FactorRun) -> dict:
    run = cfg.arithmetic
    return {"task": run.task, "model": "encoder_decoder", "variant": cfg.factor, "seed": run.seed}


def build_factor(cfg: FactorRun):
    """(task, the run's untrained models by checkpoint key), as `run_factor` builds them."""
    return build_arithmetic(cfg.arithmetic)


def scored_rows(model, task, run: ArithmeticRun, stage: str, step: int, samples: int) -> list[dict]:
    """At each test length, up to `samples` examples scored as the grids score them (`experiments.length_scores`),
    rows with the step."""
    rows = []
    for length in run.eval_lengths:
        examples = task.examples(str(length), min(task.splits[str(length)].size, samples))
        rows += [{"stage": stage, "step": step, "length": length, "metric": metric, "value": value}
                 for metric, value in length_scores(model, task, examples).items()]
    return rows


def run_factor(cfg: FactorRun) -> RunOutput:
    """Train the model and test it; then for each rule, calibrate its ABC model's bias from the trained model's
    attention (`experiments.calibrate_abc`), retrain it, and test it at every point of the course (`points`). Rows:
    stage, step (training steps done), length, metric, value; and the tail its readings of the line skipped
    (LINE_TAIL). The checkpoint holds every model."""
    run = replace(cfg.arithmetic, progress=cfg.progress)
    task, models = build_arithmetic(run)
    rows: list[dict] = [{"stage": "trained", "step": 0, "length": 0, "metric": LINE_TAIL, "value": task.tail}]
    for key, stage in run.stages().items():
        if key != "trained":
            calibrate_abc(run, task, models, key)
        rows.extend(_train_stage(cfg, run, task, models[key], key, stage))
    return RunOutput(pd.DataFrame(rows), checkpoint=models.state_dict())


def _train_stage(cfg: FactorRun, run: ArithmeticRun, task, model, key: str, stage: str) -> list[dict]:
    """Train one model of the run and test it: the trained model at its end, an ABC model along its course."""
    rows, training, points = [], run.training(key), set(cfg.points())

    def course(step: int) -> None:
        if step in points:
            samples = run.eval_samples if step == run.retrain_steps else cfg.course_samples
            rows.extend(scored_rows(model, task, run, stage, step, samples))

    stats = train(model, task, training, generator(run.seed, f"train {key}"), desc=f"{cfg.factor}/{stage}/{run.seed}",
                  callback=None if key == "trained" else course, noise=generator(run.seed, f"noise {key}"), carry=rows)
    if key == "trained":
        rows.extend(scored_rows(model, task, run, stage, training.steps, run.eval_samples))
    else:
        rows.extend(row | {"step": training.steps} for row in bias_rows(model, task, run, stage))
    rows.append({"stage": stage, "step": training.steps, "length": 0, "metric": FINAL_TRAIN_LOSS,
                 "value": stats["loss"]})
    return rows


ABC_FACTORS = Experiment(name="abc-factors", description="beyond the paper: on Successor, one factor at a time "
                         "(dropout, Xavier embeddings, Adam 1e-4, ABC's own warm-up, 3 layers of width 128), ABC by "
                         "three rules along its retraining; then Addition and N x 1 in the candidate regime, and "
                         "Successor's scaffold without positions; sizing seeds",
                         configs=factor_configs, run=run_factor, labels=factor_labels, build=build_factor,
                         profiles=tuple(FACTOR_PROFILES), steps=lambda run: arithmetic_steps(run.arithmetic))
