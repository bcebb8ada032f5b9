"""Evaluation: set-task accuracy by length (memory-bounded sub-batches, tidy DataFrame); seq2seq exact match and
edit distance of greedy decoding (with whatever hook points an analysis asks for captured on the way), and the
teacher-forced exact match used as the dev metric; decoder-only exact match of generated answers by length."""

from collections.abc import Callable
from dataclasses import replace
from statistics import median

import pandas as pd
import torch
from rapidfuzz.distance import Levenshtein
from tqdm.auto import tqdm

from lengthgen.data import EOS, PAD, Seq2SeqBatch
from lengthgen.device import device_of
from lengthgen.metrics import ACCURACY, ACCURACY_ADAPTIVE, COURSE, EDIT_DISTANCE, FIRST_ERROR, PPC_PARTS
from lengthgen.models.hooks import capture
from lengthgen.models.positional import randomized
from lengthgen.seeding import generator
from lengthgen.tasks.seq2seq import Seq2SeqTask

# Sub-batches hold at most this many item-feature elements (sets x items x width), ~256 MB of float32.
ELEMENT_BUDGET = 2**26
DECODE_BATCH = 500  # seq2seq examples decoded together


def test_generator(seed: int, length: int) -> torch.Generator:
    """The generator a test set of (length, seed) draws from: the same for every model and task form (paired)."""
    return generator(seed, f"test/{length}")


def test_set(task, length: int, n_samples: int, seed: int):
    """The fixed test set for (length, seed): identical for every model evaluated with the same seed (paired)."""
    return task.sample(n_samples, length, test_generator(seed, length))


def sub_batches(batch, width: int):
    """Yield slices of `batch` small enough that (sets x length x width) stays within ELEMENT_BUDGET."""
    step = max(1, ELEMENT_BUDGET // (batch.length * width))
    for start in range(0, batch.size, step):
        yield batch.slice(start, start + step)


@torch.no_grad()
def accuracy_by_length(
    model, task, lengths, n_samples: int, seed: int, adaptive_too: bool = False, progress: bool = True
) -> pd.DataFrame:
    """Accuracy of `model.predict(batch, modes)` on `n_samples` test sets per length (sub-batched by `model.width`).

    Returns:
        DataFrame with columns length, metric ("accuracy" or "accuracy_adaptive"), value (in %).
    """
    rows = []
    model.eval()
    modes = [(ACCURACY, False)] + ([(ACCURACY_ADAPTIVE, True)] if adaptive_too else [])
    for length in tqdm(list(lengths), desc="evaluate", disable=not progress, leave=False):
        batch = test_set(task, length, n_samples, seed)
        correct = dict.fromkeys([m for m, _ in modes], 0)
        for part in sub_batches(batch, model.width):
            part = part.to(device_of(model))
            preds = model.predict(part, tuple(adaptive for _, adaptive in modes))
            for (metric, _), pred in zip(modes, preds, strict=True):
                correct[metric] += int((pred == part.target).sum())
        rows += [{"length": length, "metric": m, "value": 100.0 * c / n_samples} for m, c in correct.items()]
    return pd.DataFrame(rows)


@torch.no_grad()
def answer_accuracy_by_length(model, task, lengths, n_samples: int, seed: int, metric: str = ACCURACY,
                              progress: bool = True, randomize: int = 0) -> pd.DataFrame:
    """% of `n_samples` prompts per length whose whole generated answer is right: every token, and every position id
    when the model predicts ids (PPC), up to the answer's <eos> where a batch pads its answers (what is written after
    it is not scored); greedy, cached, sub-batched by `model.width`. With `randomize` (> 0), each test
    sequence's ids are randomized positions below it (`positional.randomized`, drawn from the test set's seed), as a
    model trained with them is tested. A PPC model's answers are also
    scored in parts (`metrics.PPC_PARTS`): "<metric> tokens" (every token right, whatever its ids), "<metric> ids"
    (every predicted id right) and "<metric> oracle" (every token right when the true ids are fed in instead of the
    predicted ones).

    Returns:
        DataFrame with columns length, metric (`metric`, and its parts), value (in %).
    """
    rows = []
    model.eval()
    for length in tqdm(list(lengths), desc="evaluate", disable=not progress, leave=False):
        batch = test_set(task, length, n_samples, seed)
        if randomize:
            batch = replace(batch, ids=randomized(batch.positions, randomize, generator(seed, f"randomized/{length}")))
        correct = dict.fromkeys(("", *PPC_PARTS), 0) if model.predicts_ids else {"": 0}
        for part in sub_batches(batch, model.width):
            part = part.to(device_of(model))
            out = model.predict(part)
            padded = part.answer == PAD  # after an answer's <eos>: whatever the model writes there is not scored
            right = {"tokens": ((out.tokens == part.answer) | padded).all(1)}
            if model.predicts_ids:
                right["ids"] = ((out.ids == part.positions[:, part.prompt:]) | padded).all(1)
                right["oracle"] = ((model.predict(part, oracle=True).tokens == part.answer) | padded).all(1)
            correct[""] += int((right["tokens"] & right.get("ids", True)).sum())
            for name in correct.keys() - {""}:
                correct[name] += int(right[name].sum())
        rows += [{"length": length, "metric": f"{metric} {name}".strip(), "value": 100.0 * n / n_samples}
                 for name, n in correct.items()]
    return pd.DataFrame(rows)


def strip(ids: torch.Tensor) -> list[list[int]]:
    """Rows of token ids cut before their first <eos> (or <pad>)."""
    out = []
    for row in ids.tolist():
        cut = next((i for i, tok in enumerate(row) if tok in (EOS, PAD)), len(row))
        out.append(row[:cut])
    return out


@torch.no_grad()
def teacher_forced_accuracy(model, batch: Seq2SeqBatch) -> float:
    """% of examples whose every target token (incl. <eos>) is the argmax under teacher forcing (the public code's
    dev metric)."""
    model.eval()
    batch = batch.to(device_of(model))
    pred = model.teacher_forced(batch).argmax(-1)  # (B, T)
    valid = batch.tgt != PAD
    return 100.0 * float(((pred == batch.tgt) | ~valid).all(dim=1).float().mean())


@torch.no_grad()
def greedy_outputs(model, batch: Seq2SeqBatch) -> list[list[int]]:
    """Greedy predictions (ids, cut at <eos>) of `model.predict` with its default number of steps."""
    model.eval()
    return strip(model.predict(batch.to(device_of(model))))


def sequence_metrics(task, model, examples, batch_size: int = DECODE_BATCH, progress: bool = False,
                     hooks: tuple[str, ...] = ()) -> dict:
    """Exact-match accuracy (%), mean token edit distance and where outputs go wrong, for greedy decoding on
    `examples`, and what passed through the named hook points while decoding.

    Returns:
        {"accuracy": ..., "edit_distance": ..., "predictions": list of predicted token lists, "captured": hook name ->
        list of tensors, one per call} and, when some output is wrong, "first_error": the median over wrong outputs
        of the index of their first wrong token.
    """
    preds: list[list[int]] = []
    with capture(model, *hooks) as captured:
        for start in tqdm(range(0, len(examples), batch_size), desc="decode", disable=not progress, leave=False):
            preds += greedy_outputs(model, task.batch(examples[start: start + batch_size]))
    golds = [task.vocab.encode(t) for _, t in examples]
    wrong = [k for p, g in zip(preds, golds, strict=True) if (k := first_error(p, g)) is not None]
    dist = sum(Levenshtein.distance(p, g) for p, g in zip(preds, golds, strict=True))
    return {ACCURACY: 100.0 * (len(examples) - len(wrong)) / len(examples), EDIT_DISTANCE: dist / len(examples),
            "predictions": [task.vocab.decode(p) for p in preds], "captured": captured} | (
                {FIRST_ERROR: median(wrong)} if wrong else {})


def first_error(prediction: list, target: list) -> int | None:
    """Index of the first output token that is wrong: where prediction and target first differ, or the shorter
    one's length when one is a prefix of the other (stopped early, or ran on); None when they are equal."""
    if prediction == target:
        return None
    shorter = min(len(prediction), len(target))
    return next((i for i, (p, t) in enumerate(zip(prediction, target, strict=False)) if p != t), shorter)


FIRST_WRONG_COLUMNS = ["example", "position", "predicted", "expected"]


def first_wrong(targets, predictions) -> pd.DataFrame:
    """Where each wrong prediction first goes wrong, and with what.

    Args:
        targets: the right outputs, token sequences.
        predictions: the outputs to judge (as `sequence_metrics` returns them), one per target.

    Returns:
        One row per wrong prediction, in order (`FIRST_WRONG_COLUMNS`): example (its index), position (`first_error`),
        predicted (the token written there; missing where the prediction stopped before it) and expected (the
        target's token there; missing where the prediction ran on past the target's end).
    """
    rows = []
    for i, (target, prediction) in enumerate(zip(targets, predictions, strict=True)):
        target, prediction = list(target), list(prediction)
        if (k := first_error(prediction, target)) is not None:
            rows.append({"example": i, "position": k, "predicted": prediction[k] if k < len(prediction) else None,
                         "expected": target[k] if k < len(target) else None})
    return pd.DataFrame(rows, columns=FIRST_WRONG_COLUMNS)


def first_wrong_summary(wrong: pd.DataFrame, token: str = "0") -> dict:
    """{"wrong": the number of wrong predictions, "position": the median position of their first wrong token (NaN
    when none is wrong), "share": the % of them whose first wrong token is `token` (NaN when none is wrong)} from a
    `first_wrong` frame."""
    if wrong.empty:
        return {"wrong": 0, "position": float("nan"), "share": float("nan")}
    return {"wrong": len(wrong), "position": float(wrong.position.median()),
            "share": 100.0 * float((wrong.predicted == token).mean())}


def exact_match_by_length(model, task, lengths, n_samples: int, seed: int, metric: str = ACCURACY,
                          progress: bool = True, randomize: int = 0) -> pd.DataFrame:
    """% of `n_samples` examples per length answered exactly, from one test seed whatever the model: a decoder-only
    task's prompts (`answer_accuracy_by_length`), or a sequence-to-sequence task's draws, decoded greedily
    (`sequence_metrics`); both draw the same examples from a seed (`Seq2SeqTask.sample`). Rows: length, metric,
    value."""
    if not isinstance(task, Seq2SeqTask):
        return answer_accuracy_by_length(model, task, lengths, n_samples, seed, metric, progress, randomize)
    rows = []
    for length in tqdm(list(lengths), desc="evaluate", disable=not progress, leave=False):
        gen = test_generator(seed, length)
        examples = [task.draw(length, gen) for _ in range(n_samples)]
        rows.append({"length": length, "metric": metric, "value": sequence_metrics(task, model, examples)[ACCURACY]})
    return pd.DataFrame(rows)


def course_reader(model, task, length: int, every: int, last: int, samples: int, seed: int, rows: list,
                  stop_at: float | None = None, randomize: int = 0) -> Callable[[int], bool]:
    """A training callback (`loop.train`'s `callback`) that reads the course of training: after every `every` steps
    and after the `last`, exact match of the greedy answers to `samples` prompts of `length` drawn from `seed` (metric
    COURSE, `exact_match_by_length`, its ids randomized below `randomize` where > 0), rows appended to `rows` with
    the step. It returns True, which stops the training, at the first point at or above `stop_at` (None: never)."""

    def read(step: int) -> bool:
        if step % every and step != last:
            return False
        point = exact_match_by_length(model, task, [length], samples, seed, COURSE, progress=False,
                                      randomize=randomize)
        rows.extend(point.assign(step=step).to_dict("records"))
        return stop_at is not None and float(point[point.metric == COURSE].value.iloc[0]) >= stop_at

    return read
