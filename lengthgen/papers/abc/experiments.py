"""Experiments of "From Interpolation to Extrapolation: Complete Length Generalization for Arithmetic Transformers"
(Attention Bias Calibration): encoder-decoder transformers on the arithmetic tasks (`tasks.arithmetic`), trained on
the interpolation data and tested by operand length.

A run trains one model (Table 1's vanilla, ALiBi or RoPE models; Table 3's scaffolded ones: a windowed attention bias
of width w, with cyclic positions of period T or with none) and tests it at each length. A run with `abc` rules then
calibrates a bias from that model's attention (`analysis.calibration`), retrains a fresh model with it (the paper's
retraining, same data, `retrain_steps`) and tests that one too: rows carry the model tested in `stage` ("trained",
"ABC (paper)", "ABC (code)", "ABC (public)"). The factor study (`factors`) runs on these pieces.
"""

from collections import Counter
from dataclasses import dataclass, field, replace

import pandas as pd
from torch import nn

from lengthgen.analysis.calibration import (
    ABC_DIRECTIONS,
    CODE_CROSS,
    CODE_FLAT_CROSS,
    CODE_FLAT_SELF,
    CODE_SELF,
    PAPER,
    PAPER_SUMS,
    PUBLIC_CROSS,
    PUBLIC_SELF,
    calibrated_table,
)
from lengthgen.analysis.compare import on_common_seeds
from lengthgen.config import added, ignored
from lengthgen.display import markdown_table
from lengthgen.metrics import (
    ACCURACY,
    ACCURACY_NUMBER,
    ANTI_DIAGONAL,
    FINAL_TRAIN_LOSS,
    FIRST_ERROR,
    FIRST_WRONG_ZERO,
    LINE_OPERANDS,
    LINE_TAIL,
    by_construction,
)
from lengthgen.models import build_model
from lengthgen.models.positional import WINDOW_SPANS, bias_table, windowed_table
from lengthgen.models.transformer import TransformerConfig
from lengthgen.papers.abc.paper import APPENDIX_C, LISTOPS_TASKS, TABLE_1, paper_table
from lengthgen.papers.abc.readings import (
    abc_fit,
    accuracy_table,
    anti_diagonal_mass,
    attention_claim,
    bias_reading,
    cells,
    first_wrong_table,
    line_read_right,
    model_claims,
    stored_mass,
)
from lengthgen.papers.base import load_trained
from lengthgen.results.experiment import Experiment
from lengthgen.results.store import RunOutput
from lengthgen.seeding import generator
from lengthgen.tasks import TASKS
from lengthgen.train.evaluate import first_wrong, first_wrong_summary, sequence_metrics
from lengthgen.train.loop import InterpolationTrainConfig, train

# (self-attention rule, cross-attention rule): the paper's; the public code's thresholds on our directions; the public
# code's calibration as it is (searching its own directions, `analysis.calibration`); two controls: the paper's lines
# with the code's values (their sums), the code's lines with the paper's near-equal values (all 0); beyond the paper,
# the code's rule with each decoder layer's bias calibrated from that layer's own attention, not the last layer's
ABC_RULES = {"paper": (PAPER, PAPER), "code": (CODE_SELF, CODE_CROSS), "public": (PUBLIC_SELF, PUBLIC_CROSS),
             "paper-sums": (PAPER_SUMS, PAPER_SUMS), "code-flat": (CODE_FLAT_SELF, CODE_FLAT_CROSS),
             "code-layers": (replace(CODE_SELF, source="each"), replace(CODE_CROSS, source="each"))}
ABC_MODELS = ("paper", "code", "paper/nope", "code/nope")  # Table 1's ABC models: both rules, with or without positions


@dataclass(frozen=True)
class ArithmeticRun:
    """One model on one arithmetic task, and optionally ABC from it."""

    seed: int = 0  # model init and training-data seed
    task: str = "successor"  # a task of tasks.arithmetic
    aligned: bool = False  # interleave the operands (the scaffolding's input alignment)
    markers: bool = added(False)  # each source between <sos> and <eos>, as the public code writes it
    window_offset: int | None = added(None)  # the windowed bias's cross-attention window moved this many keys on
    # (`positional.windowed_table`); None: 1 with markers (the window centred on the digit a step writes), else 0
    window_span: str = added("strides")  # what w counts on each side of a step's keys in cross-attention: operand
    # strides (ours first) or tokens (the paper's A.4); the same on unary tasks (`positional.windowed_table`)
    operand_width: int | None = None  # operands padded to this fixed width (the public code's FIXED_LEN), else to
    # their longest + 1
    model: TransformerConfig = field(default_factory=lambda: TransformerConfig(positional="sinusoidal"))
    train: InterpolationTrainConfig = field(default_factory=InterpolationTrainConfig)
    window: int | None = None  # scaffolding: a windowed bias of this w in every layer (the scheme needs "+bias")
    abc: tuple[str, ...] = ()  # ABC models to retrain after training: a rule ("paper", "code", "public"), with the
    # trained model's positions, or "<rule>/nope": the same bias on a model without positions (beyond the paper)
    retrain_steps: int = 0  # training steps of each ABC model
    retrain_warmup: int | None = added(None)  # warm-up steps of each ABC model's schedule; None: the trained model's
    # (train.warmup)
    abc_samples: int = 256  # training examples (of the commonest length) whose attention is averaged
    eval_lengths: tuple[int, ...] = (6,)  # operand lengths tested
    eval_samples: int = 10_000  # at most this many examples per length (the paper's min(base^L - base^(L-1), 10^4))
    progress: bool = ignored(False)  # tqdm bars inside the run

    def __post_init__(self):
        parts = self.model.positional.split("+")
        valid = [f"{rule}{suffix}" for suffix in ("", "/nope") for rule in ABC_RULES]
        unknown = [r for r in self.abc if r not in valid]
        if unknown:
            raise ValueError(f"unknown ABC model {unknown[0]!r}; valid: {', '.join(valid)}")
        if (self.window is not None) != ("bias" in parts):
            raise ValueError(f"a bias table and a window go together: window {self.window}, positional "
                             f"{self.model.positional!r}")
        if self.window_span not in WINDOW_SPANS:
            raise ValueError(f"unknown window span {self.window_span!r}; valid: {', '.join(WINDOW_SPANS)}")
        if self.abc and self.window is not None:
            raise ValueError("ABC calibrates a model without a bias of its own; this one has a window")
        longest = max(len(s) for s, _ in self.arithmetic.examples(str(max(self.eval_lengths)), 1))
        if longest > self.model.max_positions:
            raise ValueError(f"{self.task} at length {max(self.eval_lengths)} has {longest} source tokens, beyond the "
                             f"model's {self.model.max_positions} positions (max_positions)")

    def stages(self) -> dict[str, str]:
        """Checkpoint key -> the stage's name in tables: the trained model, then one per ABC model ("abc_code" ->
        "ABC (code)", "abc_code_nope" -> "ABC (code, NoPE)")."""
        stages = {"trained": "trained"}
        for entry in self.abc:
            rule, _, nope = entry.partition("/")
            stages[f"abc_{rule}" + ("_nope" if nope else "")] = f"ABC ({rule}" + (", NoPE)" if nope else ")")
        return stages

    def positional(self, key: str) -> str:
        """The positional scheme of the model of a checkpoint key: an ABC model's adds the bias table (and has no
        positions of its own when the key ends in "_nope")."""
        if key == "trained":
            return self.model.positional
        return "none+bias" if key.endswith("_nope") else f"{self.model.positional}+bias"

    def training(self, key: str) -> InterpolationTrainConfig:
        """How the model of a checkpoint key is trained: `train`, an ABC model's for `retrain_steps` (with its own
        warm-up when `retrain_warmup` is set)."""
        if key == "trained":
            return replace(self.train, progress=self.progress)
        warmup = self.train.warmup if self.retrain_warmup is None else self.retrain_warmup
        return replace(self.train, steps=self.retrain_steps, warmup=warmup, progress=self.progress)

    @property
    def arithmetic(self):
        return TASKS[self.task](aligned=self.aligned, width=self.operand_width, markers=self.markers)

    @property
    def offset(self) -> int:
        """How many keys the windowed bias's cross-attention window moves on (`window_offset`)."""
        return int(self.markers) if self.window_offset is None else self.window_offset


# Table 1's models by positional scheme. ALiBi and RoPE act inside self-attention only; the source reaches the decoder
# through cross-attention, which sees no rotation and no ALiBi bias, so without an embedding of positions the decoder
# reads the source as an unordered bag of digits (with no encoder layer, as in the public code and our cpu profile) and
# cannot learn any task. Both therefore keep the vanilla model's sinusoidal embeddings, as the public code does (its
# position encoding adds the sinusoids whatever the model type).
TABLE1_NAMES = {"sinusoidal": "vanilla", "sinusoidal+alibi": "ALiBi", "sinusoidal+rope": "RoPE"}


def variant(cfg: ArithmeticRun) -> str:
    """Table 1's names (vanilla, ALiBi, RoPE) or Table 3's (w and T, NoPE or the positions' name), "aligned" where the
    input is."""
    parts = cfg.model.positional.split("+")
    if cfg.window is None:
        name = TABLE1_NAMES.get(cfg.model.positional, cfg.model.positional)
    else:
        first = {"cyclic": f"T={cfg.model.period}", "none": "NoPE"}.get(parts[0], parts[0])
        name = f"w={cfg.window}, {first}"
    return name + (", aligned" if cfg.aligned else "")


def arithmetic_labels(cfg: ArithmeticRun) -> dict:
    return {"task": cfg.task, "model": "encoder_decoder", "variant": variant(cfg), "seed": cfg.seed}


def build_arithmetic(cfg: ArithmeticRun) -> tuple[object, nn.ModuleDict]:
    """(task, the run's untrained models by checkpoint key: "trained" (with its windowed bias when the config has
    one) and one model with an empty bias table per ABC model); every init draws from the seed."""
    task = cfg.arithmetic
    models = nn.ModuleDict({key: build_model("encoder_decoder", replace(cfg.model, positional=cfg.positional(key)),
                                             task, seed=cfg.seed) for key in cfg.stages()})
    if cfg.window is not None:
        trained = models["trained"]
        bias_table(trained).set_table(windowed_table(cfg.model.heads, cfg.model.max_positions, *trained.decoder_layers,
                                                     cfg.window, task.stride, offset=cfg.offset,
                                                     span=cfg.window_span))
    return task, models


ATTENTION_SAMPLES = 100  # examples per length whose attention a run reads (`readings.anti_diagonal_mass`)


def answer_scores(task, examples: list, measured: dict) -> dict[str, float]:
    """{ACCURACY: exact match (%)} of greedy decoding (`measured`, as `sequence_metrics` returns it) and, where the
    task has its fixed width (the public code's format), {ACCURACY_NUMBER: % of the answers right as the public code
    compares them}."""
    scores = {ACCURACY: measured[ACCURACY]}
    if task.width is None:
        return scores
    same = sum(task.same_number(p, t) for (_, t), p in zip(examples, measured["predictions"], strict=True))
    return scores | {ACCURACY_NUMBER: 100.0 * same / len(examples)}


def length_scores(model, task, examples) -> dict[str, float]:
    """Scores of one length's examples: exact match (%), the % right as the public code compares answers
    (`answer_scores`), and where some answer is wrong, the median position of the first wrong token (FIRST_ERROR)
    and the % of those tokens that are a 0 (FIRST_WRONG_ZERO)."""
    measured = sequence_metrics(task, model, examples)
    wrong = first_wrong_summary(first_wrong([t for _, t in examples], measured["predictions"]))
    return answer_scores(task, examples, measured) | (
        {FIRST_ERROR: wrong["position"], FIRST_WRONG_ZERO: wrong["share"]} if wrong["wrong"] else {})


def accuracy_rows(model, task, cfg: ArithmeticRun, stage: str) -> list[dict]:
    """At each test length, up to `eval_samples` distinct examples of that length scored (`length_scores`), and the
    weight of the last layer's cross-attention on the anti-diagonal, inside and beyond the training digits
    (`readings.anti_diagonal_mass` of ATTENTION_SAMPLES examples), so that Figs. 2, 8, 9 read from stored runs."""
    rows = []
    for length in cfg.eval_lengths:
        examples = task.examples(str(length), min(task.splits[str(length)].size, cfg.eval_samples))
        rows += [{"stage": stage, "length": length, "metric": metric, "value": value}
                 for metric, value in length_scores(model, task, examples).items()]
        mass = anti_diagonal_mass(model, task, length, ATTENTION_SAMPLES)
        rows += [{"stage": stage, "length": length, "metric": by_construction(ANTI_DIAGONAL, where), "value": value}
                 for where, value in mass.items() if value == value]
    return rows


def bias_rows(model, task, cfg: ArithmeticRun, stage: str) -> list[dict]:
    """At each test length, what the model's bias does on its own (`readings.bias_reading`) on an example of that
    length: the keys it leaves open per decoder step, its weight on the anti-diagonal."""
    rows = []
    for length in cfg.eval_lengths:
        source, target = task.examples(str(length), 1)[0]
        rows += [{"stage": stage, "length": length, "metric": metric, "value": value}
                 for metric, value in bias_reading(model, task, len(target), len(source)).items()]
    return rows


def one_length_batch(task, n: int, gen) -> tuple:
    """(batch, rows): up to `n` training examples whose operands have the commonest number of digits among 4 n drawn
    (ABC averages attention cell by cell), and the decoder steps that carry their digits: the target of the same
    numbers without a fixed width, plus its end. With a fixed width the steps after them only write padding zeros,
    which the interpolating model need not attend for; ABC reads the first `rows` steps."""
    natural = type(task)(task.data_seed, task.aligned)
    numbers = task.interpolation_numbers("train", 4 * n, gen)
    shapes = [tuple(map(len, natural.example(t))) for t in numbers]
    shape = Counter(shapes).most_common(1)[0][0]
    picked = [t for t, s in zip(numbers, shapes, strict=True) if s == shape][:n]
    return task.batch([task.example(t) for t in picked]), shape[1] + 1


def abc_batch(cfg: ArithmeticRun, task) -> tuple:
    """The run's calibration batch and the decoder steps ABC reads (`one_length_batch` from the run's own stream)."""
    return one_length_batch(task, cfg.abc_samples, generator(cfg.seed, "abc"))


def first_seeds(configs: list[ArithmeticRun]) -> list[ArithmeticRun]:
    """The configs of each task's first seed."""
    return [cfg for cfg in configs if cfg.seed == min(c.seed for c in configs if c.task == cfg.task)]


def calibrate_abc(cfg: ArithmeticRun, task, models: nn.ModuleDict, key: str) -> None:
    """Set the bias table of the ABC model `key` from the trained model's attention, by the key's rule."""
    batch, steps_read = abc_batch(cfg, task)
    rules = ABC_RULES[key.split("_")[1]]
    bias_table(models[key]).set_table(calibrated_table(models["trained"], batch, cfg.model.max_positions, rules,
                                                       ABC_DIRECTIONS, steps_read))


def third_direction(cfg: ArithmeticRun, model, task, length: int) -> pd.DataFrame:
    """What the direction our cross-attention leaves out would change: the cells of each head's cross-attention bias,
    over a test of `length` digits (its decoder steps x its source tokens), that differ when ABC also searches our
    anti-diagonal (the paper's diagonal) beside ABC_DIRECTIONS, calibrated from `model` (a trained run's) on the run's
    own batch, by each ABC rule of `cfg`. Rows: rule, head, cells (that change), of (the cells of a head)."""
    batch, steps_read = abc_batch(cfg, task)
    source, target = task.examples(str(length), 1)[0]
    rows = []
    for rule in dict.fromkeys(name.split("/")[0] for name in cfg.abc):
        tables = [calibrated_table(model, batch, cfg.model.max_positions, ABC_RULES[rule], (ABC_DIRECTIONS[0], cross),
                                   steps_read)[model.decoder_layers[1].start, :, :len(target), :len(source)]
                  for cross in (ABC_DIRECTIONS[1], (*ABC_DIRECTIONS[1], "anti-diagonal"))]
        rows += [{"rule": rule, "head": head, "cells": int(n), "of": len(target) * len(source)}
                 for head, n in enumerate((tables[0] != tables[1]).sum((-2, -1)).tolist())]
    return pd.DataFrame(rows, columns=["rule", "head", "cells", "of"])


def third_directions(models: dict[str, tuple], configs: list[ArithmeticRun]) -> pd.DataFrame:
    """`third_direction` of each task's trained model in `models` (`trained_models`' names, "<task> / vanilla") whose
    config runs ABC, at its longest test length: rows task, length, rule, head, cells, of."""
    parts = []
    for cfg in first_seeds(configs):
        name = f"{cfg.task} / {variant(cfg)}"
        if cfg.abc and name in models:
            model, task = models[name]
            length = max(cfg.eval_lengths)
            parts.append(third_direction(cfg, model, task, length).assign(task=cfg.task, length=length))
    columns = ["task", "length", "rule", "head", "cells", "of"]
    return pd.concat(parts)[columns] if parts else pd.DataFrame(columns=columns)


def run_arithmetic(cfg: ArithmeticRun) -> RunOutput:
    """Train and test by length; then for each ABC rule, calibrate a bias table from the trained model's attention,
    train that rule's fresh model with it (`retrain_steps`, on the trained model's schedule otherwise: its warmup
    too unless `retrain_warmup` is set, so a retraining shorter than twice the warmup spends half or more of it
    warming up) and test it the same way, with what its bias does alone (`bias_rows`), the tail its readings of the
    line skipped (LINE_TAIL) and the operands whose digits they read (LINE_OPERANDS). Dropout draws from the run's
    own stream. The checkpoint holds every model (bias tables included)."""
    task, models = build_arithmetic(cfg)
    rows = [{"stage": "trained", "length": 0, "metric": LINE_TAIL, "value": task.tail},
            {"stage": "trained", "length": 0, "metric": LINE_OPERANDS,
             "value": len(task.operand_lines_from_end(0, 1))}]
    for key, stage in cfg.stages().items():
        model = models[key]
        if key != "trained":
            calibrate_abc(cfg, task, models, key)
        stats = train(model, task, cfg.training(key), generator(cfg.seed, f"train {key}"),
                      desc=f"{cfg.task}/{variant(cfg)}/{stage}/{cfg.seed}", noise=generator(cfg.seed, f"noise {key}"))
        bias = bias_rows(model, task, cfg, stage) if key != "trained" else []
        rows += [*accuracy_rows(model, task, cfg, stage), *bias,
                 {"stage": stage, "length": 0, "metric": FINAL_TRAIN_LOSS, "value": stats["loss"]}]
    return RunOutput(pd.DataFrame(rows), checkpoint=models.state_dict())


@dataclass(frozen=True, kw_only=True)
class ArithmeticSizes:
    """The sizes of one profile of the chapter's experiments."""

    width: int  # D
    heads: int  # H
    encoder_layers: int  # 0: the embedded source is the encoder's output (the public code)
    layers: int  # decoder blocks
    steps: int  # interpolation training steps
    batch: int  # examples per step
    lr: float  # peak AdamW learning rate
    dropout: float  # everywhere the public code's torch layers have it: after the embeddings, on each sublayer's
    # output, on the attention weights and inside the feed-forward layer
    embed_init: str = "normal"  # the token embeddings' initialisation (`TransformerConfig.embed_init`)
    dropout_mask: str = "torch"  # how dropout draws its masks (`TransformerConfig.dropout_mask`)
    retrain_steps: int  # ABC's retraining
    retrain_warmup: int | None = None  # ABC's warm-up steps; None: the trained model's (`ArithmeticRun.training`)
    abc_samples: int  # examples whose attention ABC averages
    operand_width: int | None  # every operand padded to this many digits (tests reach operand_width - 1); None:
    # each to its own length + 1 (ListOps: none)
    eval_lengths: tuple[int, ...]  # operand lengths tested
    samples: int  # at most, per length
    max_positions: int  # bias tables' size (the longest source must fit)
    seeds: tuple[int, ...]  # the profile's seeds (the --seeds default)
    tasks: tuple[str, ...]  # the tasks of both tables
    table1: tuple[str, ...] = tuple(TABLE1_NAMES)  # Table 1's positions (ABC from the sinusoidal model)
    abc_models: tuple[str, ...] = ABC_MODELS  # the ABC models retrained from the vanilla one
    scaffolds: tuple[str, ...] = ("sinusoidal+bias", "cyclic+bias", "none+bias")  # Table 3's positions, with w = 1
    nope_markers: bool = False  # the scaffold without positions reads its source between <sos> and <eos>, its window
    # over the digit a step writes and the two below it (`scaffold_format`; sized as "nope-markers-offset0")
    window_span: str = "strides"  # what w counts in the cross-attention window of the scaffolds with positions on
    # two interleaved operands (`ArithmeticRun.window_span`; unary tasks are the same either way)
    per_task: dict[str, dict] = field(default_factory=dict)  # task -> the sizes it needs instead, e.g. {"steps": ..}

    def for_task(self, task: str) -> "ArithmeticSizes":
        """The sizes of one task: these, with its `per_task` entries in place."""
        return replace(self, per_task={}, **self.per_task.get(task, {}))

    def ends(self, task: str) -> tuple[int, int]:
        """The shortest and the longest test length of a task."""
        lengths = self.for_task(task).eval_lengths
        return min(lengths), max(lengths)

    def budget(self, task: str) -> tuple[int, int]:
        """(training steps, ABC retraining steps) of a task."""
        sizes = self.for_task(task)
        return sizes.steps, sizes.retrain_steps

    def budget_text(self) -> str:
        """The step budgets in words, e.g. "3,000 steps (ABC: 1,000 more per model); addition 30,000 (3,000)"."""
        own = (self.steps, self.retrain_steps)
        others = "".join(f"; {task} {steps:,} ({retrain:,})" for task in self.tasks
                         for steps, retrain in [self.budget(task)] if (steps, retrain) != own)
        return f"{self.steps:,} steps (ABC: {self.retrain_steps:,} more per model){others}"

    def width_text(self) -> str:
        """The operand widths and longest tests in words, e.g. "25 digits (tests to 24); parity 49 (to 48)"."""
        others = "".join(f"; {task} {s.operand_width or 'unpadded'} (to {max(s.eval_lengths)})" for task in self.tasks
                         for s in [self.for_task(task)] if s.operand_width != self.operand_width)
        return f"{self.operand_width} digits (tests to {max(self.eval_lengths)}){others}"

    def scaffold_format(self, task: str, positional: str) -> dict:
        """The source format of Table 3's aligned scaffold with these positions on `task`: where `nope_markers` says
        so, the one without positions reads its source between <sos> and <eos> with its window one digit back, over
        the digit a step writes and the two below it (one key per digit, two where operands interleave: the window
        moves by the <eos> less the task's stride); else the profile's plain format, its window on two interleaved
        operands spanning `window_span` (the scaffold without positions keeps the window it was sized with)."""
        stride = TASKS[task](aligned=True).stride
        if self.nope_markers and positional.startswith("none"):
            return {"markers": True, "window_offset": 1 - stride}
        return {"window_span": self.window_span} if stride > 1 and self.window_span != "strides" else {}

    def run(self, task: str, positional: str, seed: int, **options) -> ArithmeticRun:
        s = self.for_task(task)
        model = TransformerConfig(width=s.width, heads=s.heads, layers=s.layers, encoder_layers=s.encoder_layers,
                                  ff=4 * s.width, post_ln=True, positional=positional, max_positions=s.max_positions,
                                  embed_scale=s.width**0.5, dropout=s.dropout, attention_dropout=s.dropout,
                                  ff_dropout=s.dropout, embed_init=s.embed_init,
                                  dropout_mask=s.dropout_mask)
        training = InterpolationTrainConfig(steps=s.steps, batch_size=s.batch, lr=s.lr, warmup=max(1, s.steps // 20))
        return ArithmeticRun(seed=seed, task=task, model=model, train=training, retrain_steps=s.retrain_steps,
                             retrain_warmup=s.retrain_warmup, abc_samples=s.abc_samples, operand_width=s.operand_width,
                             eval_lengths=s.eval_lengths, eval_samples=s.samples, **options)


# Every profile pads operands to a fixed width, as the public code (FIXED_LEN), so that a model's positions are all
# trained and only the digits are new at test lengths; ListOps (Appendix C) alone is unpadded (a padding 0 would change
# MIN) and runs only the scaffold the paper reports for it (w = 1, T = 3). smoke exercises the code; quick is sized on
# this machine (book/methods.md) for the page's budget: Successor, without the paper-rule ABC model without positions,
# with Xavier-initialised token embeddings (one of the two factors of `factors` that help; the other, dropout 0.3, does
# not fit the vanilla model in quick's 1,000 steps); cpu is the first stored grid, three seeds, every task of the
# paper's Tables 1 and 3 and Appendix C at 3,000 steps (the sizing runs of Methods) but Addition at 30,000 (the least at
# which it fitted its training numbers) and Parity padded to 49 bits: its training numbers have up to 21 bits, so 25
# would test only 3 bits beyond them. regime is cpu's model with the factors of the paper's set-up that the factor study
# measured to matter (`factors`: dropout 0.3 everywhere the public code has it and Xavier-initialised token embeddings,
# the two factors that help; masks drawn by bits), padded to 51 digits (the paper: a fixed width it does not state) and
# tested at its columns (6, 10, 15, 20, 50) and between, 500 examples per length; 128 positions where two operands or N
# x 1's need them (ListOps at 50 items has 51 source tokens). Addition and N x 1 run without dropout: with it neither
# fitted its training numbers within budget, without it both did (the factor study's `xavier` and `xavier+budget` runs);
# N x 1 at the budget sized there (7,500 steps, ABC 3,000 warmed up over its own 5%). The scaffold without positions
# writes its source between <sos> and <eos> with its window one digit back (`nope_markers`): without them it could not
# end its answers (the factor study's NoPE runs). Its scaffolds with positions on two interleaved operands open the
# paper's window, w tokens on each side of a step's pair (`window_span`; cpu's open w pairs, in which T = 3's ids repeat
# and T = 3 did not fit Addition: the factor study's "T=3" and "T=3, token window"). full is the paper's model (1
# encoder + 6 post-LN decoder layers, 8 heads, D 128, FF 512, dropout 0.3, the paper's window) with the public code's
# Xavier-initialised token embeddings, learning rate and batch (1e-4, 512; the paper says 1e-5 and no batch) and a step
# budget of our choosing (the paper gives none).
REGIME_IN_SAMPLE = {"successor": None, "addition": ("w=1, T=3",)}  # task -> the models (None: all) whose regime
# rows are in sample: the factors were chosen on Successor's extrapolation, the scaffold's window on Addition's T = 3
# scaffold to 50 digits (sizing seeds)


def in_sample(profile: str, task: str, model: str) -> bool:
    """Whether a (task, model)'s rows at `profile` were part of what chose that profile's recipe (REGIME_IN_SAMPLE)."""
    models = REGIME_IN_SAMPLE.get(task, ()) if profile == "regime" else ()
    return models is None or model in models
LISTOPS_SIZES = {task: {"operand_width": None, "scaffolds": ("cyclic+bias",)}
                 for task in (*LISTOPS_TASKS, "listops_sum_balanced")}  # the last: abc-balanced, beyond the paper
ARITHMETIC_PROFILES = {
    "smoke": ArithmeticSizes(width=16, heads=2, encoder_layers=0, layers=1, steps=20, batch=16, lr=1e-3, dropout=0.0,
                             retrain_steps=10, abc_samples=16, operand_width=9, eval_lengths=(1, 3, 8), samples=16,
                             max_positions=24, seeds=(0,), tasks=("successor", "addition")),
    "quick": ArithmeticSizes(width=64, heads=4, encoder_layers=0, layers=2, steps=1000, batch=64, lr=1e-3, dropout=0.0,
                             embed_init="xavier", retrain_steps=500, abc_samples=128, operand_width=25,
                             eval_lengths=(6, 8, 10, 12, 15, 20, 24), samples=100, max_positions=64, seeds=(0,),
                             tasks=("successor",), abc_models=("paper", "code", "code/nope")),
    "cpu": ArithmeticSizes(width=64, heads=4, encoder_layers=0, layers=2, steps=3000, batch=64, lr=1e-3, dropout=0.0,
                           retrain_steps=1000, abc_samples=128, operand_width=25,
                           eval_lengths=(6, 8, 10, 12, 15, 20, 24), samples=500, max_positions=64, seeds=(0, 1, 2),
                           tasks=("successor", "addition", "parity", "times_digit", *LISTOPS_TASKS),
                           per_task={"addition": {"steps": 30_000, "retrain_steps": 3_000},
                                     "parity": {"operand_width": 49, "eval_lengths": (6, 12, 20, 24, 32, 40, 48)},
                                     **LISTOPS_SIZES}),
    "regime": ArithmeticSizes(width=64, heads=4, encoder_layers=0, layers=2, steps=3000, batch=64, lr=1e-3,
                              dropout=0.3, embed_init="xavier", dropout_mask="bits", retrain_steps=1000,
                              abc_samples=128, operand_width=51, eval_lengths=(6, 8, 10, 12, 15, 20, 25, 30, 40, 50),
                              samples=500, max_positions=64, seeds=(0, 1, 2), nope_markers=True,
                              window_span="tokens",
                              tasks=("successor", "addition", "parity", "times_digit", *LISTOPS_TASKS),
                              per_task={"addition": {"steps": 30_000, "retrain_steps": 3_000, "max_positions": 128,
                                                     "dropout": 0.0},
                                        "times_digit": {"steps": 7_500, "retrain_steps": 3_000, "retrain_warmup": 150,
                                                        "max_positions": 128, "dropout": 0.0},
                                        **LISTOPS_SIZES}),
    "full": ArithmeticSizes(width=128, heads=8, encoder_layers=1, layers=6, steps=20_000, batch=512, lr=1e-4,
                            dropout=0.3, embed_init="xavier", window_span="tokens", retrain_steps=2_000,
                            abc_samples=1024, operand_width=51,
                            eval_lengths=tuple(range(1, 51)), samples=10_000, max_positions=128, seeds=(0, 1, 2),
                            tasks=("successor", "addition", "parity", "times_digit", *LISTOPS_TASKS),
                            per_task=LISTOPS_SIZES),
}
RECIPE_PROFILES = ("cpu", "regime", "full")  # the profiles whose recipe Methods sets beside the public code's


def _recipe_values(sizes: ArithmeticSizes) -> dict[str, str]:
    """One task's recipe (`ArithmeticSizes.for_task`) as `recipe` states it, setting -> text."""
    cfg = sizes.run(sizes.tasks[0], "sinusoidal", sizes.seeds[0])
    model, train = cfg.model, cfg.train
    schedule = ("constant" if train.lr_schedule == "constant" else
                f"linear warm-up over {100 * train.warmup / train.steps:g}% of the steps, then linear decay to 0")
    retrain = "the trained model's warm-up" if sizes.retrain_warmup is None else f"{sizes.retrain_warmup:,} warm-up"
    lengths = sizes.eval_lengths
    return {"model": f"{model.encoder_layers} encoder + {model.layers} decoder layers, width {model.width}, "
                     f"{model.heads} heads, FF {model.ff}",
            "dropout": f"{model.dropout:g}", "token embeddings": f"{model.embed_init} x sqrt(D)",
            "optimiser": f"{'Adam' if train.optim == 'adam' else 'AdamW'} {train.lr:g}, betas {train.betas}, "
                         f"eps {train.eps:g}",
            "learning rate schedule": schedule, "gradient clip": "none" if train.clip is None else f"{train.clip:g}",
            "batch": f"{sizes.batch}", "training steps": f"{sizes.steps:,}",
            "ABC retraining": f"{sizes.retrain_steps:,} steps, {retrain}",
            "scaffold window, two operands": {"strides": "w operand pairs on each side",
                                              "tokens": "w tokens on each side (the paper's A.4)"}[sizes.window_span]
            + ("; without positions: its source between markers, the window one digit back" if sizes.nope_markers
               else ""),
            "operands padded to": "unpadded" if sizes.operand_width is None else f"{sizes.operand_width}",
            "test lengths": f"{min(lengths)}-{max(lengths)} digits ({len(lengths)} lengths)",
            "examples per length": f"{sizes.samples:,}", "seeds": ", ".join(map(str, sizes.seeds))}


def recipe(public_code: dict[str, str]) -> pd.DataFrame:
    """The arithmetic grids' recipe per profile of RECIPE_PROFILES, read from ARITHMETIC_PROFILES, beside
    `public_code` (setting -> text; "" where not given): one row per setting, its value for the profile's tasks and,
    after ";", the tasks that differ with theirs (ListOps lists as "ListOps")."""
    columns = {}
    for profile in RECIPE_PROFILES:
        sizes = ARITHMETIC_PROFILES[profile]
        base = _recipe_values(sizes)
        by_task = {task: _recipe_values(sizes.for_task(task)) for task in sizes.tasks}
        column = {}
        for setting, value in base.items():
            differ: dict[str, list[str]] = {}
            for task, values in by_task.items():
                if values[setting] != value:
                    differ.setdefault(values[setting], []).append(task)
            column[setting] = value + "".join(
                f"; {'ListOps' if set(tasks) == set(LISTOPS_TASKS) else ', '.join(tasks)}: {other}"
                for other, tasks in differ.items())
        columns[profile] = column
    table = pd.DataFrame(columns).rename_axis("setting")
    return table.assign(**{"public code": [public_code.get(setting, "") for setting in table.index]}).reset_index()


def recipe_section(public_code: dict[str, str]) -> str:
    """Methods' section on the arithmetic grids' recipe (Markdown): what `regime` takes from where, and `recipe`."""
    intro = ("**The recipe of each profile** (`ARITHMETIC_PROFILES` in `lengthgen/papers/abc/experiments.py`; "
             "the public code's where it states one). The `regime` profile is not the paper's recipe: it keeps "
             "`cpu`'s model, optimiser, learning rate, schedule and batch, and `cpu`'s step budgets but for N x 1's "
             "(7,500 steps, ABC 3,000 warmed up over its own 5%), and takes from the paper's set-up what the factor "
             "study found to decide whether ABC extrapolates on Successor (dropout 0.3 everywhere the public code "
             "has it, Xavier-initialised token embeddings), with operands padded to 51 digits (the paper: a fixed "
             "width it does not state) and the paper's test columns. Those factors were chosen on Successor's "
             "extrapolation (sizing seeds 100-102), so Successor's regime rows test them again on the task they were "
             "chosen on (in sample); so do Addition's T = 3 scaffold rows, whose window (w tokens, the paper's) was "
             "chosen on Addition scored to 50 digits. Addition and N x 1 drop dropout, and N x 1 has its own budget, "
             "chosen on fit at 6 digits alone (sizing seed 100), not on longer lengths; their other rows, and "
             "Parity's and ListOps', test the factors out of sample. `full` is the paper's model with the "
             "public code's learning rate and batch and a step budget of ours (the paper gives none); no stored "
             "grid uses it.")
    return intro + "\n\n" + markdown_table(recipe(public_code)) + "\n"


TABLE1_TASKS = tuple(dict.fromkeys(task for task, _, _ in TABLE_1))  # Parity is in Table 3 only: the paper's vanilla
# model does not interpolate it (its appendix A.6), so ABC has nothing to calibrate from


def table1_configs(profile: str, seeds: tuple[int, ...] | None) -> list[ArithmeticRun]:
    """Table 1 on the profile's tasks that the paper's has: the vanilla model (sinusoidal positions) with ABC from
    it; ALiBi; RoPE (as the profile lists them)."""
    p = ARITHMETIC_PROFILES[profile]
    return [p.run(task, positional, seed, abc=p.abc_models if positional == "sinusoidal" else ())
            for task in p.tasks if task in TABLE1_TASKS for seed in (seeds if seeds is not None else p.seeds)
            for positional in p.table1]


def without_sinusoids(configs: list[ArithmeticRun]) -> list[ArithmeticRun]:
    """Table 1's ALiBi and RoPE runs of `configs` with the sinusoids taken out (positional "alibi", "rope"): the
    control that says what the sinusoids, which the public code adds to every model, do for them. Outside the grid:
    stored where they were run, read by their keys."""
    return [replace(c, model=replace(c.model, positional=c.model.positional.removeprefix("sinusoidal+")))
            for c in configs if c.model.positional in ("sinusoidal+alibi", "sinusoidal+rope")]


def scaffolding_configs(profile: str, seeds: tuple[int, ...] | None) -> list[ArithmeticRun]:
    """Table 3's scaffolding on aligned input: a windowed bias (w = 1) with the sinusoids, with cyclic positions (T = 3)
    or with none (NoPE), as the profile lists them for each task (ListOps: T = 3 only, Appendix C), in the source
    format the profile gives each (`ArithmeticSizes.scaffold_format`)."""
    p = ARITHMETIC_PROFILES[profile]
    return [p.run(task, positional, seed, window=1, aligned=True, **p.scaffold_format(task, positional))
            for task in p.tasks for seed in (seeds if seeds is not None else p.seeds)
            for positional in p.for_task(task).scaffolds]


def balanced_configs(profile: str, seeds: tuple[int, ...] | None) -> list[ArithmeticRun]:
    """Beyond the paper: the scaffold of ListOps SUM (cyclic positions T = 3, w = 1, unpadded) trained on lists of 5,
    6 and 7 items equally often (`listops_sum_balanced`) and tested at every length from 3 items to the profile's
    longest: does SUM's reach follow the length modulo T (as on the stock mix, where 85% of the lists have 6 items)
    because of the training mix?"""
    p = ARITHMETIC_PROFILES[profile]
    p = replace(p, per_task=p.per_task | LISTOPS_SIZES)  # ListOps sizes in every profile
    return [replace(p.run("listops_sum_balanced", "cyclic+bias", seed, window=1, aligned=True),
                    eval_lengths=tuple(range(3, max(p.eval_lengths) + 1)))
            for seed in (seeds if seeds is not None else p.seeds)]


def arithmetic_steps(cfg: ArithmeticRun) -> int:
    """The training steps of a run in all: the trained model's and every ABC model's retraining."""
    return cfg.train.steps + cfg.retrain_steps * (len(cfg.stages()) - 1)


def _experiment(name: str, description: str, configs) -> Experiment:
    return Experiment(name=name, description=description, configs=configs, run=run_arithmetic,
                      labels=arithmetic_labels, build=build_arithmetic, profiles=tuple(ARITHMETIC_PROFILES),
                      steps=arithmetic_steps)


ABC_EXPERIMENTS = (
    _experiment("abc-table1", "vanilla (+ ABC: both rules, with and without positions), ALiBi, RoPE by operand length "
                "(Table 1, Figs. 1, 7)", table1_configs),
    _experiment("abc-scaffolding", "windowed attention bias with sinusoids, cyclic positions or none, aligned input "
                "(Table 3; ListOps with cyclic positions, Appendix C)",
                scaffolding_configs),
    _experiment("abc-balanced", "beyond the paper: ListOps SUM's scaffold trained on an even mix of 5, 6, 7 items, "
                "tested at every length", balanced_configs),
)


def trained_models(store, experiment, configs: list[ArithmeticRun]) -> dict[str, tuple]:
    """The stored models of the configs' first seed on each task, by name ("successor / vanilla", "successor / ABC
    (paper)", ...): (model, task), rebuilt from the store's checkpoints."""
    out = {}
    for cfg in first_seeds(configs):
        models, task = load_trained(experiment, cfg, store)
        for key, stage in cfg.stages().items():
            name = variant(cfg) if key == "trained" else stage
            out[f"{cfg.task} / {name.removesuffix(', aligned')}"] = (models[key], task)
    return out


def arithmetic_reading(runs: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The chapter's tables from tidy runs of both experiments: "curves" (task, model, seed, length, value: exact
    match per run, ABC models named by rule), "cells" and "claims" beside the paper's Tables 1 and 3
    (`analysis.arithmetic`), "mass" (`readings.stored_mass`), "attention" (Figs. 2, 8, 9's claim on the vanilla
    models' mass; empty for runs that predate it), "fit" (`readings.abc_fit`) and "first wrong"
    (`readings.first_wrong_table`); each grid's runs of a task on the
    seeds that all its models there have (`compare.on_common_seeds`; a grid: the runs' experiment, Table 1 or Table
    3, where they name it), so that one table's cells do not wait for the other's."""
    grid = ["task", "experiment"] if "experiment" in runs else ["task"]
    runs = line_read_right(runs)
    runs = pd.concat([on_common_seeds(part, ("variant",))[0] for _, part in runs.groupby(grid)])
    ours = accuracy_table(runs)
    paper = paper_table()
    acc = runs[runs.metric == ACCURACY]
    curves = acc.assign(model=[v.removesuffix(", aligned") if s == "trained" else s
                               for v, s in zip(acc.variant, acc.stage, strict=True)])
    mass = stored_mass(runs)
    return {"curves": curves[["task", "model", "seed", "length", "value"]], "cells": cells(ours, paper),
            "claims": model_claims(ours, paper, APPENDIX_C),
            "attention": attention_claim(mass[mass.model == "vanilla"]), "mass": mass, "fit": abc_fit(runs),
            "first wrong": first_wrong_table(runs)}
