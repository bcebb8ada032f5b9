"""Command line: `lengthgen list | data | run | results | merge | leaderboard | scorecard | book | lab | bench`."""

import argparse
import dataclasses
import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from lengthgen.config import config_key
from lengthgen.errors import LengthgenError
from lengthgen.export import DATA_FORMATS, example_lines
from lengthgen.metrics import ACCURACY, PERPLEXITY
from lengthgen.models import CROSS_ATTENTION, MODELS
from lengthgen.papers import CHAPTER, EXPERIMENTS, PROFILES
from lengthgen.results.experiment import PROFILE_HELP
from lengthgen.results.store import ResultStore, unpacked
from lengthgen.results.sweep import LocalExecutor, collect, estimated_seconds, sweep
from lengthgen.seeding import parse_seeds, seeds_text
from lengthgen.tasks import TASKS


def cmd_list(args) -> None:
    catalog = {
        "tasks": {name: (TASKS[name].__doc__ or "").strip().splitlines()[0] for name in TASKS},
        "models": {name: (MODELS[name].build.__doc__ or "").strip().splitlines()[0] for name in MODELS},
        "cross-attention mechanisms (gru_seq2seq)": {
            name: ", ".join(k if v == "yes" else f"{k}={v}" for k, v in spec.describe().items() if v)
            for name, spec in CROSS_ATTENTION.items()},
        "experiments": {name: {"chapter": CHAPTER[name], "profiles": list(e.profiles), "description": e.description}
                        for name, e in EXPERIMENTS.items()},
        "profiles": PROFILE_HELP,
    }
    if args.json:
        print(json.dumps(catalog, indent=1))
        return
    for section, entries in catalog.items():
        print(f"{section}:")
        width = max(map(len, entries))
        for name, info in entries.items():
            if isinstance(info, dict):
                info = f"[chapter {info['chapter']}; profiles {', '.join(info['profiles'])}] {info['description']}"
            print(f"  {name:{width}s}  {info}")


def cmd_data(args) -> None:
    lines, what = example_lines(args.task, args.split, args.n, args.format, args.data_seed, args.cfq_root)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text("".join(line + "\n" for line in lines))
        print(f"wrote {len(lines)} {what} to {args.out}", file=sys.stderr)
    else:
        print("\n".join(lines))


SUMMARY_LABELS = ("task", "setting", "variant", "depth", "budget", "lm", "metric")  # the rows of `summary`, where
# the runs have them: a chain depth or a training budget is part of what a run is, never averaged over


def summary(df: pd.DataFrame) -> str:
    """Mean over seeds of each (task, variant, metric; and depth, budget, language model where the runs are labelled
    with them) by split ("iid", "15"; columns in the order the splits first appear), with the number of seeds:
    accuracies, or the perplexities of language models (then per model of a run, `lm`)."""
    acc = df[df.metric.str.startswith(ACCURACY) | (df.metric == PERPLEXITY)]
    if acc.empty:
        return "(no accuracy or perplexity results)"
    index = [c for c in SUMMARY_LABELS if c in acc.columns]
    acc = acc.assign(**{c: acc[c].astype(object).fillna("") for c in index if acc[c].isna().any()})  # kept, not dropped
    table = acc.pivot_table(index=index, columns="split", values="value", aggfunc="mean")
    table = table[list(dict.fromkeys(acc.split))]  # in the order they were evaluated, not sorted as text
    seeds = acc.groupby(index).seed.nunique().rename("seeds")
    return table.round(1).join(seeds).to_string()


def _write_out(df: pd.DataFrame, out: str | None) -> None:
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        df.to_csv(out, index=False)
        print(f"wrote {len(df)} rows to {out}")


def _stored(folder: str) -> ResultStore:
    """The store of an existing results folder (a command that only reads results must not create one)."""
    if not Path(folder).is_dir():
        raise LengthgenError(f"no results folder at {folder!r}")
    return ResultStore(folder)


def _configs(experiment, args) -> list:
    """The configs chosen on the command line: profile, seeds, and the --task/--variant filters."""
    configs = experiment.configs_named(args.profile, parse_seeds(args.seeds) if args.seeds else None, args.variant)
    return experiment.select(configs, task=args.task, variant=args.variant)


def with_progress(configs: list) -> list:
    """The configs with their in-run progress bars (epochs, loss, dev score) on: `progress` is left out of the key,
    so the runs and their stored results are the same."""
    return [dataclasses.replace(c, progress=True) if "progress" in {f.name for f in dataclasses.fields(c)} else c
            for c in configs]


def cmd_run(args) -> None:
    experiment = EXPERIMENTS[args.experiment]
    configs = _configs(experiment, args)
    declared = {experiment.labels(c)["seed"] for c in experiment.configs_for(args.profile)}
    undeclared = {experiment.labels(c)["seed"] for c in configs} - declared
    if undeclared:
        print(f"note: {seeds_text(undeclared)} not among the {args.profile} profile's declared {seeds_text(declared)}"
              f": stored, but left out of every grid, median and verdict", file=sys.stderr)
    if args.executor == "dask":
        if not args.address:
            raise LengthgenError("--executor dask needs --address, the scheduler's (e.g. tcp://10.0.0.5:8786)")
        from lengthgen.results.distributed import DaskExecutor

        executor = DaskExecutor(args.address, threads=args.threads or 1)
    else:
        if args.jobs == 1:  # worker processes would interleave their bars
            configs = with_progress(configs)
        _set_threads(args.threads)
        executor = LocalExecutor(args.jobs)
    df = sweep(experiment, configs, ResultStore(args.results), args.profile, executor)
    print(summary(df))
    _write_out(df, args.out)


def cmd_results(args) -> None:
    if args.experiment is None:
        return grid_status(args)
    experiment = EXPERIMENTS[args.experiment]
    args.profile = args.profile or experiment.stored_profile
    configs = _configs(experiment, args)
    store = _stored(args.results)
    df = collect(experiment, configs, store, skip_missing=True)
    missing = [c for c in configs if store.status(experiment.name, c) == "missing"]
    print(summary(df))
    print(f"{len(configs) - len(missing)} of {len(configs)} {args.profile} runs stored in {args.results}")
    if missing:
        costs = [experiment.cost(c) for c in missing]
        per = "run" if experiment.steps is None else "training step"
        from lengthgen.scorecard import declared_runs, estimate_basis, stored_walls

        own = declared_runs(experiment, args.profile, stored_walls(store, experiment.name))[1]
        borrowed = {task for task, _, _ in costs} - set(own.task)  # tasks timed from the chapter's other grids
        where = " in the chapter's grids" if own.empty else (
            " (of a task with none here, in the chapter's grids)" if borrowed else "")
        estimate = remaining_time(estimate_basis(store, experiment, args.profile, own), costs, per, where)
        print(f"missing{estimate}:\n" + "\n".join(missing_runs(experiment, missing)))
        flying = in_flight(experiment, missing, store.in_flight(experiment.name))
        if flying:
            print("in flight (of the missing runs):\n" + "\n".join(flying))
    _write_out(df, args.out)


def grid_status(args) -> None:
    """`lengthgen results` without an experiment: how far every stored grid is (`scorecard.grids`)."""
    from lengthgen.scorecard import grids

    chosen = [f"--{option}" for option in ("seeds", "task", "variant") if getattr(args, option)]
    if chosen:
        raise LengthgenError(f"{', '.join(chosen)} needs an experiment; valid: {', '.join(EXPERIMENTS)}")
    table = grids(_stored(args.results), args.profile)
    print(table.to_string(index=False, float_format="{:.1f}".format))
    unknown = table["hours to go"].isna().sum()
    print(f"{(table.complete == 'yes').sum()} of {len(table)} grids complete; {table.stored.sum():,} of "
          f"{table.declared.sum():,} declared runs stored in {args.results}; about {table['hours to go'].sum():.0f} "
          "CPU-thread hours to go" + (f" (not counting {unknown} grid{'s' if unknown > 1 else ''} with no stored "
                                      "run to estimate from)" if unknown else ""))
    _write_out(table, args.out)


def in_flight(experiment, missing: list, markers: dict[str, dict], now: datetime | None = None) -> list[str]:
    """One line per missing config that a marker says is being computed (`ResultStore.in_flight`): its labels, how
    long since it started, where; "interrupted" where its process on this host is gone (it runs again at the next
    `lengthgen run`)."""
    now = now or datetime.now(UTC)
    lines = []
    for cfg in missing:
        info = markers.get(config_key(cfg))
        if info is None:
            continue
        labels = " ".join(f"{k}={v}" for k, v in experiment.labels(cfg).items())
        minutes = (now - datetime.fromisoformat(info["started"])).total_seconds() / 60
        state = "running" if info["alive"] else "interrupted"
        lines.append(f"  {labels}: {state}, started {minutes:.0f} min ago (pid {info['pid']} on {info['host']})")
    return lines


def remaining_time(stored: pd.DataFrame, missing: list[tuple[str, str, float]], per: str = "run",
                   where: str = "") -> str:
    """An estimate of the time of the missing runs, (task, size, work) each (`Experiment.cost`), at the median wall
    time per `per` ("run", or "training step" where work counts the steps) of the `stored` runs (rows with key, task,
    size, wall_seconds, work; tidy rows repeat a run) of its task at its size, else of its task, else of all stored
    runs; `where` says where those runs come from; only the count when none is stored."""
    count = f"{len(missing)} run{'s' if len(missing) != 1 else ''}"
    if stored.empty:
        return f" ({count}; no stored run to estimate their time from)"
    runs = stored.drop_duplicates("key")
    seconds, fallback = estimated_seconds(runs, missing)
    sized = " (at their model's size where one is stored)" if any(size for _, size, _ in missing) else ""
    text = (f" ({count}, about {seconds / 3600:.1f} h at the median wall time per {per} of the stored runs "
            f"of their task{sized}{where}")
    if fallback:
        text += f"; {fallback} with no stored run of their task at that of all {len(runs)} stored runs"
    return text + ")"


def missing_runs(experiment, configs: list, most: int = 40) -> list[str]:
    """One line per cell (labels other than the seed) naming its seeds, at most `most` lines."""
    cells: dict[str, list] = {}
    for cfg in configs:
        labels = experiment.labels(cfg)
        cell = " ".join(f"{k}={v}" for k, v in labels.items() if k != "seed")
        cells.setdefault(cell, []).append(labels["seed"])
    lines = [f"  {cell}: {seeds_text(seeds)}" for cell, seeds in cells.items()]
    return lines if len(lines) <= most else [*lines[:most], f"  ... and {len(lines) - most} more cells"]


def seed_of(config: dict) -> int | None:
    """A stored config's seed: its own `seed`, or that of the config it nests (e.g. a factor run's `arithmetic`)."""
    if "seed" in config:
        return config["seed"]
    return next((seed_of(v) for v in config.values() if isinstance(v, dict) and seed_of(v) is not None), None)


def cmd_merge(args) -> None:
    """Copy the complete runs of another results folder (or a tar archive of one) that this one lacks
    (`ResultStore.merge`), per experiment."""
    with unpacked(args.source, EXPERIMENTS) as folder:
        source = _stored(folder)
        if Path(args.results).resolve() == source.root.resolve():
            raise LengthgenError(f"the source {args.source!r} is the results folder itself: nothing to merge")
        found = sorted(p.name for p in source.root.iterdir() if p.is_dir() and not p.name.startswith("."))
        names = args.experiment.split(",") if args.experiment else found
        unknown = [n for n in names if n not in EXPERIMENTS]
        if unknown:
            raise LengthgenError(f"unknown experiment {', '.join(map(repr, unknown))} (in {args.source!r}); nothing "
                                 f"merged; valid: {', '.join(EXPERIMENTS)}")
        store = ResultStore(args.results)
        for name in names:
            outcome = store.merge(source, name)
            print(f"{name}: " + ", ".join(f"{len(keys)} {what}" for what, keys in outcome.items()))
            for key in outcome["copied"]:
                meta = json.loads((store.root / name / key / "meta.json").read_text())
                seed = seed_of(json.loads((store.root / name / key / "config.json").read_text()))
                wall = f"{meta['wall_seconds']:,.0f} s" if "wall_seconds" in meta else "wall time not recorded"
                print(f"  {key}  seed {seed}  {wall}  commit {str(meta.get('git_commit'))[:7]}")
            for key in outcome["corrupt in the source"]:
                print(f"  not copied, corrupt in the source: {name}/{key}")


def cmd_leaderboard(args) -> None:
    from lengthgen.leaderboard.grid import LEADERBOARD_PROFILES, MECHANISMS, complete_cells, scored
    from lengthgen.leaderboard.reading import cost_words

    experiment = EXPERIMENTS["leaderboard"]
    profile = args.profile or experiment.stored_profile
    named = experiment.configs_named(profile, None, args.mechanism or ",".join(MECHANISMS))  # rows added by readers
    sizes = LEADERBOARD_PROFILES[profile]
    if args.mechanism and (idle := [m for m in args.mechanism.split(",") if all(c.mechanism != m for c in named)]):
        raise LengthgenError(f"{', '.join(idle)} runs on no task of the leaderboard at {profile} (its tasks: "
                             f"{', '.join(sizes.tasks)})")
    configs = experiment.select(named, task=args.task, variant=args.mechanism)
    stored = collect(experiment, configs, _stored(args.results), skip_missing=True)
    if stored.empty:
        which = " of " + " on ".join(filter(None, (args.mechanism, args.task))) if args.mechanism or args.task else ""
        raise LengthgenError(f"no leaderboard run{which} at {profile} is stored in {args.results}; run them with "
                             f"`lengthgen run leaderboard --profile {profile}"
                             f"{f' --variant {args.mechanism}' if args.mechanism else ''}"
                             f"{f' --task {args.task}' if args.task else ''}`")
    seeds = sizes.seeds
    runs = complete_cells(stored, seeds)  # a cell is read whole: all of the profile's seeds
    held = stored.key.nunique() - (runs.key.nunique() if not runs.empty else 0)
    if held:
        print(f"{held} stored run(s) of cells without all {len(seeds)} seeds are held back", file=sys.stderr)
    if runs.empty:
        raise LengthgenError(f"no cell of the leaderboard at {profile} holds all its seeds {seeds} yet")
    table = scored(runs)
    table = table.rename(columns={"variant": "mechanism"})
    if args.out:
        _write_out(table, args.out)
        return
    print(table.round(1).to_string(index=False))
    print("\n" + cost_words(runs))


def cmd_scorecard(args) -> None:
    from lengthgen import scorecard

    stored = _stored(args.results)
    live = _stored(args.live) if args.live else None
    card, grids = scorecard.scorecard(stored, live, live_profile=args.profile), scorecard.grids(stored)
    if args.json:
        counts = scorecard.totals(card).reset_index() if not card.empty else pd.DataFrame()
        rows = card.astype(object).where(card.notna(), None)  # JSON has null, not NaN
        print(json.dumps({"totals": counts.to_dict("records"), "grids": grids.to_dict("records"),
                          "rows": rows.to_dict("records")}, indent=1))
    else:
        where = f"`{args.results}`" + (f" and the live {args.profile} runs in `{args.live}`" if args.live else "")
        print(scorecard.page(card, where, grids))


def cmd_book(args) -> None:
    from lengthgen.book import build_book

    build_book(profile=args.profile, chapter=args.chapter)


def cmd_lab(args) -> None:
    from lengthgen.lab import serve

    if args.port is not None and not 1 <= args.port <= 65535:
        raise LengthgenError(f"--port must be a TCP port, 1..65535, got {args.port}")
    if serve(args.port):
        raise LengthgenError("JupyterLab stopped with an error (see its messages above)")


def _set_threads(threads: int | None) -> None:
    """torch's threads in this process, where given."""
    if threads:
        import torch

        torch.set_num_threads(threads)


def cmd_bench(args) -> None:
    from lengthgen.bench import bench

    _set_threads(args.threads)
    print(bench(args.suite, train_steps=args.steps).to_string(index=False))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lengthgen", description="Length generalization, reproduced and extended.")
    sub = p.add_subparsers(dest="command", required=True)

    s = sub.add_parser("list", help="tasks, models, experiments (with chapters and profiles)")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.set_defaults(fn=cmd_list)

    s = sub.add_parser("data", help="print or write the examples of a task's split")
    s.add_argument("task", help="a sequence task, e.g. copy, recopy, lookup, scan, cfq, sparse_parity")
    s.add_argument("--split", default="train",
                   help="split name (default train; `lengthgen list` shows tasks); for sparse_parity, "
                        "scratchpad_parity, variable_assignment, corpus: a length")
    s.add_argument("--n", type=int, help="number of examples (default: the whole split)")
    s.add_argument("--format", choices=DATA_FORMATS, default="txt",
                   help="txt: source<TAB>target; jsonl; scan: the official 'IN: ... OUT: ...' lines")
    s.add_argument("--data-seed", type=int, default=0, help="seed of the generated data (default 0)")
    s.add_argument("--cfq-root", help="folder with the official CFQ release (for task cfq)")
    s.add_argument("--out", help="write to this file instead of printing")
    s.set_defaults(fn=cmd_data)

    for name, fn, text in (("run", cmd_run, "train and evaluate through the results store"),
                           ("results", cmd_results, "stored runs, the missing ones and those in flight (no training)")):
        s = sub.add_parser(name, help=text)
        if name == "run":
            s.add_argument("experiment", help=f"one of: {', '.join(EXPERIMENTS)}")
        else:
            s.add_argument("experiment", nargs="?", help=f"one of: {', '.join(EXPERIMENTS)} (default: how far every "
                           "stored grid is)")
        s.add_argument("--profile", choices=PROFILES, default="quick" if name == "run" else None,
                       help="default: quick for run; for results, the experiment's stored profile (cpu or full)")
        s.add_argument("--seeds", help="e.g. 0-4 or 1,3,7 (default: the profile's seeds)")
        s.add_argument("--task", help="only these tasks, comma-separated (e.g. copy,recopy; default all)")
        s.add_argument("--variant", help="only these variants (for mla-*: mechanisms, e.g. onestep,mono; for "
                       "leaderboard: any registered mechanism, one the profile does not list as a new row; "
                       "default all)")
        s.add_argument("--results", default="results", help="results store folder (default: results)")
        s.add_argument("--out", help="write the tidy results (one row per measurement) to this CSV")
        if name == "run":
            s.add_argument("--jobs", type=int, default=1, help="parallel worker processes (default 1)")
            s.add_argument("--threads", type=int,
                           help="torch threads in this process (default: torch's); with dask, per job (default 1)")
            s.add_argument("--executor", choices=("local", "dask"), default="local",
                           help="local: this machine (--jobs processes); dask: the workers of a Dask scheduler "
                                "(--address; the [dist] extra; the results folder on a filesystem they share)")
            s.add_argument("--address", help="with --executor dask: the scheduler, e.g. tcp://10.0.0.5:8786")
        s.set_defaults(fn=fn)

    s = sub.add_parser("merge", help="copy the finished runs of another results folder (e.g. from another "
                                     "machine) that this one lacks")
    s.add_argument("source", help="the results folder to copy from, or a tar archive of one (.tar, .tgz, ...)")
    s.add_argument("--experiment", help="only these experiments, comma-separated (default: every one in source)")
    s.add_argument("--results", default="results", help="the results folder to copy into (default: results)")
    s.set_defaults(fn=cmd_merge)

    s = sub.add_parser("leaderboard", help="every mechanism on every task: the stored runs scored and ranked by the "
                                           "leaderboard's protocol (no training), then the CPU-thread hours of each "
                                           "row")
    s.add_argument("--profile", help=f"one of: {', '.join(EXPERIMENTS['leaderboard'].profiles)} (default: the "
                                     "leaderboard's stored profile)")
    s.add_argument("--task", help="only these tasks, comma-separated (default all)")
    s.add_argument("--mechanism", help="only these mechanisms, comma-separated (default all); the ranks are then "
                                       "among these")
    s.add_argument("--results", default="results", help="results store folder (default: results)")
    s.add_argument("--out", help="write the table to this CSV instead of printing it")
    s.set_defaults(fn=cmd_leaderboard)

    s = sub.add_parser("scorecard", help="every paper number the book reproduces: paper, ours, verdict (Markdown)")
    s.add_argument("--results", default="results", help="stored results folder (default: results)")
    s.add_argument("--live", help="also the live runs of a book build in this folder (e.g. _build/results)")
    s.add_argument("--profile", choices=PROFILES, default="quick", help="the profile of the live runs (default quick)")
    s.add_argument("--json", action="store_true", help="machine-readable output: totals and rows")
    s.set_defaults(fn=cmd_scorecard)

    s = sub.add_parser("book", help="execute the chapter notebooks with papermill, then build the HTML book")
    s.add_argument("--chapter", help="only this chapter (default: all)")
    s.add_argument("--profile", choices=PROFILES, default="quick")
    s.set_defaults(fn=cmd_book)

    s = sub.add_parser("lab", help="open the chapters live in JupyterLab (loopback only; prints the URL)")
    s.add_argument("--port", type=int, help="port on 127.0.0.1 (default: a free one)")
    s.set_defaults(fn=cmd_lab)

    s = sub.add_parser("bench", help="training and evaluation throughput on this machine")
    s.add_argument("--suite", choices=("all", "vv", "mla", "transformer", "compile", "arithmetic", "dropout",
                                       "ensemble"),
                   default="all", help="vv: attention probe; mla: GRU seq2seq per mechanism; transformer: our decoder "
                   "vs torch's layers, cached generation; compile: training eager vs torch.compile (fixed and drawn "
                   "lengths); arithmetic: decoding vs the machine's matmul limit; dropout: a training step by how "
                   "dropout draws its masks; ensemble: the most that training 5 seeds as one batched model could gain "
                   "(default all)")
    s.add_argument("--steps", type=int, default=200, help="vv: training steps timed per task")
    s.add_argument("--threads", type=int, help="torch threads (default: torch's; with another process busy, 1 - "
                                               "two threads then wait on each other)")
    s.set_defaults(fn=cmd_bench)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        for option in ("jobs", "threads"):
            if getattr(args, option, None) is not None and getattr(args, option) < 1:
                raise LengthgenError(f"--{option} must be >= 1, got {getattr(args, option)}")
        args.fn(args)
    except LengthgenError as exc:
        print(f"lengthgen: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader stopped early (`lengthgen list | head`): end quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the final flush does not fail again
    return 0


if __name__ == "__main__":
    sys.exit(main())
