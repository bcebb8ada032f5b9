"""The reproduction scorecard: every number and claim of the four papers that the book sets beside our runs, one row
each, built from a results store and the papers' numbers as data (never written by hand), with its verdict.

The rows come from each paper's own function (`papers.PAPERS`, `Paper.rows`, in `papers/<name>/rows.py`): the same
comparisons its chapter shows.

Stored rows come from each chapter's stored profiles; live rows (`LIVE`, the book's quick runs) from the build's
store, for the chapters whose page compares its live runs with the paper. Each verdict falls in one of
`verdicts.CLASSES` (`verdicts.verdict_class`); a claim judged on several rows of a table gets `verdicts.claim_class`
of their classes. Where a lenient rule judged a row before the strict ones (accuracy cells, SCAN), the row keeps
that rule's verdict on the same numbers beside its own (`rule_changes`), to show what the change moved. `grids`
says how far each stored grid is (declared runs, stored, CPU hours).
"""


import pandas as pd

from lengthgen.analysis.verdicts import (
    CLASSES,
    SEEDS_SPLIT,
    verdict_class,
)
from lengthgen.display import and_list, markdown_table
from lengthgen.papers import CHAPTER, EXPERIMENTS, PAPERS
from lengthgen.papers.base import ROW
from lengthgen.results.experiment import PROFILES
from lengthgen.results.store import ResultStore, config_key
from lengthgen.results.sweep import estimated_seconds

LIVE = "quick"  # the profile of the book's live runs
COLUMNS = ["paper", "runs", *ROW, "class"]




def scorecard(stored: ResultStore, live: ResultStore | None = None, live_profile: str = LIVE) -> pd.DataFrame:
    """Every row of every paper (`COLUMNS`): `runs` is "stored <profile>" or "live <live_profile>"; live rows only
    where `live` is given and the paper's page compares its live runs."""
    frames = []
    for paper in PAPERS.values():
        sources = [(stored, p, f"stored {p}") for p in paper.stored_profiles]
        if live is not None and paper.compares_live:
            sources.append((live, live_profile, f"live {live_profile}"))
        for store, profile, runs in sources:
            frame = paper.rows(store, profile)
            if not frame.empty:
                frames.append(frame.assign(paper=paper.title, runs=runs))
    card = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS[:-1])
    card["class"] = card.verdict.map(verdict_class)
    return card[COLUMNS]


def _kind(card: pd.DataFrame) -> pd.Series:
    """Each row's kind of runs: "stored" or "live" (the first word of its `runs`, e.g. "stored full")."""
    return card.runs.str.split().str[0]


def totals(card: pd.DataFrame) -> pd.DataFrame:
    """Rows per paper and runs (stored, live) by verdict class, with a total per row and an "all papers" row for
    each kind of runs."""
    counts = card.assign(kind=_kind(card)).pivot_table(
        index=["kind", "paper"], columns="class", values="cell", aggfunc="count", fill_value=0)
    counts = counts.reindex(columns=[c for c in CLASSES if c in counts.columns])
    every = counts.groupby(level="kind").sum().assign(paper="all papers").set_index("paper", append=True)
    table = pd.concat([counts, every]).sort_index(level="kind", sort_remaining=False)
    return table.assign(rows=table.sum(axis=1))


def rule_changes(card: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """What the strict rules changed: (counts, rows). `counts`: the rows that had a former verdict, by runs, paper,
    former class and present class; `rows`: the stored rows whose class changed (runs, paper, source, cell, paper
    value, ours, seeds, former verdict, verdict)."""
    had = card[card["former verdict"].notna()]
    had = had.assign(**{"former class": had["former verdict"].map(verdict_class)})
    counts = (had.groupby(["runs", "paper", "former class", "class"]).size().rename("rows").reset_index()
              .sort_values(["runs", "paper", "rows"], ascending=[True, True, False], ignore_index=True))
    changed = had[(had["former class"] != had["class"]) & had.runs.str.startswith("stored")]
    return counts, changed[["runs", "paper", "source", "cell", "paper value", "ours", "seeds", "former verdict",
                            "verdict"]]


GRID_COLUMNS = ["experiment", "profile", "declared", "stored", "missing", "complete", "CPU-thread hours", "hours to go"]
RUN_COLUMNS = ["key", "task", "size", "wall_seconds", "work"]  # a stored run, as the time estimates read it


def declared_runs(experiment, profile: str, wall: dict[str, float]) -> tuple[dict[str, tuple], pd.DataFrame]:
    """A grid's declared configs as {key: (task, size, work)} (`Experiment.cost`) and, of them, the stored runs (key,
    task, size, wall_seconds, work), given the wall seconds of every stored entry of the experiment by key."""
    declared = {config_key(c): experiment.cost(c) for c in experiment.configs_for(profile)}
    runs = pd.DataFrame([{"key": key, "task": task, "size": size, "wall_seconds": wall[key], "work": work}
                         for key, (task, size, work) in declared.items() if key in wall], columns=RUN_COLUMNS)
    return declared, runs


def stored_walls(store: ResultStore, name: str) -> dict[str, float]:
    """The wall seconds of every stored entry of experiment `name`, by key."""
    return {meta["key"]: meta["wall_seconds"] for _, _, meta in store.entries(name)}


def chapter_runs(store: ResultStore, experiment, profile: str) -> pd.DataFrame:
    """The stored declared runs (key, task, wall_seconds, work) of every grid of the experiment's chapter at `profile`:
    what the time of a grid's missing runs is estimated from where none of its own is stored."""
    frames = [declared_runs(e, profile, stored_walls(store, e.name))[1] for e in EXPERIMENTS.values()
              if CHAPTER[e.name] == CHAPTER[experiment.name] and profile in e.profiles]
    return pd.concat(frames, ignore_index=True)


def estimate_basis(store: ResultStore, experiment, profile: str, runs: pd.DataFrame) -> pd.DataFrame:
    """The stored runs a grid's missing runs are timed from: its own (`runs`: key, task, wall_seconds, work), and for
    each task it has none of, the runs of that task in its chapter's other grids (`chapter_runs`: e.g. the sizing
    study's), so a task is not timed at another task's pace while one of its own runs is stored anywhere."""
    chapter = chapter_runs(store, experiment, profile)
    return pd.concat([runs, chapter[~chapter.task.isin(set(runs.task))]], ignore_index=True) if len(runs) else chapter


def grids(store: ResultStore, profile: str | None = None, chapter: str | None = None) -> pd.DataFrame:
    """How far every stored grid (of `chapter`'s experiments, where given) is: one row per experiment and profile
    (`profile`, or else the experiment's stored profile and any other non-live profile with a run stored): the runs its
    configs declare (every cell at the profile's seeds), how many of them are stored, whether that is all of them, the
    CPU-thread hours of those runs, and an estimate of the hours the missing ones need (`estimated_seconds`: each at the
    median pace of its task's stored runs, per training step where the experiment counts them; a task with none stored
    in the grid at that of its chapter's grids, `estimate_basis`; NaN where those are none either).
    Runs outside the declared configs (other seeds, superseded protocols) are not counted."""
    rows = []
    for name, experiment in EXPERIMENTS.items():
        if chapter is not None and CHAPTER[name] != chapter:
            continue
        wall = stored_walls(store, name)
        for p in experiment.profiles:
            if (p != profile) if profile else (p in ("smoke", LIVE)):
                continue
            declared, runs = declared_runs(experiment, p, wall)
            if not (profile or p == experiment.stored_profile or len(runs)):
                continue
            basis = estimate_basis(store, experiment, p, runs)
            to_go, _ = estimated_seconds(basis, [cost for key, cost in declared.items() if key not in wall])
            complete = "yes" if len(runs) == len(declared) else "no"
            rows.append({"experiment": name, "profile": p, "declared": len(declared), "stored": len(runs),
                         "missing": len(declared) - len(runs), "complete": complete,
                         "CPU-thread hours": runs.wall_seconds.sum() / 3600, "hours to go": to_go / 3600})
    return pd.DataFrame(rows, columns=GRID_COLUMNS)


def _split_lines(card: pd.DataFrame) -> list[str]:
    """The page's sentence on the reproduced rows whose seeds split (`verdicts.cell_verdict`), per kind of runs
    (stored, live): none when no row's seeds split."""
    if not (card.verdict == SEEDS_SPLIT).any():
        return []
    kinds = card.assign(kind=_kind(card)).groupby("kind", sort=False)
    counts = [f"{(rows.verdict == SEEDS_SPLIT).sum()} of the {(rows['class'] == 'reproduced').sum()} reproduced "
              f"{kind} rows" for kind, rows in kinds]
    return [f"*{SEEDS_SPLIT}*: {', '.join(counts)}. Our median agrees with the paper's value, but some of our seeds "
            "solve the cell (>= 90%) and others fail it (<= 10%).", ""]


def _changes_section(card: pd.DataFrame) -> list[str]:
    """The page's lines on `rule_changes`: none when no row had a former verdict."""
    counts, changed = rule_changes(card)
    if counts.empty:
        return []
    return ["## What the strict rules changed", "",
            "A lenient rule judges an accuracy cell by bands (*reproduced* when the paper's value and ours both solved "
            "(>= 90%), both failed (<= 10%) or both lay between; *not reproduced* when one solved and the other "
            "failed; else *partly*) and SCAN by \"our mean within the paper's mean +- 2 std\", which one run could "
            "hardly fail. The same numbers under the lenient and the strict rules: the rows "
            "that had a former verdict, by its class and the present one, then every stored row whose class changed "
            "(the former rules are `verdicts.former_cell_verdict` and `former_mean_verdict`, applied nowhere else).",
            "", markdown_table(counts), "", *([markdown_table(changed), ""] if not changed.empty else [])]


def _grids_section(grid_table: pd.DataFrame | None) -> list[str]:
    """The page's lines on `grids`: none without a table."""
    if grid_table is None or grid_table.empty:
        return []
    shown = grid_table.assign(**{c: grid_table[c].map(lambda h: "unknown" if h != h else f"{h:.1f}")
                                 for c in ("CPU-thread hours", "hours to go")})
    return ["## Stored grids", "",
            "How far each stored grid is: the runs its configs declare (every cell at the seeds fixed before the "
            "runs), how many of them are stored, those runs' CPU-thread hours, and the hours the missing runs would "
            "take at the median wall time of the stored runs of their task, per training step where the experiment "
            "counts its steps (a grid with none stored: of its chapter's other grids of the same profile; "
            "`lengthgen results` prints the same; `lengthgen results EXPERIMENT` lists the missing runs; *unknown* "
            "where none is stored to estimate from). The tables take their medians over the seeds every cell has, so "
            "an incomplete grid counts only its complete seeds.",
            "", markdown_table(shown), ""]


def _counted(rows: pd.DataFrame) -> str:
    """"<n> rows: <k> reproduced, <j> not reproduced, ..." over the verdict classes present, in `CLASSES` order."""
    counts = rows["class"].value_counts()
    return f"{len(rows)} row{'s' * (len(rows) != 1)}: " + ", ".join(f"{counts[c]} {c}" for c in CLASSES if c in counts)


def _source_summary(source: str, rows: pd.DataFrame) -> str:
    """One source (a table or figure) of a paper's headline: its one row's verdict, or how many of its rows reproduce
    the paper, with the verdict of its ranking where it has one."""
    if len(rows) == 1:
        return f"{source}: {rows.verdict.iloc[0]}"
    ranking = rows[rows.cell.str.startswith("ranking")]
    rank = f" (ranking {ranking.verdict.iloc[0]}: {ranking.ours.iloc[0]})" if len(ranking) else ""
    cells = rows.drop(ranking.index)
    return f"{source}: {(cells['class'] == 'reproduced').sum()} of {len(cells)} rows reproduced{rank}"


def _nearest_profile(paper: str, profiles: list[str], grid_table: pd.DataFrame | None) -> str:
    """Of the profiles a paper's rows are stored at, the one nearest the paper's regime (latest in `PROFILES`) whose
    grids of that paper are all complete in `grid_table` (`grids`); without one, full where stored, else the first."""
    if grid_table is not None and not grid_table.empty:
        names = {e.name for p in PAPERS.values() if p.title == paper for e in p.experiments}
        for profile in sorted(profiles, key=PROFILES.index, reverse=True):
            rows = grid_table[grid_table.experiment.isin(names) & (grid_table.profile == profile)]
            if len(rows) and (rows.complete == "yes").all():
                return profile
    return "full" if "full" in profiles else profiles[0]


def findings(card: pd.DataFrame, grid_table: pd.DataFrame | None = None) -> str:
    """What the book found, one Markdown list item per paper: the verdict classes of its stored rows, each of its
    tables or figures read at the profile nearest the paper's regime among those it is stored at whose grids are
    complete (`_nearest_profile`; without `grid_table`, full where stored, else the first), and each source in one
    phrase (a source's name is its text up to the first colon). Empty when nothing is stored."""
    stored = card[_kind(card) == "stored"]
    lines = []
    for paper, rows in stored.groupby("paper", sort=False):
        rows = rows.assign(source=rows.source.str.split(":").str[0])
        rows = pd.concat([group[group.runs == f"stored {_nearest_profile(paper, _profiles(group), grid_table)}"]
                          for _, group in rows.groupby("source", sort=False)])
        parts = "; ".join(_source_summary(source, group) for source, group in rows.groupby("source", sort=False))
        lines.append(f"- **{paper}** ({and_list(_profiles(rows))} runs; {_counted(rows)}). {parts}.")
    return "\n".join(lines)


def _profiles(rows: pd.DataFrame) -> list[str]:
    """The profiles of stored rows, in the order they first appear ("stored cpu" -> "cpu")."""
    return [runs.removeprefix("stored ") for runs in dict.fromkeys(rows.runs)]


def page(card: pd.DataFrame, sources: str, grid_table: pd.DataFrame | None = None) -> str:
    """The scorecard as a Markdown page: what it is built from (`sources`), the totals (and how many reproduced rows'
    seeds split), how far each stored grid is (`grids`, when given), what the strict rules changed, then one table
    per paper (without its seeds or reason column where no row of the paper has one)."""
    parts = ["# Reproduction scorecard", "",
             "Every number and claim of the four papers that the book sets beside our runs, one row each, generated "
             f"from {sources} and the papers' numbers as data at every build of the book (`lengthgen scorecard` "
             "prints the same from the command line; `--json` for a program). The verdicts are the chapters', by "
             "the rules of Methods (*Verdict rules*, `lengthgen.analysis.verdicts`); each falls in one class: "
             + ", ".join(f"*{c}*" for c in CLASSES) + ". A cell whose runs do not fit their own training data is "
             "*not trained*: it is never counted as a length result. Medians and ranges are over the seeds that "
             "every cell of a table has; `seeds` counts them.", "", "## Totals", ""]
    if card.empty:
        return "\n".join([*parts, "No stored or live results yet."]) + "\n"
    parts += [markdown_table(totals(card).reset_index()), "", *_split_lines(card)]
    parts += _grids_section(grid_table) + _changes_section(card)
    for paper, rows in card.groupby("paper", sort=False):
        shown = rows.drop(columns=["paper", "class", "former verdict"])
        empty = [c for c in ("seeds", "reason") if shown[c].map(lambda v: v is None or v != v or v == "").all()]
        parts += [f"## {paper}", "", markdown_table(shown.drop(columns=empty)), ""]
    return "\n".join(parts)
