"""The scorecard rows of the sparsity chapter: every number and claim of the paper that the chapter sets beside our
runs, one row each (`papers.base.ROW`), from a results store and a profile."""

import pandas as pd

from lengthgen.analysis.claims import SAME, seed_check
from lengthgen.analysis.report import provenance_summary
from lengthgen.display import markdown_table, model_size
from lengthgen.papers.base import claim_rows, grid_runs
from lengthgen.papers.sparsity import paper as sparsity_paper
from lengthgen.papers.sparsity.experiments import (
    ASSIGNMENT_PROFILES,
    PARITY_PROFILES,
    QUICK_SEEDS,
    SCRATCHPAD_PROFILES,
    SPARSITY_EXPERIMENTS,
    assignment_reading,
    parity_reading,
    scratchpad_reading,
)
from lengthgen.papers.sparsity.language import LANGUAGE, LANGUAGE_PROFILES, language_reading
from lengthgen.papers.sparsity.readings import judged, side_by_side
from lengthgen.papers.sparsity.sizing import JUMP_CONTROL
from lengthgen.results.store import ResultStore
from lengthgen.results.sweep import collect

GRIDS = {e.name: e for e in (*SPARSITY_EXPERIMENTS, LANGUAGE)}
# The profile at which the chapter and the scorecard read each grid: its stored profile (`Experiment.stored`), regime
# for each: a larger model than cpu's where the paper's mechanisms needed one to fit (scratchpad, assignment; the
# sizing study) or to hold sparse parity's larger bounds far (`experiments.PARITY_PROFILES`), documents longer than
# the windows (language).
READ_AT = {name: e.stored_profile for name, e in GRIDS.items()}
STORED_PROFILES = tuple(dict.fromkeys(READ_AT.values()))
SEED_CHECK = {"quick": QUICK_SEEDS}  # a live profile -> its seeds that the live runs do not use, stored


# A grid's controls read as cells of it: runs on the grid's own seeds that its readings take up (the jump control,
# j = 2 at the size of j = 3, `readings.jump_claim`'s same_size).
SEEDED_CONTROLS = {"sparsity-scratchpad": JUMP_CONTROL}


def read_runs(name: str, store: ResultStore, profile: str | None = None) -> pd.DataFrame:
    """The stored runs of a grid of the chapter (`sparsity-<name>`) at `profile`, which is READ_AT's unless given,
    with those of its control (SEEDED_CONTROLS) at that profile once the control holds every seed the grid has (a
    partial control would cut every cell to its seeds); none when the experiment has no such profile."""
    experiment = GRIDS[f"sparsity-{name}"]
    profile = profile or READ_AT[experiment.name]
    runs = grid_runs(experiment, profile, store)
    control = SEEDED_CONTROLS.get(experiment.name)
    extra = grid_runs(control, profile, store) if control and not runs.empty else pd.DataFrame()
    return pd.concat([runs, extra], ignore_index=True) if len(extra) and set(runs.seed) <= set(extra.seed) else runs


def provenance(name: str, runs: pd.DataFrame) -> str:
    """`report.provenance_summary` of a grid's runs as `read_runs` gives them at READ_AT's profile: the grid's own,
    then its control's (SEEDED_CONTROLS) where they are among them, each against its own declared runs."""
    grid = GRIDS[f"sparsity-{name}"]
    profile = READ_AT[grid.name]
    control = SEEDED_CONTROLS.get(grid.name)
    held = set(runs.experiment) if len(runs) else set()
    parts = [grid] + ([control] if control and control.name in held else [])
    return "\n\n".join(provenance_summary(runs[runs.experiment == e.name] if len(runs) else runs, e.name,
                                           len(e.configs_for(profile)), profile) for e in parts)


def parity_side_by_side(grids: dict[str, tuple[pd.DataFrame, str]]) -> pd.DataFrame:
    """`readings.side_by_side` of two stored sparse-parity grids (name -> their runs, on the seeds every cell has, and
    the profile they are read at), each read over its seeds and on each seed."""
    means = {name: parity_reading(runs, profile)[1:] for name, (runs, profile) in grids.items()}
    seeds = {name: [parity_reading(runs[runs.seed == seed], profile)[1:] for seed in sorted(runs.seed.unique())]
             for name, (runs, profile) in grids.items()}
    return side_by_side(means, seeds)


def readings_of(runs: dict[str, pd.DataFrame], profile: str) -> dict[str, pd.DataFrame]:
    """The readings by key of runs at `profile` by grid name ("parity", "scratchpad", "assignment", "language"); a
    grid missing or without runs gives none."""
    readings = {}
    parity, scratch, assign, language = (runs.get(name, pd.DataFrame())
                                         for name in ("parity", "scratchpad", "assignment", "language"))
    if not parity.empty:
        readings["parity"], readings["parity k"] = parity_reading(parity, profile)[1:]
    if not scratch.empty:
        readings["scratchpad"], readings["jumps"] = scratchpad_reading(scratch, profile)[1:]
    if not assign.empty:
        readings["assignment"] = assignment_reading(assign, profile)[1]
    if not language.empty:
        readings["language"] = language_reading(language, profile)[2]
    return readings


def seed_table(runs: dict[str, pd.DataFrame], profiles: dict[str, str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each grid of `runs` (by grid name, read at `profiles[name]`) seed by seed, on the seeds that every cell of it
    has (`readings.judged` without the odd trim), a grid with fewer than two left out: (each claim part's verdict
    class on each seed, `claims.seed_check`; each model's accuracy at its longest training length on each seed, the
    worst of its rows, `fits`). A seed that a grid does not have reads "–"."""
    checks, fits = [], []
    for name, frame in runs.items():
        frame = judged(frame, odd=False)
        seeds = sorted(set(frame.get("seed", ())))  # a grid with nothing stored has no columns
        if len(seeds) < 2:
            continue
        by_seed = {seed: readings_of({name: frame[frame.seed == seed]}, profiles[name]) for seed in seeds}
        checks.append(seed_check(sparsity_paper.CLAIMS, by_seed).assign(grid=name))
        fits.append(pd.concat({f"seed {seed}": in_distribution(readings) for seed, readings in by_seed.items()},
                              axis=1).reset_index().assign(grid=name))
    if not checks:
        return pd.DataFrame(), pd.DataFrame()
    check = pd.concat(checks, ignore_index=True)
    seeds = sorted((c for c in check if c.startswith("seed ")), key=lambda c: int(c.split()[1]))
    fit = pd.concat(fits, ignore_index=True)
    return (check[["grid", "where", "part", *seeds, SAME]].fillna("–"),
            fit[["grid", "variant", *seeds]].set_index(["grid", "variant"]).round(1).astype(object).fillna("–"))


MODEL_READINGS = ("parity", "scratchpad", "jumps", "assignment")  # the readings whose rows are models


def in_distribution(readings: dict[str, pd.DataFrame]) -> pd.Series:
    """Each model's accuracy at its longest training length (the worst over the readings that list it), by variant,
    from one seed's readings (MODEL_READINGS: their "in distribution" columns; language's models have none)."""
    rows = [table.set_index("variant")[column] for key, table in readings.items() if key in MODEL_READINGS
            for column in table.columns if column.startswith("in distribution")]
    return pd.concat(rows).groupby(level=0, sort=False).min() if rows else pd.Series(dtype=float)


def stored_seed_check(runs: dict[str, pd.DataFrame]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`seed_table` of stored grids (by grid name), each read at its READ_AT profile."""
    return seed_table(runs, {name: READ_AT[f"sparsity-{name}"] for name in runs})


def live_seed_check(live: dict[str, pd.DataFrame], store: ResultStore,
                    profile: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Whether the live claims hold beyond the live runs' seed: `seed_table` of the live runs (`live`, by grid name)
    and the stored runs of the same profile on seeds the live runs do not use (`SEED_CHECK`). None at a profile
    without such seeds, or before any is stored."""
    if profile not in SEED_CHECK:
        return pd.DataFrame(), pd.DataFrame()
    grids = {name: GRIDS[f"sparsity-{name}"] for name in live}
    runs = {name: pd.concat([frame, collect(grids[name], grids[name].configs_for(profile, SEED_CHECK[profile]), store,
                                            skip_missing=True)]) for name, frame in live.items()}
    return seed_table(runs, dict.fromkeys(runs, profile))


def quick_methods(store: ResultStore) -> str:
    """Methods' section on the `quick` sizes: each quick model's size, and its runs on the seed check's seeds
    (QUICK_SEEDS) as stored: one thread's wall time and exact match at the longest training length (`in_distribution`);
    and the median wall time of a Fig. 8 ablation on the stored grid, the size at which they fit."""
    rows = []
    for name in ("parity", "scratchpad"):
        grid, sizes = GRIDS[f"sparsity-{name}"], PROFILES[name]["quick"]
        runs = collect(grid, grid.configs_for("quick", QUICK_SEEDS), store, skip_missing=True)
        for seed, frame in runs.groupby("seed") if len(runs) else ():
            fit = in_distribution(readings_of({name: frame}, "quick"))
            rows += [{"model": model, "size": f"{model_size(sizes.layers, sizes.width)}, {sizes.steps:,} steps",
                      "seed": seed, "wall time (s, one thread)": round(wall), "in distribution (%)": fit.get(model)}
                     for model, wall in frame.groupby("variant").wall_seconds.first().items()]
    seeds = ",".join(map(str, QUICK_SEEDS))
    if not rows:
        return (f"No quick run on the seed check's seeds is stored yet (`lengthgen run sparsity-parity --profile quick "
                f"--seeds {seeds}`, and likewise sparsity-scratchpad).\n")
    stored = read_runs("scratchpad", store)
    ablations = stored[~stored.variant.str.contains("PPC|coupled")] if len(stored) else stored
    walls = ablations.groupby("key").wall_seconds.first() if len(ablations) else pd.Series(dtype=float)
    slow = (f" A Fig. 8 ablation on the stored grid (`{READ_AT['sparsity-scratchpad']}`) takes {walls.median():,.0f} s "
            f"of one thread (median of {len(walls)} runs)." if len(walls) else "")
    return (f"**The quick runs, as stored** (`--profile quick --seeds {seeds}`; a run's wall time is one thread's, "
            f"other runs may have shared the cores).{slow}\n\n{markdown_table(pd.DataFrame(rows))}\n")


PROFILES = {"parity": PARITY_PROFILES, "scratchpad": SCRATCHPAD_PROFILES, "assignment": ASSIGNMENT_PROFILES,
            "language": LANGUAGE_PROFILES}  # each grid's sizes by profile
GRID_OF = {"parity": "parity", "parity k": "parity", "scratchpad": "scratchpad", "jumps": "scratchpad",
           "assignment": "assignment", "language": "language"}  # reading key -> the grid it reads


def scale(sizes, profile: str) -> str:
    """The scale a grid runs at, from its profile's sizes (`DecoderSizes` or `LanguageSizes`), in a few short words
    (the scorecard's table is wide): "regime: 4x128 (j=3: 4x256), 10,000 steps"."""
    jumps = getattr(sizes, "jump_models", ())  # a language profile has none
    larger = "".join(f" (j={j}: {model_size(layers, width)})" for j, layers, width in jumps)
    return f"{profile}: {model_size(sizes.layers, sizes.width)}{larger}, {sizes.steps:,} steps"


def scorecard_rows(store: ResultStore, profile: str) -> pd.DataFrame:
    """One row per figure's claim (`paper.CLAIMS`, `papers.base.claim_rows`): what the paper states, our reading
    with its numbers, the seeds it was judged on (those every cell of its grid has, `readings.judged`; language: every
    stored seed), the scale of its grid, and the claim's verdict."""
    live = profile not in STORED_PROFILES
    runs = {name: read_runs(name, store, profile) if live or READ_AT[f"sparsity-{name}"] == profile else pd.DataFrame()
            for name in dict.fromkeys(GRID_OF.values())}
    seeds = {key: int((runs[name] if name == "language" else judged(runs[name])).seed.nunique())
             for key, name in GRID_OF.items() if not runs[name].empty}
    scales = {key: scale(PROFILES[name][profile], profile) for key, name in GRID_OF.items() if not runs[name].empty}
    rows = claim_rows(sparsity_paper.CLAIMS, readings_of(runs, profile), seeds, scales)
    split = seed_splits(runs, profile)
    return rows.assign(verdict=[verdict + split.get((where, cell), "") for where, cell, verdict in
                                zip(rows.source, rows.cell, rows.verdict, strict=True)]) if len(rows) else rows


def seed_splits(runs: dict[str, pd.DataFrame], profile: str) -> dict[tuple[str, str], str]:
    """Each claim part whose verdict class changes from seed to seed (`seed_table` of `runs` at `profile`), by (where,
    part): " (seeds split: seed 0 partly, seed 1 reproduced, ...)", so that a verdict read on the mean over seeds
    shows when its seeds disagree."""
    check, _ = seed_table({name: frame for name, frame in runs.items() if not frame.empty},
                          dict.fromkeys(runs, profile))
    seeds = [c for c in check.columns if c.startswith("seed ")]
    return {(r["where"], r["part"]): " (seeds split: " + ", ".join(f"{c} {r[c]}" for c in seeds if r[c] != "–") + ")"
            for _, r in check.iterrows() if r[SAME] == "no"}
