"""Numbers reported in "On Vanishing Variance in Transformer Length Generalization" (Li, Boduljak, Zhou),
as data for side-by-side tables. Accuracies in %, at N = 2^4 ... 2^14, means over 100 seeds."""

import pandas as pd

from lengthgen.analysis.compare import paired_side_by_side
from lengthgen.analysis.stats import paired_comparison
from lengthgen.analysis.verdicts import gain_verdict
from lengthgen.metrics import ACCURACY, ACCURACY_ADAPTIVE
from lengthgen.seeding import seeds_text

LENGTHS = [2**k for k in range(4, 15)]
SEEDS = 100  # the seeds behind each mean and paired t-test ("averaged over 100 runs", Tables 1, 2, 4, 5)

# (table, task, row) -> 11 values; p-values compare the row pair above them (paired t-test).
_ROWS = {
    ("1", "argmax", "baseline"): [99.6, 99.2, 98.4, 96.8, 93.7, 88.0, 78.0, 62.5, 44.2, 29.7, 20.8],
    ("1", "argmax", "ln"): [99.6, 99.3, 98.6, 97.4, 94.8, 89.8, 81.0, 66.9, 49.2, 33.0, 22.6],
    ("1", "argmax", "p ln vs baseline"): [8e-1, 4e-2, 4e-2, 2e-2, 4e-5, 2e-4, 1e-4, 2e-5, 2e-6, 4e-5, 3e-3],
    ("1", "argmax", "baseline adaptive"): [99.6, 99.2, 98.5, 96.9, 94.1, 89.1, 81.2, 69.1, 54.2, 39.0, 27.1],
    ("1", "argmax", "ln adaptive"): [99.7, 99.4, 98.7, 97.5, 95.1, 91.0, 84.0, 73.6, 58.9, 43.1, 30.4],
    ("1", "argmax", "p ln vs baseline, adaptive"): [7e-1, 5e-4, 1e-2, 5e-5, 4e-4, 5e-5, 1e-4, 2e-5, 8e-5, 4e-4, 7e-4],
    ("2", "dictionary", "baseline"): [99.3, 98.6, 97.3, 94.7, 89.5, 80.4, 67.6, 52.9, 38.7, 26.5, 17.8],
    ("2", "dictionary", "ln"): [99.4, 98.8, 97.6, 95.3, 90.7, 82.9, 71.7, 57.7, 44.1, 32.3, 22.4],
    ("2", "dictionary", "p ln vs baseline"): [6e-2, 1e-2, 5e-2, 2e-3, 2e-4, 3e-8, 1e-11, 2e-12, 7e-15, 3e-21, 2e-19],
    ("2", "dictionary", "baseline adaptive"): [99.3, 98.6, 97.2, 94.5, 89.3, 80.4, 67.8, 52.6, 38.6, 27.3, 20.8],
    ("2", "dictionary", "ln adaptive"): [99.4, 98.8, 97.6, 95.4, 90.6, 82.9, 71.7, 57.8, 44.5, 33.4, 27.7],
    ("2", "dictionary", "p ln vs baseline, adaptive"): [6e-1, 5e-2, 3e-2, 1e-4, 3e-4, 1e-5, 8e-9, 6e-12, 2e-16, 9e-20,
                                                        1e-21],
    ("3", "argmax", "delta std"): [-0.05, 0.00, 0.09, 0.26, 0.60, 0.84, 1.62, 2.26, 3.05, 1.80, 0.70],
    ("3", "argmax", "delta ln"): [0.01, 0.11, 0.21, 0.57, 1.15, 1.81, 2.98, 4.32, 4.99, 3.30, 1.76],
    ("3", "argmax", "p ln vs std"): [2e-3, 7e-4, 1e-2, 5e-4, 3e-4, 3e-4, 7e-4, 2e-4, 3e-4, 1e-3, 5e-3],
    # Table 6 prints two unlabeled delta rows; by analogy with Table 3 we read them as +std, then +LN.
    ("6", "dictionary", "delta std"): [0.09, 0.14, 0.23, 0.54, 1.08, 2.27, 3.49, 4.78, 5.14, 5.65, 4.57],
    ("6", "dictionary", "delta ln"): [0.09, 0.20, 0.30, 0.64, 1.22, 2.55, 4.06, 4.86, 5.38, 5.72, 4.51],
    ("6", "dictionary", "p ln vs std"): [1.0, 0.3, 0.6, 0.6, 0.6, 0.5, 0.3, 0.9, 0.6, 0.9, 0.9],
    # Appendix B.2: training on up to 256 items with a length curriculum.
    ("4", "argmax", "baseline"): [99.8, 99.8, 99.6, 99.3, 98.5, 97.1, 94.4, 89.1, 79.9, 65.8, 47.8],
    ("4", "argmax", "ln"): [99.9, 99.9, 99.8, 99.5, 99.1, 98.1, 96.2, 92.8, 86.3, 75.1, 58.7],
    ("4", "argmax", "p ln vs baseline"): [1e-8, 6e-6, 1e-4, 2e-4, 9e-8, 5e-8, 3e-8, 5e-10, 1e-11, 3e-12, 1e-13],
    ("5", "dictionary", "baseline"): [99.9, 99.9, 99.8, 99.7, 99.5, 99.1, 98.3, 96.5, 93.5, 87.7, 77.8],
    ("5", "dictionary", "ln"): [99.9, 99.9, 99.9, 99.8, 99.6, 99.3, 98.7, 97.5, 95.0, 90.4, 82.6],
    ("5", "dictionary", "p ln vs baseline"): [2e-1, 1e-2, 5e-2, 2e-3, 3e-3, 6e-5, 4e-7, 8e-9, 2e-10, 2e-10, 2e-13],
}


def wide_table(table: str) -> pd.DataFrame:
    """One of the paper's tables ("1".."6") as rows x N."""
    rows = {row: values for (t, _task, row), values in _ROWS.items() if t == table}
    if not rows:
        raise KeyError(f"no table {table!r}; valid: {sorted({t for t, _, _ in _ROWS})}")
    return pd.DataFrame(rows, index=LENGTHS).T.rename_axis(columns="N")


def paper_long() -> pd.DataFrame:
    """All reported numbers as tidy rows: table, task, row, length, value."""
    return pd.DataFrame([{"table": t, "task": task, "row": row, "length": n, "value": v}
                         for (t, task, row), values in _ROWS.items() for n, v in zip(LENGTHS, values, strict=True)])


def paired_table(stored: pd.DataFrame, task: str, table: str, a: str, b: str, paper_a: str, paper_b: str, paper_p: str,
           metric: str = ACCURACY, relative_to: str | None = None) -> pd.DataFrame:
    """Paper vs ours for one comparison: our paired comparison of variant b against a on `task` (`metric`) beside the
    paper's rows `paper_a`, `paper_b` and `paper_p` of `table`, with a verdict per N
    (`compare.paired_side_by_side`). Where the paper prints a and b as deltas against a third variant, name it as
    `relative_to`: our a and b are then the same deltas, on the seeds of our a, b pairs, to 2 decimals."""
    ours = paired_comparison(stored, a, b, metric_a=metric, relative_to=relative_to)
    ours = ours[ours.task == task] if not ours.empty else ours
    t = wide_table(table)
    return paired_side_by_side(ours, t.loc[paper_a], t.loc[paper_b], t.loc[paper_p], digits=2 if relative_to else 1)


def _against_baseline(task: str, table: str, adaptive: bool = False) -> dict:
    """`paired_table` arguments of a "+LN (b) vs baseline (a)" comparison; `adaptive`: with the adaptive softmax."""
    paper_a, paper_b, paper_p = ("baseline adaptive", "ln adaptive", "p ln vs baseline, adaptive") if adaptive else (
        "baseline", "ln", "p ln vs baseline")
    return dict(task=task, table=table, a="baseline", b="ln", paper_a=paper_a, paper_b=paper_b, paper_p=paper_p,
                metric=ACCURACY_ADAPTIVE if adaptive else ACCURACY)


def _against_std(task: str, table: str) -> dict:
    """`paired_table` arguments of a "+LN (b) vs +std (a)" comparison, which the paper prints as deltas vs the
    baseline."""
    return dict(task=task, table=table, a="std", b="ln", paper_a="delta std", paper_b="delta ln", paper_p="p ln vs std",
                relative_to="baseline")


# The paper's comparisons that the chapter reproduces: title -> paired_table(...) keyword arguments after `stored`.
COMPARISONS = {
    "Table 1, argmax: +LN (b) vs baseline (a)": _against_baseline("argmax", "1"),
    "Table 1, argmax, adaptive θ: +LN (b) vs baseline (a)": _against_baseline("argmax", "1", adaptive=True),
    "Table 2, dictionary: +LN (b) vs baseline (a)": _against_baseline("dictionary", "2"),
    "Table 2, dictionary, adaptive θ: +LN (b) vs baseline (a)": _against_baseline("dictionary", "2", adaptive=True),
    "Table 3, argmax: +LN (b) vs +std (a); a, b are gains over the baseline, the paper's and ours":
        _against_std("argmax", "3"),
    "Table 6, dictionary: +LN (b) vs +std (a); a, b are gains over the baseline, the paper's and ours":
        _against_std("dictionary", "6"),
}

# Appendix B.2's comparisons, on models trained with the length curriculum to 256 items (`vv-curriculum`).
CURRICULUM_COMPARISONS = {f"Table {table}, {task}, curriculum: +LN (b) vs baseline (a)": _against_baseline(task, table)
                          for task, table in (("argmax", "4"), ("dictionary", "5"))}

TRAIN_MAX = 16  # the longest training N: the claims are about longer ones


def comparison(name: str) -> dict:
    """The `paired_table` keyword arguments of the comparison named `name` (a COMPARISONS title up to its colon)."""
    by_name = {title.split(":")[0]: args for title, args in COMPARISONS.items()}
    if name not in by_name:
        raise KeyError(f"unknown comparison {name!r}; valid: {', '.join(by_name)}")
    return by_name[name]


def compare(runs: pd.DataFrame, args: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The runs that one comparison reads (its task; its two variants and the one its deltas are taken against, if
    any) and its `paired_table`; `args` are `paired_table`'s keyword arguments after `stored` (a COMPARISONS value).
    The table is empty (columns N, seeds, verdict) until both compared variants have runs."""
    compared = [args["a"], args["b"]]
    read_variants = [*compared, args["relative_to"]] if args.get("relative_to") else compared
    read = runs[(runs.task == args["task"]) & runs.variant.isin(read_variants)]
    if read[read.variant.isin(compared)].variant.nunique() < 2:
        return read, pd.DataFrame(columns=["N", "seeds", "verdict"])
    return read, paired_table(read, **args)


ADAPTIVE_TITLE = "**With the adaptive-θ softmax** (the paper's adaptive rows): +LN (b) vs baseline (a)"
GAIN_NAMES = {"std": "+std", "ln": "+LN"}  # how the gain tables name the variants
GAINS_TITLE = ("**Each gain over the baseline, judged on its own**: the paper's (printed without a test) beside ours, "
               "± ci95, the half-width of its 95% interval (Methods, *Verdict rules*)")


def gains(read: pd.DataFrame, args: dict) -> pd.DataFrame:
    """The paper's rows a and b of a comparison that prints them as gains over a third variant (`args` a COMPARISONS
    value with `relative_to`, e.g. Table 3's "delta std" and "delta ln"), each beside our mean paired gain and its 95%
    interval, judged on its own (`verdicts.gain_verdict`), on the seeds where all three variants have runs (those of
    the `paired_table`'s columns a, b). One row per variant and N: variant, N, paper, ours, ci95, seeds, verdict;
    none for a variant without runs, and none at all for a comparison without `relative_to`. `read`: the runs
    `compare` returns."""
    columns = ["variant", "N", "paper", "ours", "ci95", "seeds", "verdict"]
    if "relative_to" not in args:
        return pd.DataFrame(columns=columns)
    base = args["relative_to"]
    variants = {args["a"]: args["paper_a"], args["b"]: args["paper_b"]}
    seeds = [set(read.seed[read.variant == v]) for v in (base, *variants)]
    common = read[(read.task == args["task"]) & read.seed.isin(set.intersection(*seeds))]
    paper = wide_table(args["table"])
    rows = []
    for variant, row in variants.items():
        if common[common.variant == variant].empty:
            continue
        pairs = paired_comparison(common, base, variant, metric_a=args.get("metric", ACCURACY))
        for r in pairs[pairs.length.isin(paper.columns)].itertuples():
            value = paper.loc[row, r.length]
            rows.append({"variant": GAIN_NAMES.get(variant, variant), "N": r.length, "paper": value,
                         "ours": round(r.diff, 2), "ci95": round(r.ci95, 2), "seeds": r.n,
                         "verdict": gain_verdict(value, r.diff, r.ci95)})
    return pd.DataFrame(rows, columns=columns)


def against_std(runs: pd.DataFrame, name: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(the +std runs, the `paired_table`, the `gains` table) of the "+LN vs +std" comparison named `name` (Table 3 or
    6) on `runs`: the +std runs are the ones only this comparison reads (the chapter counts the +LN and baseline runs
    with Tables 1 and 2)."""
    args = comparison(name)
    read, table = compare(runs, args)
    return read[read.variant == args["a"]], table, gains(read, args)


def _cells(runs: pd.DataFrame, title: str, args: dict) -> pd.DataFrame:
    """One comparison's cells on `runs` (columns comparison, N, ours, verdict): its `paired_table`'s (ours: b - a
    and its p) and, where it prints gains, its `gains` table's (ours: the gain ± ci95, per variant)."""
    name = title.split(":")[0]
    read, side = compare(runs, args)
    table = gains(read, args)
    return pd.concat([
        pd.DataFrame({"comparison": name, "N": side.N, "verdict": side.verdict,
                      "ours": [f"{d:+.2f} (p {p})" for d, p in zip(side["ours b-a"], side["ours p"], strict=True)]}),
        pd.DataFrame({"comparison": [f"{name}, {v}'s gain" for v in table.variant], "N": table.N,
                      "verdict": table.verdict,
                      "ours": [f"{o:+.2f} ± {c:.2f}" for o, c in zip(table.ours, table.ci95, strict=True)]})],
        ignore_index=True)


def paper_cells(comparisons: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The paired tables of COMPARISONS (title -> `compare`'s table) as `analysis.verdict_grid` cells: task the
    paper's table ("Table 1"), comparison the rest of the title ("argmax, adaptive θ: +LN (b) vs baseline (a)"), N,
    paper and ours (b - a, points), verdict."""
    frames = []
    for title, table in comparisons.items():
        name, _, versus = title.partition(": ")
        task, _, setting = name.partition(", ")
        frames.append(pd.DataFrame({"task": f"Table {task.removeprefix('Table ')}", "N": table.N,
                                    "comparison": f"{setting}: {versus.split(';')[0]}",
                                    "paper": table.get("paper b-a"), "ours": table.get("ours b-a"),
                                    "verdict": table.verdict}))
    return pd.concat(frames, ignore_index=True)


def widening(runs: pd.DataFrame, first: tuple[int, ...], task: str) -> pd.DataFrame:
    """Every cell of the comparisons on `task` (COMPARISONS' `paired_table`s and their `gains`) judged twice: on the
    seeds `first` (the interim comparison, declared before the runs) and on every seed of `runs` on the task (a
    complete grid).
    One row per comparison (a gains table's per variant) and N: our number and the verdict on each seed set, the
    columns named by the seeds, and `changed` (the verdicts differ)."""
    runs = runs[runs.task == task]
    if not set(first) < set(runs.seed):
        raise ValueError(f"the interim {seeds_text(first)} must be fewer than the grid's {seeds_text(set(runs.seed))}")
    labels = seeds_text(first), seeds_text(set(runs.seed))
    judged = [pd.concat([_cells(rows, title, args) for title, args in COMPARISONS.items() if args["task"] == task])
              .set_index(["comparison", "N"])[["ours", "verdict"]].add_suffix(f", {label}")
              for label, rows in zip(labels, (runs[runs.seed.isin(first)], runs), strict=True)]
    both = judged[0].join(judged[1], how="outer")
    return both.assign(changed=both[f"verdict, {labels[0]}"] != both[f"verdict, {labels[1]}"]).reset_index()
