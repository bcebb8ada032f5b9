"""The leaderboard's protocol: how a run of one mechanism on one task is scored, how seeds make a cell, and how the
cells of a task are ranked. One rule for every task and mechanism, stated here once.

- A **run** (mechanism, task, seed) is exact match (%) at each tested length. Its *in-distribution* score is its mean
  at the tested lengths within its task's training lengths; *beyond* is its mean at every tested length past them (the
  score of the Chomsky-hierarchy suite, Deletang et al. 2023); *reach* is the longest length up to which every tested
  length, from the shortest, scores at least 90% (`compare.reach`; 0 when the shortest does not).
- A **cell** (mechanism, task) is the median of each score over its seeds (an odd number, so a median is one run's
  value), with the seeds' lowest and highest beside it. A cell whose median in-distribution score is below 90%
  (`verdicts.TRAINED`) is *not trained*: its runs did not learn their training lengths, so their longer ones say
  nothing, and it is shown so, never ranked. Beside the median, the cell counts the seeds that fit on their own (in
  distribution at least 90%): a trained cell can hold a seed that did not.
- A **task's ranking** places a trained cell behind each cell *clearly ahead* of it: one whose lowest seed's beyond
  score is at least `MARGIN` (one point of exact match) above this cell's highest, or, where neither beyond range is
  that far above the other, whose lowest reach is above this cell's highest. Its rank is one more than the number of
  cells clearly ahead of it, so cells that the seeds' spread cannot tell apart share a rank (with one seed: by beyond,
  beyond the margin, then reach). The margin keeps a few examples or the rounding of a mean from ordering two cells (a
  difference is read to within `EPS`, so that a mean's float rounding cannot move it across the margin); a cell whose
  every seed scores under it beyond is *at the floor*. A rank orders what three seeds can show, and is no test: were two
  mechanisms no different, swapping each seed's two runs between their cells (they share the seed's training data and
  first draws) would call one clearly ahead in up to 1 of the 8 ways each way round by beyond score and as many by reach
  (the questions count this chance, `questions.chance_apart`).
- A **row's cost** (a mechanism on every task it ran, all seeds) is, summed over its tasks, the median wall time of a
  cell's runs times its number of runs, in CPU-thread hours where each run had one thread: the median, because a run
  that shared the machine with more processes than its siblings can take several times as long.
"""

import pandas as pd

from lengthgen.analysis.compare import reach
from lengthgen.analysis.verdicts import NOT_TRAINED, TRAINED
from lengthgen.errors import LengthgenError
from lengthgen.metrics import ACCURACY

RANKED = "ranked"  # a cell's status when its runs fit their training lengths
MARGIN = 1.0  # points of exact match: the least difference of beyond scores that orders two cells, and the floor
EPS = 1e-9  # a score's float rounding: differences are read to within it
CELL = ["task", "variant"]  # the columns that name a cell (variant: the mechanism)
SCORES = ("in distribution", "beyond", "reach")


def run_scores(runs: pd.DataFrame, trained: dict[str, int]) -> pd.DataFrame:
    """One row per run (task, variant, seed) of tidy rows (task, variant, seed, length, metric, value; exact match
    rows, metric ACCURACY, are read): its in-distribution, beyond and reach scores.

    Args:
        runs: tidy rows of stored (or live) runs.
        trained: task -> its longest training length (in the task's length unit). A task of `runs` without one, or
            whose runs test no length within it or none beyond it, is an error naming what is missing.
    """
    acc = runs[runs.metric == ACCURACY]
    rows = []
    for (task, variant, seed), run in acc.groupby(["task", "variant", "seed"], sort=False):
        if task not in trained:
            raise LengthgenError(f"no training length for task {task!r}; known: {', '.join(sorted(trained))}")
        inside, past = run[run.length <= trained[task]], run[run.length > trained[task]]
        if inside.empty or past.empty:
            side = "within" if inside.empty else "beyond"
            raise LengthgenError(f"{task} / {variant} / seed {seed} tests no length {side} its training lengths "
                                 f"(up to {trained[task]}); tested: {sorted(run.length.unique().tolist())}")
        rows.append({"task": task, "variant": variant, "seed": seed, "in distribution": inside.value.mean(),
                     "beyond": past.value.mean(), "reach": reach(run[["length", "value"]])})
    return pd.DataFrame(rows, columns=[*CELL, "seed", *SCORES])


def cell_scores(scores: pd.DataFrame) -> pd.DataFrame:
    """One row per cell (task, variant) of `run_scores` rows: each score's median over the cell's seeds, the lowest
    and highest beyond score and reach ("beyond lo", "beyond hi", "reach lo", "reach hi"), the number of seeds, how
    many of them fit on their own ("seeds fit": in distribution >= TRAINED) and the status (RANKED, or NOT_TRAINED
    when the median in-distribution score is below TRAINED). A cell with an even number
    of seeds is an error: its median would be the mean of two runs."""
    grouped = scores.groupby(CELL, sort=False)
    counts = grouped.seed.nunique()
    even = counts[counts % 2 == 0]
    if not even.empty:
        (task, variant), n = next(iter(even.items()))
        raise LengthgenError(f"{task} / {variant} has {n} seeds; a cell needs an odd number (its median is one run)")
    table = grouped[list(SCORES)].median()
    table[["beyond lo", "reach lo"]] = grouped[["beyond", "reach"]].min().to_numpy()
    table[["beyond hi", "reach hi"]] = grouped[["beyond", "reach"]].max().to_numpy()
    table["seeds"] = counts
    table["seeds fit"] = grouped["in distribution"].agg(lambda seeds: int((seeds >= TRAINED).sum()))
    table["status"] = [RANKED if v >= TRAINED else NOT_TRAINED for v in table["in distribution"]]
    return table.reset_index()


def clearly_ahead(a: pd.Series, b: pd.Series) -> bool:
    """Whether cell `a` is clearly ahead of cell `b` (the module's rule): its seeds' lowest beyond score at least
    MARGIN above b's highest, or, where neither beyond range is that far above the other, its lowest reach above b's
    highest."""
    if apart(a["beyond lo"], b["beyond hi"]):
        return True
    return not apart(b["beyond lo"], a["beyond hi"]) and a["reach lo"] > b["reach hi"]


def apart(high: float, low: float) -> bool:
    """Whether a beyond score (or a mean of them) `high` is at least MARGIN above `low`, read to within EPS."""
    return high - low >= MARGIN - EPS


def at_floor(cell: pd.Series) -> bool:
    """Whether every seed of a cell scores under MARGIN beyond its training lengths (to within EPS)."""
    return not apart(cell["beyond hi"], 0.0)


def ranking(cells: pd.DataFrame) -> pd.DataFrame:
    """`cells` with a "rank" per task: one more than the number of its trained cells clearly ahead of the cell
    (`clearly_ahead`); not-trained cells have no rank (NaN). Rows sorted by task, then rank (unranked last), then
    median beyond and reach."""
    ranks = {}
    for _, task in cells[cells.status == RANKED].groupby("task", sort=False):
        for i, cell in task.iterrows():
            ranks[i] = 1 + sum(clearly_ahead(other, cell) for _, other in task.iterrows())
    out = cells.assign(rank=pd.Series(ranks, dtype=float).reindex(cells.index))
    return out.sort_values(["task", "rank", "beyond", "reach"], ascending=[True, True, False, False],
                           na_position="last", kind="stable").reset_index(drop=True)


def board(runs: pd.DataFrame, trained: dict[str, int]) -> pd.DataFrame:
    """The leaderboard of tidy rows of runs: `ranking` of `cell_scores` of `run_scores` (`trained`: task -> its
    longest training length)."""
    return ranking(cell_scores(run_scores(runs, trained)))


def row_costs(runs: pd.DataFrame) -> pd.Series:
    """Hours per variant (mechanism), by the module's rule: over its cells (task), the median of the runs'
    wall_seconds (one value per run, repeated on its rows) times the cell's number of runs, summed, in hours."""
    per_run = runs.groupby(["variant", "task", "seed"], sort=False).wall_seconds.first()
    per_cell = per_run.groupby(["variant", "task"], sort=False).agg(["median", "size"])
    return (per_cell["median"] * per_cell["size"]).groupby("variant", sort=False).sum() / 3600
