"""The leaderboard's grid: every mechanism on every task, one run per (task, mechanism, seed), scored by `protocol`.

A mechanism is one registry line (`MECHANISMS`), a task's lengths another (`TASK_LENGTHS`). A run trains a decoder-only
transformer with the mechanism's positional scheme, id transform and model settings on the task as prompt and answer
(`tasks.prompted`: the source, "=", the target; the task's coupled ids for a mechanism that needs them), at source
lengths drawn uniformly from the task's training lengths, and scores greedy answers (exact match) at each test length on
examples drawn from the test seed, the same for every mechanism. A GRU or encoder-decoder mechanism reads a
sequence-to-sequence task as source and target instead (`Mechanism.seq2seq`); ABC trains its encoder-decoder twice
(`calibrate`), the scaffold fixes its windowed bias before training (`scaffold`). A profile (`LEADERBOARD_PROFILES`)
sets which tasks and mechanisms run and at what size.
"""

from collections import Counter
from dataclasses import dataclass, field, replace

import pandas as pd
import torch

from lengthgen.analysis.calibration import ABC_DIRECTIONS, PAPER, calibrated_table, open_cells
from lengthgen.analysis.verdicts import TRAINED
from lengthgen.config import added, ignored
from lengthgen.errors import LengthgenError
from lengthgen.leaderboard.protocol import board, run_scores
from lengthgen.metrics import FINAL_TRAIN_LOSS, OPEN_SHARE
from lengthgen.models import build_model
from lengthgen.models.gru_seq2seq import Seq2SeqConfig
from lengthgen.models.positional import bias_table, windowed_table
from lengthgen.models.transformer import TransformerConfig
from lengthgen.registry import Registry
from lengthgen.results.experiment import Experiment
from lengthgen.results.store import RunOutput
from lengthgen.seeding import generator
from lengthgen.tasks import TASKS
from lengthgen.tasks.arithmetic import ArithmeticTask
from lengthgen.tasks.lm import LMTask
from lengthgen.tasks.prompted import Prompted
from lengthgen.tasks.seq2seq import Seq2SeqTask
from lengthgen.train.evaluate import course_reader, exact_match_by_length
from lengthgen.train.loop import LMTrainConfig, train


@dataclass(frozen=True)
class Mechanism:
    """What a mechanism changes in the board's model (the decoder-only transformer unless it says otherwise): its
    positional scheme (`positional.POSITIONAL`, "a+b" composes), its transform of the position ids
    (`LMTrainConfig.positions`: "randomized" is drawn at test time too), what else of the model it sets
    (`TransformerConfig` fields), and where it comes from."""

    positional: str
    source: str
    positions: str = "given"
    model: tuple[tuple[str, object], ...] = ()  # (TransformerConfig field, value) pairs
    coupled: bool = False  # position ids coupled by the task (`Seq2SeqTask.coupled_ids`): runs only where it has them
    gru: str = ""  # not a transformer but monotonic attention's GRU encoder-decoder with this cross-attention
    # (`cross_attention.CROSS_ATTENTION`): runs on the sequence-to-sequence tasks, each as source and target
    encdec: bool = False  # not the decoder-only model but attention bias calibration's encoder-decoder transformer
    # (`transformer.EncoderDecoder`: cross-attention reads the source's positions from its end), on the source and
    # target of a sequence-to-sequence task
    abc: bool = False  # with encdec: Attention Bias Calibration (`calibrate`) - the bias of the model scored comes from
    # the attention of the same encoder-decoder trained without it
    window: int | None = None  # with encdec: attention bias scaffolding's windowed bias of this w, fixed before
    # training (`scaffold`); runs on the arithmetic tasks, whose answers read their source along an anti-diagonal

    def architecture(self, model: TransformerConfig, task: str) -> TransformerConfig:
        """`model` with this mechanism's scheme and settings on `task`; ABC's encoder-decoder counts the source's ids
        from the start on a task that reads its source in order (`Seq2SeqTask.reads_in_order`), where that answer's
        cells lie on one diagonal whatever the source's length, else from the end (the paper's tasks, as the ABC
        chapter)."""
        frame = "start" if self.abc and getattr(TASKS[task], "reads_in_order", False) else model.memory_from
        return replace(model, positional=self.positional, memory_from=frame, **dict(self.model))

    @property
    def model_name(self) -> str:
        """The `models.build_model` name of the mechanism's model."""
        return "gru_seq2seq" if self.gru else "encoder_decoder" if self.encdec else "decoder"

    @property
    def seq2seq(self) -> bool:
        """Whether the mechanism's model reads a task as source and target (a GRU's, an encoder-decoder's)."""
        return bool(self.gru) or self.encdec


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
    "coupling": Mechanism("learned", "position coupling (Cho et al. 2024): learned ids coupled by the task, "
                          "shifted at random in training over the ids the longest test meets; on numbers, each "
                          "digit's place from the units, the ids of Abacus embeddings (McLeish et al. 2024) with no "
                          "other positions", "offset", coupled=True),
    "abacus+fire": Mechanism("learned+fire_order", "Abacus embeddings with FIRE (McLeish et al. 2024): the ids of "
                             "position coupling, shifted at random in training, embedded; FIRE's bias over the "
                             "tokens' order in the sequence", "offset", coupled=True),
    "ppc": Mechanism("learned", "predictive position coupling (the sparsity paper): coupled ids that depend on the "
                     "input, predicted by the model with each answer token", "offset", model=(("ppc", True),),
                     coupled=True),
    "rope+ln": Mechanism("rope", "RoPE with LayerNorm after attention (Li et al. 2025)",
                         model=(("attention_norm", "ln"),)),
    "nope+ln": Mechanism("none", "no positions, LayerNorm after attention (Li et al. 2025)",
                         model=(("attention_norm", "ln"),)),
    "encdec": Mechanism("sinusoidal", "the encoder-decoder transformer, sinusoidal positions, cross-attention reading "
                        "the source from its end (attention bias calibration's model; Vaswani et al. 2017)",
                        encdec=True),
    "scaffold": Mechanism("cyclic+bias", "attention bias scaffolding (Duan et al. 2024): the encoder-decoder with "
                          "cyclic positions (T = 3) and a windowed bias (w = 1, in tokens) on the decoder's self- "
                          "and cross-attention; on the arithmetic tasks, two operands interleaved",
                          model=(("period", 3),), encdec=True, window=1),
    "abc": Mechanism("sinusoidal+bias", "Attention Bias Calibration (Duan et al. 2024): the encoder-decoder retrained "
                     "with the bias its own attention calibrates at the longest training length, by the ABC "
                     "chapter's rule (its diagonals and vertical lines) in the frame where the task's answer reads "
                     "its source along a diagonal: keys counted from the source's end (the paper's tasks, reversed "
                     "ones), from its start where the task reads its source in order (Copy, ReCopy; the paper's "
                     "diagonal)",
                     encdec=True, abc=True),
    **{f"gru+{attention}": Mechanism("none", f"the GRU encoder-decoder with {words} (Chowdhury & Caragea 2023)",
                                     gru=attention)
       for attention, words in (("content", "content attention"), ("relative", "relative positional attention"),
                                ("bi_relative", "bidirectional relative attention"),
                                ("locattn", "location attention (Dubois et al. 2020)"),
                                ("onestep", "OneStepAttn"), ("mono", "MonoAttn"))},
})


@dataclass(frozen=True)
class TaskLengths:
    """A task's lengths on the leaderboard, in its own unit (source tokens, digits, items): training lengths drawn
    uniformly from `train` (lowest, highest), and `tests`, the lengths scored, the longest training length first."""

    train: tuple[int, int]
    tests: tuple[int, ...]
    source: str  # where the lengths come from
    options: tuple[tuple[str, object], ...] = ()  # the task's settings on the board (its constructor's arguments)

    def __post_init__(self):
        if self.tests[0] != self.train[1] or list(self.tests) != sorted(set(self.tests)):
            raise ValueError(f"tests {self.tests} must rise from the longest training length {self.train[1]}")


PROBING = TaskLengths((5, 10), (10, 15, 30, 100), "monotonic attention's probing tasks: trained on 5-10, tested to 10x")
CHOMSKY = TaskLengths((1, 40), (40, 50, 100, 200, 400), "the Chomsky-hierarchy suite: trained on 1-40, tested to 10x")
ARITHMETIC = TaskLengths((1, 7), (7, 10, 15, 20, 50), "ABC's tasks: operands of up to 7 digits (its interpolation "
                                                        "numbers' longest), tested at its columns to 50 (7x)")
TASK_LENGTHS = Registry("leaderboard task", {
    **{task: PROBING for task in ("copy", "reverse_copy", "recopy", "reverse_recopy", "inv_recopy",
                                  "inv_reverse_recopy", "dedupe", "posretrieve")},
    **{task: TaskLengths((3, 6), (6, 7, 9, 11, 30, 60), "monotonic attention's lookup tables by source length: "
                         "trained on their training split (1-4 tables, 3-6 tokens), tested on compositions of t1..t6 "
                         "at the paper's 7, 9, 11 tokens and to 10x") for task in ("lookup_length",
                                                                                "reverse_lookup_length")},
    "duplicate_string": CHOMSKY, "bucket_sort": CHOMSKY,
    "modular_arithmetic": TaskLengths((1, 39), (39, 51, 101, 201, 401), "the Chomsky-hierarchy suite's, odd lengths "
                                      "only (an expression): trained on 1-39, tested to 10x"),
    "successor": ARITHMETIC, "addition": ARITHMETIC, "times_digit": ARITHMETIC,
    "parity": TaskLengths((1, 21), (21, 30, 40, 50), "ABC's Parity: up to 21 bits (its interpolation numbers'), "
                          "tested to 50 (the task's longest, 2.4x)"),
    "listops_sum": ARITHMETIC, "listops_max": ARITHMETIC, "listops_min": ARITHMETIC,
    "scan_length": TaskLengths((1, 22), (22, 24, 26, 28, 30, 32, 36, 40, 48), "SCAN's length split by action count: "
                               "trained on its commands of up to 22 actions, tested on its test commands to 48 "
                               "(2.2x, the longest any command has)"),
    "sparse_parity": TaskLengths((10, 25), (25, 50, 100, 250), "the sparsity paper's sparse parity with k <= 2: "
                                 "trained on 10-25 (key, bit) pairs, tested to 10x", (("max_k", 2),)),
    "scratchpad_parity": TaskLengths((5, 20), (20, 40, 100, 200), "the sparsity paper's parity with a scratchpad "
                                     "(j = 1): trained on 5-20 scratchpad tokens, tested to 10x"),
    "variable_assignment": TaskLengths((20, 60), (60, 100, 150, 200), "the sparsity paper's variable assignment in "
                                       "its format (depth 2, 200 variables): trained on 20-60 tokens, tested to its "
                                       "200 (3.3x)", (("format", "paper"),)),
})


def in_distribution(task: str) -> int:
    """The longest training length of a leaderboard task (of its source, in its own unit)."""
    return TASK_LENGTHS[task].train[1]


def _trained(runs: pd.DataFrame) -> dict[str, int]:
    return {task: in_distribution(task) for task in set(runs.task)}


def scored(runs: pd.DataFrame) -> pd.DataFrame:
    """The board of tidy runs (`protocol.board`), each task judged against its own training lengths."""
    return board(runs, _trained(runs))


def seed_scores(runs: pd.DataFrame) -> pd.DataFrame:
    """Each run's scores (`protocol.run_scores`) of tidy runs, each task judged against its own training lengths."""
    return run_scores(runs, _trained(runs))


@dataclass(frozen=True)
class LeaderboardRun:
    """One run of the grid: a mechanism on a task at a seed, with the model, training and test sizes. The training
    config's min_length and max_length are the task's training lengths, its max_positions position coupling's shift
    range (`coupled_range`; unset for the other mechanisms); the model's max_positions bounds the ids that "randomized"
    draws and that "pose" shifts to (`LMTrainConfig.pose_length`)."""

    task: str
    mechanism: str
    seed: int
    model: TransformerConfig = field(default_factory=TransformerConfig)
    train: LMTrainConfig = field(default_factory=LMTrainConfig)
    tests: tuple[int, ...] = ()  # source lengths scored; the longest training length among them
    eval_samples: int = 500  # examples per test length
    eval_seed: int = 0  # the test examples' seed: the same for every run, so mechanisms meet the same examples
    course: int = added(0)  # > 0: every this many steps, exact match at the longest training length (COURSE rows
    # with their step: the course of training, for sizing); 0: none
    course_samples: int = added(100)  # prompts of each point of the course (drawn from eval_seed + 1)
    gru: Seq2SeqConfig | None = added(None)  # a GRU mechanism's model (then `model` is not used)
    stop_fitted: bool = added(False)  # with a course: stop training at its first point that fits (>= TRAINED)
    progress: bool = ignored(False)  # tqdm bars inside the run

    def training(self) -> LMTrainConfig:
        """The training config with the mechanism's id transform: ids below the model's table, but position coupling's
        shift, whose range the run's own config sets (`coupled_range`)."""
        positions = MECHANISMS[self.mechanism].positions
        below = self.train.max_positions if positions == "offset" else self.model.max_positions
        return replace(self.train, positions=positions, progress=self.progress, max_positions=below,
                       pose_length=self.model.max_positions if positions == "pose" else 0)


def board_source(name: str, aligned: bool = False):
    """A leaderboard task as its module defines it, with its settings on the board (`TaskLengths.options`); with
    `aligned`, an arithmetic task's operands interleaved (`ArithmeticTask.aligned`)."""
    return TASKS[name](**dict(TASK_LENGTHS[name].options), **({"aligned": True} if aligned else {}))


def board_task(name: str, coupled: bool = False) -> LMTask:
    """A leaderboard task as the decoder-only model meets it, with its settings (`TaskLengths.options`): a
    decoder-only task as it is (with `coupled`, its coupled ids: a task without them is refused), a
    sequence-to-sequence one as prompts and answers (`tasks.prompted`)."""
    source = board_source(name)
    if not isinstance(source, LMTask):
        return Prompted(source, coupled=coupled)
    if hasattr(source, "coupled"):
        return replace(source, coupled=coupled)
    if coupled:
        raise LengthgenError(f"{name} defines no coupled position ids")
    return source


def coupled_range(task: str, lengths: TaskLengths, tests: tuple[int, ...]) -> int:
    """The ids position coupling's training shift ranges below (`positional.offset`): the largest coupled id at the
    longest test length plus the largest at the longest training length, so that the shifted training ids cover every
    id a test meets, all but the lowest few about equally often. Set by the test lengths, as the public
    position-coupling code sets its max_position: a shift over the whole id table (the grid's 1,280 ids, for
    training sequences of a dozen) would leave the ids every test starts at (1, 2, ...) in few training rows."""
    coupled = board_task(task, coupled=True)
    return coupled.max_id(max(tests)) + coupled.max_id(lengths.train[1])


def build_run(cfg: LeaderboardRun) -> tuple[object, object]:
    """(the task as `board_task` gives it, untrained decoder with the mechanism's scheme), or for a GRU or
    encoder-decoder mechanism (the sequence-to-sequence task itself, its untrained model; for the scaffold, the task
    with its operands interleaved and the model with its window set, `scaffold`); the init draws from the seed."""
    mechanism = MECHANISMS[cfg.mechanism]
    if mechanism.seq2seq:
        if not runs_on(cfg.mechanism, cfg.task):
            needs = "an arithmetic task" if mechanism.window is not None else "a sequence-to-sequence task"
            raise LengthgenError(f"{cfg.mechanism} runs on {needs}, not {cfg.task}; valid: "
                                 f"{', '.join(t for t in TASK_LENGTHS if runs_on(cfg.mechanism, t))}")
        task = board_source(cfg.task, aligned=mechanism.window is not None)
        if cfg.gru is not None:
            return task, build_model(mechanism.model_name, cfg.gru, task, seed=cfg.seed)
        model = build_model(mechanism.model_name, mechanism.architecture(cfg.model, cfg.task), task, seed=cfg.seed)
        if mechanism.window is not None:
            scaffold(task, model, mechanism.window)
        return task, model
    task = board_task(cfg.task, mechanism.coupled)
    return task, build_model(mechanism.model_name, mechanism.architecture(cfg.model, cfg.task), task, seed=cfg.seed)


def parameters(mechanism: str, sizes: "LeaderboardSizes", task: str) -> int:
    """The trainable parameters of a mechanism's model on a task at a profile's sizes (`build_run`): the decoder's
    with the mechanism's scheme, or the GRU's or encoder-decoder's own."""
    _, model = build_run(sizes.run(task, mechanism, 0))
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def runs_on(mechanism: str, task: str) -> bool:
    """Whether a mechanism has a cell on a task: always, but for the scaffold (on the arithmetic tasks), a GRU or an
    encoder-decoder (on sequence-to-sequence tasks) and one that needs coupled ids: where the task has them, PPC where
    they depend on the input (the model must predict them), the others where they do not."""
    chosen = MECHANISMS[mechanism]
    if chosen.window is not None:
        return issubclass(TASKS[task], ArithmeticTask)
    if chosen.seq2seq:
        return issubclass(TASKS[task], Seq2SeqTask)
    if not chosen.coupled:
        return True
    try:
        coupled = board_task(task, coupled=True)
        drawn = coupled.sequence(TASK_LENGTHS[task].train[1], generator(0, "runs_on"))
    except LengthgenError:
        return False
    return drawn.ids is not None and coupled.ids_follow_input == dict(chosen.model).get("ppc", False)


def scaffold(task: ArithmeticTask, model, window: int) -> None:
    """Set an encoder-decoder's bias table to attention bias scaffolding's windowed bias (`positional.windowed_table`):
    each decoder self-attention open on the query's own step and the `window` before it, each cross-attention on the
    `stride` source digits that answer step t reads (from the source's end, after its `tail`: the digits of
    `ArithmeticTask.line_from_end`) and `window` tokens on each side (the paper's A.4; the ABC chapter's T = 3 scaffold
    did not fit Addition with `window` operand pairs on each side instead). The encoder stays open, as the paper's."""
    bias_table(model).set_table(windowed_table(model.cfg.heads, model.cfg.max_positions, *model.decoder_layers, window,
                                               task.stride, offset=task.tail, span="tokens"))


ABC_SAMPLES = 256  # training examples whose attention ABC averages, as the ABC chapter's runs


def one_length(task: Seq2SeqTask, length: int, n: int, gen) -> object:
    """A batch of up to `n` examples of `length` (in the task's unit) whose sources share one length and targets
    another, the commonest pair among 4 n drawn (ABC averages attention cell by cell; SCAN's length counts actions,
    and commands of one action count differ in words)."""
    drawn = [task.draw(length, gen) for _ in range(4 * n)]
    common = Counter((len(source), len(target)) for source, target in drawn).most_common(1)[0][0]
    return task.batch([e for e in drawn if (len(e[0]), len(e[1])) == common][:n])


def open_share(model, table: torch.Tensor, steps: int, source: int) -> float:
    """% of the cells of an encoder-decoder's first cross-attention layer that a bias `table` (as
    `calibration.calibrated_table` returns it) leaves open (`calibration.open_cells`), over `steps` decoder steps, a
    source of `source` tokens and every head."""
    return 100.0 * float(open_cells(table[model.decoder_layers[1].start, :, :steps, :source]).float().mean())


def calibrate(cfg: LeaderboardRun, task: Seq2SeqTask, model) -> float:
    """ABC's first stage: train the run's encoder-decoder without its bias (the same init, training and stream as the
    `encdec` cell of its seed), then set `model`'s bias table from that model's attention on `one_length` training
    examples of the longest training length (`calibration.calibrated_table`: the paper's rule on ABC_DIRECTIONS, the
    last layer's table into every layer). Returns the share of the source's cells the bias leaves open at that length
    (`open_share`, OPEN_SHARE)."""
    plain = build_model("encoder_decoder", replace(cfg.model, positional=cfg.model.positional.removesuffix("+bias")),
                        task, seed=cfg.seed)
    train(plain, task, cfg.training(), generator(cfg.seed, "train"),
          desc=f"{cfg.task}/{cfg.mechanism} (plain)/{cfg.seed}")
    batch = one_length(task, in_distribution(cfg.task), ABC_SAMPLES, generator(cfg.seed, "abc"))
    table = calibrated_table(plain, batch, cfg.model.max_positions, (PAPER, PAPER), ABC_DIRECTIONS)
    bias_table(model).set_table(table)
    return open_share(model, table, batch.tgt.shape[1], batch.src.shape[1])


def run_leaderboard(cfg: LeaderboardRun) -> RunOutput:
    """Train (an ABC model after its calibration, `calibrate`), then exact match of greedy answers at each test length
    (`evaluate.exact_match_by_length`, its ids randomized below max_positions for "randomized"); the final training
    loss beside, and for ABC the share of the source its bias leaves open (OPEN_SHARE). The checkpoint is the trained
    model."""
    task, model = build_run(cfg)
    training = cfg.training()
    opened = []  # ABC's: the share of the source its bias leaves open
    if MECHANISMS[cfg.mechanism].abc:
        opened.append({"length": in_distribution(cfg.task), "metric": OPEN_SHARE, "value": calibrate(cfg, task, model)})
    randomize = cfg.model.max_positions if training.positions == "randomized" else 0
    course: list[dict] = []
    stop_at = TRAINED if cfg.stop_fitted else None
    read = course_reader(model, task, in_distribution(cfg.task), cfg.course, training.steps, cfg.course_samples,
                         cfg.eval_seed + 1, course, stop_at, randomize) if cfg.course else None
    stream = "train abc" if MECHANISMS[cfg.mechanism].abc else "train"
    stats = train(model, task, training, generator(cfg.seed, stream), desc=f"{cfg.task}/{cfg.mechanism}/{cfg.seed}",
                  callback=read, carry=course)
    rows = exact_match_by_length(model, task, cfg.tests, cfg.eval_samples, cfg.eval_seed, progress=cfg.progress,
                                 randomize=randomize)
    loss = pd.DataFrame([{"length": 0, "metric": FINAL_TRAIN_LOSS, "value": stats["loss"]}, *opened])
    return RunOutput(pd.concat([rows, loss, *([pd.DataFrame(course)] if course else [])], ignore_index=True),
                     checkpoint=model.state_dict())


def leaderboard_labels(cfg: LeaderboardRun) -> dict:
    return {"task": cfg.task, "model": MECHANISMS[cfg.mechanism].model_name, "variant": cfg.mechanism,
            "seed": cfg.seed}


@dataclass(frozen=True)
class LeaderboardSizes:
    """A profile of the grid: which tasks and mechanisms, the decoder's size and training (the same for every cell
    of a task), test examples per length and the declared seeds. A task's lengths are its own (`TASK_LENGTHS`), but
    for the tests, cut to `longest` where given (the quick slice); its training steps are `steps` unless `task_steps`
    names its own."""

    tasks: tuple[str, ...]
    mechanisms: tuple[str, ...]
    width: int
    heads: int
    layers: int
    steps: int
    batch: int
    lr: float
    samples: int
    seeds: tuple[int, ...]
    max_positions: int  # the id tables' size: the longest test sequence (prompt and answer) must fit
    longest: int | None = None  # test lengths above this are left out
    course: int = 0  # > 0: each run reads its course of training every this many steps (`LeaderboardRun.course`)
    stop_fitted: bool = False  # with a course: each run stops at its first point that fits
    task_steps: tuple[tuple[str, int], ...] = ()  # (task, steps) for a task trained other than `steps` (a grid's
    # budget per task from its sizing study, `sizing.task_budgets`)

    def __post_init__(self):
        if unknown := set(dict(self.task_steps)) - set(self.tasks):
            raise ValueError(f"task_steps names {sorted(unknown)}, not among the profile's tasks {self.tasks}")

    def steps_for(self, task: str) -> int:
        """The training steps of a task's runs: its own where `task_steps` names it, else `steps`."""
        return dict(self.task_steps).get(task, self.steps)

    def run(self, task: str, mechanism: str, seed: int, layers: int | None = None,
            lengths: TaskLengths | None = None) -> LeaderboardRun:
        """The config of one cell's run at one seed; `layers` and `lengths` where a run takes other than the
        profile's and the task's (a peer's headline)."""
        lengths = lengths or TASK_LENGTHS[task]
        tests = tuple(n for n in lengths.tests if self.longest is None or n <= self.longest)
        base = TransformerConfig(width=self.width, heads=self.heads, layers=layers or self.layers, ff=4 * self.width,
                                 max_positions=self.max_positions)
        model = MECHANISMS[mechanism].architecture(base, task)
        steps = self.steps_for(task)
        coupling = {}
        if MECHANISMS[mechanism].positions == "offset":
            coupling["max_positions"] = coupled_range(task, lengths, tests)
            if coupling["max_positions"] > self.max_positions:
                raise ValueError(f"{mechanism} on {task} shifts its ids below {coupling['max_positions']}, past the "
                                 f"id table's {self.max_positions}")
        train = LMTrainConfig(steps=steps, batch_size=self.batch, lr=self.lr, warmup=max(1, steps // 20),
                              min_length=lengths.train[0], max_length=lengths.train[1], **coupling)
        gru = Seq2SeqConfig(attention=MECHANISMS[mechanism].gru) if MECHANISMS[mechanism].gru else None
        return LeaderboardRun(task=task, mechanism=mechanism, seed=seed, model=model, train=train, tests=tests,
                              eval_samples=self.samples, course=self.course, stop_fitted=self.stop_fitted, gru=gru)


# smoke exercises the code. quick is the book's live slice: monotonic attention's Copy and Reverse Copy with three
# mechanisms, one seed, at a budget within which the sizing study's RoPE fits both (Methods gives the steps). cpu is
# the stored grid, at the sizing study's model (`sizing.SIZING_PROFILES`) on tasks where its decoder fits
# (`sizing.left_out` says why each other task is not in it), each trained for its budget from that study and its
# budget control (`sizing.task_budgets`, checked against the stored runs by the tests), at three declared seeds.
LEADERBOARD_PROFILES = {
    "smoke": LeaderboardSizes(tasks=("copy", "bucket_sort"), mechanisms=("nope", "rope"), width=16, heads=2, layers=1,
                              steps=5, batch=8, lr=1e-3, samples=8, seeds=(0,), max_positions=256, longest=50),
    "quick": LeaderboardSizes(tasks=("copy", "reverse_copy"), mechanisms=("nope", "rope", "alibi"), width=64, heads=4,
                              layers=2, steps=2000, batch=64, lr=1e-3, samples=100, seeds=(0,), max_positions=256),
    "cpu": LeaderboardSizes(tasks=("copy", "reverse_copy", "lookup_length", "successor", "scan_length", "posretrieve",
                                   "recopy", "reverse_recopy", "scratchpad_parity", "bucket_sort"),
                            mechanisms=("nope", "sinusoidal", "learned", "rope", "alibi", "fire", "randomized",
                                        "rope+ln", "nope+ln", "coupling", "abacus+fire", "ppc", "encdec", "abc",
                                        "scaffold", "gru+content", "gru+locattn"),
                            width=64, heads=4, layers=2, steps=10_000, batch=64, lr=1e-3, samples=500, seeds=(0, 1, 2),
                            max_positions=1280,
                            task_steps=(("copy", 10_000), ("reverse_copy", 10_000), ("lookup_length", 10_000),
                                        ("successor", 9_000), ("scan_length", 10_000), ("posretrieve", 10_000),
                                        ("recopy", 10_000), ("reverse_recopy", 10_000), ("scratchpad_parity", 10_000),
                                        ("bucket_sort", 10_000))),
}


def profile_runs(sizes: LeaderboardSizes, seeds: tuple[int, ...] | None) -> list[LeaderboardRun]:
    """Every (task, mechanism, seed) run of a profile's sizes where the mechanism `runs_on` the task, seeds the
    profile's unless given."""
    return [sizes.run(task, mechanism, seed) for task in sizes.tasks for mechanism in sizes.mechanisms
            if runs_on(mechanism, task) for seed in (seeds or sizes.seeds)]


def leaderboard_configs(profile: str, seeds: tuple[int, ...] | None) -> list[LeaderboardRun]:
    """The grid's runs at a profile (`profile_runs`)."""
    return profile_runs(LEADERBOARD_PROFILES[profile], seeds)


def mechanism_rows(profile: str, seeds: tuple[int, ...] | None, mechanisms: tuple[str, ...]) -> list[LeaderboardRun]:
    """The runs of registered mechanisms that a profile does not list, on its tasks at its sizes and seeds: a new
    mechanism's row beside the grid (`lengthgen run leaderboard --variant NEW`). A name not registered is refused,
    naming the registered ones (by `runs_on`)."""
    return profile_runs(replace(LEADERBOARD_PROFILES[profile], mechanisms=mechanisms), seeds)


def added_configs(profile: str) -> list[LeaderboardRun]:
    """The runs of every registered mechanism that a profile does not list (readers' rows, `mechanism_rows`)."""
    listed = LEADERBOARD_PROFILES[profile].mechanisms
    return mechanism_rows(profile, None, tuple(m for m in MECHANISMS if m not in listed))


def added_board(grid_runs: pd.DataFrame, added_runs: pd.DataFrame) -> pd.DataFrame:
    """The board of rows added beside a grid (tidy runs of mechanisms it does not list, `added_configs`): each cell
    ranked among the grid's cells of its task and the other added rows' (where it would stand on the board), the
    grid's own cells left out."""
    both = scored(pd.concat([grid_runs, added_runs], ignore_index=True))
    return both[both.variant.isin(set(added_runs.variant))].reset_index(drop=True)


def complete_cells(runs: pd.DataFrame, seeds: tuple[int, ...]) -> pd.DataFrame:
    """The rows of `runs` (tidy rows of stored runs) at `seeds` of the cells (task, mechanism) that hold every one of
    them: a grid still running is read a whole cell at a time (a median over fewer seeds would be another statistic).
    """
    runs = runs[runs.seed.isin(seeds)] if not runs.empty else runs
    if runs.empty:
        return runs
    held = runs.groupby(["task", "variant"]).seed.agg(lambda got: set(seeds) <= set(got))
    whole = held[held].index
    return runs[pd.MultiIndex.from_frame(runs[["task", "variant"]]).isin(whole)].reset_index(drop=True)


def grid_progress(runs: pd.DataFrame, configs: list[LeaderboardRun], seeds: tuple[int, ...]) -> str:
    """How much of a grid (its `configs`) `runs` (its stored runs' tidy rows) hold, in a sentence: runs and whole cells
    (`complete_cells`)."""
    cells = {(c.task, c.mechanism) for c in configs}
    stored = runs.key.nunique() if not runs.empty else 0
    whole = complete_cells(runs, seeds)
    done = len(whole.groupby(["task", "variant"])) if not whole.empty else 0
    return (f"{stored:,} of the grid's {len(configs):,} runs are stored: {done} of its {len(cells)} cells hold all "
            f"{len(seeds)} seeds")


def run_steps(cfg: LeaderboardRun) -> int:
    """The training steps a run takes (what the time estimates scale by): its budget, twice for ABC (`calibrate`)."""
    return cfg.train.steps * (2 if MECHANISMS[cfg.mechanism].abc else 1)


LEADERBOARD = Experiment(name="leaderboard", description="beyond the papers: every mechanism on every task, one "
                         "protocol (exact match by length)", configs=leaderboard_configs,
                         run=run_leaderboard, labels=leaderboard_labels, build=build_run,
                         profiles=tuple(LEADERBOARD_PROFILES), steps=run_steps, more=mechanism_rows)
