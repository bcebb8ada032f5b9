"""The sparsity chapter's tasks (tasks/sparsity.py) against plain reference functions and hand-written ids."""

import pytest
import torch

from lengthgen.errors import LengthgenError
from lengthgen.tasks.sparsity import (
    ScratchpadParity,
    SparseParity,
    VariableAssignment,
    scratchpad_parity_reference,
    sparse_parity_reference,
    variable_assignment_reference,
)


def draws(task, length, n=200, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return [task.sequence(length, gen) for _ in range(n)]


@pytest.mark.parametrize("length", [1, 3, 20, 120])
def test_sparse_parity_answers_the_parity_after_the_special_keys(length):
    task = SparseParity(max_k=4)
    seen_k = set()
    for s in draws(task, length):
        prompt = s.tokens[: s.prompt]
        k = prompt.count("*")
        seen_k.add(k)
        assert s.tokens[s.prompt:] == [sparse_parity_reference(prompt)]
        assert len(prompt) == 2 * length + 2 and s.ids is None
        assert all(t.startswith("k") or t == "*" for t in prompt[1:-1:2])
        assert all(t in ("0", "1") for t in prompt[2:-1:2])
    assert seen_k == set(range(1, min(4, length) + 1))
    assert all(s.tokens[: s.prompt].count("*") == 3 for s in draws(task.with_k(3), max(length, 3), n=20))


def test_sparse_parity_by_hand_and_its_vocabulary():
    assert sparse_parity_reference(["<sos>", "k3", "1", "*", "0", "k9", "1", "*", "1", "="]) == "1"
    assert sparse_parity_reference(["<sos>", "*", "1", "*", "1", "*", "1", "="]) == "1"
    assert len(SparseParity().tokens) == 20  # the paper's vocabulary size
    with pytest.raises(LengthgenError, match="valid: >= 3 pairs"):
        SparseParity(min_k=3).sample(2, 2, torch.Generator())


@pytest.mark.parametrize("jump", [1, 2, 3])
def test_scratchpad_parity_writes_every_jth_prefix_parity_with_coupled_ids(jump):
    task = ScratchpadParity(jump=jump)
    length = 6
    for s in draws(task, length, n=50):
        prompt, pad = s.tokens[: s.prompt], s.tokens[s.prompt:]
        assert pad == scratchpad_parity_reference(prompt, jump) and len(pad) == length
        assert len(prompt) + len(pad) == task.combined(length) + 2
        bit_ids, pad_ids = s.ids[1: s.prompt - 1], s.ids[s.prompt:]
        assert s.ids[0] == 0 and s.ids[s.prompt - 1] == 1
        assert all(bit_ids.count(i) == jump for i in set(bit_ids))  # each input id repeated j times
        assert [bit_ids[(m + 1) * jump - 1] for m in range(len(pad))] == pad_ids  # coupled with its last bit
    assert task.max_id(length) == max(s.ids)


def test_scratchpad_parity_by_hand():
    assert scratchpad_parity_reference(["<sos>", "1", "0", "1", "1", "="], 2) == ["1", "1"]
    s = ScratchpadParity(jump=2).sequence(2, torch.Generator().manual_seed(0))
    assert s.ids == [0, 2, 2, 3, 3, 1, 2, 3] and s.prompt == 6
    assert ScratchpadParity(jump=2, coupled=False).sequence(2, torch.Generator()).ids is None
    with pytest.raises(LengthgenError, match="valid: >= 1 scratchpad tokens"):
        ScratchpadParity(jump=2).check(0)


@pytest.mark.parametrize("depth, scratchpad", [(1, True), (2, True), (4, True), (3, False)])
def test_variable_assignment_follows_the_chain_and_couples_ids_to_the_input(depth, scratchpad):
    task = VariableAssignment(depth=depth, scratchpad=scratchpad)
    ids_seen = set()
    for s in draws(task, 8, n=100):
        prompt, answer = s.tokens[: s.prompt], s.tokens[s.prompt:]
        assert answer == variable_assignment_reference(prompt, scratchpad)
        assert len(answer) == (depth + 1 if scratchpad else 1)
        assert len(prompt) == 4 + task.step_tokens(8) == 4 + 3 * depth * 8
        assert prompt[5:-1:3] == [";"] * (len(prompt) // 3 - 1)  # every step ends with its separator
        assert s.ids[: s.prompt] == list(range(s.prompt))
        coupled = s.ids[s.prompt:]
        if scratchpad:  # the query first, at the query's id
            assert answer[0] == prompt[1] and coupled[0] == 1
            answer, coupled = answer[1:], coupled[1:]
        for token, i in zip(answer, coupled, strict=True):  # coupled to where it is assigned in the prompt
            assert prompt[i] == token and (i - 3) % 3 == 1
        ids_seen.add(tuple(s.ids[s.prompt:]))
    assert len(ids_seen) > 5  # the ids depend on the input
    assert task.max_id(8) == max(s.ids[: s.prompt])


def test_variable_assignment_by_hand():
    prompt = ["<sos>", "a", ":", "a", "b", ";", "c", "e", ";", "b", "f", ";", "e", "g", ";", ">"]
    assert variable_assignment_reference(prompt) == ["a", "b", "f"]
    assert variable_assignment_reference(prompt, scratchpad=False) == ["f"]
    s = VariableAssignment(depth=2, coupled=False).sequence(1, torch.Generator())
    assert s.ids is None and len(s.tokens) == 4 + 6 + 3
    for chains in (0, 67):  # 67 chains of 3 variables need 201 of the 200
        with pytest.raises(LengthgenError, match="valid: 1..66 chains"):
            VariableAssignment(depth=2).check(chains)


@pytest.mark.parametrize("depth, length", [(2, 20), (2, 60), (3, 23), (5, 200)])
def test_variable_assignment_in_the_papers_format(depth, length):
    """Appendix E.3: no step separator, no copied query; as many chains as fit `length` tokens between the
    separators; the scratchpad v_1 .. v_d at the ids where each is assigned (the second token of its step)."""
    task = VariableAssignment(depth=depth, format="paper")
    chains = length // (2 * depth)
    assert task.unit == "tokens" and ";" not in task.tokens and task.step_tokens(length) == 2 * depth * chains
    for s in draws(task, length, n=50):
        prompt, answer = s.tokens[: s.prompt], s.tokens[s.prompt:]
        between = prompt[3:-1]
        assert prompt[2] == ":" and prompt[-1] == ">" and length - 2 * depth < len(between) <= length
        assert len(between) == 2 * depth * chains and len(set(between)) == chains * (depth + 1)  # every variable
        assert answer == variable_assignment_reference(prompt, format="paper") and len(answer) == depth
        assert answer[0] != prompt[1]  # the query is not copied
        for token, i in zip(answer, s.ids[s.prompt:], strict=True):
            assert prompt[i] == token and (i - 3) % 2 == 1
    no_pad = VariableAssignment(depth=depth, format="paper", scratchpad=False, coupled=False).sequence(
        length, torch.Generator())
    assert no_pad.ids is None and len(no_pad.tokens) == no_pad.prompt + 1


def test_variable_assignment_formats_by_hand():
    prompt = ["<sos>", "a", ":", "a", "b", "c", "e", "b", "f", "e", "g", ">"]
    assert variable_assignment_reference(prompt, format="paper") == ["b", "f"]
    assert variable_assignment_reference(prompt, scratchpad=False, format="paper") == ["f"]
    s = VariableAssignment(depth=2, format="paper").sequence(8, torch.Generator().manual_seed(0))
    assert len(s.tokens) == 12 + 2 and s.prompt == 12 and s.ids[:12] == list(range(12))
    with pytest.raises(LengthgenError, match="valid: 4..267 tokens"):  # 66 chains of 3 fit 200 variables
        VariableAssignment(depth=2, format="paper").check(3)
    with pytest.raises(LengthgenError, match="valid: 4..267 tokens"):
        VariableAssignment(depth=2, format="paper").check(268)
    with pytest.raises(ValueError, match="unknown variable_assignment format 'theirs'; valid: ours, paper, delimited"):
        VariableAssignment(format="theirs")


def test_variable_assignment_delimited_is_the_papers_format_with_each_step_ended():
    task = VariableAssignment(depth=2, format="delimited")
    s = task.sequence(12, torch.Generator().manual_seed(0))  # 12 tokens: two chains of two 3-token steps
    prompt, answer = s.tokens[:s.prompt], s.tokens[s.prompt:]
    paper = VariableAssignment(depth=2, format="paper").sequence(8, torch.Generator().manual_seed(0))
    assert [t for t in prompt if t != ";"] == paper.tokens[:paper.prompt]  # the same draw, a `;` after each step
    assert prompt[5::3] == [";"] * 4 and prompt[-1] == ">" and task.unit == "tokens"
    assert answer == paper.tokens[paper.prompt:] == variable_assignment_reference(prompt, format="delimited")
    assert [prompt[i] for i in s.ids[s.prompt:]] == answer and [(i - 3) % 3 for i in s.ids[s.prompt:]] == [1, 1]
    with pytest.raises(LengthgenError, match="valid: 6..401 tokens"):  # 66 chains of 3 fit 200 variables: 6 x 67 - 1
        task.check(5)


def test_a_batch_holds_one_length_with_ids():
    batch = VariableAssignment(depth=2).sample(5, 2, torch.Generator().manual_seed(0))
    assert batch.tokens.shape == batch.ids.shape == (5, 19) and batch.prompt == 16
    assert batch.answer.shape == (5, 3)
