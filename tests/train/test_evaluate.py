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


class _Writes:
    """A stand-in decoder that writes each prompt's true answer, with `after` wherever the answer is padded and,
    with `early`, <eos> in place of the first answer token."""

    width, predicts_ids = 16, False

    def __init__(self, after: int, early: bool = False):
        self.after, self.early = after, early

    def eval(self):
        return self

    def parameters(self):
        return iter([torch.zeros(1)])  # on the CPU

    def predict(self, batch):
        from lengthgen.data import PAD
        from lengthgen.models.transformer import Generation

        tokens = batch.answer.masked_fill(batch.answer == PAD, self.after)
        if self.early:
            tokens = tokens.clone()
            tokens[:, 0] = EOS
        return Generation(tokens, batch.positions[:, batch.prompt:])


def test_a_padded_answer_is_right_up_to_its_eos_whatever_is_written_after_it():
    from lengthgen.tasks import TASKS
    from lengthgen.tasks.prompted import Prompted
    from lengthgen.train.evaluate import answer_accuracy_by_length

    task = Prompted(TASKS["recopy"]())
    digit = task.vocab.ids["7"]
    scores = answer_accuracy_by_length(_Writes(after=digit), task, [6], 32, seed=0, progress=False)
    assert scores.value.tolist() == [100.0]  # a 7 after <eos> is not scored
    early = answer_accuracy_by_length(_Writes(after=digit, early=True), task, [6], 32, seed=0, progress=False)
    assert early.value.tolist() == [0.0]  # an answer that ends too soon is wrong


def test_the_loss_of_a_padded_batch_is_the_mean_over_its_answer_tokens_and_eos_only():
    import torch.nn.functional as F

    from lengthgen.data import PAD
    from lengthgen.models import build_model
    from lengthgen.models.transformer import TransformerConfig
    from lengthgen.tasks import TASKS
    from lengthgen.tasks.prompted import Prompted

    task = Prompted(TASKS["recopy"]())
    model = build_model("decoder", TransformerConfig(width=16, heads=2, layers=1, ff=32, max_positions=64), task,
                        seed=0).eval()
    batch = task.sample(8, 6, torch.Generator().manual_seed(0))
    assert (batch.answer == PAD).any()
    logits = model.logits(batch.tokens[:, :-1], batch.positions[:, :-1])[:, batch.prompt - 1:]
    kept = batch.answer != PAD
    by_hand = F.cross_entropy(logits[kept], batch.answer[kept])
    assert model.loss(batch).item() == pytest.approx(by_hand.item(), rel=1e-6)
