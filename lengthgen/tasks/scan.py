"""SCAN (Lake & Baroni 2018) generated from its grammar, with the length split and the official line format.

Grammar (all 20,910 commands):
    C -> S and S | S after S | S          S -> V twice | V thrice | V
    V -> X opposite dir | X around dir | D | U     (X: a primitive U or turn)
    D -> U dir | turn dir                 U -> walk | look | run | jump        dir -> left | right
Length split: train = commands whose action sequence has <= 22 actions (16,990), test = >= 24 actions (3,920).
We hold out 10% of the train commands (seeded) as the dev set used for early stopping.
"""

import itertools
from collections.abc import Iterable

import torch

from lengthgen.data import Example
from lengthgen.errors import LengthgenError
from lengthgen.seeding import generator
from lengthgen.tasks.seq2seq import CoupledIds, ListedTask, Split

PRIMITIVES = {"walk": "I_WALK", "look": "I_LOOK", "run": "I_RUN", "jump": "I_JUMP"}
DIRECTIONS = {"left": "I_TURN_LEFT", "right": "I_TURN_RIGHT"}
WORDS = tuple(PRIMITIVES) + ("turn",) + tuple(DIRECTIONS) + ("opposite", "around", "twice", "thrice", "and", "after")
ACTIONS = tuple(PRIMITIVES.values()) + tuple(DIRECTIONS.values())
MAX_TRAIN_ACTIONS, MIN_TEST_ACTIONS = 22, 24
DEV_FRACTION = 0.1


def _verbs() -> list[tuple[str, ...]]:
    """Every V phrase as a word tuple."""
    units = list(PRIMITIVES) + ["turn"]
    out: list[tuple[str, ...]] = []
    for x, d in itertools.product(units, DIRECTIONS):
        out += [(x, "opposite", d), (x, "around", d)]
    out += [(x, d) for x, d in itertools.product(units, DIRECTIONS)]
    return out + [(u,) for u in PRIMITIVES]


def commands() -> list[tuple[str, ...]]:
    """All 20,910 SCAN commands, in a fixed order."""
    sentences = [v + m for v in _verbs() for m in ((), ("twice",), ("thrice",))]
    pairs = [a + (conj,) + b for a in sentences for b in sentences for conj in ("and", "after")]
    return sentences + pairs


def aligned(command: Iterable[str]) -> tuple[tuple[str, int], ...]:
    """The action sequence of a command, each action with the index of the word it acts out: a primitive's action
    its verb's, a turn its direction's ("walk left": the turn from "left", the walk from "walk"); raises
    LengthgenError for a word sequence outside the grammar."""
    words = tuple(command)
    for conj in ("and", "after"):
        if conj in words:
            i = words.index(conj)
            first, second = aligned(words[:i]), tuple((a, j + i + 1) for a, j in aligned(words[i + 1:]))
            return first + second if conj == "and" else second + first
    if words and words[-1] in ("twice", "thrice"):
        return aligned(words[:-1]) * (2 if words[-1] == "twice" else 3)
    if len(words) == 1 and words[0] in PRIMITIVES:
        return ((PRIMITIVES[words[0]], 0),)
    if len(words) in (2, 3) and words[0] in (*PRIMITIVES, "turn") and words[-1] in DIRECTIONS:
        base = ((PRIMITIVES[words[0]], 0),) if words[0] in PRIMITIVES else ()
        turn = ((DIRECTIONS[words[-1]], len(words) - 1),)
        if len(words) == 2:
            return turn + base
        if words[1] == "opposite":
            return turn + turn + base
        if words[1] == "around":
            return (turn + base) * 4
    raise LengthgenError(f"not a SCAN command: {' '.join(words)!r}")


def interpret(command: Iterable[str]) -> tuple[str, ...]:
    """The action sequence of a command (`aligned` without the words)."""
    return tuple(action for action, _ in aligned(command))


def to_line(example: Example) -> str:
    """The official `IN: <command> OUT: <actions>` format."""
    return f"IN: {' '.join(example[0])} OUT: {' '.join(example[1])}"


def from_line(line: str) -> Example:
    """Parse one official-format line; raises LengthgenError naming the problem."""
    if not line.startswith("IN: ") or " OUT: " not in line:
        raise LengthgenError(f"not a SCAN line (expected 'IN: ... OUT: ...'): {line[:80]!r}")
    command, actions = line[4:].split(" OUT: ", 1)
    return tuple(command.split()), tuple(actions.split())


class Scan(ListedTask):
    """SCAN length split.

    Examples:
        jump twice after walk left -> I_TURN_LEFT I_WALK I_JUMP I_JUMP
    """

    name = "scan"
    tokens = WORDS + ACTIONS
    ids_follow_input = True

    def __init__(self, data_seed: int = 0):
        super().__init__(data_seed)
        pairs = [(c, interpret(c)) for c in commands()]
        train = [p for p in pairs if len(p[1]) <= MAX_TRAIN_ACTIONS]
        order = torch.randperm(len(train), generator=generator(data_seed, "scan/dev")).tolist()
        n_dev = round(DEV_FRACTION * len(train))
        self._splits = {
            "train": [train[i] for i in order[n_dev:]],
            "dev": [train[i] for i in order[:n_dev]],
            "test": [p for p in pairs if len(p[1]) >= MIN_TEST_ACTIONS],
        }
        self.splits = {k: Split(0, 0, len(v)) for k, v in self._splits.items()}

    def coupled_ids(self, source, target):
        """Source 2, 3, ..., n + 1; each action the id of the word it acts out (`aligned`), so the ids follow the
        command (jumping back and forth through it, "after" reading its second half first): predictive position
        coupling's kind. The answer's ids lie on no line, so the separator's 1 stands before the command's first
        word, as in ReCopy."""
        actions, words = zip(*aligned(source), strict=True)
        if actions != tuple(target):
            raise LengthgenError(f"not the actions of {' '.join(source)!r}: {' '.join(target)!r}")
        return CoupledIds(list(range(2, len(source) + 2)), 1, [i + 2 for i in words])

    def construction(self, source):
        """"and" (the two halves run in the order read), "after" (in the reverse order: "X after Y" runs Y, then
        X) or "single" (no conjunction)."""
        return next((conj for conj in ("and", "after") if conj in source), "single")


class ScanLength(Scan):
    """SCAN drawn by the length of its action sequence, the unit of its length split: `draw(length)` gives a command
    of exactly `length` actions, of the train part (with its dev commands) up to 22 actions and of the test part from
    24, so that a protocol that trains on a range of lengths and tests each longer one (the leaderboard's) reads SCAN
    as it reads the generated tasks. The splits are Scan's.

    Examples:
        length 4: jump twice after walk left -> I_TURN_LEFT I_WALK I_JUMP I_JUMP (one of the commands of 4 actions)
    """

    name = "scan_length"
    data_name = "scan"

    def __init__(self, data_seed: int = 0):
        super().__init__(data_seed)
        self._by_length: dict[int, list[Example]] = {}
        for pair in (p for split in self._splits.values() for p in split):
            self._by_length.setdefault(len(pair[1]), []).append(pair)

    def draw(self, length: int, gen: torch.Generator) -> Example:
        pool = self._by_length.get(length)
        if not pool:
            raise LengthgenError(f"no SCAN command has {length} actions; valid: {', '.join(map(str, self.lengths))}")
        return pool[int(torch.randint(len(pool), (1,), generator=gen))]

    @property
    def lengths(self) -> list[int]:
        """The action counts that some command has."""
        return sorted(self._by_length)
