"""The figures (analysis/figures.py): traces, panels and menus of hand-made frames."""

import pandas as pd
import pytest

from lengthgen.analysis import figures


def test_training_curves_dropdown_shows_exactly_one_tasks_loss_and_dev_lines():
    history = pd.DataFrame([{"task": t, "variant": v, "epoch": e, "train_loss": 1.0 / (e + 1), "dev_score": 10.0 * e}
                            for t in ("copy", "lookup") for v in ("content", "onestep", "mono") for e in range(4)])
    history = history[~((history.task == "lookup") & (history.variant == "mono"))]  # a cell not run
    fig = figures.training_curves(history, "curves")
    assert len(fig.data) == 2 * 5 and [t.visible for t in fig.data] == [True] * 6 + [False] * 4
    lookup = fig.layout.updatemenus[0].buttons[1]
    assert lookup.label == "lookup" and lookup.args[0]["visible"] == [False] * 6 + [True] * 4
    gated = history.assign(direction_gate=history.variant.map({"content": float("nan"), "onestep": 0.9, "mono": 0.1}))
    fig = figures.training_curves(gated, "curves")  # a third panel: the gates of onestep and mono, not content's
    assert len(fig.data) == 2 * 5 + 3 and [t.yaxis for t in fig.data[:8]] == ["y", "y2"] * 1 + ["y", "y2", "y3"] * 2
    assert [t.visible for t in fig.data] == [True] * 8 + [False] * 5 and fig.layout.yaxis3.range == (-0.05, 1.05)
    assert [t.name for t in fig.data if t.showlegend] == ["content", "onestep", "mono", "content", "onestep"]
    assert list(fig.data[1].y) == [0.0, 10.0, 20.0, 30.0]  # the dev row of copy/content


def test_accuracy_grid_aligns_panels_and_marks_cells_not_run():
    df = pd.DataFrame([dict(source=src, variant=v, task="copy", split=n, value=x) for src, v, n, x in [
        ("paper", "content", "15", 0.0), ("paper", "mono", "15", 100.0), ("paper", "mono", "30", 98.2),
        ("ours", "mono", "30", 50.0), ("ours", "content", "15", 3.0)]])  # ours lacks mono at 15, in another order
    fig = figures.accuracy_grid(df, "grid")
    paper, ours = fig.data
    assert list(paper.y) == ["mono", "content"] and list(ours.y) == ["mono", "content"]
    assert list(paper.x) == ["copy 15", "copy 30"] and list(ours.x) == ["copy 15", "copy 30"]
    assert list(paper.text[0]) == ["100", "98.2"]
    assert list(ours.text[0]) == ["–", "50"] and list(ours.text[1]) == ["3", "–"]


def test_break_points_draws_one_box_per_split_and_the_training_length_per_task():
    df = pd.DataFrame([dict(task=t, variant=v, split=s, first_error=k) for t, v, s, k in [
        ("copy", "content", "15", 4), ("copy", "content", "100", 3), ("copy", "locattn", "100", 0),
        ("recopy", "mono", "100", 30)]])
    fig = figures.break_points(df, {"copy": 10, "recopy": 46}, "breaks")
    assert sorted({t.name for t in fig.data}) == ["100", "15"]
    lines = [shape for shape in fig.layout.shapes if shape.line.dash == "dash"]
    assert sorted((shape.y0, shape.yref) for shape in lines) == [(10, "y"), (46, "y2")]
    assert sorted(y for t in fig.data for y in t.y) == [0, 3, 4, 30]


def test_trajectory_figure_draws_the_median_with_the_seeds_range_per_measure():
    points = pd.DataFrame({"steps": [1000, 1000, 1000, 4000], "seed": [0, 1, 2, 0], "variant": "ln",
                           "measure": ["spread share"] * 3 + ["accuracy at N = 256"], "value": [0.2, 0.9, 0.5, 30.0]})
    fig = figures.trajectory_figure(points, "t")
    assert len({t.xaxis for t in fig.data}) == 2  # one panel per measure
    assert sorted(a.text for a in fig.layout.annotations) == ["accuracy at N = 256", "spread share"]
    share = next(t for t in fig.data if list(t.x) == [1000])
    assert list(share.y) == [0.5] and list(share.error_y.array) == pytest.approx([0.4])
    assert list(share.error_y.arrayminus) == pytest.approx([0.3])


def test_accuracy_curves_bars_span_the_seeds_range():
    df = pd.DataFrame({"task": "successor", "variant": "abc", "length": [8, 8, 8, 16],
                       "seed": [0, 1, 2, 0], "value": [35.0, 99.0, 100.0, 10.0]})
    (trace,) = figures.accuracy_curves(df, "t").data
    assert list(trace.y) == pytest.approx([78.0, 10.0])
    assert list(trace.error_y.array) == pytest.approx([22.0, 0.0])  # up to the best seed: 100, never past it
    assert list(trace.error_y.arrayminus) == pytest.approx([43.0, 0.0])  # down to the worst seed: 35
    (median,) = figures.accuracy_curves(df, "t", center="median").data
    assert list(median.y) == pytest.approx([99.0, 10.0])  # the middle seed, its bars still to the extremes
    assert list(median.error_y.array) == pytest.approx([1.0, 0.0]) and median.error_y.arrayminus[0] == 64.0
    with pytest.raises(ValueError, match="valid: mean, median"):
        figures.accuracy_curves(df, "t", center="mode")


def test_accuracy_curves_wrap_many_tasks_into_rows_each_with_its_own_lengths():
    tasks = [f"t{i}" for i in range(figures.PANELS_PER_ROW + 1)]
    df = pd.DataFrame({"task": tasks, "variant": "v", "length": [10 * (i + 1) for i in range(len(tasks))],
                       "seed": 0, "value": 50.0})
    fig = figures.accuracy_curves(df, "t")
    rows = {fig.layout[axis].domain for axis in fig.layout if axis.startswith("yaxis")}
    assert len(rows) == 2 and fig.layout.height > figures.accuracy_curves(df[df.task == "t0"], "t").layout.height
    assert {fig.layout[axis].matches for axis in fig.layout if axis.startswith("xaxis")} == {None}
    ticks = {fig.layout[trace.xaxis.replace("x", "xaxis")].tickvals: trace.x for trace in fig.data}
    assert all(list(t) == list(x) for t, x in ticks.items()) and len(ticks) == len(tasks)  # its own length each


def test_length_ticks_are_tested_lengths_spread_in_log_scale():
    assert figures.length_ticks([50, 6, 8, 6, 10]) == [6, 8, 10, 50]  # all, when few
    assert figures.length_ticks(range(1, 51), most=4) == [1, 4, 14, 50]  # 1, 50^(1/3), 50^(2/3), 50: the nearest
