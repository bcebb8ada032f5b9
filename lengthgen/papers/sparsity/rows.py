"""The scorecard rows of the sparsity chapter: every number and claim of the paper that the chapter sets beside our
runs, one row each (`papers.base.ROW`), from a results store and a profile."""

import pandas as pd

from lengthgen.analysis.verdicts import (
    claim_class,
    verdict_class,
)
from lengthgen.papers.base import ROW, grid_runs, row_frame
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



def sparsity_readings(store: ResultStore, profile: str) -> dict[str, pd.DataFrame]:
    """The claim tables (`sparsity_paper.READINGS` keys) of a profile's stored runs; a reading without runs is left
    out."""
    readings = {}
    parity, scratch, assign, language = (grid_runs(GRIDS[f"sparsity-{name}"], profile, store)
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


def scorecard_rows(store: ResultStore, profile: str) -> pd.DataFrame:
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
        rows.append(row_frame(where, [key], statement, [read(table)], [None],
                                   [claim_class([verdict_class(v) for v in judged.verdict])], ""))
    return pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=ROW)
