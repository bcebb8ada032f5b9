"""Readings of the monotonic-attention chapter's runs: which way a direction-mixing mechanism reads (gates, their
course over training), each grid's cells beside the paper's, the fit estimated for tasks without an iid split, the
earlier protocols' runs, and SCAN's side by side."""


import pandas as pd

from lengthgen import metrics
from lengthgen.analysis import compare, report
from lengthgen.analysis.compare import RUN, longest_accuracy
from lengthgen.analysis.verdicts import NOT_RUN, NOT_TRAINED, TRAINED, band
from lengthgen.metrics import ACCURACY, BEST_DEV, BEST_EPOCH
from lengthgen.models import CROSS_ATTENTION
from lengthgen.papers.mla.experiments import DIRECTED, PROFILE_SIZES
from lengthgen.papers.mla.paper import SCAN, SCAN_RUNS, TABLE2, TABLE4, TABLE6, TABLE7, paper_table
from lengthgen.results.experiment import Experiment
from lengthgen.results.store import ResultStore
from lengthgen.results.sweep import stored_runs
from lengthgen.tasks import TASKS


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
    rows = runs[runs.task.isin(tasks)]
    accuracy = rows[rows.metric == ACCURACY].set_index([*RUN, "split"]).value
    added = []
    for _, row in rows[(rows.metric == BEST_DEV) & (rows.split == "train")].iterrows():
        task, run = tasks[row.task], (row.task, row.variant, row.seed)
        longer = accuracy.get((*run, task.dev_longer_split))
        if longer is not None and (*run, "iid") not in accuracy.index:
            added.append({**row.to_dict(), "split": "iid", "length": pd.NA, "metric": ACCURACY,
                          "value": task.iid_estimate(row.value, longer, PROFILE_SIZES[row.profile].dev_size)})
    if not added:
        return runs
    return pd.concat([runs, pd.DataFrame(added, columns=runs.columns).astype(runs.dtypes)], ignore_index=True)


def stored(experiment: Experiment, store: ResultStore) -> pd.DataFrame:
    """The stored full-profile runs of one of the chapter's grids (its declared seeds), with `with_fit_estimates`:
    what the chapter judges (the scorecard applies `with_fit_estimates` to the runs of whichever profile it reads)."""
    return with_fit_estimates(stored_runs(experiment, "full", store))


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
    paper_fit = {(r.variant, r.task): r.paper for r in paper[paper.split == "iid"].itertuples()}  # only Table 6 has
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


# The generations of stored configs: each later one added a field that the earlier entries lack.
GENERATIONS = ("first best, rev 1", "latest tie, rev 1", "latest tie, rev 2")


def generation(cfg: dict) -> str:
    """The generation of a stored config (as read from its config.json): without `train.tie` it kept the first best
    dev epoch; without `model.revision` it is model revision 1."""
    if "tie" not in cfg["train"]:
        return GENERATIONS[0]
    return GENERATIONS[1] if "revision" not in cfg["model"] else GENERATIONS[2]


def stored_generations(entries) -> pd.DataFrame:
    """Tidy rows (task, variant, seed, split, length, metric, value, generation) of stored (config, metrics, meta)
    entries (`ResultStore.entries`) of the full profile, every generation included."""
    frames = [metrics.assign(task=cfg["task"], variant=cfg["model"]["attention"], seed=cfg["seed"],
                             generation=generation(cfg))
              for cfg, metrics, meta in entries if meta.get("profile") == "full"]
    if not frames:
        return pd.DataFrame(columns=[*RUN, "split", "length", "metric", "value", "generation"])
    return pd.concat(frames, ignore_index=True)


def generation_changes(every: pd.DataFrame, old: str, new: str, splits: tuple[str, ...]) -> tuple[pd.DataFrame, int,
                                                                                                  int]:
    """The runs made under both generations `old` and `new` (of a `stored_generations` frame): one row per run with
    its accuracy at `splits` and the epoch kept under each; and how many of the accuracy cells change band, of how
    many."""
    pairs = every[every.generation == old].merge(every[every.generation == new], on=[*RUN, "split", "length", "metric"],
                                                 suffixes=(f" {old}", f" {new}"))
    acc = pairs[(pairs.metric == ACCURACY) & pairs.split.isin(splits)]
    kept = pairs[pairs.metric == BEST_EPOCH].set_index(RUN)
    rows = [dict(zip(RUN, run, strict=True), splits=" / ".join(run_cells.split),
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
    table of the chapter. `runs`: SCAN's collected results (columns variant, seed, split, metric, value)."""
    common = compare.on_common_seeds(runs)[0]
    chosen = common.reindex(columns=["variant", "split", "metric", "value"])
    test = chosen[(chosen.metric == ACCURACY) & (chosen.split == "test")]
    dev = chosen[(chosen.metric == BEST_DEV) & (chosen.split == "train")]
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
