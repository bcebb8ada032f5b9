"""Experiments of the "Monotonic Location Attention" chapter: GRU seq2seq with every cross-attention mechanism.

One experiment per table of the paper; Table 9 (edit distance) is read from the Table 2 runs and Table 10
(failure examples) is decoded from the chapter's own checkpoints.
"""

from dataclasses import dataclass, field, replace

import pandas as pd
import torch

from lengthgen import metrics
from lengthgen.analysis import compare, report
from lengthgen.analysis.compare import RUN, longest_accuracy
from lengthgen.analysis.verdicts import NOT_RUN, NOT_TRAINED, TRAINED, band
from lengthgen.config import ignored
from lengthgen.metrics import ACCURACY, BEST_DEV, BEST_EPOCH, EDIT_DISTANCE, EPOCHS, FIRST_ERROR
from lengthgen.models import CROSS_ATTENTION, build_model
from lengthgen.models.gru_seq2seq import HOOK_DIRECTION_GATE, GRUSeq2Seq, Seq2SeqConfig
from lengthgen.models.hooks import capture, hook_names
from lengthgen.papers.base import Experiment
from lengthgen.papers.mla.paper import SCAN, SCAN_RUNS, TABLE2, TABLE4, TABLE6, TABLE7, paper_table
from lengthgen.results.store import ResultStore, RunOutput
from lengthgen.results.sweep import stored_runs
from lengthgen.seeding import generator
from lengthgen.tasks import TASKS
from lengthgen.train.evaluate import sequence_metrics, teacher_forced_accuracy
from lengthgen.train.loop import EpochConfig, train_epochs

PROBING = ("copy", "reverse_copy", "lookup", "reverse_lookup", "recopy", "reverse_recopy", "inv_recopy",
           "inv_reverse_recopy")
MAIN = ("content", "relative", "locattn", "bi_relative", "onestep", "mono")
ABLATIONS = ("onestep_no_step2", "onestep_no_step3", "onestep_no_sigmoid")  # the OneStep row is mla-main's
EXTRA_TASKS = ("dedupe", "posretrieve")
DIRECTED = PROBING + EXTRA_TASKS  # the tasks with a reading direction (`reads_forward`); SCAN has none
EXTRA_MECHANISMS = ("content", "bi_relative", "locattn", "onestep", "mono")
VARIANTS = ("bi_rope", "mix_locattn", "locattn_s", "mix_locattn_s", "mix_locattn_s_pr", "mix_onestep",
            "mix_onestep_pr", "mix_mono", "mix_mono_pr", "rmono", "mix_rmono", "mix_rmono_pr")
SCAN_TABLE3 = ("content", "relative", "mix_locattn", "bi_relative", "mix_onestep", "mix_mono")
SCAN_TABLE8 = ("bi_rope", "locattn", "locattn_s", "mix_locattn_s", "mix_locattn_s_pr", "onestep", "mix_onestep_pr",
               "mono", "mix_mono_pr", "rmono", "mix_rmono", "mix_rmono_pr")


@dataclass(frozen=True)
class Seq2SeqRun:
    """One training run of the GRU seq2seq model on a task, evaluated on every test split."""

    task: str  # key of TASKS (a seq2seq task)
    seed: int  # model initialisation and batch order; the data depend only on data_seed
    model: Seq2SeqConfig = field(default_factory=Seq2SeqConfig)
    train: EpochConfig = field(default_factory=EpochConfig)
    train_size: int | None = None  # first n training examples (None: the whole split)
    dev_size: int | None = None  # first n dev examples (None: all)
    eval_size: int | None = None  # first n examples of every test split (None: all)
    eval_splits: tuple[str, ...] | None = None  # test splits evaluated (None: all of the task's)
    data_seed: int = 0  # seed of the generated data (shared by all runs: comparisons are paired)
    progress: bool = ignored(False)  # tqdm bars inside the run


def build(cfg: Seq2SeqRun):
    """(task, untrained model) of a config; initialisation and dropout draw from the config's seed."""
    task = TASKS[cfg.task](data_seed=cfg.data_seed)
    model = build_model("gru_seq2seq", cfg.model, task, seed=cfg.seed)
    model.noise = generator(cfg.seed, "dropout")
    return task, model


def train_seq2seq(cfg: Seq2SeqRun) -> tuple[GRUSeq2Seq, object, dict]:
    """Build and train the model of a config (the latest best-or-tied dev epoch is kept); returns (model, task,
    training stats, with `dev_gates`: for mechanisms with direction mixing, the mean direction gate on the dev set
    after each epoch, read from the dev score's own forward pass; else empty)."""
    task, model = build(cfg)
    dev = task.batch(task.examples(task.dev_split, cfg.dev_size))
    hooks, gates = _gate_hooks(model), []

    def dev_score() -> float:
        with capture(model, *hooks) as seen:
            score = teacher_forced_accuracy(model, dev)
        gates.extend(torch.cat(seen[h]).mean().item() for h in hooks)
        return score

    stats = train_epochs(model, task.examples(task.train_split, cfg.train_size), task.batch, dev_score,
                         replace(cfg.train, progress=cfg.progress), generator(cfg.seed, "train"),
                         desc=f"{cfg.task}/{cfg.model.attention}/{cfg.seed}")
    return model, task, stats | {"dev_gates": gates}


def _gate_hooks(model) -> tuple[str, ...]:
    """The direction-gate hook point of a model with direction mixing, else none."""
    return tuple(h for h in (HOOK_DIRECTION_GATE,) if h in hook_names(model))


def evaluate_seq2seq(model, task, cfg: Seq2SeqRun) -> pd.DataFrame:
    """Accuracy, mean edit distance and, where some output is wrong, the median index of the first wrong token
    (`first_error`) on every evaluated split (column `length` holds the split name), and for mechanisms with
    direction mixing the mean direction gate (`direction_gate`: 1 reads forward, 0 reversed), and for tasks with
    constructions (SCAN) its mean over each construction's examples (`direction_gate:and`, ...)."""
    rows, hooks = [], _gate_hooks(model)
    for split in cfg.eval_splits or task.test_splits:
        examples = task.examples(split, _cap(task, split, cfg.eval_size))
        decoded = sequence_metrics(task, model, examples, hooks=hooks)
        m = {k: decoded[k] for k in (ACCURACY, EDIT_DISTANCE, FIRST_ERROR) if k in decoded}
        if hooks:
            gates = torch.cat(decoded["captured"][HOOK_DIRECTION_GATE]).flatten()  # (N,): one gate per example
            m[metrics.DIRECTION_GATE] = gates.mean().item()
            kinds = [task.construction(src) for src, _ in examples]
            for kind in dict.fromkeys(k for k in kinds if k is not None):
                chosen = torch.tensor([k == kind for k in kinds])
                m[metrics.by_construction(metrics.DIRECTION_GATE, kind)] = gates[chosen].mean().item()
        rows += [{"length": split, "metric": k, "value": v} for k, v in m.items()]
    return pd.DataFrame(rows)


def _cap(task, split: str, n: int | None) -> int | None:
    return None if n is None else min(n, task.splits[split].size)


def run_seq2seq(cfg: Seq2SeqRun) -> RunOutput:
    """Train, evaluate; the store keeps the metrics, the kept weights (as a checkpoint) and the per-epoch history
    (train_loss: mean training loss of the epoch; dev_score: teacher-forced dev exact match, %; lr; and with
    direction mixing `direction_gate`: the mean gate on the dev set after the epoch)."""
    model, task, stats = train_seq2seq(cfg)
    train_rows = pd.DataFrame([{"length": "train", "metric": k, "value": stats[k]}
                               for k in (EPOCHS, BEST_EPOCH, BEST_DEV)])
    history = pd.DataFrame(stats["history"], columns=["epoch", "train_loss", "dev_score", "lr"])
    if stats["dev_gates"]:
        history[metrics.DIRECTION_GATE] = stats["dev_gates"]
    return RunOutput(pd.concat([evaluate_seq2seq(model, task, cfg), train_rows], ignore_index=True),
                     checkpoint=model.state_dict(), history=history)


def reads_forward(task: str) -> bool:
    """Whether a probing task (Table 2's or Table 6's) is solved by reading its source left to right (the Reverse
    tasks read it right to left; DeDupe keeps the source's order, and PosRetrieve walks the source in order and
    counts its indices from the start). The location steps (which start at START and only move forward) and the
    relative offsets (measured from the decoder step) count from the start of the possibly reversed sequence, so a
    forward task needs a direction gate near 1 and a Reverse task a gate near 0."""
    if task not in DIRECTED:
        raise ValueError(f"no reading direction for {task!r}; valid: {', '.join(DIRECTED)}")
    return not task.startswith(("reverse_", "inv_reverse_"))


def direction_check(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per run with a recorded direction gate: task, variant, seed, mean gate over its test splits, the
    direction the task needs, and `reads`: "right way" / "wrong way" (gate within 0.1 of the needed / the other
    end) or "undecided"."""
    gates = runs[(runs.metric == metrics.DIRECTION_GATE) & runs.task.isin(DIRECTED)]
    out = gates.groupby(["task", "variant", "seed"], sort=False).value.mean().rename("gate").reset_index()
    forward = out.task.map(reads_forward)
    out["needs"] = forward.map({True: "forward (1)", False: "reversed (0)"})
    out["reads"] = [reading(t, g) for t, g in zip(out.task, out.gate, strict=True)]
    return out


def reading(task: str, gate: float) -> str:
    """How a mean direction gate reads a task: "right way" / "wrong way" (within 0.1 of the direction the task
    needs / of the other end, `reads_forward`) or "undecided"."""
    error = abs(gate - float(reads_forward(task)))
    return "right way" if error < 0.1 else "wrong way" if error > 0.9 else "undecided"


@torch.no_grad()
def initial_gates(configs: list[Seq2SeqRun], examples: int | None = None) -> pd.DataFrame:
    """The direction gate before training: for each config with direction mixing on a task with a reading
    direction, the mean gate of its untrained model (its seed's initialisation, as `build` makes it for training) on
    the task's dev set (its first `examples`, at most the config's dev size; None: the config's). One row per run:
    task, variant, seed, `initial`."""
    rows, devs = [], {}
    for cfg in (c for c in configs if c.task in DIRECTED):
        task, model = build(cfg)
        if not _gate_hooks(model):
            continue
        size = min(n for n in (examples, cfg.dev_size, task.splits[task.dev_split].size) if n is not None)
        if (cfg.task, size) not in devs:
            devs[cfg.task, size] = task.batch(task.examples(task.dev_split, size))
        model.eval()
        dev = devs[cfg.task, size]
        gate = model.attention.gate(model.encode(dev.src, dev.src_len))
        rows.append({"task": cfg.task, "variant": cfg.model.attention, "seed": cfg.seed, "initial": gate.mean().item()})
    return pd.DataFrame(rows, columns=["task", "variant", "seed", "initial"])


def initial_lean(directions: pd.DataFrame, initial: pd.DataFrame) -> pd.DataFrame:
    """A `direction_table` joined with `initial_gates`: `leans` says on which side of 0.5 the untrained gate lay,
    "needed way" (the side of the direction the task needs) or "other way"; runs without an initial gate are left
    out."""
    both = directions.merge(initial, on=RUN)
    both["leans"] = ["needed way" if (g >= 0.5) == reads_forward(t) else "other way"
                     for t, g in zip(both.task, both.initial, strict=True)]
    return both


def gate_course(history: pd.DataFrame) -> pd.DataFrame:
    """How the direction gate moved during training: one row per run whose history records it (column
    `direction_gate`, the mean gate on the dev set after each epoch) on a task with a reading direction, with the
    gate after its first and last epochs (`first`, `last`), how each reads the task (`starts`, `ends`, as
    `reading`), how many times it crossed 0.5 between epochs (`crossings`) and the epoch after which it last did
    (`settled`: the first epoch on its final side). Empty when no run records it."""
    if metrics.DIRECTION_GATE not in history:
        return pd.DataFrame()
    recorded = history.dropna(subset=[metrics.DIRECTION_GATE])
    rows = []
    for (task, variant, seed), g in recorded[recorded.task.isin(DIRECTED)].sort_values("epoch").groupby(RUN):
        gate, epochs = g[metrics.DIRECTION_GATE].to_numpy(), g.epoch.to_numpy()
        changes = [i for i in range(1, len(gate)) if (gate[i] >= 0.5) != (gate[i - 1] >= 0.5)]
        rows.append({"task": task, "variant": variant, "seed": seed, "first": gate[0], "last": gate[-1],
                     "starts": reading(task, gate[0]), "ends": reading(task, gate[-1]), "crossings": len(changes),
                     "settled": int(epochs[changes[-1]] if changes else epochs[0])})
    return pd.DataFrame(rows)


def with_fit_estimates(runs: pd.DataFrame) -> pd.DataFrame:
    """`runs` (collected results, one run per task, variant and seed) plus an estimated "iid" accuracy row for every
    run of a task without an iid split whose dev split holds held-out training examples (Lookup, Reverse Lookup): the
    task's `iid_estimate` from the run's best dev score and its accuracy on the test split of the dev's longer
    examples, at its profile's dev size (the same in every grid of a profile). The row copies the run's other
    columns; runs that lack either number, or already have an iid row, are left as they are."""
    if runs.empty:
        return runs
    tasks = {t: TASKS[t]() for t in runs.task.unique() if hasattr(TASKS[t], "iid_estimate")}
    rows = runs[runs.task.isin(tasks)].assign(length=lambda d: d.length.astype(str))
    accuracy = rows[rows.metric == ACCURACY].set_index([*RUN, "length"]).value
    added = []
    for _, row in rows[(rows.metric == BEST_DEV) & (rows.length == "train")].iterrows():
        task, run = tasks[row.task], (row.task, row.variant, row.seed)
        longer = accuracy.get((*run, task.dev_longer_split))
        if longer is not None and (*run, "iid") not in accuracy.index:
            added.append({**row.to_dict(), "length": "iid", "metric": ACCURACY,
                          "value": task.iid_estimate(row.value, longer, PROFILE_SIZES[row.profile].dev_size)})
    return pd.concat([runs, pd.DataFrame(added, columns=runs.columns)], ignore_index=True) if added else runs


def stored(experiment: Experiment, store: ResultStore) -> pd.DataFrame:
    """The stored full-profile runs of one of the chapter's grids (its declared seeds), with `with_fit_estimates`:
    what the chapter judges (the scorecard applies `with_fit_estimates` to the runs of whichever profile it reads)."""
    return with_fit_estimates(stored_runs(experiment, "full", store))


def seq2seq_labels(cfg: Seq2SeqRun) -> dict:
    return {"task": cfg.task, "model": "gru_seq2seq", "variant": cfg.model.attention, "seed": cfg.seed}


@dataclass(frozen=True)
class Seq2SeqSizes:
    """The sizes of one profile of the monotonic-attention experiments."""

    epochs: int  # maximum training epochs
    train_size: int | None  # first n training examples (None: the whole split)
    dev_size: int | None  # first n dev examples (None: all)
    eval_size: int | None  # first n examples of every test split (None: all)
    seeds: tuple[int, ...]  # the profile's seeds (what `--seeds` defaults to)
    tasks: int | None = None  # first n tasks of each grid (None: all)


# smoke exercises code paths; quick was sized by timing on this 2-core machine (see book/methods.md, Profiles); full
# is the paper's protocol (the whole generated data, 100 epochs, 5 seeds).
PROFILE_SIZES = {
    "smoke": Seq2SeqSizes(epochs=1, train_size=64, dev_size=32, eval_size=16, seeds=(0,), tasks=1),
    "quick": Seq2SeqSizes(epochs=5, train_size=2000, dev_size=300, eval_size=200, seeds=(0,)),
    "full": Seq2SeqSizes(epochs=100, train_size=None, dev_size=None, eval_size=None, seeds=(0, 1, 2, 3, 4)),
}
# The book also trains the Table 4 and Table 7 mechanisms live, on Reverse Copy only and at a smaller budget, so
# that every mechanism gets a heatmap within the chapter's time budget.
QUICK_OTHERS = replace(PROFILE_SIZES["quick"], train_size=1000)
# Table 7's stored grid (12 variants x 8 tasks) declares 3 seeds, the rigor protocol's minimum for a median, not the
# paper's 5: decided before any of its runs (2026-11-26), it saves 192 runs (~71 CPU-thread hours at the median wall
# times of the chapter's stored runs of each task). Its medians are of 3 seeds where the paper's are of 5.
FULL_VARIANTS = replace(PROFILE_SIZES["full"], seeds=(0, 1, 2))


def seed_check_configs(profile: str) -> list[Seq2SeqRun]:
    """The chapter's seed check: OneStepAttn and MonoAttn on Copy with seeds 0-2 (0-1 in the smoke profile), at the
    profile's Table 2 sizes."""
    seeds = (0, 1) if profile == "smoke" else (0, 1, 2)
    return [c for c in MLA_MAIN.configs_for(profile, seeds) if c.task == "copy" and c.model.attention in ("onestep",
                                                                                                        "mono")]


def budget(cfg: Seq2SeqRun) -> str:
    """"2000 examples x 5 epochs": the training budget of a run, for tables and reasons."""
    return f"{cfg.train_size or 'all'} examples x {cfg.train.epochs} epochs"


def grid(tasks: tuple[str, ...], mechanisms: tuple[str, ...], quick_tasks: tuple[str, ...] | None = None,
         sizes: dict[str, Seq2SeqSizes] | None = None):
    """A configs(profile, seeds) function over tasks x mechanisms x seeds; the quick profile may use other tasks
    (`quick_tasks`), and any profile other sizes (`sizes[profile]` instead of PROFILE_SIZES[profile])."""

    def configs(profile: str, seeds: tuple[int, ...] | None) -> list[Seq2SeqRun]:
        size = (sizes or {}).get(profile, PROFILE_SIZES[profile])
        ts = (quick_tasks if profile == "quick" and quick_tasks else tasks)[: size.tasks]
        train = EpochConfig(epochs=size.epochs)
        return [Seq2SeqRun(task=t, seed=s, model=Seq2SeqConfig(attention=m), train=train,
                           train_size=size.train_size, dev_size=size.dev_size, eval_size=size.eval_size)
                for s in seeds or size.seeds for t in ts for m in mechanisms]

    return configs


def _experiment(name: str, description: str, configs) -> Experiment:
    return Experiment(name=name, chapter="mla", description=description, configs=configs,
                      run=run_seq2seq, labels=seq2seq_labels, build=build, profiles=tuple(PROFILE_SIZES))


# Live (quick) Table 2 leaves ReCopy out: at that budget none of its six runs fits it in distribution (iid 17-66.5%),
# while they took 144 of the live runs' 538 thread-seconds (fresh build, commit b48201e). The stored full runs have it.
MLA_MAIN = _experiment("mla-main", "Tables 2 and 9: six mechanisms x eight probing tasks",
                       grid(PROBING, MAIN, quick_tasks=("copy", "reverse_copy", "inv_recopy")))
MLA_ABLATIONS = _experiment("mla-ablations", "Table 4: OneStep without step 2, step 3 or the sigmoid",
                            grid(PROBING, ABLATIONS, quick_tasks=("reverse_copy",), sizes={"quick": QUICK_OTHERS}))
MLA_EXTRA = _experiment("mla-extra", "Table 6: DeDupe and PosRetrieve", grid(EXTRA_TASKS, EXTRA_MECHANISMS))
MLA_VARIANTS = _experiment("mla-variants", "Table 7: twelve other variants x eight probing tasks",
                           grid(PROBING, VARIANTS, quick_tasks=("reverse_copy",),
                                sizes={"quick": QUICK_OTHERS, "full": FULL_VARIANTS}))
MLA_SCAN = _experiment("mla-scan", "Tables 3 and 8: SCAN length split", grid(("scan",), SCAN_TABLE3 + SCAN_TABLE8))
MLA_EXPERIMENTS = (MLA_MAIN, MLA_ABLATIONS, MLA_EXTRA, MLA_VARIANTS, MLA_SCAN)


def gate_by_construction(runs: pd.DataFrame) -> pd.DataFrame:
    """The mean direction gate of each run (column `all`) and its mean by construction (metrics
    `direction_gate:<construction>`, recorded on SCAN; columns in the order first seen, NaN for a run that did not
    record them): one row per (task, variant, seed) with a gate; empty when none has one."""
    rows = runs[runs.metric.str.startswith(metrics.DIRECTION_GATE)]
    rows = rows.assign(construction=rows.metric.str.removeprefix(metrics.DIRECTION_GATE).str.removeprefix(":")
                       .replace("", "all"))
    table = rows.pivot_table(index=["task", "variant", "seed"], columns="construction", values="value", sort=False)
    return table[["all"] + [c for c in table.columns if c != "all"]] if not table.empty else table


def direction_table(runs: pd.DataFrame) -> pd.DataFrame:
    """`direction_check` of every run that recorded a gate, with its accuracy at its task's longest split."""
    return direction_check(runs).join(longest_accuracy(runs), on=RUN)


# The paper's table of each probing-task grid
PAPER_TABLES = {"mla-main": TABLE2, "mla-ablations": TABLE4, "mla-variants": TABLE7, "mla-extra": TABLE6}


def with_unablated(name: str, runs: pd.DataFrame, main: pd.DataFrame) -> pd.DataFrame:
    """The runs of grid `name` with, for Table 4 (mla-ablations), its unablated OneStep row: the OneStep runs of
    Table 2 (`main`), which the ablation grid does not repeat."""
    if name != "mla-ablations" or main.empty:
        return runs
    return pd.concat([runs, main[main.variant == "onestep"]], ignore_index=True)


def against_paper(name: str, runs: pd.DataFrame, budget: str) -> tuple[pd.DataFrame, pd.DataFrame, list]:
    """Grid `name`'s runs (with `with_fit_estimates` and `with_unablated`) beside the paper's table, as the chapter and
    the scorecard judge them: the medians over the seeds every cell has (`compare.on_common_seeds`) in a
    `compare.cell_side_by_side` frame, with `report.divergence_reason` at `budget` (e.g. "full protocol"; a table with
    an iid column gives the paper's own fit); also the runs of those seeds and the seeds. No runs: an empty frame."""
    balanced, seeds = compare.on_common_seeds(runs)
    if balanced.empty:
        return pd.DataFrame(), balanced, seeds
    paper = paper_table(PAPER_TABLES[name])
    paper_fit = {(r.variant, r.task): r.paper for r in paper[paper.length == "iid"].itertuples()}  # only Table 6 has
    reason = report.divergence_reason(budget, direction_table(balanced), paper_fit)
    side = compare.cell_side_by_side(paper, compare.median_over_seeds(balanced), reason)
    return side, balanced, seeds


def first_seeds_changes(name: str, runs: pd.DataFrame, side: pd.DataFrame, budget: str,
                        first: int = 3) -> tuple[pd.DataFrame, list]:
    """Did the seeds beyond the first `first` change grid `name`'s verdicts? `compare.verdict_changes` between the
    table judged on its first `first` common seeds alone (as `against_paper` judges it) and `side`, judged on all of
    them; also those first seeds. An empty frame when the table has no more than `first` common seeds."""
    seeds = compare.on_common_seeds(runs)[1]
    if len(seeds) <= first:
        return pd.DataFrame(), seeds
    before = against_paper(name, runs[runs.seed.isin(seeds[:first])], budget)[0]
    return compare.verdict_changes(before, side), seeds[:first]


def trained_longest(task_name: str, train_size: int | None) -> int:
    """The longest training target (in tokens) among the first `train_size` training examples of a task."""
    task = TASKS[task_name]()
    return max(len(target) for _, target in task.examples(task.train_split, train_size))


# The generations of stored configs: each later one added a field that the earlier entries lack.
GENERATIONS = ("first best, rev 1", "latest tie, rev 1", "latest tie, rev 2")


def generation(cfg: dict) -> str:
    """The generation of a stored config (as read from its config.json): without `train.tie` it kept the first best
    dev epoch; without `model.revision` it is model revision 1."""
    if "tie" not in cfg["train"]:
        return GENERATIONS[0]
    return GENERATIONS[1] if "revision" not in cfg["model"] else GENERATIONS[2]


def stored_generations(entries) -> pd.DataFrame:
    """Tidy rows (task, variant, seed, length, metric, value, generation) of stored (config, metrics, meta)
    entries (`ResultStore.entries`) of the full profile, every generation included."""
    frames = [metrics.assign(task=cfg["task"], variant=cfg["model"]["attention"], seed=cfg["seed"],
                             generation=generation(cfg))
              for cfg, metrics, meta in entries if meta.get("profile") == "full"]
    if not frames:
        return pd.DataFrame(columns=[*RUN, "length", "metric", "value", "generation"])
    return pd.concat(frames, ignore_index=True).assign(length=lambda d: d.length.astype(str))


def generation_changes(every: pd.DataFrame, old: str, new: str, splits: tuple[str, ...]) -> tuple[pd.DataFrame, int,
                                                                                                  int]:
    """The runs made under both generations `old` and `new` (of a `stored_generations` frame): one row per run with
    its accuracy at `splits` and the epoch kept under each; and how many of the accuracy cells change band, of how
    many."""
    pairs = every[every.generation == old].merge(every[every.generation == new], on=[*RUN, "length", "metric"],
                                                 suffixes=(f" {old}", f" {new}"))
    acc = pairs[(pairs.metric == ACCURACY) & pairs.length.isin(splits)]
    kept = pairs[pairs.metric == BEST_EPOCH].set_index(RUN)
    rows = [dict(zip(RUN, run, strict=True), splits=" / ".join(run_cells.length),
                 **{f"accuracy, {g}": " / ".join(f"{round(v, 1):g}" for v in run_cells[f"value {g}"])
                    for g in (old, new)},
                 **{"epoch kept": " -> ".join(f"{kept.loc[run, f'value {g}']:.0f}" for g in (old, new))})
            for run, run_cells in acc.groupby(RUN)]
    moved = acc[acc[f"value {old}"].map(band) != acc[f"value {new}"].map(band)]
    table = pd.DataFrame(rows).set_index(RUN) if rows else pd.DataFrame()
    return table, len(moved), len(acc)


def scan_side(runs: pd.DataFrame) -> pd.DataFrame:
    """SCAN's rows: the paper's mean +- std of each mechanism beside our runs' test accuracy
    (`compare.mean_side_by_side`), each mechanism's median best dev exact match as its fit to the training
    distribution (the dev commands are held out of the training split, and on them teacher-forced exact match equals
    greedy exact match: an output is right token by token exactly when greedy decoding reproduces it), and a reason
    per divergence (`scan_reason`); on the seeds that every mechanism has (`compare.on_common_seeds`), as every
    table of the chapter. `runs`: SCAN's collected results (columns variant, seed, length, metric, value)."""
    common = compare.on_common_seeds(runs)[0]
    chosen = common.reindex(columns=["variant", "length", "metric", "value"]).astype({"length": str})
    test = chosen[(chosen.metric == ACCURACY) & (chosen.length == "test")]
    dev = chosen[(chosen.metric == BEST_DEV) & (chosen.length == "train")]
    side = compare.mean_side_by_side(SCAN, test, SCAN_RUNS, fit=dev)
    side["reason"] = [scan_reason(variant, row) for variant, row in side.iterrows()]
    return side


def scan_reason(variant: str, row: pd.Series) -> str:
    """Why a mechanism's SCAN row (of `scan_side`) is not reproduced: its runs did not fit their training
    distribution, or one seed cannot be tested against the paper's five, or the test's p with our seeds; and, for the
    rows whose public code ran unmixed, that ours mixes."""
    if row.verdict.startswith("reproduced") or row.verdict == NOT_RUN:
        return ""
    if row.verdict == NOT_TRAINED:
        return (f"median dev exact match {row['in distribution']:.0f}% < {TRAINED:.0f}%: the runs did not fit their "
                "training split")
    text = (f"one seed: no spread to test against the paper's {SCAN_RUNS} runs" if row.seeds < 2 else
            f"Welch's t-test, {row.seeds} seeds against the paper's {SCAN_RUNS}: p = {row.p:.2g}")
    ran_unmixed = f"{variant.removesuffix('_pr')}_code" in CROSS_ATTENTION
    return text + ("; the paper's row ran unmixed (public code), ours mixes" if ran_unmixed else "")


def task_table(names: tuple[str, ...]) -> pd.DataFrame:
    """One generated training example of each task and its splits with their sizes, indexed by task."""
    rows = []
    for name in names:
        task = TASKS[name]()
        src, tgt = task.examples("train", 1)[0]
        rows.append({"task": name, "source": " ".join(src), "target": " ".join(tgt),
                     "splits": ", ".join(f"{k} ({v.size:,})" for k, v in task.splits.items())})
    return pd.DataFrame(rows).set_index("task")


def scan_constructions(task) -> pd.Series:
    """The construction (and / after / single) of each SCAN test command, indexed by the command's text."""
    return pd.Series({" ".join(src): task.construction(src) for src, _ in task.examples("test")})
