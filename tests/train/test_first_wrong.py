"""Where wrong outputs first go wrong and with what token (train/evaluate.py), on hand-made predictions."""

import math

from lengthgen.train.evaluate import FIRST_WRONG_COLUMNS, first_wrong, first_wrong_summary


def test_first_wrong_tokens_by_hand():
    target = list("1200")
    predictions = [list("1200"),   # right
                   list("1230"),   # wrong at 2: wrote 3 where 0 was due
                   list("1000"),   # wrong at 1: wrote 0 where 2 was due
                   list("12"),     # stopped early: wrong at 2, nothing written
                   list("12005")]  # ran on: wrong at 4, where the target had ended
    wrong = first_wrong([target] * 5, predictions)
    assert list(wrong.columns) == FIRST_WRONG_COLUMNS
    assert wrong.example.tolist() == [1, 2, 3, 4] and wrong.position.tolist() == [2, 1, 2, 4]
    assert wrong.predicted.fillna("-").tolist() == ["3", "0", "-", "5"]  # missing: nothing written there
    assert wrong.expected.fillna("-").tolist() == ["0", "2", "0", "-"]  # missing: past the target's end
    summary = first_wrong_summary(wrong)
    assert summary == {"wrong": 4, "position": 2.0, "share": 25.0}  # median of 2, 1, 2, 4; one 0 in four
    assert first_wrong_summary(wrong, token="5")["share"] == 25.0


def test_nothing_wrong_gives_an_empty_frame_and_no_summary_values():
    wrong = first_wrong([list("12")], [list("12")])
    assert wrong.empty and list(wrong.columns) == FIRST_WRONG_COLUMNS
    summary = first_wrong_summary(wrong)
    assert summary["wrong"] == 0 and math.isnan(summary["position"]) and math.isnan(summary["share"])
