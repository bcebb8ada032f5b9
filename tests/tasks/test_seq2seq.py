"""What every seq2seq task shares (tasks/seq2seq.py, data.py): seeded examples, refusals, vocabulary and
collation."""

import pytest

from lengthgen.data import EOS, PAD, Vocab, collate
from lengthgen.errors import LengthgenError
from lengthgen.tasks import TASKS


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
