import pytest
import torch

from lengthgen.errors import LengthgenError
from lengthgen.tasks import TASKS
from lengthgen.tasks.retrieval import argmax_reference, dictionary_reference, distinct_ints


def test_argmax_matches_reference():
    batch = TASKS["argmax"]().sample(200, 7, torch.Generator().manual_seed(1))
    for items, target in zip(batch.items, batch.target, strict=True):
        priorities = items[:, 0].tolist()
        classes = items[:, 1:].argmax(-1).tolist()
        assert int(target) == argmax_reference(priorities, classes)
    assert torch.all(batch.items[:, :, 1:].sum(-1) == 1)  # exactly one class per item


def test_dictionary_matches_reference_and_keys_are_distinct():
    task = TASKS["dictionary"]()
    batch = task.sample(200, 9, torch.Generator().manual_seed(2))
    for items, query, target in zip(batch.items, batch.query, batch.target, strict=True):
        pairs = [tuple(p) for p in items.tolist()]
        assert len({k for k, _ in pairs}) == 9
        assert int(target) == dictionary_reference(pairs, int(query[0]))
    assert batch.items[..., 0].max() < task.n_keys and batch.items[..., 1].max() < task.n_values


@pytest.mark.parametrize("k,n", [(5, 10_000), (90, 100), (100, 100)])
def test_distinct_ints_rows_are_distinct_and_in_range(k, n):
    out = distinct_ints(64, k, n, torch.Generator().manual_seed(0))
    assert out.shape == (64, k) and out.min() >= 0 and out.max() < n
    assert all(len(set(row)) == k for row in out.tolist())


def test_distinct_ints_is_roughly_uniform():
    out = distinct_ints(20_000, 3, 6, torch.Generator().manual_seed(0))  # short-row path
    freq = torch.bincount(out.flatten(), minlength=6).float() / out.numel()
    assert torch.allclose(freq, torch.full((6,), 1 / 6), atol=0.01)


def test_sampling_is_deterministic_per_generator():
    task = TASKS["dictionary"]()
    a = task.sample(8, 16, torch.Generator().manual_seed(3))
    b = task.sample(8, 16, torch.Generator().manual_seed(3))
    assert torch.equal(a.items, b.items) and torch.equal(a.target, b.target)


@pytest.mark.parametrize("task,length", [("dictionary", 16385), ("argmax", 0), ("dictionary", 0)])
def test_impossible_lengths_are_refused(task, length):
    with pytest.raises(LengthgenError, match="impossible length"):
        TASKS[task]().sample(2, length, torch.Generator())


def test_unknown_task_lists_valid_names():
    with pytest.raises(LengthgenError, match="valid: argmax, dictionary"):
        TASKS["multiplication"]
