"""The copy family (tasks/copying.py) against hand-written references: transforms and splits."""

import itertools

import pytest

from lengthgen.tasks import TASKS
from lengthgen.tasks.copying import COPY_SPLITS, posretrieve, recopy

COPY_FAMILY = ("copy", "reverse_copy", "recopy", "reverse_recopy", "inv_recopy", "inv_reverse_recopy", "dedupe",
               "posretrieve")


def digits(tokens) -> list[int]:
    return [int(t) for t in tokens]


def test_paper_examples():
    assert recopy([4, 7, 9, 8]) == [4] * 3 + [7] * 5 + [9] * 5 + [8] * 5
    assert recopy([0, 3, 4, 6, 7]) == [0, 3] + [4] * 3 + [6] * 3 + [7] * 5
    got = " ".join(posretrieve([5, 4, 2, 7, 9, 6, 9, 5, 7, 3]))
    assert got.replace(" : ", ":").replace(" ;", ";") == "5:6; 4:9; 2:2; 7:5; 9:3; 6:9; 9:3; 5:6; 7:5; 3:7;"
    assert posretrieve([3, 0, 1]) == ("3", ":", "n/a", ";", "0", ":", "3", ";", "1", ":", "0", ";")


def ref_recopy(x):
    return [d for d in x for _ in range(1 if d <= 3 else 3 if d <= 6 else 5)]


def ref_posretrieve(x):
    return " ; ".join(f"{i} : {x[i] if i < len(x) else 'n/a'}" for i in x).split() + [";"]


REFERENCES = {  # source digits -> target tokens
    "copy": lambda x: [str(d) for d in x],
    "reverse_copy": lambda x: [str(d) for d in x[::-1]],
    "recopy": lambda x: [str(d) for d in ref_recopy(x)],
    "reverse_recopy": lambda x: [str(d) for d in ref_recopy(x[::-1])],
    "dedupe": lambda x: [str(k) for k, _ in itertools.groupby(x)],
    "posretrieve": ref_posretrieve,
}


INVERTED = {"inv_recopy": lambda y: ref_recopy(y), "inv_reverse_recopy": lambda y: ref_recopy(y[::-1])}


@pytest.mark.parametrize("name", COPY_FAMILY)
def test_copy_family_against_reference(name):
    for src, tgt in TASKS[name]().examples("train", 300):
        if name in INVERTED:  # the target is the underlying sequence, the source its (reversed) recopy
            assert digits(src) == INVERTED[name](digits(tgt))
        else:
            assert list(tgt) == REFERENCES[name](digits(src))


@pytest.mark.parametrize("name", COPY_FAMILY)
def test_copy_family_splits(name):
    task = TASKS[name]()
    for split, spec in COPY_SPLITS.items():
        n = min(spec.size, 400)
        examples = task.examples(split, n)
        assert len(examples) == len(set(examples)) == n  # unique within a split
        unit = [len(t) if name.startswith("inv") else len(s) for s, t in examples]
        if name in ("dedupe", "posretrieve"):
            continue  # their length unit (draws / digits) is checked by the transform tests
        assert spec.min_length <= min(unit) and max(unit) <= spec.max_length
    assert len(task.examples("train")) == 10_000
