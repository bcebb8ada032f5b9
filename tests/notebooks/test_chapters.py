"""Every chapter notebook executes end to end with papermill in the smoke profile."""

import json
import re

import pytest

from lengthgen.book import CHAPTERS, execute_chapter

MIN_FIGURES = {"vv": 7, "mla": 3,  # smoke: grid, heatmaps, training curves
               "sparsity": 3,  # heatmap, accuracy curves, attention
               "abc": 4,  # Table 1 and Table 3 curves, attention and bias heatmaps
               "leaderboard": 1}  # the board's heatmap


@pytest.mark.notebook
@pytest.mark.parametrize("chapter", list(CHAPTERS))
def test_chapter_executes_in_smoke_profile(chapter, tmp_path):
    out = execute_chapter(chapter, "smoke", tmp_path / "executed", results_dir=str(tmp_path / "results"))
    cells = json.loads(out.read_text())["cells"]
    outputs = [o for c in cells if c["cell_type"] == "code" for o in c["outputs"]]
    assert not [o for o in outputs if o["output_type"] == "error"]
    plain = ["".join(o["data"]["text/plain"]) for o in outputs if "text/plain" in o.get("data", {})]
    assert "None" not in plain  # no display() of a helper that returns nothing
    html = ["".join(o["data"]["text/html"]) for o in outputs if "text/html" in o.get("data", {})]
    assert not [h for h in html if "<td>...</td>" in h]  # no table with rows or columns elided by pandas
    tables = [h[h.index("<table"):] for h in html if 'class="dataframe"' in h]
    data = [c for t in tables for c in re.findall("<t[dh][^>]*>(.*?)</t[dh]>", t)]
    assert data and not [c for c in data if re.search(r"\w_(?!<wbr>)\w", c)]  # names may wrap (table_html)
    figures = [h for h in html if "Plotly.newPlot" in h]
    assert len(figures) >= MIN_FIGURES[chapter]  # figures render as plotly divs for the book ...
    assert not any("cdn.plot.ly" in h or len(h) > 3_000_000 for h in figures)  # ... without plotly.js inside
