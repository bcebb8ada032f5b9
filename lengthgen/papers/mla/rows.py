"""The scorecard rows of the monotonic location attention chapter: every number and claim of the paper that the chapter
sets beside our runs, one row each (`papers.base.ROW`), from a results store and a profile."""

import pandas as pd

from lengthgen.analysis import compare
from lengthgen.analysis.verdicts import (
    NOT_RUN,
    NOT_TRAINED,
    former_cell_verdict,
    former_mean_verdict,
)
from lengthgen.papers.base import ROW, grid_runs, row_frame
from lengthgen.papers.mla import experiments as monotonic
from lengthgen.papers.mla import readings as mla_readings
from lengthgen.papers.mla.claims import WHERE
from lengthgen.papers.mla.experiments import MLA_EXPERIMENTS
from lengthgen.results.store import ResultStore

GRIDS = {e.name: e for e in MLA_EXPERIMENTS}


SEPARATION = {"yes": "reproduced", "no": "not reproduced", "not judged": NOT_TRAINED}  # compare.separation's answers


def _table(source: str, side: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """A table's cells (a `mla_readings.against_paper` frame, whose medians are of `runs`), its ranking over the cells
    whose runs learned their task, and each task's separation."""
    cells = row_frame(source, [f"{r.variant} / {r.task} / {r.split}" for r in side.itertuples()],
                      [f"{p:.1f}" for p in side.paper], [f"{o:.1f}" for o in side.ours], side.seeds.tolist(),
                      side.verdict.tolist(), side.reason.tolist(),
                      [former_cell_verdict(p, o) for p, o in zip(side.paper, side.ours, strict=True)])
    rank = compare.ranking(side)
    ranking = row_frame(source, ["ranking of its cells"], f"{rank['cells']} cells whose runs learned their task",
                        [f"Spearman rho {rank['rho']:.2f} (p {rank['p']:.2g})"], [None], [rank["verdict"]], "")
    sep = compare.separation(side, runs)
    solves = [f"{task} at {r.split}: which mechanisms solve it" for task, r in sep.iterrows()]
    separation = row_frame(source, solves,
                           sep["paper: solved by"].tolist(), sep["ours: solved by"].tolist(), None,
                           sep["same separation"].map(SEPARATION).tolist(),
                           sep["off the paper's pattern (ours, ours iid)"].replace("none", "").tolist())
    return pd.concat([cells, ranking, separation], ignore_index=True)


def scorecard_rows(store: ResultStore, profile: str) -> pd.DataFrame:
    """Tables 2, 4, 6, 7: each cell (the paper's median beside ours and our seeds' range, `verdicts.cell_verdict`),
    the table's ranking and each task's separation at its longest split; SCAN's rows (our mean over seeds against
    the paper's mean and std, `verdicts.mean_verdict`), as the chapter shows them: each table on the seeds every one
    of its cells has (`compare.on_common_seeds`), Lookup's and Reverse Lookup's fit estimated from their dev scores
    (`mla_readings.with_fit_estimates`)."""
    main = mla_readings.with_fit_estimates(grid_runs(GRIDS["mla-main"], profile, store))
    frames = []
    for name in ("mla-main", "mla-ablations", "mla-variants", "mla-extra"):
        source = WHERE[name]
        runs = main if name == "mla-main" else mla_readings.with_fit_estimates(grid_runs(GRIDS[name], profile, store))
        runs = mla_readings.with_unablated(name, runs, main)
        if runs.empty:
            continue
        budget = "full protocol" if profile == "full" else monotonic.budget(GRIDS[name].configs_for(profile)[0])
        side, balanced, _ = mla_readings.against_paper(name, runs, budget)
        frames.append(_table(source, side, balanced))
    scan = grid_runs(GRIDS["mla-scan"], profile, store)
    if not scan.empty:
        side = mla_readings.scan_side(scan)
        frames.append(row_frame("Tables 3, 8 (SCAN length split)", side.index.tolist(),
                                [f"{m:.1f} ± {s:.1f}"
                                 for m, s in zip(side["paper mean"], side["paper std"], strict=True)],
                                [f"{o:.1f}" for o in side.ours], side.seeds.tolist(), side.verdict.tolist(),
                                side.reason.tolist(),
                                [former_mean_verdict(m, s, o) if n else NOT_RUN for m, s, o, n in
                                 zip(side["paper mean"], side["paper std"], side.ours, side.seeds, strict=True)]))
        rank = compare.ranking(side, paper="paper mean")
        frames.append(row_frame("Tables 3, 8 (SCAN length split)", ["ranking of the mechanisms"],
                                f"{rank['cells']} mechanisms whose runs learned their task",
                                [f"Spearman rho {rank['rho']:.2f} (p {rank['p']:.2g})"], [None], [rank["verdict"]],
                                ""))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=ROW)
