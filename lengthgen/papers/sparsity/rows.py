"""The scorecard rows of the sparsity chapter: every number and claim of the paper that the chapter sets beside our
runs, one row each (`papers.base.ROW`), from a results store and a profile."""

import pandas as pd

from lengthgen.analysis.claims import seed_check
from lengthgen.papers.base import claim_rows, grid_runs
from lengthgen.papers.sparsity import paper as sparsity_paper
from lengthgen.papers.sparsity.experiments import (
    QUICK_SEEDS,
    SPARSITY_EXPERIMENTS,
    assignment_reading,
    parity_reading,
    scratchpad_reading,
)
from lengthgen.papers.sparsity.language import LANGUAGE, language_reading
from lengthgen.results.store import ResultStore
from lengthgen.results.sweep import collect

GRIDS = {e.name: e for e in (*SPARSITY_EXPERIMENTS, LANGUAGE)}
# The profile at which the chapter and the scorecard read each grid: its stored profile (`Experiment.stored`): regime
# where the paper's mechanisms needed a larger model than cpu's to fit (scratchpad, assignment; the sizing study) or
# documents longer than the windows (language); cpu for sparse parity, where every training bound K already fits.
READ_AT = {name: e.stored_profile for name, e in GRIDS.items()}
STORED_PROFILES = tuple(dict.fromkeys(READ_AT.values()))
SEED_CHECK = {"quick": QUICK_SEEDS}  # a live profile -> its seeds that the live runs do not use, stored


def read_runs(name: str, store: ResultStore, profile: str | None = None) -> pd.DataFrame:
    """The stored runs of a grid of the chapter (`sparsity-<name>`) at `profile`, which is READ_AT's unless given;
    none when the experiment has no such profile."""
    experiment = GRIDS[f"sparsity-{name}"]
    return grid_runs(experiment, profile or READ_AT[experiment.name], store)


def sparsity_readings(store: ResultStore, profile: str) -> dict[str, pd.DataFrame]:
    """The readings of a store's runs at `profile`, by key (the `reading` of each of `sparsity_paper.CLAIMS`): at a
    stored profile, of the grids read there (READ_AT); at a live one (the book's quick runs), of every grid that has
    it. A reading without runs is left out."""
    live = profile not in STORED_PROFILES
    return readings_of({name: read_runs(name, store, profile)
                        if live or READ_AT[f"sparsity-{name}"] == profile else pd.DataFrame()
                        for name in ("parity", "scratchpad", "assignment", "language")}, profile)


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


def seed_table(runs: dict[str, pd.DataFrame], profiles: dict[str, str]) -> pd.DataFrame:
    """Each claim part's verdict class on each seed of `runs` (by grid name, each read at `profiles[name]`), every
    seed read alone (`claims.seed_check`); none with fewer than two seeds. A grid's cells should share their seeds
    (`readings.judged`): a seed that only some cells have is read on those."""
    seeds = sorted(set().union(*(set(frame.seed) for frame in runs.values() if not frame.empty)))
    if len(seeds) < 2:
        return pd.DataFrame()
    by_seed = {seed: {key: reading for name, frame in runs.items()
                      for key, reading in readings_of({name: frame[frame.seed == seed]}, profiles[name]).items()}
               for seed in seeds}
    return seed_check(sparsity_paper.CLAIMS, by_seed)


def stored_seed_check(runs: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """`seed_table` of stored grids (by grid name, each on its cells' common seeds, `readings.judged`), each read at
    its READ_AT profile. For the grids whose rules read the mean over seeds; not language's, whose rules read their
    spread."""
    return seed_table(runs, {name: READ_AT[f"sparsity-{name}"] for name in runs})


def live_seed_check(live: dict[str, pd.DataFrame], store: ResultStore, profile: str) -> pd.DataFrame:
    """Whether the live claims hold beyond the live runs' seed: `seed_table` of the live runs (`live`, by grid name)
    and the stored runs of the same profile on seeds the live runs do not use (`SEED_CHECK`). None at a profile
    without such seeds, or before any is stored."""
    if profile not in SEED_CHECK:
        return pd.DataFrame()
    grids = {name: GRIDS[f"sparsity-{name}"] for name in live}
    runs = {name: pd.concat([frame, collect(grids[name], grids[name].configs_for(profile, SEED_CHECK[profile]), store,
                                            skip_missing=True)]) for name, frame in live.items()}
    return seed_table(runs, dict.fromkeys(runs, profile))


def scorecard_rows(store: ResultStore, profile: str) -> pd.DataFrame:
    """One row per figure's claim (`paper.CLAIMS`, `papers.base.claim_rows`): what the paper states, our reading
    with its numbers, and the claim's verdict."""
    return claim_rows(sparsity_paper.CLAIMS, sparsity_readings(store, profile))
