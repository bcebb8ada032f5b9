"""The reproduction scorecard: every number and claim of the four papers that the book sets beside our runs, one row
each, built from a results store and the papers' numbers as data (never written by hand), with its verdict.

The rows come from the same comparisons the chapters show, one function per paper (`PAPERS`):

- monotonic location attention: the cells of Tables 2, 4, 6 and 7 (`compare.cell_side_by_side`), each table's
  ranking (`verdicts.ranking_verdict`), each task's separation at its longest split (`compare.separation`) and SCAN
  (`monotonic.scan_side`);
- sparsity: each figure's claim, read from its table (`sparsity_paper.READINGS`), one row per claim;
- vanishing variance: the paired comparisons of Tables 1-6 (`vanishing_variance_paper.versus`), one row per N, and
  the gains over the baseline that Tables 3 and 6 print without a test (`vanishing_variance_paper.gains`), one row per
  variant and N;
- attention bias calibration: the cells of Tables 1 and 3 (`analysis.arithmetic.cells`).

Stored rows come from each chapter's stored profiles; live rows (`LIVE`, the book's quick runs) from the build's
store, for the chapters whose page compares its live runs with the paper. Each verdict falls in one of
`verdicts.CLASSES` (`verdicts.verdict_class`); a claim judged on several rows of a table gets `verdicts.claim_class`
of their classes. Where a lenient rule judged a row before the strict ones (accuracy cells, SCAN), the row keeps
that rule's verdict on the same numbers beside its own (`rule_changes`), to show what the change moved. `grids`
says how far each stored grid is (declared runs, stored, CPU hours).
"""

import re

import pandas as pd

from lengthgen.analysis import compare, variance
from lengthgen.analysis.verdicts import (
    CLASSES,
    NOT_RUN,
    NOT_TRAINED,
    SEEDS_SPLIT,
    claim_class,
    former_cell_verdict,
    former_mean_verdict,
    verdict_class,
)
from lengthgen.experiments import EXPERIMENTS, monotonic, sparsity_paper
from lengthgen.experiments import vanishing_variance_paper as variance_paper
from lengthgen.experiments.abc import arithmetic_reading
from lengthgen.experiments.sparsity import assignment_reading, parity_reading, scratchpad_reading
from lengthgen.experiments.sparsity_language import language_reading
from lengthgen.experiments.vanishing_variance import compared_runs, compared_seeds
from lengthgen.experiments.vanishing_variance_paper import TRAIN_MAX
from lengthgen.results.store import ResultStore, config_key
from lengthgen.results.sweep import estimated_seconds, stored_runs

LIVE = "quick"  # the profile of the book's live runs
# What a paper's function returns; "former verdict": the lenient rule's verdict on the same numbers where one applied
# (`verdicts.former_cell_verdict`, `former_mean_verdict`), else None
ROW = ["source", "cell", "paper value", "ours", "seeds", "verdict", "reason", "former verdict"]
COLUMNS = ["paper", "runs", *ROW, "class"]


def _runs(name: str, profile: str, store: ResultStore) -> pd.DataFrame:
    """The stored runs of experiment `name`'s grid at `profile`; none when the experiment has no such profile."""
    experiment = EXPERIMENTS[name]
    return stored_runs(experiment, profile, store) if profile in experiment.profiles else pd.DataFrame()


def _rows(source: str, cell: list, paper, ours: list, seeds: list, verdict: list, reason,
          former: list | None = None) -> pd.DataFrame:
    return pd.DataFrame({"source": source, "cell": cell, "paper value": paper, "ours": ours, "seeds": seeds,
                         "verdict": verdict, "reason": reason, "former verdict": former}, columns=ROW)


# ------------------------------------------------------------------------------------------------------------------
# Monotonic location attention


SEPARATION = {"yes": "reproduced", "no": "not reproduced", "not judged": NOT_TRAINED}  # compare.separation's answers


def _table(source: str, side: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """A table's cells (a `monotonic.against_paper` frame, whose medians are of `runs`), its ranking over the cells
    whose runs learned their task, and each task's separation."""
    cells = _rows(source, [f"{r.variant} / {r.task} / {r.length}" for r in side.itertuples()],
                  [f"{p:.1f}" for p in side.paper], [f"{o:.1f}" for o in side.ours], side.seeds.tolist(),
                  side.verdict.tolist(), side.reason.tolist(),
                  [former_cell_verdict(p, o) for p, o in zip(side.paper, side.ours, strict=True)])
    rank = compare.ranking(side)
    ranking = _rows(source, ["ranking of its cells"], f"{rank['cells']} cells whose runs learned their task",
                    [f"Spearman rho {rank['rho']:.2f} (p {rank['p']:.2g})"], [None], [rank["verdict"]], "")
    sep = compare.separation(side, runs)
    separation = _rows(source, [f"{task} at {r.split}: which mechanisms solve it" for task, r in sep.iterrows()],
                       sep["paper: solved by"].tolist(), sep["ours: solved by"].tolist(), None,
                       sep["same separation"].map(SEPARATION).tolist(),
                       sep["off the paper's pattern (ours, ours iid)"].replace("none", "").tolist())
    return pd.concat([cells, ranking, separation], ignore_index=True)


def monotonic_rows(store: ResultStore, profile: str) -> pd.DataFrame:
    """Tables 2, 4, 6, 7: each cell (the paper's median beside ours and our seeds' range, `verdicts.cell_verdict`),
    the table's ranking and each task's separation at its longest split; SCAN's rows (our mean over seeds against
    the paper's mean and std, `verdicts.mean_verdict`), as the chapter shows them: each table on the seeds every one
    of its cells has (`compare.on_common_seeds`), Lookup's and Reverse Lookup's fit estimated from their dev scores
    (`monotonic.with_fit_estimates`)."""
    main = monotonic.with_fit_estimates(_runs("mla-main", profile, store))
    frames = []
    for name, source in (("mla-main", "Table 2"), ("mla-ablations", "Table 4"), ("mla-variants", "Table 7"),
                         ("mla-extra", "Table 6")):
        runs = main if name == "mla-main" else monotonic.with_fit_estimates(_runs(name, profile, store))
        runs = monotonic.with_unablated(name, runs, main)
        if runs.empty:
            continue
        budget = "full protocol" if profile == "full" else monotonic.budget(EXPERIMENTS[name].configs_for(profile)[0])
        side, balanced, _ = monotonic.against_paper(name, runs, budget)
        frames.append(_table(source, side, balanced))
    scan = _runs("mla-scan", profile, store)
    if not scan.empty:
        side = monotonic.scan_side(scan)
        frames.append(_rows("Tables 3, 8 (SCAN length split)", side.index.tolist(),
                            [f"{m:.1f} ± {s:.1f}" for m, s in zip(side["paper mean"], side["paper std"], strict=True)],
                            [f"{o:.1f}" for o in side.ours], side.seeds.tolist(), side.verdict.tolist(),
                            side.reason.tolist(),
                            [former_mean_verdict(m, s, o) if n else NOT_RUN for m, s, o, n in
                             zip(side["paper mean"], side["paper std"], side.ours, side.seeds, strict=True)]))
        rank = compare.ranking(side, paper="paper mean")
        frames.append(_rows("Tables 3, 8 (SCAN length split)", ["ranking of the mechanisms"],
                            f"{rank['cells']} mechanisms whose runs learned their task",
                            [f"Spearman rho {rank['rho']:.2f} (p {rank['p']:.2g})"], [None], [rank["verdict"]], ""))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=ROW)


# ------------------------------------------------------------------------------------------------------------------
# Sparsity


def sparsity_readings(store: ResultStore, profile: str) -> dict[str, pd.DataFrame]:
    """The claim tables (`sparsity_paper.READINGS` keys) of a profile's stored runs; a reading without runs is left
    out."""
    readings = {}
    parity, scratch, assign, language = (_runs(f"sparsity-{name}", profile, store)
                                         for name in ("parity", "scratchpad", "assignment", "language"))
    if not parity.empty:
        readings["parity"] = parity_reading(parity, profile)[1]
    if not scratch.empty:
        readings["scratchpad"], readings["jumps"] = scratchpad_reading(scratch, profile)[1:]
    if not assign.empty:
        readings["assignment"] = assignment_reading(assign, profile)[1]
    if not language.empty:
        readings["language"] = language_reading(language, profile)[2]
    return readings


def sparsity_rows(store: ResultStore, profile: str) -> pd.DataFrame:
    """One row per figure's claim: what the paper states, our reading with its numbers, and `claim_class` of the
    reading's rows (the baseline rows of the coupling tables are references, not verdicts)."""
    readings = sparsity_readings(store, profile)
    rows = []
    for where, statement, _ in sparsity_paper.CLAIMS:
        key, read = sparsity_paper.READINGS[where]
        if key not in readings:
            continue
        table = readings[key]
        judged = table[table.verdict != "baseline"]
        rows.append(_rows(where, [key], statement, [read(table)], [None],
                          [claim_class([verdict_class(v) for v in judged.verdict])], ""))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=ROW)


# ------------------------------------------------------------------------------------------------------------------
# Vanishing variance


def _reasons(table: pd.DataFrame, reason: str, declared: int) -> list[str]:
    """The reason of each row of a table with columns seeds and verdict: `reason` and how many of the `declared` pairs
    the row rests on where it does not reproduce the paper, else empty."""
    return [f"{reason}; {n} of {declared} declared pairs stored" if not v.startswith("reproduced") else ""
            for n, v in zip(table.seeds, table.verdict, strict=True)]


def _paired(source: str, side: pd.DataFrame, reason: str, declared: int) -> pd.DataFrame:
    """A `versus` table's rows, with `_reasons`."""
    return _rows(source, [f"N = {n}" for n in side.N],
                 [f"{d:+.2f} (p {p})" for d, p in zip(side["paper b-a"], side["paper p"], strict=True)],
                 [f"{d:+.2f} (p {p})" for d, p in zip(side["ours b-a"], side["ours p"], strict=True)],
                 side.seeds.tolist(), side.verdict.tolist(),
                 _reasons(side, reason, declared))


def _gains(source: str, gains: pd.DataFrame, reason: str, declared: int) -> pd.DataFrame:
    """A `gains` table's rows: each variant's gain over the baseline per N, ours with its 95% interval."""
    return _rows(source, [f"{r.variant} gain, N = {r.N}" for r in gains.itertuples()],
                 [f"{p:+.2f}" for p in gains.paper],
                 [f"{o:+.2f}" + (f" ± {c:.2f}" if c == c else "") for o, c in zip(gains.ours, gains.ci95, strict=True)],
                 gains.seeds.tolist(), gains.verdict.tolist(),
                 _reasons(gains, reason, declared))


def variance_rows(store: ResultStore, profile: str) -> pd.DataFrame:
    """Tables 1-6 (b - a in points and its paired p per N, the paper's beside ours; for Tables 3 and 6 also each
    variant's gain over the baseline): Tables 1-3 and 6 from the retrieval runs, Tables 4 and 5 from the curriculum
    runs, each task on the profile's compared seeds (`compared_seeds`); Figs. 2-4 from the seed pairs of `vv-internals`
    (`variance.pair_table`); the reason of a divergence names the training budget."""
    comparisons = [("vv-retrieval", title, args) for title, args in variance_paper.COMPARISONS.items()] + [
        ("vv-curriculum", title, args) for title, args in variance_paper.CURRICULUM_COMPARISONS.items()]
    frames = []
    for name in ("vv-retrieval", "vv-curriculum"):
        runs = _runs(name, profile, store)
        if runs.empty:
            continue
        stored = runs.assign(variant=runs.variant.str.removesuffix("+curriculum"))
        configs = EXPERIMENTS[name].configs_for(profile)
        norms = tuple(dict.fromkeys(c.model.norm for c in configs))  # the grid's variants (no +std in curriculum)
        runs = compared_runs(stored, profile, norms)
        steps = {c.task: c.train.steps for c in configs}
        for _, title, args in (c for c in comparisons if c[0] == name):
            read, side = variance_paper.compare(runs, args)
            reason = f"{profile} profile: {steps[args['task']]:,} training steps"
            declared = len(compared_seeds(stored, profile, args["task"], norms))
            if not side.empty:
                frames.append(_paired(title, side, reason, declared))
            gains = variance_paper.gains(read, args)
            if not gains.empty:
                source = f"{title.split(':')[0]}: gains over the {args['relative_to']} (the paper gives no test)"
                frames.append(_gains(source, gains, reason, declared))
    internals = _runs("vv-internals", profile, store)
    lengths = (TRAIN_MAX, max(internals.length)) if not internals.empty else ()  # each model against itself
    pairs = variance.pair_table(internals, lengths) if lengths else pd.DataFrame()
    if len(pairs):
        figs = variance_paper.figure_claims(pairs)
        configs = EXPERIMENTS["vv-internals"].configs_for(profile)
        reason = (f"{profile} profile: {configs[0].train.steps:,} training steps; {len(pairs)} of "
                  f"{len(configs) // 2} declared pairs stored")
        frames.append(_rows(figs.figure.tolist(), [f"{c}, N = {lengths[1]:,} vs {lengths[0]}" for c in figs.claim],
                            "holds (plot)", figs.evidence.tolist(), figs.pairs.tolist(), figs.verdict.tolist(),
                            [reason if not v.startswith("reproduced") else "" for v in figs.verdict]))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=ROW)


# ------------------------------------------------------------------------------------------------------------------
# Attention bias calibration


def arithmetic_rows(store: ResultStore, profile: str) -> pd.DataFrame:
    """Tables 1 and 3 cell by cell: the paper's exact match at 6, 10, 15, 20 digits beside our mean over seeds
    (with its range); a model that does not fit its training numbers is "not trained"."""
    runs = pd.concat([_runs(name, profile, store) for name in ("abc-table1", "abc-scaffolding")])
    if runs.empty:
        return pd.DataFrame(columns=ROW)
    cells = arithmetic_reading(runs)["cells"]
    return _rows(["Table 3" if m.startswith("w=") else "Table 1" for m in cells.model],
                 [f"{r.task} / {r.model}{f' ({r.rule})' if r.rule else ''} / {r.length} digits"
                  for r in cells.itertuples()],
                 [f"{p:.1f}" for p in cells.paper],
                 [f"{o:.1f} ({r})" if r else f"{o:.1f}" for o, r in zip(cells.ours, cells.range, strict=True)],
                 cells.seeds.tolist(), cells.verdict.tolist(), "",
                 [former_cell_verdict(p, o) for p, o in zip(cells.paper, cells.ours, strict=True)])


# ------------------------------------------------------------------------------------------------------------------

PAPERS = {  # paper -> (its rows from a store and profile, the profiles of its stored runs, whether live rows count)
    "Monotonic location attention": (monotonic_rows, ("full",), True),
    "Sparsity and length generalization": (sparsity_rows, ("cpu",), True),
    "Vanishing variance": (variance_rows, ("cpu", "full"), False),
    "Attention bias calibration": (arithmetic_rows, ("cpu",), True),
}


def scorecard(stored: ResultStore, live: ResultStore | None = None, live_profile: str = LIVE) -> pd.DataFrame:
    """Every row of every paper (`COLUMNS`): `runs` is "stored <profile>" or "live <live_profile>"; live rows only
    where `live` is given and the paper's page compares its live runs."""
    frames = []
    for paper, (rows, profiles, compares_live) in PAPERS.items():
        sources = [(stored, p, f"stored {p}") for p in profiles]
        if live is not None and compares_live:
            sources.append((live, live_profile, f"live {live_profile}"))
        for store, profile, runs in sources:
            frame = rows(store, profile)
            if not frame.empty:
                frames.append(frame.assign(paper=paper, runs=runs))
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
RUN_COLUMNS = ["key", "task", "wall_seconds"]  # a stored run, as the time estimates read it


def declared_runs(experiment, profile: str, wall: dict[str, float]) -> tuple[dict[str, str], pd.DataFrame]:
    """A grid's declared configs as {key: task} and, of them, the stored runs (key, task, wall_seconds), given the
    wall seconds of every stored entry of the experiment by key."""
    task_of = {config_key(c): experiment.labels(c)["task"] for c in experiment.configs_for(profile)}
    runs = pd.DataFrame([{"key": key, "task": task, "wall_seconds": wall[key]}
                         for key, task in task_of.items() if key in wall], columns=RUN_COLUMNS)
    return task_of, runs


def _walls(store: ResultStore, name: str) -> dict[str, float]:
    return {meta["key"]: meta["wall_seconds"] for _, _, meta in store.entries(name)}


def chapter_runs(store: ResultStore, experiment, profile: str) -> pd.DataFrame:
    """The stored declared runs (key, task, wall_seconds) of every grid of the experiment's chapter at `profile`: what
    the time of a grid's missing runs is estimated from where none of its own is stored."""
    frames = [declared_runs(e, profile, _walls(store, e.name))[1] for e in EXPERIMENTS.values()
              if e.chapter == experiment.chapter and profile in e.profiles]
    return pd.concat(frames, ignore_index=True)


def grids(store: ResultStore, profile: str | None = None) -> pd.DataFrame:
    """How far every stored grid is: one row per experiment and profile (`profile`, or else the experiment's stored
    profile and any other non-live profile with a run stored): the runs its configs declare (every cell at the
    profile's seeds), how many of them are stored, whether that is all of them, the CPU-thread hours of those runs,
    and an estimate of the hours the missing ones need (`estimated_seconds`: each at the median of its task's stored
    runs; a grid with none stored at those of its chapter's grids, `chapter_runs`; NaN where those are none either).
    Runs outside the declared configs (other seeds, superseded protocols) are not counted."""
    rows = []
    for name, experiment in EXPERIMENTS.items():
        wall = _walls(store, name)
        for p in experiment.profiles:
            if (p != profile) if profile else (p in ("smoke", LIVE)):
                continue
            task_of, runs = declared_runs(experiment, p, wall)
            if not (profile or p == experiment.stored_profile or len(runs)):
                continue
            basis = runs if len(runs) else chapter_runs(store, experiment, p)
            to_go, _ = estimated_seconds(basis, [task for key, task in task_of.items() if key not in wall])
            rows.append({"experiment": name, "profile": p, "declared": len(task_of), "stored": len(runs),
                         "missing": len(task_of) - len(runs), "complete": "yes" if len(runs) == len(task_of) else "no",
                         "CPU-thread hours": runs.wall_seconds.sum() / 3600, "hours to go": to_go / 3600})
    return pd.DataFrame(rows, columns=GRID_COLUMNS)


def markdown_table(df: pd.DataFrame) -> str:
    """A pipe table of a frame's columns (its index left out); `|` in a cell escaped, a missing value empty."""
    def text(value) -> str:
        return "" if value is None or value != value else str(value).replace("|", "\\|")

    lines = ["| " + " | ".join(map(text, df.columns)) + " |", "|" + "---|" * len(df.columns)]
    lines += ["| " + " | ".join(text(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines)


def breakable(page_text: str) -> str:
    """A Markdown page for the browser: its table rows `compare.wrappable` outside code spans and link targets. Other
    lines are left as they are."""
    def row(line: str) -> str:
        parts = re.split(r"(`[^`]*`|\]\([^)]*\))", line)  # the odd parts: code spans and link targets
        return "".join(p if i % 2 else compare.wrappable(p) for i, p in enumerate(parts))

    return "\n".join(row(line) if line.startswith("|") else line for line in page_text.split("\n"))


def _split_lines(card: pd.DataFrame) -> list[str]:
    """The page's sentence on the reproduced rows whose seeds split (`verdicts.cell_verdict`), per kind of runs
    (stored, live): none when no row's seeds split."""
    if not (card.verdict == SEEDS_SPLIT).any():
        return []
    kinds = card.assign(kind=_kind(card)).groupby("kind", sort=False)
    counts = [f"{(rows.verdict == SEEDS_SPLIT).sum()} of the {(rows['class'] == 'reproduced').sum()} reproduced "
              f"{kind} rows" for kind, rows in kinds]
    return [f"*{SEEDS_SPLIT}*: {', '.join(counts)}. The paper's value lies within our seeds' range, but some of those "
            "seeds solve the cell (>= 90%) and others fail it (<= 10%), so our median may sit in the other band.", ""]


def _changes_section(card: pd.DataFrame) -> list[str]:
    """The page's lines on `rule_changes`: none when no row had a former verdict."""
    counts, changed = rule_changes(card)
    if counts.empty:
        return []
    return ["## What the strict rules changed", "",
            "Until November 2026 an accuracy cell was judged by bands (*reproduced* when the paper's value and ours "
            "both solved (>= 90%), both failed (<= 10%) or both lay between; *not reproduced* when one solved and the "
            "other failed; else *partly*) and SCAN by \"our mean within the paper's mean +- 2 std\", which one run "
            "could hardly fail; an audit of the book found both lenient. The same numbers under both rules: the rows "
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
            "take at the median wall time of the stored runs of their task (a grid with none stored: of its "
            "chapter's other grids of the same profile; `lengthgen results` prints the same; `lengthgen results "
            "EXPERIMENT` lists the missing runs; *unknown* where none is stored to estimate from). The tables take "
            "their medians over the seeds every cell has, so an incomplete grid counts only its complete seeds.",
            "", markdown_table(shown), ""]


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
