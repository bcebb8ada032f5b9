"""The scorecard rows of the sparsity chapter: every number and claim of the paper that the chapter sets beside our
runs, one row each (`papers.base.ROW`), from a results store and a profile."""

import pandas as pd

from lengthgen.papers.base import claim_rows, grid_runs
from lengthgen.papers.sparsity import paper as sparsity_paper
from lengthgen.papers.sparsity.experiments import (
    SPARSITY_EXPERIMENTS,
    assignment_reading,
    parity_reading,
    scratchpad_reading,
)
from lengthgen.papers.sparsity.language import LANGUAGE, language_reading
from lengthgen.results.store import ResultStore

GRIDS = {e.name: e for e in (*SPARSITY_EXPERIMENTS, LANGUAGE)}
# The profile at which the chapter and the scorecard read each grid: its stored profile (`Experiment.stored`): regime
# where the paper's mechanisms needed a larger model than cpu's to fit (scratchpad, assignment; the sizing study) or
# documents longer than the windows (language); cpu for sparse parity, where every training bound K already fits.
READ_AT = {name: e.stored_profile for name, e in GRIDS.items()}
STORED_PROFILES = tuple(dict.fromkeys(READ_AT.values()))


def read_runs(name: str, store: ResultStore, profile: str | None = None) -> pd.DataFrame:
    """The stored runs of a grid of the chapter (`sparsity-<name>`) at `profile`, which is READ_AT's unless given;
    none when the experiment has no such profile."""
    experiment = GRIDS[f"sparsity-{name}"]
    return grid_runs(experiment, profile or READ_AT[experiment.name], store)


def sparsity_readings(store: ResultStore, profile: str) -> dict[str, pd.DataFrame]:
    """The readings of a store's runs at `profile`, by key (the `reading` of each of `sparsity_paper.CLAIMS`): at a
    stored profile, of the grids read there (READ_AT); at a live one (the book's quick runs), of every grid that has
    it. A reading without runs is left out."""
    readings = {}
    live = profile not in STORED_PROFILES
    parity, scratch, assign, language = (
        read_runs(name, store, profile) if live or READ_AT[f"sparsity-{name}"] == profile else pd.DataFrame()
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


def scorecard_rows(store: ResultStore, profile: str) -> pd.DataFrame:
    """One row per figure's claim (`paper.CLAIMS`, `papers.base.claim_rows`): what the paper states, our reading
    with its numbers, and the claim's verdict."""
    return claim_rows(sparsity_paper.CLAIMS, sparsity_readings(store, profile))
