"""SCAN (tasks/scan.py): grammar counts, splits, semantics on official examples, line format."""

import pytest
import torch

from lengthgen.errors import LengthgenError
from lengthgen.tasks import TASKS
from lengthgen.tasks import scan as scan_mod
from lengthgen.tasks.prompted import Prompted


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


def test_scan_by_action_count_draws_commands_of_exactly_that_many_actions():
    task = TASKS["scan_length"]()
    gen = torch.Generator().manual_seed(0)
    for length in (1, 4, 22, 24, 48):
        for source, target in (task.draw(length, gen) for _ in range(20)):
            assert len(target) == length and scan_mod.interpret(source) == target
    assert task.lengths == [*range(1, 23), 24, 25, 26, 27, 28, 30, 32, 33, 36, 40, 48]
    test = set(task.examples("test"))
    assert all(task.draw(n, gen) in test for n in (24, 36, 48))  # beyond 22 actions: the test split's commands
    assert task.splits == TASKS["scan"]().splits and task.examples("dev", 5) == TASKS["scan"]().examples("dev", 5)
    with pytest.raises(LengthgenError, match="no SCAN command has 23 actions; valid: 1, 2, "):
        task.draw(23, gen)
    batch = task.sample(4, 6, torch.Generator().manual_seed(1))  # sources of one batch differ in length: padded
    assert batch.tgt.shape[0] == 4


def test_each_action_is_aligned_with_the_word_it_acts_out():
    assert scan_mod.aligned("jump twice after walk left".split()) == (
        ("I_TURN_LEFT", 4), ("I_WALK", 3), ("I_JUMP", 0), ("I_JUMP", 0))  # "after": the second half first
    assert scan_mod.aligned("look opposite left and turn right".split()) == (
        ("I_TURN_LEFT", 2), ("I_TURN_LEFT", 2), ("I_LOOK", 0), ("I_TURN_RIGHT", 5))
    assert scan_mod.aligned("run around right".split()) == (("I_TURN_RIGHT", 2), ("I_RUN", 0)) * 4
    verbs = {**{a: w for w, a in scan_mod.PRIMITIVES.items()}, **{a: w for w, a in scan_mod.DIRECTIONS.items()}}
    for command in scan_mod.commands():  # every command: each action's word is its own verb or direction
        assert all(command[i] == verbs[action] for action, i in scan_mod.aligned(command))


def test_scans_coupled_ids_give_each_action_its_words_id():
    task, source = TASKS["scan_length"](), "jump twice after walk left".split()
    ids = task.coupled_ids(source, scan_mod.interpret(source))
    assert ids == ([2, 3, 4, 5, 6], 1, [6, 5, 2, 2]) and task.ids_follow_input
    with pytest.raises(LengthgenError, match="not the actions of 'jump twice after walk left'"):
        task.coupled_ids(source, ("I_JUMP",))
    prompted = Prompted(task, coupled=True).sequence(4, torch.Generator().manual_seed(0))
    assert len(prompted.ids) == len(prompted.tokens)  # one id per token, the answer's from its command's words
