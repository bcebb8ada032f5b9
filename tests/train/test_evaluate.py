"""Sequence metrics (train/evaluate.py): edit distance, accuracy and first error by hand."""

import pytest
import torch

from lengthgen.data import EOS
from lengthgen.train.evaluate import first_error, sequence_metrics


def test_edit_distance_and_accuracy_by_hand(model_and_task):
    model, task = model_and_task()
    examples = [(("1", "2", "3"), ("1", "2", "3"))]
    with torch.no_grad():
        model.out_bias[EOS] = 1e4  # predicts the empty sequence
    m = sequence_metrics(task, model, examples)
    assert m["accuracy"] == 0.0 and m["edit_distance"] == 3.0 and m["predictions"] == [[]]
    assert m["first_error"] == 0
    m = sequence_metrics(task, model, examples * 2 + [((), ())] * 3)  # three right (empty), two wrong at token 0
    assert m["accuracy"] == 60.0 and m["first_error"] == 0
    assert "first_error" not in sequence_metrics(task, model, [((), ())])  # nothing wrong: no first error
    with torch.no_grad():
        model.out_bias[task.vocab.encode(["1"])[0]] = 2e4  # now emits "1" at every step and never stops
    runs_of_ones = [(("0",), tuple(t)) for t in ("123", "112", "2", "1112")]  # first wrong token: 1, 2, 0, 3
    assert sequence_metrics(task, model, runs_of_ones)["first_error"] == 1.5


@pytest.mark.parametrize("prediction,target,expected", [
    ("123", "123", None), ("124", "123", 2), ("923", "123", 0),
    ("12", "123", 2),    # stopped early: wrong at the first missing token
    ("1234", "123", 3),  # ran on: wrong where <eos> was due
])
def test_first_error_by_hand(prediction, target, expected):
    assert first_error(list(prediction), list(target)) == expected
