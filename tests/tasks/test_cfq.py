"""CFQ (tasks/cfq.py): preprocessing and the loader on a fixture."""

import pytest
import torch

from lengthgen.book import ROOT
from lengthgen.errors import LengthgenError
from lengthgen.tasks.cfq import Cfq, preprocess_query, preprocess_question

CFQ_FIXTURE = ROOT / "tests" / "data" / "cfq"


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
