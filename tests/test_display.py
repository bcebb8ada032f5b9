"""The prose's numbers: glued values reach the notebook's outputs under their names, and a checked sentence stops the
build when the data stop supporting it."""

import pytest
from IPython.core.interactiveshell import InteractiveShell

from lengthgen.display import ProseCheckFailed, glue_values, holds


def test_glued_values_are_recorded_under_their_names_without_showing(capsys):
    shell = InteractiveShell.instance()
    published = []
    shell.display_pub.publish = lambda data, metadata=None, **kw: published.append((data, metadata))
    glue_values({"share": 12.25, "verdict": "reproduced"})
    keys = [meta["scrapbook"]["name"] for _, meta in published]
    assert keys == ["share", "verdict"]
    assert [data["application/papermill.record/text/plain"] for data, _ in published] == ["12.25", "'reproduced'"]
    assert capsys.readouterr().out == ""


def test_a_sentence_the_data_no_longer_support_stops_the_build():
    holds(3 > 2, "three beat two")
    with pytest.raises(ProseCheckFailed, match="'worse in all three seeds'"):
        holds(False, "worse in all three seeds")
