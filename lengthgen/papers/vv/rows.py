"""The scorecard rows of the vanishing variance chapter: every number and claim of the paper that the chapter
sets beside our runs, one row each (`papers.base.ROW`), from a results store and a profile."""

import pandas as pd

from lengthgen.analysis import variance
from lengthgen.papers.base import ROW, grid_runs, row_frame
from lengthgen.papers.vv import paper as variance_paper
from lengthgen.papers.vv.claims import figure_claims
from lengthgen.papers.vv.experiments import VV_EXPERIMENTS, compared_runs, compared_seeds
from lengthgen.papers.vv.paper import TRAIN_MAX
from lengthgen.results.store import ResultStore

GRIDS = {e.name: e for e in VV_EXPERIMENTS}


def _reasons(table: pd.DataFrame, reason: str, declared: int) -> list[str]:
    """The reason of each row of a table with columns seeds and verdict: `reason` and how many of the `declared` pairs
    the row rests on where it does not reproduce the paper, else empty."""
    return [f"{reason}; {n} of {declared} declared pairs stored" if not v.startswith("reproduced") else ""
            for n, v in zip(table.seeds, table.verdict, strict=True)]


def _paired(source: str, side: pd.DataFrame, reason: str, declared: int) -> pd.DataFrame:
    """A `paired_table`'s rows, with `_reasons`."""
    return row_frame(source, [f"N = {n}" for n in side.N],
                     [f"{d:+.2f} (p {p})" for d, p in zip(side["paper b-a"], side["paper p"], strict=True)],
                     [f"{d:+.2f} (p {p})" for d, p in zip(side["ours b-a"], side["ours p"], strict=True)],
                     side.seeds.tolist(), side.verdict.tolist(),
                     _reasons(side, reason, declared))


def _gains(source: str, gains: pd.DataFrame, reason: str, declared: int) -> pd.DataFrame:
    """A `gains` table's rows: each variant's gain over the baseline per N, ours with its 95% interval."""
    return row_frame(source, [f"{r.variant} gain, N = {r.N}" for r in gains.itertuples()],
                     [f"{p:+.2f}" for p in gains.paper],
                     [f"{o:+.2f}" + (f" ± {c:.2f}" if c == c else "")
                      for o, c in zip(gains.ours, gains.ci95, strict=True)],
                     gains.seeds.tolist(), gains.verdict.tolist(),
                     _reasons(gains, reason, declared))


def scorecard_rows(store: ResultStore, profile: str) -> pd.DataFrame:
    """Tables 1-6 (b - a in points and its paired p per N, the paper's beside ours; for Tables 3 and 6 also each
    variant's gain over the baseline): Tables 1-3 and 6 from the retrieval runs, Tables 4 and 5 from the curriculum
    runs, each task on the profile's compared seeds (`compared_seeds`); Figs. 2-4 from the seed pairs of `vv-internals`
    (`variance.pair_table`); the reason of a divergence names the training budget."""
    comparisons = [("vv-retrieval", title, args) for title, args in variance_paper.COMPARISONS.items()] + [
        ("vv-curriculum", title, args) for title, args in variance_paper.CURRICULUM_COMPARISONS.items()]
    frames = []
    for name in ("vv-retrieval", "vv-curriculum"):
        runs = grid_runs(GRIDS[name], profile, store)
        if runs.empty:
            continue
        stored = runs.assign(variant=runs.variant.str.removesuffix("+curriculum"))
        configs = GRIDS[name].configs_for(profile)
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
    internals = grid_runs(GRIDS["vv-internals"], profile, store)
    lengths = (TRAIN_MAX, max(internals.length)) if not internals.empty else ()  # each model against itself
    pairs = variance.pair_table(internals, lengths) if lengths else pd.DataFrame()
    if len(pairs):
        figs = figure_claims(pairs)
        configs = GRIDS["vv-internals"].configs_for(profile)
        reason = (f"{profile} profile: {configs[0].train.steps:,} training steps; {len(pairs)} of "
                  f"{len(configs) // 2} declared pairs stored")
        claims = [f"{c}, N = {lengths[1]:,} vs {lengths[0]}" for c in figs.claim]
        frames.append(row_frame(figs.figure.tolist(), claims,
                                "holds (plot)", figs.evidence.tolist(), figs.pairs.tolist(), figs.verdict.tolist(),
                                [reason if not v.startswith("reproduced") else "" for v in figs.verdict]))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=ROW)
