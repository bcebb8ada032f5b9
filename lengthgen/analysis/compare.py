"""Paper vs ours, cell by cell, with a verdict per cell (the rules are in `verdicts.py`). Three joins, one per kind
of published number:

- `paired_side_by_side`: a paired difference with its p-value (vanishing variance), judged by `verdict`;
- `cell_side_by_side`: an accuracy (%), judged by `cell_verdict` against our seeds' range (probing tables);
- `mean_side_by_side`: a mean +- std over seeds, judged by `mean_verdict` (SCAN).

And how the book shows such tables: `for_display`, `in_parts`, `table_html`.
"""


import pandas as pd

from lengthgen.analysis import verdicts
from lengthgen.analysis.verdicts import (
    NOT_RUN,
    NOT_TRAINED,
    TRAINED,
    band,
    cell_verdict,
    mean_verdict,
    verdict,
    verdict_class,
)
from lengthgen.metrics import ACCURACY, FIRST_ERROR
from lengthgen.tasks import TASKS


def paired_side_by_side(ours: pd.DataFrame, paper_a: pd.Series, paper_b: pd.Series, paper_p: pd.Series,
                        digits: int = 1) -> pd.DataFrame:
    """Join our paired comparison (columns length, mean_a, mean_b, diff, p_value, n) with the paper's rows
    (Series indexed by length) on the lengths both have; add a verdict per length. Our means are rounded to `digits`
    decimals (the paper's accuracies have 1, its deltas 2), the differences to 2. The p-values are shown to two
    significant digits, as text ("0.8", "4e-05": a float column would print both as 0.800000, 0.000040)."""
    rows = []
    for r in ours.itertuples():
        if r.length not in paper_a.index:
            continue
        pa, pb, pp = paper_a[r.length], paper_b[r.length], paper_p[r.length]
        rows.append({"N": r.length, "paper a": pa, "paper b": pb, "paper b-a": round(pb - pa, 2),
                     "paper p": f"{pp:.2g}", "ours a": round(r.mean_a, digits), "ours b": round(r.mean_b, digits),
                     "ours b-a": round(r.diff, 2), "ours p": f"{r.p_value:.2g}", "seeds": r.n,
                     "verdict": verdict(pb - pa, pp, r.diff, r.p_value)})
    return pd.DataFrame(rows)


def mean_side_by_side(paper: dict, runs: pd.DataFrame, paper_runs: int, fit: pd.DataFrame | None = None
                      ) -> pd.DataFrame:
    """Paper (mean, std over `paper_runs` runs) vs our mean per variant, every paper row kept, with `mean_verdict`.

    Args:
        paper: variant -> (mean, std), e.g. `monotonic_paper.SCAN`.
        runs: one row per stored run, columns variant and value (e.g. test accuracy).
        fit: optional, the same for each run's in-distribution accuracy (%); its median per variant is the column
            `in distribution`, and a variant whose median is below `verdicts.TRAINED` is "not trained".
    Returns one row per variant of `paper`, in its order: paper mean, paper std, ours (our mean), std, seeds
    (the number of runs), [in distribution,] p (Welch's test) and verdict; a variant without a run has NaN values
    and the verdict "not run yet".
    """
    side = pd.DataFrame([{"variant": v, "paper mean": m, "paper std": s} for v, (m, s) in paper.items()])
    ours = runs.groupby("variant").value.agg(ours="mean", std="std", seeds="count").reset_index()
    side = side.merge(ours, on="variant", how="left").set_index("variant")
    side["seeds"] = side.seeds.fillna(0).astype(int)
    if fit is not None:
        side["in distribution"] = fit.groupby("variant").value.median().reindex(side.index)
    values = runs.groupby("variant").value.apply(list)
    judged = [mean_verdict(r["paper mean"], r["paper std"], paper_runs, values[v], r.get("in distribution"))
              if r.seeds else (NOT_RUN, None) for v, r in side.iterrows()]
    side["p"] = [p for _, p in judged]
    side["verdict"] = [v for v, _ in judged]
    return side


def cell_side_by_side(paper: pd.DataFrame, ours: pd.DataFrame, reason) -> pd.DataFrame:
    """Paper vs ours per (variant, task, split) cell, with a verdict and, for every divergence, a reason.

    Args:
        paper: columns variant, task, split, paper (from `monotonic_paper.paper_table`).
        ours: columns variant, task, split, ours (our median over seeds), lo and hi (their range), seeds and iid
            (median iid accuracy of the cell's runs, NaN where they have none), as from `median_over_seeds`.
        reason: (row with paper/ours/seeds/iid/verdict) -> text explaining a divergence.

    A cell of the iid split itself (Table 6 has one) is judged on its number: how well the runs fit their training
    distribution is what it measures, not a length result that fit would have to vouch for.
    """
    both = paper.merge(ours, on=["variant", "task", "split"], how="inner")
    both["verdict"] = [cell_verdict(r.paper, r.ours, r.lo, r.hi, None if r.split == "iid" else r.iid)
                       for r in both.itertuples()]
    both["reason"] = [reason(r) if verdict_class(r.verdict) != "reproduced" else "" for r in both.itertuples()]
    return both


def verdict_changes(before: pd.DataFrame, after: pd.DataFrame) -> pd.DataFrame:
    """The cells of one table judged twice (two `cell_side_by_side` frames, e.g. medians over its first three seeds
    and over all five) whose verdict differs: variant, task, split, paper, our median and verdict in `before`, our
    median, range and verdict in `after`. A cell judged in only one of them is left out."""
    keys = ["variant", "task", "split"]
    both = before[keys + ["paper", "ours", "verdict"]].merge(
        after[keys + ["ours", "lo", "hi", "verdict"]], on=keys, suffixes=(" before", " after"))
    return both[both["verdict before"] != both["verdict after"]].reset_index(drop=True)


def ranking(side: pd.DataFrame, paper: str = "paper") -> dict:
    """A side-by-side table's ranking (`cell_side_by_side`, or `mean_side_by_side` with paper="paper mean"), over its
    cells run whose runs learned their task: {"cells", "rho", "p", "verdict"} of `verdicts.ranking_verdict`
    (Spearman's rank correlation of the paper's column `paper` and ours)."""
    trained = side[~side.verdict.isin([NOT_TRAINED, NOT_RUN])]
    judged, rho, p = verdicts.ranking_verdict(trained[paper].tolist(), trained.ours.tolist())
    return {"cells": len(trained), "rho": rho, "p": p, "verdict": judged}


def separation(side: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """Per task, at its longest test split: the mechanisms the paper finds solved (>= 90%), those we find solved, and
    whether we separate them the same way: every cell the paper finds solved or failed falls in the same band in
    ours (a cell partial in the paper is not judged). "no" when a trained cell is off the pattern; "not judged" when
    none is but a cell the paper judges is "not trained" (our runs did not learn the task in distribution); else
    "yes". `side` is a `cell_side_by_side` frame; `runs` (collected results) gives the iid accuracy shown beside
    each mechanism off the paper's pattern, where its runs have one."""
    acc = runs[runs.metric == ACCURACY]
    iid = acc[acc.split == "iid"].groupby(["task", "variant"]).value.median()

    def off_pattern(task, cell):
        fit = f", {percent_iid(task, iid[task, cell.variant])} iid" if (task, cell.variant) in iid else ""
        return f"{cell.variant} ({cell.ours:.0f}%{fit})"

    rows = []
    for task, cells in side.groupby("task", sort=False):
        at = cells[cells.split == longest_split(cells.split)]
        paper, ours = at.paper.map(band), at.ours.map(band)
        untrained = at.verdict == NOT_TRAINED
        off = at[(paper != "partial") & (paper != ours) & ~untrained]
        unjudged = at[(paper != "partial") & untrained]
        same = "no" if len(off) else "not judged" if len(unjudged) else "yes"
        rows.append((task, at.split.iloc[0], len(at), ", ".join(at.variant[paper == "solved"]) or "none",
                     ", ".join(at.variant[ours == "solved"]) or "none", same,
                     ", ".join(off_pattern(task, cell) for cell in off.itertuples()) or "none",
                     ", ".join(f"{c.variant} ({percent_iid(task, c.iid)} iid)" for c in at[untrained].itertuples())
                     or "none"))
    columns = ["task", "split", "mechanisms", "paper: solved by", "ours: solved by", "same separation",
               "off the paper's pattern (ours, ours iid)", "not trained"]
    return pd.DataFrame(rows, columns=columns).set_index("task")


def percent_iid(task: str, value: float) -> str:
    """An iid accuracy in a text: "97%", or "≈97%" for a task whose iid accuracy is estimated from its dev score (one
    with an `iid_estimate`: Lookup, Reverse Lookup; see `monotonic.with_fit_estimates`)."""
    return ("≈" if hasattr(TASKS[task], "iid_estimate") else "") + f"{value:.0f}%"


def _one_or_each(values: pd.Series) -> str:
    return values.iloc[0] if values.nunique() == 1 else ", ".join(values)


def divergences(side: pd.DataFrame) -> pd.DataFrame:
    """The cells of a `cell_side_by_side` table that are not reproduced, one row per (variant, task, reason):
    its splits (in `split_order`, joined by ", ") and verdicts (the verdict if they share one, else one per split
    in the same order). Rows in the order the (variant, task) cells first appear."""
    cells = pd.MultiIndex.from_frame(side[["variant", "task"]].drop_duplicates())  # in order of appearance
    off = side[side.verdict.map(verdict_class) != "reproduced"]
    off = off.assign(cell=cells.get_indexer(pd.MultiIndex.from_frame(off[["variant", "task"]])),
                     order=off.split.map(split_order)).sort_values(["cell", "order"], kind="stable")
    return off.groupby(["variant", "task", "reason"], sort=False).agg(
        splits=("split", ", ".join), verdicts=("verdict", _one_or_each)).reset_index()


def median_over_seeds(df: pd.DataFrame, metric: str = ACCURACY) -> pd.DataFrame:
    """Our value per (variant, task, split) cell: the median over seeds (as the paper reports), with their range
    (lo, hi), their count (seeds) and `iid`, the median iid accuracy of the cell's runs: their "iid" rows, measured
    or, for Lookup and Reverse Lookup, estimated (`monotonic.with_fit_estimates`); NaN where they have none."""
    rows = df[df.metric == metric]
    cells = (rows.groupby(["variant", "task", "split"]).value.agg(["median", "min", "max", "count"]).reset_index()
             .rename(columns={"median": "ours", "min": "lo", "max": "hi", "count": "seeds"}))
    acc = df[(df.metric == ACCURACY) & (df.split == "iid")]
    iid = acc.groupby(["variant", "task"]).value.median().rename("iid").reset_index()
    return cells.merge(iid, on=["variant", "task"], how="left")


RUN = ["task", "variant", "seed"]  # the columns that name one run in a collected results frame


def split_order(split: str) -> tuple:
    """Sort key for split names ("iid", "15", "test"): "iid" first, then the lengths in increasing order, then the
    other named splits."""
    return (0, 0, "") if split == "iid" else (1, int(split), "") if split.isdigit() else (2, 0, split)


def longest_split(splits) -> str:
    """The longest of some test split names, by `split_order`."""
    return max(splits, key=split_order)


def reach(curve: pd.DataFrame, bar: float = TRAINED) -> int:
    """The longest length up to which a mean-accuracy curve (length, value) stays at or above `bar` (0: never)."""
    reached = 0
    for length, value in curve.sort_values("length")[["length", "value"]].itertuples(index=False):
        if value < bar:
            break
        reached = length
    return int(reached)


def longest_accuracy(runs: pd.DataFrame) -> pd.Series:
    """Accuracy of every run (indexed by task, variant, seed) at its task's longest test split."""
    acc = runs[(runs.metric == ACCURACY) & (runs.split != "train")]
    ordered = acc.sort_values("split", key=lambda splits: splits.map(split_order), kind="stable")
    return ordered.groupby(RUN, sort=False).value.last().rename("accuracy at the longest split")


def fit_and_length(history: pd.DataFrame, runs: pd.DataFrame, fitted: float = 0.05) -> pd.DataFrame:
    """Per run with a history: last-epoch training loss, accuracy at the longest split, and whether it `fitted`
    (loss below the threshold) and `failed` (accuracy <= 10%). Fitted-and-failed runs learned their training
    lengths and did not carry them to longer inputs."""
    loss = history.sort_values("epoch").groupby(RUN).train_loss.last()
    both = pd.concat([loss, longest_accuracy(runs)], axis=1, join="inner")
    both["fitted"] = both.train_loss < fitted
    both["failed"] = both["accuracy at the longest split"].map(band) == "failed"
    return both


def early_breaks(runs: pd.DataFrame, trained: dict, learned: float = TRAINED) -> pd.DataFrame:
    """Where the runs that learned their task (iid accuracy >= `learned`) first go wrong at its longest test split.

    One row per such run (indexed by task, variant, seed) that gets some output wrong there: `first_error` (the
    stored median index of the first wrong token), `trained` (the task's longest training target, from `trained`:
    task -> length) and `early` (the break lies before it, inside the output positions seen in training)."""
    acc = runs[(runs.metric == ACCURACY) & (runs.split != "train")]
    longest = acc.groupby("task").split.agg(longest_split)
    iid = acc[acc.split == "iid"].set_index(RUN).value
    at_longest = runs[(runs.metric == FIRST_ERROR) & (runs.split == runs.task.map(longest))]
    table = at_longest.set_index(RUN).value.rename(FIRST_ERROR).to_frame()
    table = table[iid.reindex(table.index) >= learned]
    table["trained"] = table.index.get_level_values("task").map(trained)
    table["early"] = table.first_error < table.trained
    return table


def failures_by(table: pd.DataFrame, column: str) -> pd.DataFrame:
    """How many runs fail (<= 10% at the longest split) per value of `column`: columns failed and runs."""
    failed = table["accuracy at the longest split"].map(band) == "failed"
    return failed.groupby(table[column]).agg(failed="sum", runs="count").astype(int)


def on_common_seeds(runs: pd.DataFrame, cell: tuple[str, ...] = ("task", "variant"),
                    odd: bool = True) -> tuple[pd.DataFrame, list]:
    """(the runs of the seeds that every cell has, those seeds): a seed stored in only some cells (e.g. run where a
    first seed disagreed with the paper) never enters a median, so no cell's median depends on its own outcome.
    With `odd`, the seeds kept are an odd number (the highest common seed is left out of an even set), so a median
    is one run's value, never the mean of a solved and a failed seed; without, every common seed (each read alone).
    `cell`: the columns that name a cell of the grid (all labels but the seed)."""
    if runs.empty:
        return runs, []
    common = sorted(set.intersection(*runs.groupby(list(cell)).seed.apply(set)))
    common = common[:len(common) - 1 + len(common) % 2] if odd else common
    return runs[runs.seed.isin(common)], common


def per_seed(df: pd.DataFrame, metric: str = ACCURACY) -> pd.DataFrame:
    """`metric` per seed for the (variant, task) cells run with more than one seed: one row per seed, one column
    per split in `split_order`; a split the task does not have is NaN."""
    rows = df[df.metric == metric]
    rows = rows[rows.groupby(["variant", "task"]).seed.transform("nunique") > 1]
    table = rows.pivot_table(index=["variant", "task", "seed"], columns="split", values="value")
    return table[sorted(table.columns, key=split_order)]


def seeds_disagree(seeds: pd.DataFrame) -> pd.Series:
    """For a `per_seed` table: per (variant, task) cell, whether its seeds land in different bands (solved /
    partial / failed) at the task's longest numeric split."""
    numeric = [s for s in seeds.columns if s.isdigit()]
    longest = seeds[numeric].ffill(axis=1).iloc[:, -1]
    return longest.map(band).groupby(["variant", "task"]).nunique() > 1


def paper_beside_ours(paper: pd.DataFrame, runs: pd.DataFrame, label: str, metric: str) -> pd.DataFrame:
    """The paper's rows of a table and our median over seeds beneath each, for the tasks we ran: index (variant,
    source), columns (task, split). `paper` has columns variant, task, split, paper."""
    ours = median_over_seeds(runs, metric=metric).rename(columns={"ours": label})
    side = paper[paper.task.isin(ours.task)].merge(ours, on=["variant", "task", "split"], how="left")
    side = side.melt(id_vars=["variant", "task", "split"], value_vars=["paper", label], var_name="source")
    return side.pivot_table(index=["variant", "source"], columns=["task", "split"], values="value", sort=False)


def paper_and_ours(paper: pd.DataFrame, ours: pd.DataFrame, label: str, splits: tuple[str, ...],
                   paper_label: str = "paper") -> pd.DataFrame:
    """The paper's cells (source `paper_label`) and our medians (source `label`) in one frame with a `value` column,
    for `figures.accuracy_grid`: the tasks we ran, at `splits`. `paper` as from `paper_table`; `ours` as from
    `median_over_seeds`."""
    both = pd.concat([paper[paper.task.isin(ours.task)].rename(columns={"paper": "value"}).assign(source=paper_label),
                      ours.rename(columns={"ours": "value"}).assign(source=label)])
    return both[both.split.isin(splits)]
