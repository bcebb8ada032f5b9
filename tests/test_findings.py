"""The introduction's findings: one line per paper, generated from the scorecard's stored rows."""

import pandas as pd

from lengthgen.analysis.verdicts import verdict_class
from lengthgen.scorecard import COLUMNS, findings


def card(rows: list[tuple]) -> pd.DataFrame:
    frame = pd.DataFrame([dict(zip(["paper", "runs", "source", "cell", "ours", "verdict"], r, strict=True))
                          for r in rows]).reindex(columns=COLUMNS[:-1])
    return frame.assign(**{"class": frame.verdict.map(verdict_class)})


def test_each_paper_gets_its_counts_and_one_phrase_per_table():
    text = findings(card([
        ("A", "stored full", "Table 2", "x / copy / 15", "10.0", "reproduced"),
        ("A", "stored full", "Table 2", "y / copy / 15", "0.0", "not reproduced"),
        ("A", "stored full", "Table 2", "ranking of its cells", "Spearman rho 0.9", "reproduced"),
        ("A", "stored cpu", "Table 2", "x / copy / 15", "3.0", "not reproduced"),  # full is nearer the paper
        ("A", "live quick", "Table 2", "x / copy / 15", "3.0", "not reproduced"),  # live rows never count
        ("B", "stored cpu", "Fig. 3: depth 2", "assignment", "...", "not trained"),
    ]))
    assert text.split("\n") == [
        "- **A** (full runs; 3 rows: 2 reproduced, 1 not reproduced). Table 2: 1 of 2 rows reproduced (ranking "
        "reproduced: Spearman rho 0.9).",
        "- **B** (cpu runs; 1 row: 1 not trained). Fig. 3: not trained."]


def test_nothing_stored_finds_nothing():
    assert findings(card([("A", "live quick", "Table 2", "x", "1.0", "reproduced")])) == ""


def test_a_paper_is_read_at_the_nearest_profile_whose_grids_are_complete():
    abc = "Attention bias calibration"
    rows = card([(abc, "stored cpu", "Table 1", "successor / vanilla / 10", "0.0", "reproduced"),
                 (abc, "stored regime", "Table 1", "successor / vanilla / 10", "40.0", "not reproduced")])

    def grid(complete: str) -> pd.DataFrame:  # the regime grids of the chapter, all `complete`, beside a cpu one
        return pd.DataFrame([{"experiment": e, "profile": "regime", "complete": complete}
                             for e in ("abc-table1", "abc-scaffolding")]
                            + [{"experiment": "abc-table1", "profile": "cpu", "complete": "yes"},
                               {"experiment": "mla-main", "profile": "regime", "complete": "no"}])

    assert findings(rows).startswith(f"- **{abc}** (cpu runs; 1 row: 1 reproduced)")  # no grid table: the first
    assert findings(rows, grid("no")).startswith(f"- **{abc}** (cpu runs")  # the regime grids are not complete
    assert findings(rows, grid("yes")).startswith(f"- **{abc}** (regime runs; 1 row: 1 not reproduced)")


def test_each_source_is_read_at_its_own_nearest_profile():
    sparsity = "Sparsity and length generalization"
    rows = card([(sparsity, "stored cpu", "Figs. 1, 7", "parity (K=1)", "...", "reproduced"),  # parity: cpu only
                 (sparsity, "stored cpu", "Fig. 2", "jumps (j=2)", "...", "not trained"),
                 (sparsity, "stored regime", "Fig. 2", "jumps (j=2)", "...", "not reproduced"),
                 (sparsity, "stored regime", "Fig. 3", "assignment (depth 2)", "...", "reproduced")])
    grid = pd.DataFrame([{"experiment": "sparsity-scratchpad", "profile": "regime", "complete": "yes"},
                         {"experiment": "sparsity-assignment", "profile": "regime", "complete": "yes"}])
    assert findings(rows, grid) == (f"- **{sparsity}** (cpu and regime runs; 3 rows: 2 reproduced, 1 not reproduced). "
                                    "Figs. 1, 7: reproduced; Fig. 2: not reproduced; Fig. 3: reproduced.")
    assert "Fig. 2: not trained" in findings(rows)  # no grid table: each source at the first profile stored
