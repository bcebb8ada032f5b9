"""The Chomsky-hierarchy suite's tasks (tasks/chomsky.py) against the suite's examples and independent references."""

import pytest

from lengthgen.tasks import TASKS
from lengthgen.tasks.chomsky import TRAIN_MAX, reduce_expression


def test_the_suites_examples():
    assert [reduce_expression(list(e.replace(" ", ""))) for e in ("1 + 2 * 3", "1 - 1 - 1", "0 * 1 + 4 * 3 - 2")
            ] == [2, 4, 0]


REFERENCES = {  # source -> target, written independently of the tasks
    "duplicate_string": lambda s: s + s,
    "bucket_sort": lambda s: tuple(sorted(s, key=int)),
    "modular_arithmetic": lambda s: (str(eval("".join(s)) % 5),),  # Python's precedence: products first, then
    # sums and differences from the left, as the suite's
}


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_every_training_example_matches_its_reference(name):
    for source, target in TASKS[name]().examples("train", 2000):
        assert target == REFERENCES[name](source)


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_the_splits_train_to_forty_and_test_ten_times_further(name):
    task = TASKS[name]()
    odd = name == "modular_arithmetic"  # its inputs have an odd number of symbols
    train = {len(s) for s, _ in task.examples("train")}
    assert train == (set(range(1, TRAIN_MAX, 2)) if odd else set(range(1, TRAIN_MAX + 1)))
    assert len(set(task.examples("train"))) == 10_000
    tests = {split: {len(s) for s, _ in task.examples(split, 50)} for split in task.test_splits if split != "iid"}
    assert tests == {str(n + odd): {n + odd} for n in (50, 100, 200, 400)}
    assert max(n for lengths in tests.values() for n in lengths) >= 10 * TRAIN_MAX
