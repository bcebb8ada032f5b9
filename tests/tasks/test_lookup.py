"""Lookup tables (tasks/lookup.py): dev layout, the iid estimate, chains evaluated by hand."""

import pytest

from lengthgen.tasks import TASKS
from lengthgen.tasks.lookup import BITS, DEV_HELD_OUT, DEV_LONGER, TABLES


def chain(task, src) -> list[str]:
    """Reference: evaluate a lookup source by hand with the task's tables."""
    tables = [t for t in src if t in TABLES]
    x = next(t for t in src if t in BITS)
    if task.name.startswith("reverse_lookup"):
        tables = tables[::-1]
    out, v = [x], BITS.index(x)
    for t in tables:
        v = task.tables[TABLES.index(t)][v]
        out.append(BITS[v])
    return out


def test_lookup_dev_layout_and_iid_estimate():
    """The estimate rests on the dev split's layout: held-out examples of the training lengths first, then examples of
    test split 7's length; by hand: 2 x 55.5 - 11.4 = 99.6; 2 x 66.4 - 28.95 = 103.85 and 2 x 30 - 80 = -20 are
    clipped; with 800 dev examples the held-out share is 500/800: (60 - 0.375 x 40) / 0.625 = 72."""
    task = TASKS["lookup"]()
    dev, held = task.examples("dev"), set(task._held_out)
    assert len(dev) == DEV_HELD_OUT + DEV_LONGER and task.dev_longer_split == "7"
    assert all(e in held for e in dev[:DEV_HELD_OUT]) and {len(s) for s, _ in dev[:DEV_HELD_OUT]} == {6}
    assert {len(s) for s, _ in dev[DEV_HELD_OUT:]} == {len(task.examples("7", 1)[0][0])} == {7}
    assert task.iid_estimate(55.5, 11.4) == pytest.approx(99.6)
    assert task.iid_estimate(66.4, 28.95) == 100.0 and task.iid_estimate(30.0, 80.0) == 0.0
    assert task.iid_estimate(60.0, 40.0, 800) == pytest.approx(72.0)
    assert task.iid_estimate(80.0, 0.0, 300) == 80.0  # only held-out examples: the dev score itself


@pytest.mark.parametrize("name", ["lookup", "reverse_lookup"])
def test_lookup(name):
    task = TASKS[name]()
    assert all(sorted(t) == list(range(8)) for t in task.tables)  # bijections
    train = task.examples("train")
    assert len(train) == 9556 == len(set(train))  # 1296*8 + 216*8 + 36*8 + 8*8 minus 50*8 + 1246*2 held out
    for src, tgt in train[:500] + task.examples("11", 200):
        assert list(tgt) == chain(task, src)
    assert src[-1] == "." and (src[0] in BITS) == (name == "lookup")
    unary_only = {s for s, _ in train if len(s) > 3 for t in ("t7", "t8") if t in s}
    assert not unary_only  # t7, t8 are never composed in training
    held = set(task._held_out)
    assert not held & set(train) and len(held) == 50 * 8 + 1246 * 2
    for split, n_tables in (("7", 5), ("9", 7), ("11", 9)):
        assert {len(s) for s, _ in task.examples(split, 300)} == {n_tables + 2}
    assert not set(task.examples("dev")) & set(task.examples("7"))


@pytest.mark.parametrize("name", ["lookup", "reverse_lookup"])
def test_lookup_by_length_draws_training_examples_up_to_four_tables_and_longer_compositions_beyond(name):
    import torch

    from lengthgen.errors import LengthgenError

    task, plain = TASKS[f"{name}_length"](), TASKS[name]()
    assert task.tables == plain.tables and task.examples("dev", 3) == plain.examples("dev", 3)
    train, held, gen = set(plain.examples("train")), set(plain._held_out), torch.Generator().manual_seed(0)
    for length in (3, 4, 5, 6, 7, 11, 60):
        for src, tgt in (task.draw(length, gen) for _ in range(40)):
            assert len(src) == length and list(tgt) == chain(task, src)
            assert (src, tgt) in train if length <= 6 else not {"t7", "t8"} & set(src)  # t7, t8 only alone
            assert (src, tgt) not in held
    assert (src[0] in BITS) == (name == "lookup")
    with pytest.raises(LengthgenError, match="draws sources of at least 3 tokens; got 2"):
        task.draw(2, gen)
