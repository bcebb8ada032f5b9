"""The "paper vs ours" picture shared by the chapters: one coloured grid per task, a cell per (row, column) of a
paper's table (e.g. model x length), coloured by the class of its verdict (`verdicts.verdict_class`), with the
paper's number, ours and the full verdict on hover; and `verdict_counts`, the per-task tally printed under it.

The frame it reads has one row per judged cell: task, the row and column labels, paper, ours and verdict, optionally
range, seeds and rule (as `papers.abc.readings.cells` makes it). A cell the frame lacks is left blank.
"""

import html

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from lengthgen.analysis.verdicts import CLASSES, NOT_RUN, NOT_TRAINED, verdict_class

# One fixed colour per verdict class, from the Okabe-Ito palette (safe for the common colour-vision deficiencies);
# "not run yet" a very light grey, so that it stays visible against a blank cell (white).
CLASS_COLOURS = {
    "reproduced": "#009E73",  # bluish green
    "partly": "#F0E442",  # yellow
    "not reproduced": "#D55E00",  # vermillion
    NOT_TRAINED: "#999999",  # grey
    "inconclusive": "#B8A5DB",  # light purple
    NOT_RUN: "#E8E8E8",  # very light grey
}
MISSING = "–"  # how a missing number reads
PANEL_ROW, PANEL_EXTRA, GAP = 34, 50, 80  # pixels: per grid row, per panel (its x labels), between panels


def required_columns(row: str = "model", column: str = "length") -> list[str]:
    """The columns that `verdict_grid` needs, in the order its messages name them."""
    return ["task", row, column, "paper", "ours", "verdict"]


def _check(cells: pd.DataFrame, required: list[str]) -> None:
    """Raise ValueError for an empty frame, or one that lacks some of the `required` columns."""
    if cells.empty:
        raise ValueError(f"no cells to draw: the frame is empty; it needs one row per cell, with the columns "
                         f"{', '.join(required)}")
    missing = [c for c in required if c not in cells.columns]
    if missing:
        raise ValueError(f"the cells lack the column(s) {', '.join(missing)}; required: {', '.join(required)}")


def _number(value, decimals: int = 1) -> str:
    """A number with `decimals` decimals, MISSING for None or NaN; a value that is no number (a class such as
    "extrapolates") as its text."""
    if not _present(value):
        return MISSING
    if isinstance(value, int | float | np.integer | np.floating):
        return f"{value:.{decimals}f}"
    return str(value)


def _present(value) -> bool:
    """Whether an optional field holds something to show (not None, NaN or an empty text)."""
    return not (value is None or (pd.api.types.is_scalar(value) and pd.isna(value)) or str(value) == "")


def _label(value) -> str:
    """An axis label: 6.0 reads 6."""
    if isinstance(value, float | np.floating) and float(value).is_integer():
        return str(int(value))
    return str(value)


def row_labels(cells: pd.DataFrame, row: str = "model") -> pd.Series:
    """Each cell's row label: its `row` value, with " (rule)" where a `rule` column holds a non-empty rule."""
    labels = cells[row].astype(str)
    if "rule" not in cells.columns:
        return labels
    return pd.Series([f"{label} ({rule})" if _present(rule) else label for label, rule in
                      zip(labels, cells["rule"], strict=True)], index=cells.index)


def column_order(values: pd.Series) -> list:
    """The distinct column values in increasing order when they are all numbers (or texts that read as numbers:
    "6", "10", "50"), else in order of first appearance ("iid", "15", "test")."""
    distinct = list(dict.fromkeys(values))
    try:
        keys = [float(v) for v in distinct]
    except (TypeError, ValueError):
        return distinct
    return [v for _, v in sorted(zip(keys, distinct, strict=True), key=lambda pair: pair[0])]


def classes(cells: pd.DataFrame) -> pd.Series:
    """Each cell's verdict class (`verdicts.verdict_class`); a cell without a verdict is "not run yet"."""
    return cells["verdict"].map(lambda v: verdict_class(str(v)) if _present(v) else NOT_RUN)


def hover_text(cell: pd.Series, label: str, row: str = "model", column: str = "length", decimals: int = 1) -> str:
    """What hovering a cell says: task, row label, column, the paper's number, ours (with its range), the seeds and
    the whole verdict, one per line (HTML-escaped)."""
    ours = _number(cell["ours"], decimals)
    if _present(cell.get("range")):
        ours += f" ({cell['range']})"
    lines = [f"<b>{html.escape(str(cell['task']))}</b>", f"{row}: {html.escape(label)}",
             f"{column}: {html.escape(_label(cell[column]))}", f"paper: {_number(cell['paper'], decimals)}",
             f"ours: {html.escape(ours)}"]
    if _present(cell.get("seeds")):
        lines.append(f"seeds: {int(cell['seeds'])}")
    verdict = cell["verdict"] if _present(cell["verdict"]) else MISSING
    return "<br>".join([*lines, f"verdict: {html.escape(str(verdict))}"])


def _colorscale() -> list[list]:
    """A stepped colour scale over the class indices 0 .. len(CLASSES) - 1 (with zmin -0.5, zmax len - 0.5)."""
    n = len(CLASSES)
    return [[(i + edge) / n, CLASS_COLOURS[c]] for i, c in enumerate(CLASSES) for edge in (0, 1)]


def _panel(task_cells: pd.DataFrame, rows: list[str], columns: list, row: str, column: str,
           decimals: int) -> go.Heatmap:
    """One task's heatmap: z the class index of each cell (NaN, blank, where the frame has none), hover its text."""
    z = np.full((len(rows), len(columns)), np.nan)
    text = [["" for _ in columns] for _ in rows]
    for _, cell in task_cells.iterrows():
        r, c = rows.index(cell["_label"]), columns.index(cell[column])
        z[r, c] = CLASSES.index(cell["_class"])
        text[r][c] = hover_text(cell, cell["_label"], row, column, decimals)
    return go.Heatmap(z=z, x=[_label(v) for v in columns], y=rows, text=text, hoverongaps=False,
                      hovertemplate="%{text}<extra></extra>", colorscale=_colorscale(), zmin=-0.5,
                      zmax=len(CLASSES) - 0.5, showscale=False, showlegend=False, xgap=2, ygap=2)


def _legend_entry(name: str) -> go.Scatter:
    """A legend-only trace: a square of the class's colour, no data."""
    return go.Scatter(x=[None], y=[None], mode="markers", name=name, legendgroup=name, showlegend=True,
                      hoverinfo="skip", marker={"symbol": "square", "size": 14, "color": CLASS_COLOURS[name],
                                                "line": {"color": "#555555", "width": 1}})


def _prepared(cells: pd.DataFrame, row: str, column: str) -> pd.DataFrame:
    """`cells` with each cell's row label and class; ValueError where two rows of a task share a cell."""
    cells = cells.assign(_label=row_labels(cells, row), _class=classes(cells))
    twice = cells[cells.duplicated(["task", "_label", column], keep=False)]
    if len(twice):
        shown = sorted({f"{t} / {lab} / {_label(v)}" for t, lab, v in zip(twice.task, twice._label, twice[column],
                                                                          strict=True)})
        raise ValueError(f"more than one row for the cell(s) {'; '.join(shown)}: each (task, {row}, {column}) must "
                         f"be judged once")
    return cells


def verdict_grid(cells: pd.DataFrame, title: str = "", row: str = "model", column: str = "length",
                 decimals: int = 1, wrap: int = 1) -> go.Figure:
    """Paper vs ours at a glance: per task (a panel each, `wrap` panels side by side, titled by the task), a grid of
    `row` (y, in order of first appearance; "model (rule)" where a `rule` is given) by `column` (x, as categories: in
    increasing order when numeric, else in order of first appearance), each cell coloured by its verdict's class
    (CLASS_COLOURS; one legend entry per class present). Hovering a cell gives its task, labels, the paper's number
    and ours (to `decimals` decimals, "–" when missing; ours with its `range`), `seeds` and the whole verdict. A cell
    the frame lacks is blank.

    Args:
        cells: one row per judged cell, with the columns task, `row`, `column`, paper, ours and verdict; optional
            range, seeds, rule (e.g. `papers.abc.readings.cells`).
    """
    _check(cells, required_columns(row, column))
    cells = _prepared(cells.reset_index(drop=True), row, column)
    tasks, columns = list(dict.fromkeys(cells.task)), column_order(cells[column])
    panels = [list(dict.fromkeys(cells[cells.task == t]["_label"])) for t in tasks]
    wrap = max(1, min(wrap, len(tasks)))
    grid_rows = -(-len(tasks) // wrap)
    heights = [PANEL_EXTRA + PANEL_ROW * max(len(p) for p in panels[r * wrap:(r + 1) * wrap])
               for r in range(grid_rows)]
    height = sum(heights) + GAP * (grid_rows - 1) + 140
    fig = make_subplots(rows=grid_rows, cols=wrap, subplot_titles=[str(t) for t in tasks], row_heights=heights,
                        vertical_spacing=GAP / height, horizontal_spacing=0.12 if wrap > 1 else 0.02)
    for i, (task, rows) in enumerate(zip(tasks, panels, strict=True)):
        task_cells = cells[cells.task == task]
        shown = [c for c in columns if c in set(task_cells[column])]
        fig.add_trace(_panel(task_cells, rows, shown, row, column, decimals), row=i // wrap + 1, col=i % wrap + 1)
    for name in (c for c in CLASSES if c in set(cells["_class"])):
        fig.add_trace(_legend_entry(name), row=1, col=1)
    fig.update_xaxes(type="category", showgrid=False, zeroline=False)
    fig.update_yaxes(type="category", showgrid=False, zeroline=False, autorange="reversed")
    for col in range(1, wrap + 1):
        fig.update_xaxes(title=column, row=grid_rows, col=col)
    return fig.update_layout(title=title, height=height, plot_bgcolor="white", legend_title="verdict")


def verdict_counts(cells: pd.DataFrame) -> pd.DataFrame:
    """Per task (in order of first appearance), how many cells fall in each verdict class: one column per class that
    occurs, in CLASSES order, and "cells", their total. An empty frame gives an empty table."""
    required = ["task", "verdict"]
    missing = [c for c in required if c not in cells.columns]
    if missing:
        raise ValueError(f"the cells lack the column(s) {', '.join(missing)}; required: {', '.join(required)}")
    tasks = list(dict.fromkeys(cells["task"]))
    counts = pd.crosstab(cells["task"], classes(cells)) if len(cells) else pd.DataFrame(index=pd.Index([]))
    counts = counts.reindex(index=tasks, columns=[c for c in CLASSES if c in counts.columns], fill_value=0)
    counts = counts.rename_axis(index="task", columns=None).astype(int)
    return counts.assign(cells=counts.sum(axis=1).astype(int))
