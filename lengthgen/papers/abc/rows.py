"""The scorecard rows of the attention bias calibration chapter: every number and claim of the paper that the chapter
sets beside our runs, one row each (`papers.base.ROW`), from a results store and a profile."""

import pandas as pd

from lengthgen.analysis.verdicts import former_cell_verdict
from lengthgen.papers.abc.experiments import ABC_EXPERIMENTS, arithmetic_reading, in_sample
from lengthgen.papers.abc.paper import CLAIMS, TABLE_3_ONLY, UNITS
from lengthgen.papers.abc.readings import cell_reasons
from lengthgen.papers.base import ROW, claim_rows, grid_runs, row_frame
from lengthgen.results.store import ResultStore

GRIDS = {e.name: e for e in ABC_EXPERIMENTS}


def scorecard_rows(store: ResultStore, profile: str) -> pd.DataFrame:
    """Tables 1 and 3 cell by cell (the paper's exact match at 6, 10, 15, 20 digits beside our mean over seeds,
    with its range; a model that does not fit its training numbers is "not trained"; each with its reason,
    `readings.cell_reasons`, and at `regime` "in sample" on the tasks its factors were chosen on), then the paper's
    claims (`paper.CLAIMS`) that the stored runs judge: every claim on the models' curves, and the attention claim
    on the weight their last layer put on the anti-diagonal (stored runs that recorded it where the line was read at
    the right keys, `readings.line_read_right`)."""
    runs = pd.concat([grid_runs(GRIDS[name], profile, store) for name in ("abc-table1", "abc-scaffolding")])
    if runs.empty:
        return pd.DataFrame(columns=ROW)
    reading = arithmetic_reading(runs)
    cells = reading["cells"]
    in_table3 = {(task, model) for task, model, _ in TABLE_3_ONLY}
    table = row_frame(["Table 3" if m.startswith("w=") or (t, m) in in_table3 else "Table 1"
                       for t, m in zip(cells.task, cells.model, strict=True)],
                     [f"{r.task} / {r.model}{f' ({r.rule})' if r.rule else ''} / {r.length} "
                      f"{UNITS.get(r.task, 'digits')}" for r in cells.itertuples()],
                     [f"{p:g}" for p in cells.paper],
                     [f"{o:g} ({r})" if r else f"{o:g}" for o, r in zip(cells.ours, cells.range, strict=True)],
                     cells.seeds.tolist(), cells.verdict.tolist(),
                     [f"{reason}{'; ' if reason else ''}in sample: the regime was chosen on this task"
                      if in_sample(profile, task, model) else reason
                      for reason, task, model in zip(cell_reasons(cells), cells.task, cells.model, strict=True)],
                     [former_cell_verdict(p, o) for p, o in zip(cells.paper, cells.ours, strict=True)])
    claims = claim_rows(CLAIMS, {"claims": reading["claims"], "attention": reading["attention"]})
    return pd.concat([table, claims], ignore_index=True)
