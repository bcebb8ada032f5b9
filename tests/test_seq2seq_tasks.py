"""Seq2seq tasks against hand-written references: transforms, splits, SCAN grammar counts, CFQ loading."""

import itertools
from pathlib import Path

import pytest
import torch

from lengthgen.data import EOS, PAD, Vocab, collate
from lengthgen.errors import LengthgenError
from lengthgen.tasks import TASKS
from lengthgen.tasks import scan as scan_mod
from lengthgen.tasks.cfq import Cfq, preprocess_query, preprocess_question
from lengthgen.tasks.copying import COPY_SPLITS, posretrieve, recopy
from lengthgen.tasks.lookup import BITS, DEV_HELD_OUT, DEV_LONGER, TABLES

CFQ_FIXTURE = Path(__file__).parent / "data" / "cfq"
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


def test_examples_are_seeded_and_prefix_stable():
    a, b, c = TASKS["copy"](), TASKS["copy"](), TASKS["copy"](data_seed=1)
    assert a.examples("30", 50) == b.examples("30", 50) == b.examples("30", 80)[:50]
    assert a.examples("30", 50) != c.examples("30", 50)


def test_bad_split_and_size():
    task = TASKS["copy"]()
    with pytest.raises(LengthgenError, match="valid: train, dev, iid, 15, 30, 100"):
        task.examples("50")
    with pytest.raises(LengthgenError, match="valid: 1..2000"):
        task.examples("15", 5000)


def test_vocab_and_collate():
    vocab = Vocab(("a", "b"))
    assert vocab.tokens[:4] == ("<pad>", "<sos>", "<eos>", "<unk>") and vocab.encode(["b", "zz"]) == [5, 3]
    batch = collate([(("a",), ("b", "a")), (("b", "b", "a"), ("a",))], vocab)
    assert batch.src.tolist() == [[4, PAD, PAD], [5, 5, 4]] and batch.src_len.tolist() == [1, 3]
    assert batch.tgt.tolist() == [[5, 4, EOS], [4, EOS, PAD]] and batch.tgt_len.tolist() == [3, 2]
    assert vocab.decode([5, 4, EOS, 5]) == ["b", "a"]


def chain(task, src) -> list[str]:
    """Reference: evaluate a lookup source by hand with the task's tables."""
    tables = [t for t in src if t in TABLES]
    x = next(t for t in src if t in BITS)
    if task.name == "reverse_lookup":
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


def test_scan_grammar_counts_and_split():
    commands = scan_mod.commands()
    assert len(commands) == len(set(commands)) == 20_910
    lengths = [len(scan_mod.interpret(c)) for c in commands]
    assert sum(n <= 22 for n in lengths) == 16_990 and sum(n >= 24 for n in lengths) == 3_920
    assert 23 not in lengths and max(lengths) == 48
    task = TASKS["scan"]()
    assert {k: v.size for k, v in task.splits.items()} == {"train": 15_291, "dev": 1_699, "test": 3_920}
    assert not set(task.examples("train")) & set(task.examples("dev"))


def test_scan_semantics_on_official_examples():
    cases = {
        "jump opposite right twice and turn opposite right thrice":
            "I_TURN_RIGHT I_TURN_RIGHT I_JUMP I_TURN_RIGHT I_TURN_RIGHT I_JUMP " + "I_TURN_RIGHT " * 6,
        "walk around left": "I_TURN_LEFT I_WALK " * 4,
        "look after run left": "I_TURN_LEFT I_RUN I_LOOK",
        "turn around right thrice": "I_TURN_RIGHT " * 12,
        "jump": "I_JUMP",
    }
    for command, actions in cases.items():
        assert " ".join(scan_mod.interpret(command.split())) == actions.strip()
    with pytest.raises(LengthgenError, match="not a SCAN command"):
        scan_mod.interpret("jump jump".split())


def test_scan_constructions_and_tasks_without_them():
    scan = TASKS["scan"]()
    assert [scan.construction(c.split()) for c in ("jump twice after walk left", "look and turn right",
                                                   "run around left thrice")] == ["after", "and", "single"]
    assert TASKS["copy"]().construction(["1", "2"]) is None


def test_scan_line_format_roundtrip():
    ex = TASKS["scan"]().examples("test", 3)
    for e in ex:
        line = scan_mod.to_line(e)
        assert line.startswith("IN: ") and " OUT: " in line and scan_mod.from_line(line) == e
    with pytest.raises(LengthgenError, match="expected 'IN: ... OUT: ...'"):
        scan_mod.from_line("jump => I_JUMP")


def test_cfq_preprocessing_and_loader(tmp_path):
    assert preprocess_question("Did M0 marry M1's sibling?") == ("Did", "M0", "marry", "M1", "'", "s", "sibling", "?")
    assert preprocess_query("SELECT count(*) WHERE {\nM0 ns:x.y ns:m.0d0vqn\n}") == (
        "SELECT", "count", "(", "*", ")", "WHERE", "{", "M0", "x.y", "m_0d0vqn", "}")
    task = Cfq(CFQ_FIXTURE)
    assert {k: v.size for k, v in task.splits.items()} == {"train": 2, "dev": 1, "test": 1}
    src, tgt = task.examples("train")[0]
    assert src == ("Did", "M0", "marry", "M1", "?") and tgt[:5] == ("SELECT", "count", "(", "*", ")")
    assert "ns:" not in " ".join(t for _, q in task.examples("test") for t in q)
    assert torch.equal(task.batch(task.examples("train")).src[0, :2], torch.tensor([4, 5]))
    with pytest.raises(LengthgenError, match="CFQ is never downloaded"):
        Cfq(tmp_path)
