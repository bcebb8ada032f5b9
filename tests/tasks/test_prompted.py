"""A sequence-to-sequence task as a decoder-only one (tasks/prompted.py)."""

import pytest
import torch

from lengthgen.errors import LengthgenError
from lengthgen.tasks import TASKS
from lengthgen.tasks.prompted import SEPARATOR, Prompted


def test_a_prompt_is_the_source_and_the_separator_and_the_answer_is_the_target():
    task = Prompted(TASKS["duplicate_string"]())
    batch = task.sample(16, 5, torch.Generator().manual_seed(0))
    assert batch.prompt == 6 and batch.length == 16 and batch.ids is None  # 5 + "=" + 10
    vocab = task.vocab
    for row in batch.tokens.tolist():
        source, sep, answer = vocab.decode(row[:5]), vocab.decode(row[5:6]), vocab.decode(row[6:])
        assert sep == [SEPARATOR] and answer == source + source
    again = task.sample(16, 5, torch.Generator().manual_seed(0))
    assert torch.equal(batch.tokens, again.tokens)  # the draw is the generator's


def test_a_task_whose_answers_vary_at_one_length_or_that_uses_the_separator_is_refused():
    with pytest.raises(LengthgenError, match="recopy's examples of one length differ in length"):
        Prompted(TASKS["recopy"]()).sample(64, 8, torch.Generator().manual_seed(0))
    mod = TASKS["modular_arithmetic"]()
    mod.tokens = (*mod.tokens, SEPARATOR)
    with pytest.raises(LengthgenError, match="uses '=' itself"):
        Prompted(mod)
