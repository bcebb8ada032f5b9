"""What a chapter says about its numbers: provenance lines, divergence reasons, verdict counts and the sentences
that summarise a table. Every function takes tidy frames and returns a table or Markdown text; nothing here reads
the store or displays anything, so the chapters only call and display."""

from collections.abc import Callable

import pandas as pd
from scipy.stats import fisher_exact

from lengthgen.analysis.compare import (
    divergences,
    failures_by,
    fit_and_length,
    percent_iid,
    seeds_disagree,
)
from lengthgen.analysis.verdict_grid import verdict_grid
from lengthgen.analysis.verdicts import ALPHA, NOT_TRAINED, TRAINED
from lengthgen.display import for_display
from lengthgen.seeding import seeds_text


def provenance_summary(runs: pd.DataFrame, name: str, total: int, profile: str) -> str:
    """One paragraph: how many of the `total` runs of experiment `name` are stored, their seeds, commits, dates and
    CPU hours per machine; with nothing stored, the command that makes them."""
    if runs.empty:
        return f"No stored `{name}` runs yet: run `lengthgen run {name} --profile {profile} --seeds 0` (resumable)."
    prov = runs.drop_duplicates("key")
    per_machine = prov.groupby(["device", "torch_version"]).wall_seconds.agg(["count", "sum"])
    machines = "; ".join(f"{int(r['count'])} on {device} with torch {version} ({r['sum'] / 3600:.1f} h)"
                         for (device, version), r in per_machine.iterrows())
    commits = ", ".join(sorted(prov.git_commit.str[:8].unique()))
    return (f"**{name}**: {len(prov)} of {total} {profile}-profile runs stored ({seeds_text(prov.seed)}); commits "
            f"{commits}; {prov.date.min()[:16]} to {prov.date.max()[:16]} UTC; {prov.wall_seconds.sum() / 3600:.1f} "
            f"CPU-thread hours in all: {machines}.")


def seed_protocol(runs: pd.DataFrame, seeds: list) -> str:
    """A sentence on `compare.on_common_seeds`: the seeds the medians use, and the stored runs of other seeds that
    they leave out."""
    if runs.empty:
        return ""
    extra = runs[~runs.seed.isin(seeds)].drop_duplicates("key")
    text = f"Medians over {seeds_text(seeds)} (of the seeds every cell has, an odd number, lowest first)"
    if extra.empty:
        return text + "."
    return (text + f"; {len(extra)} stored runs of {seeds_text(extra.seed)} stay out of the medians (shown per "
            "seed where a table lists seeds).")


def first_seeds_parts(changes: pd.DataFrame, first: list, cells: int, seeds: list) -> tuple[str, object]:
    """For `show_parts`, given `monotonic.first_seeds_changes` (changes, first seeds), the table's number of
    `cells` and all its `seeds`: a sentence on how many cells take another verdict on all the seeds than on the first
    ones alone, by change, and the changed cells rounded (each part "" when there is none to show; both "" when the
    table has no more seeds than `first`)."""
    if len(seeds) <= len(first):
        return "", ""
    text = f"Judged on its first {seeds_text(first)} alone, "
    if changes.empty:
        return text + f"none of the {cells} cells had another verdict.", ""
    moves = changes.groupby(["verdict before", "verdict after"], sort=False).size()
    return (text + f"{len(changes)} of the {cells} cells had another verdict: "
            + "; ".join(f"{n} from *{b}* to *{a}*" for (b, a), n in moves.items()) + " (the cells below)."
            ), changes.round(1)


def divergence_reason(budget: str, directions: pd.DataFrame | None = None,
                      paper_fit: dict[tuple[str, str], float] | None = None) -> Callable:
    """The reason given for a cell of a `compare.cell_side_by_side` table that is not reproduced: not trained (its runs'
    iid accuracy, the budget, and, where `paper_fit` ((variant, task) -> the paper's own iid accuracy, for a table
    that reports one) has it below the bar too, the paper's), ours lower (with the training budget) or ours higher,
    each with the number of seeds and, where `directions` (a `monotonic.direction_table`) shows them, the seeds that
    read the task the wrong way (a reading that can move a cell either way: on an inverted task the wrong way can
    score above the paper)."""

    def wrong_way(row) -> str:
        if directions is None:
            return ""
        runs = directions[(directions.task == row.task) & (directions.variant == row.variant)]
        wrong = runs[runs.reads == "wrong way"]
        if wrong.empty:
            return ""
        who = "reads" if len(wrong) == len(runs) else f"{len(wrong)} of {len(runs)} seeds read"
        return f"; {who} the task the wrong way (g = {wrong.gate.mean():.2f})"

    def reason(row) -> str:
        seeds = f"{row.seeds} seed{'s' if row.seeds > 1 else ''}"
        if row.verdict == NOT_TRAINED:
            fit = (paper_fit or {}).get((row.variant, row.task))
            theirs = f"; the paper's runs: {fit:.1f}%, below the bar too" if fit is not None and fit < TRAINED else ""
            return f"{percent_iid(row.task, row.iid)} in distribution (< {TRAINED:.0f}%){theirs}; {budget}, {seeds}"
        if row.ours < row.paper:
            return f"ours lower; {budget}, {seeds}{wrong_way(row)}"
        return f"ours higher; {seeds}{wrong_way(row)}"

    return reason


def cell_parts(side: pd.DataFrame, title: str) -> tuple:
    """A `compare.cell_side_by_side` table for `show_parts`: the cells at a glance (`verdict_grid`, titled `title`:
    per task, mechanisms x splits coloured by verdict), the table for reading (one row per mechanism, task and split)
    and, below it, its divergences as a Markdown list, one line per cell and reason ("" when every cell is
    reproduced)."""
    ranged = side.assign(range=[f"{lo:.0f}-{hi:.0f}" if n > 1 else "" for lo, hi, n in
                                zip(side["lo"], side["hi"], side["seeds"], strict=True)]) if "lo" in side else side
    grid = verdict_grid(ranged, title, row="variant", column="split", wrap=2)
    table = side.drop(columns=["metric", "reason"]).set_index(["variant", "task", "split"]).round(1)
    off = divergences(side)
    if off.empty:
        return grid, table, ""
    return grid, table, "Divergences and their reasons:\n\n" + "\n".join(
        f"- **{r.variant} / {r.task}** at {r.splits} ({r.verdicts}): {r.reason}" for r in off.itertuples())


def ranking_text(rank: dict) -> str:
    """A sentence on a `compare.ranking`: the rank correlation, its p and the verdict."""
    return (f"Ranking of the {rank['cells']} cells run that learned their task: Spearman's rho {rank['rho']:.2f} "
            f"(p = {rank['p']:.2g}), {rank['verdict']}.")


def verdict_counts(side: pd.DataFrame) -> str:
    """"55 reproduced, 10 partly, 7 not reproduced": the cells of a side-by-side table per verdict."""
    counts = side.verdict.value_counts()
    return ", ".join(f"{n} {v}" for v, n in counts.items()) if not side.empty else "no cells"


def separated_tasks(separation: pd.DataFrame) -> str:
    """"2 of 4 tasks: copy, reverse_copy": the tasks of a `compare.separation` table separated as in the paper."""
    same = separation.index[separation["same separation"] == "yes"]
    return f"{len(same)} of {len(separation)} tasks" + (f": {', '.join(same)}" if len(same) else "")


NAMED_RUNS = 12  # the run summaries below name up to this many runs, then count them per task (`per_task`)


def per_task(runs: pd.DataFrame) -> str:
    """"copy 2, lookup 1": how many rows of `runs` (one per run) each task has, in the order first seen."""
    return ", ".join(f"{t} {n}" for t, n in runs.groupby("task", sort=False).size().items())


def fit_versus_length(history: pd.DataFrame, runs: pd.DataFrame, fitted: float = 0.05) -> str:
    """How many runs fitted their training set (last-epoch loss below `fitted`) and which of those fail (<= 10%) at
    their task's longest test split (by name up to `NAMED_RUNS` of them, else counted per task); the runs that did
    not fit say nothing about length."""
    both = fit_and_length(history, runs, fitted)
    fit, unfit = both[both.fitted], both[~both.fitted]
    gap = fit[fit.failed]
    if len(gap) > NAMED_RUNS:
        per_task = pd.concat([gap.groupby("task").size(), fit.groupby("task").size()], axis=1).fillna(0).astype(int)
        which = "; per task, failing of fitted: " + ", ".join(f"{t} {g} of {f}" for t, (g, f) in per_task.iterrows())
    else:
        which = ": " + ", ".join(f"{t}/{v} (seed {s})" for t, v, s in gap.index) if len(gap) else ""
    text = (f"{len(fit)} of {len(both)} runs end with a training loss below {fitted}; {len(gap)} of them "
            f"{'fails' if len(gap) == 1 else 'fail'} (≤ 10%) at the task's longest test split: fitted, yet not carried "
            f"to longer inputs{which}.")
    if len(unfit) == 1:
        text += (f" The other one ends at a loss of {unfit.train_loss.iloc[0]:.2f}: it has not fitted the training set "
                 "yet, so its test scores")
    elif len(unfit):
        text += (f" The other {len(unfit)} end at a loss of {value_range(unfit, 'train_loss')}: they have not fitted "
                 "the training set yet, so their test scores")
    return text + (" do not separate a failure to learn from a failure to generalise." if len(unfit) else "")


DIRECTION_GROUPS = {"right way": "reading the right way", "wrong way": "reading the wrong way",
                    "undecided": "with an undecided gate"}


def direction_outcomes(table: pd.DataFrame) -> str:
    """Does the reading direction predict the outcome? Failures (<= 10% at the longest split) per direction, for a
    `monotonic.direction_table`."""
    return "Failing (≤ 10%) at the longest split: " + ", ".join(
        f"{r.failed} of {r.runs} run{'' if r.runs == 1 else 's'} {DIRECTION_GROUPS[reads]}"
        for reads, r in failures_by(table, "reads").iterrows()) + "."


def gate_course_summary(course: pd.DataFrame) -> str:
    """How the gates of a `monotonic.gate_course` table moved in training: in how many runs the gate never changed
    side of 0.5, and the others (by name up to `NAMED_RUNS`, else counted per task) with the epoch after which
    their gate last changed side and how it read the task then and at the end."""
    if course.empty:
        return "No run records its direction gate after every epoch."
    moved = course[course.crossings > 0]
    text = (f"The gate is recorded after every epoch in {len(course)} run{'' if len(course) == 1 else 's'}; it never "
            f"changes side of 0.5 in {len(course) - len(moved)} of them")
    if len(moved) > NAMED_RUNS:
        text += f"; it does in the others (per task: {per_task(moved)})"
    elif len(moved):
        text += "; " + "; ".join(
            f"{r.task}/{r.variant} (seed {r.seed}) changes side "
            f"{'once' if r.crossings == 1 else f'{r.crossings} times'}, "
            f"the last after epoch {r.settled} (g {r.first:.2f} after the first epoch, {r.starts}; {r.last:.2f} at "
            f"the end, {r.ends})" for r in moved.itertuples())
    ends = course.ends.value_counts()
    return text + ". At the end: " + ", ".join(f"{n} {DIRECTION_GROUPS[e]}" for e, n in ends.items()) + "."


def lean_outcomes(table: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """Does the side on which the untrained gate lay (`leans`, of a `monotonic.initial_lean` table) go with the
    reading direction the run ends with? A table, per mechanism, of how many runs of each side end reading the right
    way ("16 of 16"), and a sentence with the odds ratio and Fisher's exact test of the 2 x 2 table over all runs
    (side x right way or not)."""
    right = table.reads == "right way"
    counts = pd.DataFrame({f"leaned the {side}": {
        variant: f"{int(right[g.index[g.leans == side]].sum())} of {int((g.leans == side).sum())}"
        for variant, g in table.groupby("variant", sort=False)} for side in ("needed way", "other way")})
    grid = pd.crosstab(table.leans == "needed way", right).reindex(index=[True, False], columns=[True, False],
                                                                     fill_value=0)
    odds, p = fisher_exact(grid.to_numpy())
    counts.index.name = "runs that end reading the right way, of those whose untrained gate"
    return counts, (f"Over all {len(table)} runs: odds ratio {odds:.1f} for ending the right way after leaning the "
                    f"needed way, Fisher's exact p = {p:.2g}.")


def direction_summary(table: pd.DataFrame) -> str:
    """How many runs of a `monotonic.direction_table` read their task the right way, the others by name (up to
    `NAMED_RUNS` of them, else counted per task), and `direction_outcomes`."""
    off = table[table.reads != "right way"]
    if len(off) > NAMED_RUNS:
        kinds = off.reads.value_counts()
        which = (f"; the other {len(off)} read it the wrong way ({kinds.get('wrong way', 0)}) or are undecided "
                 f"({kinds.get('undecided', 0)}), per task: {per_task(off)}")
    else:
        which = "".join(f"; {r['task']}/{r['variant']} (seed {r['seed']}) "
                        f"{'reads the wrong way' if r['reads'] == 'wrong way' else 'is undecided'} "
                        f"(g = {r['gate']:.2f}, {r['accuracy at the longest split']:.0f}% at the longest split)"
                        for r in off.to_dict("records"))
    return (f"{len(table) - len(off)} of {len(table)} runs read their task the right way{which}. "
            + direction_outcomes(table))


def seed_agreement(seeds: pd.DataFrame) -> list:
    """For `show_parts`: a heading, a `compare.per_seed` table and a sentence saying in how many of its cells
    the seeds land in different bands at the longest split; nothing when no cell has more than one seed."""
    if seeds.empty:
        return []
    disagree = seeds_disagree(seeds)
    return ['Cells with more than one stored seed, accuracy per seed ("–": not a split of the task):',
            for_display(seeds), f"At the longest split the seeds of {int(disagree.sum())} of {len(disagree)} such "
            "cells land in different bands (solved / partial / failed)."]


def early_break_text(last: pd.DataFrame, trained: dict[str, int]) -> str:
    """A sentence on a `compare.early_breaks` table: how many learned runs break before the longest training
    target, and which (per task and mechanism, its runs' tokens in the order of their seeds)."""
    early = last[last.early]
    which = []
    for (task, variant), tokens in early.first_error.groupby(level=["task", "variant"], sort=False):
        tokens = tokens.sort_index(level="seed")
        which.append(f"{task}/{variant} at token {', '.join(f'{k:g}' for k in tokens)} "
                     f"({seeds_text(tokens.index.get_level_values('seed'))}; trained up to {trained[task]})")
    return (f"At the longest test split, {len(last)} runs that learned their task in distribution "
            f"(iid ≥ {TRAINED:.0f}%) get some outputs wrong; in {len(early)} of them the median first error lies "
            "before the longest training target" + (": " + "; ".join(which) if which else "") + ".")


def value_range(df: pd.DataFrame, column: str) -> str:
    """"0.12–0.87": the smallest and largest value of a column."""
    return f"{df[column].min():.2f}–{df[column].max():.2f}"


def paired_headline(comparison: pd.DataFrame, a: str, b: str) -> str:
    """One Markdown line per task of a `stats.paired_comparison` (plain softmax) at its longest N: both means, the
    paired difference, p and the reading (b better / worse / no significant difference, at ALPHA)."""
    longest = comparison[comparison.length == comparison.length.max()]
    return "\n".join(
        f"- **{r.task}** at N = {r.length}: {a} {r.mean_a:.1f}%, {b} {r.mean_b:.1f}% ({b} − {a} = {r.diff:+.2f} "
        f"points, paired p = {r.p_value:.2g}, {r.n} seeds): "
        + (f"{b} better" if r.diff > 0 and r.p_value < ALPHA else f"{b} worse" if r.diff < 0 and r.p_value < ALPHA
           else "no significant difference")
        for r in longest.itertuples())


def majority_verdict(verdicts: pd.Series) -> tuple[str, str]:
    """(the verdict of the majority of cells, or "mixed"; the counts as text) of some cells' verdicts; ("no stored
    results", ...) for none."""
    counts = verdicts.value_counts()
    if counts.empty:
        return "no stored results", "no cells to judge yet"
    verdict = counts.index[0] if counts.iloc[0] > counts.sum() / 2 else "mixed"
    return verdict, ", ".join(f"{n} cell{'s' * (n != 1)} {v}" for v, n in counts.items())


def compute_hours(spent: pd.DataFrame, by: list[str], what: str = "stored runs") -> tuple[str, pd.DataFrame]:
    """A sentence and a table of CPU-thread hours of `what` (one row per run with columns `hours`, `device` and
    `by`): hours per `by` group and device, with totals."""
    if spent.empty:
        return f"No {what} yet.", pd.DataFrame()
    table = spent.pivot_table(index=by, columns="device", values="hours", aggfunc="sum", margins=True,
                              margins_name="all")
    return f"{len(spent)} {what}, {spent.hours.sum():.1f} CPU-thread hours in all.", for_display(table)


def largest_gaps(side: pd.DataFrame, n: int) -> str:
    """The `n` cells of a side-by-side table farthest from the paper: "variant at split: ours X%, paper Y%; ..."."""
    gap = side.assign(gap=(side.ours - side.paper).abs()).sort_values("gap", ascending=False)
    return "; ".join(f"{r.variant} at {r.split}: ours {r.ours:.0f}%, paper {r.paper:.0f}%"
                     for r in gap.head(n).itertuples())
