"""Tasks of the Chomsky-hierarchy suite (Deletang et al. 2023) that the book's papers lack, for the leaderboard:
Duplicate String and Bucket Sort (context-sensitive) and Modular Arithmetic without brackets (regular). Its Reverse
String is the book's `reverse_copy` (on digits).

Splits follow the suite: training lengths 1 to 40 (uniform; 10,000 unique examples here), tests beyond, here at
50, 100, 200 and 400 (ten times the longest training length; the suite tests every length from 41 to 500), and an
`iid` split at the training lengths. A length is the input's number of symbols; Modular Arithmetic's inputs are odd
(an even length loses its last symbol, as in the suite), so its test splits are 51, 101, 201 and 401.
"""

import torch

from lengthgen.data import Example
from lengthgen.tasks.seq2seq import CoupledIds, Seq2SeqTask, Split

TRAIN_MAX = 40  # the suite's longest training length
CHOMSKY_SPLITS = {"train": Split(1, TRAIN_MAX, 10_000), "dev": Split(41, 49, 1_000), "iid": Split(1, TRAIN_MAX, 1_000),
                  **{str(n): Split(n, n, 1_000) for n in (50, 100, 200, 400)}}


def symbols(length: int, alphabet: int, gen: torch.Generator) -> list[str]:
    """`length` uniform symbols "0" .. str(alphabet - 1)."""
    return [str(s) for s in torch.randint(0, alphabet, (length,), generator=gen).tolist()]


class DuplicateString(Seq2SeqTask):
    """A binary string, then written twice without a separator.

    Examples:
        1 0 1 -> 1 0 1 1 0 1
    """

    name = "duplicate_string"
    tokens = ("0", "1")
    splits = CHOMSKY_SPLITS

    def draw(self, length: int, gen: torch.Generator) -> Example:
        source = tuple(symbols(length, 2, gen))
        return source, source + source

    def coupled_ids(self, source, target):
        """The source 2, 3, ..., its two copies in the answer the same; the separator 1, the step before the first. The
        second copy's first token is read from id 2 by the token at n + 1: a jump of a length's size, which no ids
        shared with the source avoid."""
        ids = list(range(2, len(source) + 2))
        return CoupledIds(ids, 1, ids + ids)


class BucketSort(Seq2SeqTask):
    """A string over 5 symbols, sorted.

    Examples:
        1 0 2 0 4 1 1 2 -> 0 0 1 1 1 2 2 4
    """

    name = "bucket_sort"
    tokens = tuple(str(s) for s in range(5))
    splits = CHOMSKY_SPLITS

    def draw(self, length: int, gen: torch.Generator) -> Example:
        source = symbols(length, 5, gen)
        return tuple(source), tuple(sorted(source))


MODULUS = 5
OPERATORS = ("+", "-", "*")


def reduce_expression(expression: list[str]) -> int:
    """The value modulo MODULUS of residues and operators alternating (r op r op ... r), products first, then sums
    and differences from the left."""
    terms, signs = [int(expression[0])], [1]
    for op, residue in zip(expression[1::2], expression[2::2], strict=True):
        if op == "*":
            terms[-1] *= int(residue)
        else:
            terms.append(int(residue))
            signs.append(1 if op == "+" else -1)
    return sum(s * t for s, t in zip(signs, terms, strict=True)) % MODULUS


class ModularArithmetic(Seq2SeqTask):
    """An expression of residues modulo 5 and the operators +, - and * (an odd number of symbols), then its value.

    Examples:
        1 + 2 * 3 -> 2
        1 - 1 - 1 -> 4
        0 * 1 + 4 * 3 - 2 -> 0
    """

    name = "modular_arithmetic"
    tokens = (*(str(r) for r in range(MODULUS)), *OPERATORS)
    splits = {**{k: v for k, v in CHOMSKY_SPLITS.items() if not k.isdigit()},
              **{str(n + 1): Split(n + 1, n + 1, 1_000) for n in (50, 100, 200, 400)}}

    def draw(self, length: int, gen: torch.Generator) -> Example:
        length -= 1 - length % 2  # odd: an even length loses its last symbol
        residues = symbols(length // 2 + 1, MODULUS, gen)
        ops = [OPERATORS[i] for i in torch.randint(0, len(OPERATORS), (length // 2,), generator=gen).tolist()]
        expression = [residues[0]] + [s for pair in zip(ops, residues[1:], strict=True) for s in pair]
        return tuple(expression), (str(reduce_expression(expression)),)
