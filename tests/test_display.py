"""How the book shows things: wide tables cut into parts; the prose's numbers (glued values reach the notebook's
outputs under their names, and a checked sentence stops the build when the data stop supporting it)."""

import numpy as np
import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell

from lengthgen.display import ProseCheckFailed, and_list, glue_values, holds, in_parts, span, word


def test_glued_values_are_recorded_under_their_names_without_showing(capsys):
    shell = InteractiveShell.instance()
    published = []
    shell.display_pub.publish = lambda data, metadata=None, **kw: published.append((data, metadata))
    glue_values({"share": 12.25, "verdict": "reproduced", "rho": np.float64(0.5)})
    keys = [meta["scrapbook"]["name"] for _, meta in published]
    assert keys == ["share", "verdict", "rho"]
    assert [data["application/papermill.record/text/plain"] for data, _ in published] == [
        "12.25", "'reproduced'", "0.5"]  # a numpy scalar as the number it holds, so that `rho:.1f` formats
    assert capsys.readouterr().out == ""


def test_a_sentence_the_data_no_longer_support_stops_the_build():
    holds(3 > 2, "three beat two")
    with pytest.raises(ProseCheckFailed, match="'worse in all three seeds'"):
        holds(False, "worse in all three seeds")


def test_in_parts_cuts_a_wide_table_by_its_first_column_level_in_order():
    columns = pd.MultiIndex.from_tuples([(t, n) for t in ("copy", "lookup", "recopy") for n in ("7", "15")])
    table = pd.DataFrame([range(6)], columns=columns)
    parts = in_parts(table, 2)
    assert [list(p.columns) for p in parts] == [list(columns[:4]), list(columns[4:])]
    assert pd.concat(parts, axis=1).equals(table)
    assert len(in_parts(table, 3)) == 1


def test_counts_lists_and_ranges_read_as_the_prose_writes_them():
    assert [word(n) for n in (0, 2, 4, 12, 13)] == ["no", "two", "four", "twelve", "13"] and word(1024) == "1,024"
    assert [and_list(x) for x in ([], ["a"], ["a", "b"], ["a", "b", "c"])] == ["", "a", "a and b", "a, b and c"]
    assert and_list([0, 1, 2]) == "0, 1 and 2" and and_list([0, 2]) == "0 and 2"
    assert span([55.04, 33.6, 40]) == "33.6-55.0" and span([89.5, 89.51]) == "89.5"
    assert span([0.478, 0.591], "{:.2f}") == "0.48-0.59" and span([0.347, 0.350], "{:.2f}") == "0.35"
    assert span([float("nan"), 2.0, 1.0], "{:.0f}".format) == "1-2" and span([float("nan")]) == "–"  # NaNs left out
