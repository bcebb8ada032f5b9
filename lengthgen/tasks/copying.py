"""The copy family of probing tasks (Copy, ReCopy and their reversed / inverted forms), DeDupe and PosRetrieve.

Splits follow the public generator: train n ~ U{5..10} (10,000 unique), dev n ~ U{10..15} (2,000), tests
iid (n ~ U{5..10}) and exactly n = 15, 30, 100 (2,000 each), where n is the number of digits of the
underlying sequence x (for the inverted tasks: of the target).
"""

import torch

from lengthgen.data import Example
from lengthgen.tasks.seq2seq import CoupledIds, Seq2SeqTask, Split, digits

DIGITS = tuple(str(d) for d in range(10))
COPY_SPLITS = {
    "train": Split(5, 10, 10_000),
    "dev": Split(10, 15, 2_000),
    "iid": Split(5, 10, 2_000),
    "15": Split(15, 15, 2_000),
    "30": Split(30, 30, 2_000),
    "100": Split(100, 100, 2_000),
}


def repeats(d: int) -> int:
    """ReCopy's rule: a digit <= 3 is written once, 4-6 three times, >= 7 five times."""
    return 1 if d <= 3 else 3 if d <= 6 else 5


def recopy(x: list[int]) -> list[int]:
    return [d for d in x for _ in range(repeats(d))]


def repeated_ids(source, first: int, step: int) -> list[int]:
    """ReCopy's answer ids: digit i of `source` (its id `first + step * i`) repeated as ReCopy writes it."""
    return [first + step * i for i, d in enumerate(source) for _ in range(repeats(int(d)))]


def tokens(x: list[int]) -> tuple[str, ...]:
    return tuple(str(d) for d in x)


class _DigitTask(Seq2SeqTask):
    tokens = DIGITS
    splits = COPY_SPLITS

    def transform(self, x: list[int]) -> tuple[list[int], list[int]]:
        raise NotImplementedError

    def draw(self, length: int, gen: torch.Generator) -> Example:
        src, tgt = self.transform(digits(length, gen))
        return tokens(src), tokens(tgt)


class Copy(_DigitTask):
    """y = x.

    Examples:
        4 7 9 8 -> 4 7 9 8
    """

    name = "copy"
    reads_in_order = True

    def transform(self, x):
        return x, x

    def coupled_ids(self, source, target):
        """Source and answer 2, 3, ...; the separator 1, the step before the answer's first."""
        return CoupledIds(list(range(2, len(source) + 2)), 1, list(range(2, len(target) + 2)))


class ReverseCopy(_DigitTask):
    """y = x reversed.

    Examples:
        4 7 9 8 -> 8 9 7 4
    """

    name = "reverse_copy"

    def transform(self, x):
        return x, x[::-1]

    def coupled_ids(self, source, target):
        """Source 1, 2, ..., n; the answer n, ..., 1 after the separator's n + 1."""
        return CoupledIds(list(range(1, len(source) + 1)), len(source) + 1, list(range(len(target), 0, -1)))


class ReCopy(_DigitTask):
    """Each digit repeated 1, 3 or 5 times by its value (see `repeats`).

    Examples:
        4 7 9 8 -> 4 4 4 7 7 7 7 7 9 9 9 9 9 8 8 8 8 8
    """

    name = "recopy"
    reads_in_order = True
    answers_vary = True
    ids_follow_input = True

    def transform(self, x):
        return x, recopy(x)

    def coupled_ids(self, source, target):
        """Source 2, 3, ..., n + 1 (as Copy's); each answer digit the id of the source digit it repeats, so the ids
        follow the digits' values (predictive position coupling's kind); the separator 1, the <eos> n + 2."""
        return CoupledIds(list(range(2, len(source) + 2)), 1, [*repeated_ids(source, 2, 1), len(source) + 2])


class ReverseReCopy(_DigitTask):
    """ReCopy of the reversed sequence.

    Examples:
        4 7 9 8 -> 8 8 8 8 8 9 9 9 9 9 7 7 7 7 7 4 4 4
    """

    name = "reverse_recopy"
    answers_vary = True
    ids_follow_input = True

    def transform(self, x):
        return x, recopy(x[::-1])

    def coupled_ids(self, source, target):
        """Source 2, 3, ..., n + 1; each answer digit the id of the source digit it repeats (n + 1 down to 2); the
        separator n + 2, the <eos> 1 (`ReCopy.coupled_ids` read backwards)."""
        n = len(source)
        return CoupledIds(list(range(2, n + 2)), n + 2, [*repeated_ids(source[::-1], n + 1, -1), 1])


class InvReCopy(_DigitTask):
    """ReCopy with source and target swapped (sources are up to 5n long).

    Examples:
        4 4 4 7 7 7 7 7 9 9 9 9 9 8 8 8 8 8 -> 4 7 9 8
    """

    name = "inv_recopy"
    reads_in_order = True

    def transform(self, x):
        return recopy(x), x


class InvReverseReCopy(_DigitTask):
    """Reverse ReCopy with source and target swapped.

    Examples:
        8 8 8 8 8 9 9 9 9 9 7 7 7 7 7 4 4 4 -> 4 7 9 8
    """

    name = "inv_reverse_recopy"

    def transform(self, x):
        return recopy(x[::-1]), x


class DeDupe(_DigitTask):
    """n digits, each repeated r ~ U{1, 3, 5} times; the target merges consecutive duplicates.

    Examples:
        4 4 4 7 7 7 7 7 9 8 8 8 -> 4 7 9 8
        3 3 3 3 3 3 -> 3
    """

    name = "dedupe"
    reads_in_order = True
    answers_vary = True

    def draw(self, length, gen):
        x = digits(length, gen)
        reps = (1 + 2 * torch.randint(0, 3, (length,), generator=gen)).tolist()
        src = [d for d, r in zip(x, reps, strict=True) for _ in range(r)]
        tgt = [d for i, d in enumerate(x) if i == 0 or d != x[i - 1]]
        return tokens(src), tokens(tgt)


class PosRetrieve(_DigitTask):
    """Each source digit is an index: emit `i : x[i] ;`, or `i : n/a ;` when i >= n.

    Examples:
        5 4 2 7 9 6 9 5 7 3 -> 5 : 6 ; 4 : 9 ; 2 : 2 ; 7 : 5 ; 9 : 3 ; 6 : 9 ; 9 : 3 ; 5 : 6 ; 7 : 5 ; 3 : 7 ;
        3 0 1 -> 3 : n/a ; 0 : 3 ; 1 : 0 ;
    """

    name = "posretrieve"
    tokens = DIGITS + (":", ";", "n/a")

    def draw(self, length, gen):
        x = digits(length, gen)
        return tokens(x), posretrieve(x)


def posretrieve(x: list[int]) -> tuple[str, ...]:
    """PosRetrieve's target for the digits x."""
    out: list[str] = []
    for i in x:
        out += [str(i), ":", str(x[i]) if i < len(x) else "n/a", ";"]
    return tuple(out)
