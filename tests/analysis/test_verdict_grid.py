"""The paper-vs-ours grid (analysis/verdict_grid.py): panels, colours, hover texts and counts of hand-made cells."""

import numpy as np
import pandas as pd
import pytest

from lengthgen.analysis.verdict_grid import CLASS_COLOURS, _colorscale, required_columns, verdict_counts, verdict_grid
from lengthgen.analysis.verdicts import CLASSES, NOT_RUN, NOT_TRAINED

NAN = float("nan")
COLUMNS = ["task", "model", "length", "paper", "ours", "verdict"]
# 2 tasks, 3 models, lengths 6, 10, 50 (given out of order); addition lacks (RoPE, 50)
ROWS = [
    ("addition", "vanilla", 10, 0.0, 0.0, "reproduced"),
    ("addition", "vanilla", 6, 100.0, 99.5, "reproduced"),
    ("addition", "vanilla", 50, 0.0, 12.25, "not reproduced (ours higher)"),
    ("addition", "RoPE", 6, 100.0, 40.0, NOT_TRAINED),
    ("addition", "RoPE", 10, 0.0, 1.0, NOT_TRAINED),
    ("addition", "ABC", 50, 99.8, 99.0, "reproduced (seeds split)"),
    ("addition", "ABC", 6, 100.0, 100.0, "reproduced"),
    ("addition", "ABC", 10, 100.0, NAN, "inconclusive (one seed)"),
    ("successor", "ABC", 6, 100.0, 100.0, "reproduced"),
    ("successor", "ABC", 50, NAN, 70.0, "partly (2 of 3 seeds)"),
    ("successor", "vanilla", 10, 0.0, 88.0, "not reproduced (ours higher)"),
]


@pytest.fixture
def cells() -> pd.DataFrame:
    return pd.DataFrame(ROWS, columns=COLUMNS)


def _cell(fig, panel: int, y: str, x: str) -> tuple[float, str]:
    """(z, hover text) of one cell of panel `panel`'s heatmap."""
    heat = fig.data[panel]
    r, c = list(heat.y).index(y), list(heat.x).index(x)
    return heat.z[r][c], heat.text[r][c]


def test_one_panel_per_task_titled_by_it_rows_in_order_and_lengths_numeric(cells):
    fig = verdict_grid(cells, "Table 1")
    heats = [t for t in fig.data if t.type == "heatmap"]
    assert len(heats) == 2 and fig.layout.title.text == "Table 1"
    assert [a.text for a in fig.layout.annotations] == ["addition", "successor"]
    assert heats[0].yaxis == "y" and heats[1].yaxis == "y2"
    assert list(heats[0].y) == ["vanilla", "RoPE", "ABC"] and list(heats[1].y) == ["ABC", "vanilla"]
    assert list(heats[0].x) == ["6", "10", "50"] and list(heats[1].x) == ["6", "10", "50"]
    assert fig.layout.xaxis.type == "category" and fig.layout.xaxis2.type == "category"


def test_each_cell_is_coloured_by_its_verdicts_class(cells):
    fig = verdict_grid(cells)
    expected = {("vanilla", "6"): "reproduced", ("vanilla", "50"): "not reproduced", ("RoPE", "10"): NOT_TRAINED,
                ("ABC", "50"): "reproduced", ("ABC", "10"): "inconclusive"}
    for (y, x), name in expected.items():
        assert _cell(fig, 0, y, x)[0] == CLASSES.index(name)
    assert _cell(fig, 1, "ABC", "50")[0] == CLASSES.index("partly")
    scale, heat = _colorscale(), fig.data[0]
    for i, name in enumerate(CLASSES):  # z = i falls on its class's colour step
        position = (i - heat.zmin) / (heat.zmax - heat.zmin)
        colour = next(c for (lo, c), (hi, _) in zip(scale[::2], scale[1::2], strict=True) if lo <= position <= hi)
        assert colour == CLASS_COLOURS[name]
    assert len(set(CLASS_COLOURS.values())) == len(CLASSES) and set(CLASS_COLOURS) == set(CLASSES)


def test_hover_gives_the_paper_ours_and_the_whole_verdict(cells):
    fig = verdict_grid(cells)
    text = _cell(fig, 0, "vanilla", "50")[1]
    for part in ("addition", "model: vanilla", "length: 50", "paper: 0.0", "ours: 12.2",
                 "verdict: not reproduced (ours higher)"):
        assert part in text
    assert "ours: –" in _cell(fig, 0, "ABC", "10")[1] and "paper: –" in _cell(fig, 1, "ABC", "50")[1]
    assert "seeds" not in text  # no seeds column


def test_a_missing_cell_is_blank(cells):
    fig = verdict_grid(cells)
    z, text = _cell(fig, 0, "RoPE", "50")
    assert np.isnan(z) and text == "" and fig.data[0].hoverongaps is False
    assert np.isnan(_cell(fig, 1, "vanilla", "6")[0])  # successor: vanilla is tested at 10 only
    assert int(np.isnan(np.array(fig.data[0].z, dtype=float)).sum()) == 1


def test_the_legend_names_each_class_present_once(cells):
    fig = verdict_grid(cells)
    shown = [t.name for t in fig.data if t.showlegend]
    assert shown == ["reproduced", "partly", "not reproduced", NOT_TRAINED, "inconclusive"]
    assert [t.marker.color for t in fig.data if t.showlegend] == [CLASS_COLOURS[c] for c in shown]
    only = verdict_grid(cells[cells.task == "successor"])
    assert [t.name for t in only.data if t.showlegend] == ["reproduced", "partly", "not reproduced"]


def test_the_height_grows_with_the_rows(cells):
    fewer = verdict_grid(cells[cells.model != "RoPE"])
    assert verdict_grid(cells).layout.height > fewer.layout.height


def test_a_rule_names_the_row_and_range_and_seeds_are_shown():
    frame = pd.DataFrame([("addition", "ABC", "paper", 6, 100.0, 100.0, "", 1, "reproduced"),
                          ("addition", "ABC", "code, NoPE", 6, 100.0, 55.0, "10-100", 3, "reproduced (seeds split)"),
                          ("addition", "RoPE", "", 6, 100.0, 20.0, "0-40", 3, "not reproduced (ours lower)")],
                         columns=["task", "model", "rule", "length", "paper", "ours", "range", "seeds", "verdict"])
    fig = verdict_grid(frame)
    assert list(fig.data[0].y) == ["ABC (paper)", "ABC (code, NoPE)", "RoPE"]
    text = _cell(fig, 0, "ABC (code, NoPE)", "6")[1]
    assert "ours: 55.0 (10-100)" in text and "seeds: 3" in text and "model: ABC (code, NoPE)" in text
    assert "ours: 100.0<br>" in _cell(fig, 0, "ABC (paper)", "6")[1]  # no range with one seed


def test_other_row_and_column_names_and_named_splits_keep_their_order():
    side = pd.DataFrame([("copy", "mono", "iid", 99.0, 98.0, "reproduced"),
                         ("copy", "mono", "30", 98.0, 2.0, "not reproduced (ours lower)"),
                         ("copy", "mono", "15", 99.0, 99.0, "reproduced")],
                        columns=["task", "variant", "split", "paper", "ours", "verdict"])
    fig = verdict_grid(side, row="variant", column="split")
    assert list(fig.data[0].x) == ["iid", "30", "15"] and list(fig.data[0].y) == ["mono"]
    assert "variant: mono" in _cell(fig, 0, "mono", "30")[1] and "split: 30" in _cell(fig, 0, "mono", "30")[1]
    numeric_text = verdict_grid(side[side.split != "iid"], row="variant", column="split")
    assert list(numeric_text.data[0].x) == ["15", "30"]
    unjudged = verdict_grid(side.assign(verdict=[NOT_RUN, None, "reproduced"]), row="variant", column="split")
    for split in ("iid", "30"):  # "not run yet", or no verdict at all
        z, text = _cell(unjudged, 0, "mono", split)
        assert z == CLASSES.index(NOT_RUN) and ("verdict: –" in text) == (split == "30")


def test_verdict_counts_per_task(cells):
    counts = verdict_counts(cells)
    assert list(counts.columns) == ["reproduced", "partly", "not reproduced", NOT_TRAINED, "inconclusive", "cells"]
    assert list(counts.index) == ["addition", "successor"]
    assert counts.loc["addition"].tolist() == [4, 0, 1, 2, 1, 8]
    assert counts.loc["successor"].tolist() == [1, 1, 1, 0, 0, 3]
    assert list(verdict_counts(cells[cells.task == "successor"]).columns) == [
        "reproduced", "partly", "not reproduced", "cells"]


def test_errors_name_the_required_columns(cells):
    with pytest.raises(ValueError, match="empty.*task, model, length, paper, ours, verdict"):
        verdict_grid(cells.iloc[:0])
    with pytest.raises(ValueError, match=r"lack the column\(s\) ours, verdict; required: task, model, length, "
                                         r"paper, ours, verdict"):
        verdict_grid(cells.drop(columns=["verdict", "ours"]))
    with pytest.raises(ValueError, match="lack the column.*split"):
        verdict_grid(cells, column="split")
    with pytest.raises(ValueError, match="more than one row for the cell.*addition / vanilla / 6"):
        verdict_grid(pd.concat([cells, cells.iloc[[1]]]))
    with pytest.raises(ValueError, match=r"lack the column\(s\) verdict"):
        verdict_counts(cells.drop(columns="verdict"))
    assert required_columns("variant", "split") == ["task", "variant", "split", "paper", "ours", "verdict"]


def test_the_abc_chapters_cells_frame_draws_directly():
    from lengthgen.papers.abc.readings import cells as abc_cells

    ours = pd.DataFrame([("addition", "vanilla", "", 6, 99.0, 98.0, 100.0, 3),
                         ("addition", "vanilla", "", 10, 0.0, 0.0, 0.0, 3),
                         ("addition", "ABC", "paper", 6, 100.0, 100.0, 100.0, 1),
                         ("addition", "ABC", "paper", 10, 60.0, 60.0, 60.0, 1)],
                        columns=["task", "model", "rule", "length", "ours", "min", "max", "seeds"])
    paper = pd.DataFrame([("addition", "vanilla", 6, 100.0), ("addition", "vanilla", 10, 0.0),
                          ("addition", "ABC", 6, 100.0), ("addition", "ABC", 10, 100.0)],
                         columns=["task", "model", "length", "paper"])
    frame = abc_cells(ours, paper)
    assert list(frame.columns) == ["task", "model", "rule", "length", "paper", "ours", "range", "seeds", "verdict"]
    fig = verdict_grid(frame, "Table 1")
    assert list(fig.data[0].y) == ["vanilla", "ABC (paper)"] and list(fig.data[0].x) == ["6", "10"]
    z, text = _cell(fig, 0, "ABC (paper)", "10")
    assert z == CLASSES.index("not reproduced") and "verdict: not reproduced (ours lower)" in text
    assert "ours: 99.0 (98-100)" in _cell(fig, 0, "vanilla", "6")[1]
    assert verdict_counts(frame).loc["addition"].tolist() == [3, 1, 4]


def test_panels_wrap_side_by_side(cells):
    three = pd.concat([cells, cells[cells.task == "successor"].assign(task="parity")])
    fig = verdict_grid(three, wrap=2)
    heats = [t for t in fig.data if t.type == "heatmap"]
    assert [h.xaxis for h in heats] == ["x", "x2", "x3"]  # row 1: addition, successor; row 2: parity
    assert fig.layout.xaxis.domain[0] < fig.layout.xaxis2.domain[0]  # side by side
    assert fig.layout.yaxis3.domain[1] < fig.layout.yaxis.domain[0]  # below them
    assert fig.layout.xaxis3.title.text == "length" and not fig.layout.xaxis.title.text
