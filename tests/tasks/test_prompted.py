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


def test_answers_that_vary_at_one_length_end_with_eos_and_are_padded_and_nothing_else_is():
    from lengthgen.tasks.copying import recopy

    task = Prompted(TASKS["recopy"]())
    batch = task.sample(64, 8, torch.Generator().manual_seed(0))
    assert batch.prompt == 9 and batch.ids is None
    lengths = set()
    for row in batch.tokens.tolist():
        words = [task.vocab.tokens[i] for i in row]
        source, answer = words[:8], words[9:]
        end = answer.index("<eos>")
        assert answer[:end] == [str(d) for d in recopy([int(c) for c in source])]  # the rule, by hand
        assert set(answer[end + 1:]) <= {"<pad>"}
        lengths.add(end)
    assert len(lengths) > 1 and batch.length == 9 + max(lengths) + 1  # padded to the longest answer and its <eos>
    fixed = Prompted(TASKS["copy"]()).sample(8, 8, torch.Generator().manual_seed(0))
    assert fixed.length == 17 and not (fixed.tokens <= 3).any()  # no <eos>, no <pad>: copy's answers have one length


def test_a_task_whose_answers_vary_unannounced_or_that_uses_the_separator_is_refused():
    recopy = TASKS["recopy"]()
    recopy.answers_vary = False
    with pytest.raises(LengthgenError, match="recopy's answers to sources of one length differ in length; set "
                                             "`answers_vary`"):
        Prompted(recopy).sample(64, 8, torch.Generator().manual_seed(0))
    mod = TASKS["modular_arithmetic"]()
    mod.tokens = (*mod.tokens, SEPARATOR)
    with pytest.raises(LengthgenError, match="uses '=' itself"):
        Prompted(mod)


@pytest.mark.parametrize("name", ["copy", "reverse_copy", "duplicate_string"])
def test_coupled_ids_give_each_answer_token_the_id_of_the_source_token_it_copies(name):
    task = Prompted(TASKS[name](), coupled=True)
    gen = torch.Generator().manual_seed(0)
    for length in (1, 5, 12):
        s = task.sequence(length, gen)
        source, answer = s.tokens[: s.prompt - 1], s.tokens[s.prompt:]
        by_id = dict(zip(s.ids[: s.prompt - 1], source, strict=True))
        assert len(by_id) == length and min(s.ids) >= 1  # one id per source token; none 0 (the pads', never shifted)
        assert [by_id[i] for i in s.ids[s.prompt:]] == answer


@pytest.mark.parametrize("name, lengths", [("copy", (1, 5, 12)), ("reverse_copy", (1, 5, 12)),
                                           ("duplicate_string", (1, 5, 12)), ("successor", (1, 3, 7)),
                                           ("addition", (1, 3, 7))])
def test_from_the_separator_on_each_token_reads_the_same_step_ahead_on_the_answers_line_of_ids(name, lengths):
    """The separator predicts the first answer token as each answer token predicts the next, so the id of the token
    to predict (its source's) is one fixed step from the id of the token predicting it, the separator's included; and
    every id is at least 1, so the training shift moves it with the rest (a separator at 0 stayed put, out of step)."""
    task = Prompted(TASKS[name](), coupled=True)
    gen = torch.Generator().manual_seed(0)
    for length in lengths:
        s = task.sequence(length, gen)
        line = s.ids[s.prompt - 1:]  # the separator's id and the answer's
        if name == "duplicate_string":  # the second copy restarts the line at the first copy's first id
            assert line[length + 1] == line[1]
            line = line[: length + 1]
        steps = {b - a for a, b in zip(line[:-1], line[1:], strict=True)}
        assert len(steps) <= 1 and steps <= {1, -1}, (length, line)
        assert min(s.ids) >= 1


@pytest.mark.parametrize("name", ["successor", "addition"])
def test_each_answer_digit_shares_its_id_with_the_operand_digits_of_its_place(name):
    """The answer is written units first; its i-th digit has the id of each operand's i-th digit from the units (the
    zero-padded operands are as wide as the answer)."""
    task = Prompted(TASKS[name](), coupled=True)
    gen = torch.Generator().manual_seed(0)
    for length in (1, 4, 9):
        s = task.sequence(length, gen)
        source_ids, answer_ids = s.ids[: s.prompt - 1], s.ids[s.prompt:]
        operands = [source_ids] if name == "successor" else [source_ids[: len(answer_ids)],
                                                                source_ids[len(answer_ids) + 1:]]
        for operand in operands:
            assert operand[::-1] == answer_ids  # place by place from the units
        assert s.ids[s.prompt - 1] == answer_ids[0] - 1


@pytest.mark.parametrize("name", ["recopy", "reverse_recopy"])
def test_recopy_answers_take_the_id_of_the_digit_they_repeat_so_the_ids_follow_the_input(name):
    task = Prompted(TASKS[name](), coupled=True)
    assert task.ids_follow_input and not Prompted(TASKS["copy"](), coupled=True).ids_follow_input
    gen = torch.Generator().manual_seed(0)
    layouts = set()
    for _ in range(20):
        s = task.sequence(6, gen)
        source, answer = s.tokens[: s.prompt - 1], s.tokens[s.prompt:]
        by_id = dict(zip(s.ids[: s.prompt - 1], source, strict=True))
        assert answer[-1] == "<eos>" and [by_id[i] for i in s.ids[s.prompt:-1]] == answer[:-1]
        line = s.ids[s.prompt - 1:]  # separator, answer, <eos>: a step of 0 within a digit's repeats, else one step
        assert {b - a for a, b in zip(line[:-1], line[1:], strict=True)} <= ({0, 1} if name == "recopy" else {0, -1})
        assert min(s.ids) >= 1
        layouts.add(tuple(s.ids[s.prompt:]))
    assert len(layouts) > 1  # the ids depend on the digits drawn


def test_coupled_ids_that_do_not_match_the_tokens_are_refused():
    from lengthgen.tasks.seq2seq import CoupledIds

    recopy = TASKS["recopy"]()
    recopy.coupled_ids = lambda source, target: CoupledIds([2] * len(source), 1, [2] * len(target))  # no <eos> id
    with pytest.raises(LengthgenError, match=r"recopy's coupled ids number \d+ for \d+ tokens \(one each, and one for"):
        Prompted(recopy, coupled=True).sequence(3, torch.Generator().manual_seed(0))


def test_addition_couples_digits_of_the_same_place_by_hand():
    from lengthgen.tasks.arithmetic import Addition
    from lengthgen.tasks.seq2seq import CoupledIds

    source, target = Addition().example((12, 23))  # 0 1 2 + 0 2 3 -> 5 3 0
    # places from the units plus 2; "+" and "=" 1, the place before the units (the public code's id after the units)
    assert Addition().coupled_ids(source, target) == CoupledIds([4, 3, 2, 1, 4, 3, 2], 1, [2, 3, 4])
    assert Addition(aligned=True).coupled_ids(*Addition(aligned=True).example((12, 23))) is None
    reverse = TASKS["reverse_copy"]().coupled_ids(("4", "7", "9"), ("9", "7", "4"))
    assert reverse == CoupledIds([1, 2, 3], 4, [3, 2, 1])  # the answer's line runs down: the separator above it


def test_a_task_without_coupled_ids_is_refused_only_when_they_are_asked_for():
    gen = torch.Generator().manual_seed(0)
    assert Prompted(TASKS["bucket_sort"]()).sequence(4, gen).ids is None
    with pytest.raises(LengthgenError, match="bucket_sort defines no coupled position ids"):
        Prompted(TASKS["bucket_sort"](), coupled=True).sequence(4, gen)


@pytest.mark.parametrize("positional", ["rope", "learned", "none"])
def test_a_left_padded_batch_gives_each_row_the_loss_and_the_answer_it_gets_alone(positional):
    """Prompts of different lengths (DeDupe's sources) are left-padded: no attention reads a pad and positions count
    from each row's first token, so a row's loss terms and greedy answer are those of the row unpadded."""
    import torch.nn.functional as F

    from lengthgen.data import PAD
    from lengthgen.models import build_model
    from lengthgen.models.transformer import TransformerConfig

    task = Prompted(TASKS["dedupe"]())
    model = build_model("decoder", TransformerConfig(width=16, heads=2, layers=2, ff=32, max_positions=128,
                                                     positional=positional), task, seed=0).eval()
    gen = torch.Generator().manual_seed(0)
    rows = [task.sequence(6, gen) for _ in range(6)]
    batch = task.batch(rows)
    assert batch.mask is not None and len({r.prompt for r in rows}) > 1
    predicted = model.predict(batch).tokens
    terms, count = 0.0, 0
    for i, row in enumerate(rows):
        alone = task.batch([row])
        assert alone.mask is None
        answer = alone.answer[0]
        logits = model.logits(alone.tokens[:, :-1], alone.positions[:, :-1])[0, alone.prompt - 1:]
        terms += F.cross_entropy(logits, answer, reduction="sum").item()
        count += len(answer)
        written = model.predict(alone).tokens[0]
        assert torch.equal(predicted[i, :len(answer)], written)  # the same greedy answer, padded or not
        assert (batch.answer[i, len(answer):] == PAD).all()
    assert model.loss(batch).item() == pytest.approx(terms / count, rel=1e-5)
