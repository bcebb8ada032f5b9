"""Run an experiment's configs through the store: only missing/corrupt entries are computed.

Execution goes through a tiny `Executor` interface (`map(fn, items)` yielding results as they finish), so a
distributed backend can replace the local one without touching sweep logic.
"""

import concurrent.futures as cf
import multiprocessing
import os
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import Protocol

import pandas as pd
import torch
from tqdm.auto import tqdm

from lengthgen.results.provenance import provenance
from lengthgen.results.store import ResultStore, RunOutput
from lengthgen.snapshots import resumable

PROVENANCE_COLUMNS = ("profile", "git_commit", "lengthgen_version", "torch_version", "device", "date", "wall_seconds")


class Executor(Protocol):
    def map(self, fn: Callable, items: Iterable) -> Iterator: ...


class LocalExecutor:
    """Runs jobs in this process (jobs=1) or in `jobs` spawned worker processes sharing the CPU threads."""

    def __init__(self, jobs: int = 1):
        if jobs < 1:
            raise ValueError(f"jobs must be >= 1, got {jobs}")
        self.jobs = jobs

    def map(self, fn: Callable, items: Iterable) -> Iterator:
        items = list(items)
        if self.jobs == 1 or len(items) <= 1:
            yield from map(fn, items)
            return
        threads = max(1, (os.cpu_count() or 1) // self.jobs)
        ctx = multiprocessing.get_context("spawn")
        with cf.ProcessPoolExecutor(self.jobs, mp_context=ctx, initializer=torch.set_num_threads,
                                    initargs=(threads,)) as pool:
            futures = [pool.submit(fn, item) for item in items]
            for fut in cf.as_completed(futures):
                yield fut.result()


def run_and_store(experiment_name: str, run: Callable, root: str, profile: str, cfg) -> str:
    """Compute one config with `run` (the experiment's run function) and write its entry under the experiment's
    name (executed in a worker: every argument is picklable, `run` being a module-level function). Its trainings keep
    snapshots (`lengthgen.snapshots`), so that a run interrupted resumes where it stopped when run again; `wall_seconds`
    is the run's time over every process that worked on it (to each one's last snapshot), and `resumed` lists the
    trainings taken up again (call, step, the commit that began them). A config that another live process is
    computing (its `ResultStore.running` marker) is left to it, and one that another process has stored since the
    sweep listed it is not computed again: "" is returned, nothing written."""
    store = ResultStore(root)
    meta = provenance()  # the code and machine as the run starts
    folder = store.snapshots(experiment_name, cfg)
    with store.running(experiment_name, cfg) as mine:
        if not mine or store.status(experiment_name, cfg) == "complete":  # stored under another's claim, now released
            return ""
        with resumable(folder, commit=meta["git_commit"]) as snaps:
            out = run(cfg)
    out = out if isinstance(out, RunOutput) else RunOutput(out)
    meta |= {"profile": profile, "wall_seconds": round(snaps.seconds(), 2)} | (
        {"resumed": snaps.resumed} if snaps.resumed else {})
    saved = str(store.save(experiment_name, cfg, out.metrics, meta, checkpoint=out.checkpoint, history=out.history))
    shutil.rmtree(folder, ignore_errors=True)
    return saved


def sweep(experiment, configs: list, store: ResultStore, profile: str, executor: Executor | None = None,
          progress: bool = True) -> pd.DataFrame:
    """Compute every config not yet complete in `store`, then return all of them as one tidy DataFrame."""
    return sweep_all([(experiment, configs)], store, profile, executor, progress)[0]


def sweep_all(plan: list[tuple], store: ResultStore, profile: str, executor: Executor | None = None,
              progress: bool = True) -> list[pd.DataFrame]:
    """`sweep` over several (experiment, configs) pairs in one pass of the executor, in the order given: one pool
    of workers for all, so none waits idle at the end of one experiment while the other finishes its last run.
    Returns the tidy runs of each pair, in the plan's order; a config that another live process is computing is left
    to it (`run_and_store`) and missing from them, so two sweeps of one grid share its runs."""
    items = list(dict.fromkeys((exp.name, c) for exp, configs in plan for c in configs))  # listed twice: run once
    runs = {exp.name: exp.run for exp, _ in plan}
    todo = [(name, runs[name], c) for name, c in items if store.status(name, c) != "complete"]
    names = ", ".join(dict.fromkeys(name for name, _ in items))
    bar = tqdm(total=len(todo), desc=f"{names} ({len(items) - len(todo)} stored)", disable=not progress or not todo)
    elsewhere = 0
    for saved in (executor or LocalExecutor()).map(partial(_run_item, str(store.root.resolve()), profile), todo):
        elsewhere += not saved
        bar.update()
    bar.close()
    if elsewhere:
        print(f"{elsewhere} run(s) left to the other processes computing them (`lengthgen results` shows them in "
              "flight)", file=sys.stderr)
    return [collect(exp, configs, store, skip_missing=bool(elsewhere)) for exp, configs in plan]


def _run_item(root: str, profile: str, item: tuple) -> str:
    experiment_name, run, cfg = item
    return run_and_store(experiment_name, run, root, profile, cfg)


def collect_history(experiment, configs: list, store: ResultStore) -> pd.DataFrame:
    """Per-epoch training histories of the stored configs that kept one, with task, variant and seed columns."""
    frames = [history.assign(**experiment.labels(cfg))
              for cfg in configs if store.status(experiment.name, cfg) == "complete"
              and (history := store.load_history(experiment.name, cfg)) is not None]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def estimated_seconds(runs: pd.DataFrame, missing: list[tuple[str, str, float]]) -> tuple[float, int]:
    """The time of the missing runs, (task, size, work) each (`Experiment.cost`; work: training steps, or 1), each its
    work times the median wall time per unit of work of the stored `runs` (one row per run: task, size, wall_seconds,
    work) of its task at its size, else of its task, else of all of them: (seconds, how many runs fell back to all).
    NaN seconds with no stored run."""
    pace = runs.wall_seconds / runs.work
    by_size = pace.groupby([runs.task, runs["size"]]).median()
    by_task = pace.groupby(runs.task).median()
    fallback = sum(task not in by_task.index for task, _, _ in missing)
    if runs.empty:
        return float("nan"), fallback
    overall = pace.median()
    seconds = sum(work * by_size.get((task, size), by_task.get(task, overall)) for task, size, work in missing)
    return float(seconds), fallback


def stored_runs(experiment, profile: str, store: ResultStore) -> pd.DataFrame:
    """`collect` of the runs of a profile's grid (its declared seeds) that are stored; none stored: an empty frame."""
    return collect(experiment, experiment.configs_for(profile), store, skip_missing=True)


def all_stored(experiment, profile: str, runs: pd.DataFrame) -> bool:
    """Whether `runs` (`stored_runs` of the experiment at `profile`) hold every run that the profile's grid declares."""
    return not runs.empty and runs.key.nunique() == len(experiment.configs_for(profile))


def collect(experiment, configs: list, store: ResultStore, skip_missing: bool = False) -> pd.DataFrame:
    """Tidy rows of stored configs: experiment, task, model, variant, seed, split, length, metric, value,
    provenance (`split` and `length` as `ResultStore.load` returns them)."""
    first = ["experiment", "task", "model", "variant", "seed", "split", "length", "metric", "value"]
    frames = []
    for cfg in configs:
        if skip_missing and store.status(experiment.name, cfg) == "missing":
            continue
        metrics, meta = store.load(experiment.name, cfg)
        labels = {"experiment": experiment.name, **experiment.labels(cfg)}
        prov = {c: meta.get(c) for c in PROVENANCE_COLUMNS}
        frames.append(metrics.assign(**labels, **prov, key=Path(store.path(experiment.name, cfg)).name))
    if not frames:  # typed as stored rows are, so concatenating it with them keeps `seed`, `length`, `value` numeric
        return pd.DataFrame(columns=first).astype({"seed": "int64", "split": "str", "length": "int64",
                                                   "value": "float64"})
    df = pd.concat(frames, ignore_index=True)
    return df[first + [c for c in df.columns if c not in first]]
