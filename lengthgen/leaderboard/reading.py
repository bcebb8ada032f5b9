"""The leaderboard read for its chapter: the heatmap of a board (mechanism x task, coloured by the beyond score, each
cell's per-length curve on hover), its ranking in words, and a live notebook's explorer of exact match at one test
length after another, from a board (`protocol.board`) and the runs' tidy rows."""

import html

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from lengthgen.display import and_list
from lengthgen.leaderboard.protocol import MARGIN, RANKED, at_floor, row_costs
from lengthgen.metrics import ACCURACY, OPEN_SHARE


def curves(runs: pd.DataFrame) -> pd.DataFrame:
    """Exact match by (task, variant, length): the median over the cell's seeds."""
    acc = runs[runs.metric == ACCURACY]
    return acc.groupby(["task", "variant", "length"], sort=False).value.median().reset_index()


def _hover(cell: pd.Series, curve: pd.DataFrame) -> str:
    """A cell's hover text: task, mechanism, its scores and status, then exact match at each tested length."""
    lines = [f"<b>{html.escape(cell['task'])}</b> / {html.escape(cell['variant'])}",
             f"in distribution: {cell['in distribution']:.1f}%", f"beyond: {cell['beyond']:.1f}% "
             f"({cell['beyond lo']:.1f}-{cell['beyond hi']:.1f} over {int(cell['seeds'])} seeds)",
             f"reach: {cell['reach']:g}", f"status: {cell['status']}"
             + (f", rank {int(cell['rank'])}" if cell["status"] == RANKED else "")]
    lines += [f"length {int(r.length)}: {r.value:.1f}%" for r in curve.sort_values("length").itertuples()]
    return "<br>".join(lines)


def heatmap(table: pd.DataFrame, runs: pd.DataFrame, title: str, runs_on=None) -> go.Figure:
    """Mechanisms (rows) x tasks (columns), each ranked cell coloured by its median beyond score (0-100%), its text the
    score and its rank; a cell not trained is grey with its status as text (never coloured by a score); hover: the
    scores and the per-length curve (`curves`). With `runs_on` (mechanism, task -> whether the mechanism runs there:
    `grid.runs_on`), a cell the table lacks reads "does not run" or "not stored yet"; without it, it is blank."""
    mechanisms, tasks = list(dict.fromkeys(table.variant)), list(dict.fromkeys(table.task))
    by_length = curves(runs)
    scored, grey = np.full((len(mechanisms), len(tasks)), np.nan), np.full((len(mechanisms), len(tasks)), np.nan)

    def missing(mechanism: str, task: str) -> str:
        if runs_on is None:
            return ""
        return "not stored yet" if runs_on(mechanism, task) else "does not run"

    text = [[missing(m, t) for t in tasks] for m in mechanisms]
    hover = [["" for _ in tasks] for _ in mechanisms]
    for _, cell in table.iterrows():
        r, c = mechanisms.index(cell["variant"]), tasks.index(cell["task"])
        curve = by_length[(by_length.task == cell["task"]) & (by_length.variant == cell["variant"])]
        hover[r][c] = _hover(cell, curve)
        if cell["status"] == RANKED:
            scored[r, c] = cell["beyond"]
            text[r][c] = f"{cell['beyond']:.0f}% (#{int(cell['rank'])})"
        else:
            grey[r, c] = 0.0
            text[r][c] = cell["status"]
    common = {"x": tasks, "y": mechanisms, "text": text, "texttemplate": "%{text}", "customdata": hover,
              "hovertemplate": "%{customdata}<extra></extra>", "xgap": 2, "ygap": 2}
    fig = go.Figure([go.Heatmap(z=grey, colorscale=[[0, "#cccccc"], [1, "#cccccc"]], showscale=False, **common),
                     go.Heatmap(z=scored, colorscale="Viridis", zmin=0, zmax=100, colorbar={"title": "beyond (%)"},
                                **common)])
    fig.update_layout(title=title, xaxis_title="task", yaxis_title="mechanism", height=160 + 40 * len(mechanisms))
    return fig


def seed_range(lo: float, hi: float, seeds: int) -> str:
    """A score's range over a cell's seeds, "lo-hi" (blank with one seed)."""
    return "" if seeds == 1 else f"{lo:.1f}-{hi:.1f}"


def board_table(table: pd.DataFrame, steps: dict[str, int] | None = None) -> pd.DataFrame:
    """A board as the chapter shows it: one row per cell, each score's median with the seeds' range beside it
    ("lo-hi", blank with one seed), how many of its seeds fit on their own ("2 of 3"), status and rank. With `steps`
    (task -> its training steps), a cell not trained says within how many steps."""
    def status(task, value):
        return f"{value} in {steps[task]:,} steps" if steps and value != RANKED else value

    return pd.DataFrame({"task": table.task, "mechanism": table.variant,
                         "in distribution": table["in distribution"].round(1), "beyond": table.beyond.round(1),
                         "beyond range": [seed_range(lo, hi, n) for lo, hi, n in
                                          zip(table["beyond lo"], table["beyond hi"], table.seeds, strict=True)],
                         "reach": table.reach,
                         "reach range": [seed_range(lo, hi, n) for lo, hi, n in
                                         zip(table["reach lo"], table["reach hi"], table.seeds, strict=True)],
                         "seeds fit": [f"{fit} of {n}" for fit, n in zip(table["seeds fit"], table.seeds, strict=True)],
                         "status": [status(t, v) for t, v in zip(table.task, table.status, strict=True)],
                         "rank": table["rank"].astype("Int64")})


def ranking_words(table: pd.DataFrame) -> str:
    """Each task's ranking in a sentence: the first-ranked mechanisms with their beyond score (its seeds' range where
    there are several) and reach, how many cells are ranked, and the cells not trained; where every trained cell is at
    the floor (`protocol.at_floor`), that."""
    def first_words(cell: dict) -> str:
        spread = seed_range(cell["beyond lo"], cell["beyond hi"], cell["seeds"])
        spread = f", seeds {spread}" if spread else ""
        return f"{cell['variant']} ({cell['beyond']:.1f}% beyond{spread}, reaching {cell['reach']:g})"

    sentences = []
    for task, cells in table.groupby("task", sort=False):
        ranked = cells[cells.status == RANKED]
        untrained = cells[cells.status != RANKED].variant.tolist()
        if ranked.empty:
            sentences.append(f"On {task} no mechanism fits its training lengths ({and_list(untrained)} not trained).")
            continue
        if ranked.apply(at_floor, axis=1).all():
            who = (f"the one trained mechanism, {ranked.variant.iloc[0]}, is" if len(ranked) == 1 else
                   f"all {len(ranked)} trained mechanisms are")
            text = (f"On {task}, {who} at the floor beyond the training lengths (every seed under {MARGIN:g}% exact "
                    "match past them)")
            sentences.append(text + (f"; not trained: {and_list(untrained)}." if untrained else "."))
            continue
        first = ranked[ranked["rank"] == ranked["rank"].min()]
        best = and_list(first_words(cell) for cell in first.to_dict("records"))
        text = f"On {task}, {best} {'rank' if len(first) > 1 else 'ranks'} first of {len(ranked)} trained"
        text += f"; not trained: {and_list(untrained)}." if untrained else "."
        sentences.append(text)
    return " ".join(sentences)


def at_length(runs: pd.DataFrame, step: int, title: str) -> go.Figure:
    """Exact match (%) of every cell at the `step`-th test length of its task (0: the longest training length; past
    a task's last, its last), median over seeds: a heatmap of mechanisms (rows) x tasks (columns), each column's
    length in its label."""
    by_length = curves(runs)
    mechanisms, tasks = list(dict.fromkeys(by_length.variant)), list(dict.fromkeys(by_length.task))
    z = np.full((len(mechanisms), len(tasks)), np.nan)
    labels = []
    for c, task in enumerate(tasks):
        lengths = sorted(by_length[by_length.task == task].length.unique())
        length = lengths[min(step, len(lengths) - 1)]
        labels.append(f"{task} at {length}")
        for r in by_length[(by_length.task == task) & (by_length.length == length)].itertuples():
            z[mechanisms.index(r.variant), c] = r.value
    fig = go.Figure(go.Heatmap(z=z, x=labels, y=mechanisms, texttemplate="%{z:.0f}", colorscale="Viridis", zmin=0,
                               zmax=100, colorbar={"title": "exact match (%)"}, xgap=2, ygap=2))
    fig.update_layout(title=title, xaxis_title="task at a test length", yaxis_title="mechanism",
                      height=160 + 40 * len(mechanisms))
    return fig


def length_explorer(runs: pd.DataFrame):
    """A live notebook's explorer: a slider over the test lengths (in order, per task) redrawing `at_length`."""
    import ipywidgets as widgets

    from lengthgen.display import show

    steps = int(runs[runs.metric == ACCURACY].groupby("task").length.nunique().max())
    return widgets.interact(lambda step: show(at_length(runs, step, f"Exact match at test length #{step} "
                                                                     "(0: the longest training length)")),
                            step=widgets.IntSlider(0, 0, steps - 1))


def cost_words(runs: pd.DataFrame) -> str:
    """What each row (a mechanism on every task and seed it ran) cost, from the runs' wall time (`protocol.row_costs`),
    with its number of tasks, in a sentence."""
    costs, tasks = row_costs(runs), runs.groupby("variant").task.nunique()
    return ("CPU-thread hours per row (every task and seed it ran, each cell at its median run's time; its number of "
            "tasks in brackets): " + ", ".join(f"{mechanism} {hours:.2f} ({tasks[mechanism]})"
                                               for mechanism, hours in costs.items()) + ".")


def open_words(runs: pd.DataFrame, board: pd.DataFrame) -> str:
    """ABC's calibrated bias per task in a sentence: the share of the source's cells it leaves open at the longest
    training length (OPEN_SHARE, median over seeds with their range) beside the cell's status; or that no ABC run with
    that reading is stored."""
    shares = runs[runs.metric == OPEN_SHARE].groupby("task", sort=False).value.agg(["median", "min", "max"])
    if shares.empty:
        return "No stored ABC run records how much of the source its bias leaves open."
    status = board.set_index(["task", "variant"]).status
    parts = [f"{task} {s['median']:.0f}% ({s['min']:.0f}-{s['max']:.0f}; {status.get((task, 'abc'), 'no cell')})"
             for task, s in shares.iterrows()]
    return ("ABC's calibrated bias leaves open, of the cells from the answer's steps to the source's tokens at the "
            "longest training length (median over seeds, their range, the cell's status): " + "; ".join(parts) + ".")
