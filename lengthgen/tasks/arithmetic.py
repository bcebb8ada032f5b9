"""The arithmetic tasks of "From Interpolation to Extrapolation: Complete Length Generalization for Arithmetic
Transformers" (Attention Bias Calibration): Successor, Addition, Parity, N x 1 and single-operator, depth-1 ListOps,
as sequence-to-sequence tasks over character tokens.

Format (the paper's section 3.2). Operands are zero-padded on the left to a width, one digit more than the longest
operand (room for the carry) or, with `width=W`, to W for every example (the public code's FIXED_LEN: every sequence
then has the same length, so position embeddings see every position in training); the output has the operands'
width and is written reversed, least significant digit first: 0123 + 0748 -> 1780. Parity (prefix XOR of the bits,
y_1 = x_1, y_i = y_(i-1) xor x_i) and ListOps (the same running fold with SUM mod 10, MAX or MIN over digits) write the
running value from the last input symbol back, which is the same reversal (Parity pads its bits to a fixed width too;
ListOps has none). `aligned=True` interleaves the operands (the paper's input alignment for attention-bias
scaffolding): + a_n b_n ... a_1 b_1, and for N x 1, * a_n b ... a_1 b.

Data (the paper's protocol). Interpolation: a seeded random permutation of the numbers 0..2^20 split 7:1 into the
splits `train` and `dev` (binary operations pair each number with an independent draw from the same part; N x 1 with a
digit 0-9). Extrapolation: split "L" holds min(base^L - base^(L-1), 10,000) distinct examples whose operands have
exactly L digits (L bits for Parity, L list items for ListOps), for L = 1..50 (to width - 1 with a fixed width); the
paper's length is the operands' digits, never the sequence's. The public code tested to 60 digits with 51 samples
per length; we keep the paper's.
"""

from functools import cached_property

import torch

from lengthgen.data import EOS, SOS, SPECIALS, Example, Seq2SeqBatch, collate
from lengthgen.errors import LengthgenError
from lengthgen.seeding import generator
from lengthgen.tasks.seq2seq import CoupledIds, Seq2SeqTask, Split

DIGITS = tuple("0123456789")
INTERPOLATION_RANGE = 2**20  # numbers 0..2^20, as the paper
TRAIN_SHARE = 7 / 8  # the 7:1 split of the permutation
MAX_TEST_LENGTH = 50
TEST_SAMPLES = 10_000  # at most, per length


def padded(n: int, width: int) -> list[str]:
    """The decimal digits of n, zero-padded on the left to `width`."""
    return list(str(n).zfill(width))


class ArithmeticTask(Seq2SeqTask):
    """Base class: subclasses set `name`, `arity` (operands drawn from the interpolation permutation), `base` and
    implement `example(numbers)`; `number(length, gen)` draws an operand of exactly `length` digits."""

    tokens = (*DIGITS, "+", "*")
    arity = 1
    base = 10

    @property
    def stride(self) -> int:
        """Source positions per output digit along the anti-diagonal: 2 where two streams are interleaved."""
        return 1

    @property
    def tail(self) -> int:
        """Source tokens after the digit that the first output step writes from: the <eos> with `markers`."""
        return int(self.markers)

    def line_from_end(self, step: int | torch.Tensor) -> int | torch.Tensor:
        """The source index, counted from the source's end, of the digit that output step `step` (0-based) reads on
        the reversed output's anti-diagonal: digit `step` of the operand that ends the source, or of the first
        operand where the operands are interleaved."""
        return self.tail + self.stride * step + self.stride - 1

    def operand_lines_from_end(self, step: torch.Tensor, width: int) -> list[torch.Tensor]:
        """`line_from_end` for each operand whose digit output step `step` reads (operands `width` digits wide): one
        line here; Addition's two (`Addition.operand_lines_from_end`)."""
        return [self.line_from_end(step)]

    def __init__(self, data_seed: int = 0, aligned: bool = False, width: int | None = None, markers: bool = False):
        super().__init__(data_seed)
        self.aligned, self.width, self.markers = aligned, width, markers
        longest = MAX_TEST_LENGTH if width is None else width - 1
        if longest < len(self.digits(INTERPOLATION_RANGE)):
            raise LengthgenError(f"width {width} leaves no room for {self.name}'s interpolation numbers (up to "
                                 f"{len(self.digits(INTERPOLATION_RANGE))} digits and a carry); valid: width >= "
                                 f"{len(self.digits(INTERPOLATION_RANGE)) + 1}")
        parts = {"train": round(TRAIN_SHARE * (INTERPOLATION_RANGE + 1))}
        parts["dev"] = INTERPOLATION_RANGE + 1 - parts["train"]
        tests = {str(n): Split(n, n, min(self.base**n - self.base ** (n - 1), TEST_SAMPLES))
                 for n in range(1, min(longest, MAX_TEST_LENGTH) + 1)}
        self.splits = {"train": Split(0, 0, parts["train"]), "dev": Split(0, 0, parts["dev"])} | tests

    def example(self, numbers: tuple[int, ...]) -> Example:
        """The example of some operands; with `markers`, its source between <sos> and <eos>, as the public code
        writes every sequence."""
        source, target = self._example(numbers)
        return ((SPECIALS[SOS], *source, SPECIALS[EOS]) if self.markers else source), target

    def _example(self, numbers: tuple[int, ...]) -> Example:
        raise NotImplementedError

    @staticmethod
    def same_number(prediction: list[str], target: list[str]) -> bool:
        """Whether a reversed output says the target's number as the public code compares them: <eos> and other
        symbols dropped, the zeros that end the output (the number's leading ones) ignored. Looser than exact match:
        an output that stops early or runs on with zeros is right here."""
        def digits(tokens: list[str]) -> str:
            return "".join(t for t in tokens if t in DIGITS).rstrip("0")

        return digits(prediction) == digits(target)

    def digits(self, n: int) -> str:
        """n written in the task's base."""
        return str(n) if self.base == 10 else format(n, "b")

    def padding(self, *numbers: int) -> int:
        """The operands' width: `width`, else one digit more than the longest operand."""
        return self.width or max(len(self.digits(n)) for n in numbers) + 1

    def number(self, length: int, gen: torch.Generator) -> int:
        """A number of exactly `length` digits in the task's base, uniform."""
        digits = torch.randint(0, self.base, (length,), generator=gen)
        digits[0] = torch.randint(1, self.base, (1,), generator=gen)
        return int("".join(map(str, digits.tolist())), self.base)

    def draw(self, length: int, gen: torch.Generator) -> Example:
        return self.example(tuple(self.number(length, gen) for _ in range(self.arity)))

    @cached_property
    def permutation(self) -> torch.Tensor:
        """The seeded random order of 0..2^20 whose first 7/8 are the training numbers and the rest the dev ones."""
        return torch.randperm(INTERPOLATION_RANGE + 1, generator=generator(self.data_seed, f"{self.seed_name}/numbers"))

    def pool(self, split: str) -> torch.Tensor:
        train = self.splits["train"].size
        return self.permutation[:train] if split == "train" else self.permutation[train:]

    def interpolation_numbers(self, split: str, rows: int, gen: torch.Generator) -> list[tuple[int, ...]]:
        """`rows` operand tuples for interpolation: every operand drawn from the split's part of the permutation."""
        pool = self.pool(split)
        picks = torch.randint(len(pool), (rows, self.arity), generator=gen)
        return [tuple(int(n) for n in row) for row in pool[picks]]

    def interpolation_batch(self, batch_size: int, gen: torch.Generator, split: str = "train") -> Seq2SeqBatch:
        """A training batch: `batch_size` interpolation examples of `split`, drawn with replacement."""
        return collate([self.example(n) for n in self.interpolation_numbers(split, batch_size, gen)], self.vocab)

    def examples(self, split: str, n: int | None = None) -> list[Example]:
        """Interpolation splits: the first `n` examples of a seeded draw from their part (a fixed list); length
        splits: `n` distinct examples of that length (`Seq2SeqTask.examples`)."""
        if split not in ("train", "dev"):
            return super().examples(split, n)
        n = self.count(split, n)
        return [self.example(t) for t in self.interpolation_numbers(split, n, generator(self.data_seed, split))]


class Successor(ArithmeticTask):
    """n -> n + 1."""

    name = "successor"

    def coupled_ids(self, source, target):
        """A digit's id is its place from the units, plus 2, in the operand and in the answer (written units first),
        as position coupling couples addition's digits; the separator 1, the place before the units (the answer's
        line of ids, one step back); none for the interleaved or marked formats."""
        if self.aligned or self.markers:
            return None
        return CoupledIds(list(range(len(source) + 1, 1, -1)), 1, list(range(2, len(target) + 2)))

    def _example(self, numbers):
        (n,) = numbers
        width = self.padding(n)
        return tuple(padded(n, width)), tuple(reversed(padded(n + 1, width)))


class Addition(ArithmeticTask):
    """a + b (both padded to the longer one's width + 1)."""

    name = "addition"
    arity = 2

    def coupled_ids(self, source, target):
        """Each operand's digits and the answer's by place from the units, plus 2 (`Successor.coupled_ids`); the "+"
        after the first operand 1, as the separator after the second (the public position-coupling code's, the id
        after each operand's units digit)."""
        if self.aligned or self.markers:
            return None
        width = len(target)
        places = list(range(width + 1, 1, -1))
        return CoupledIds([*places, 1, *places], 1, list(range(2, width + 2)))

    @property
    def stride(self):
        return 2 if self.aligned else 1

    def operand_lines_from_end(self, step, width):
        """Operand a's digit and operand b's for output step `step`, counted from the source's end: interleaved, the
        pair's two tokens (a's is `line_from_end`); else b's is `line_from_end` and a's lies past b and the "+"."""
        b_or_a = self.line_from_end(step)
        return [b_or_a, b_or_a - 1] if self.aligned else [b_or_a + width + 1, b_or_a]

    def _example(self, numbers):
        a, b = numbers
        width = self.padding(a, b)
        x, y = padded(a, width), padded(b, width)
        source = ["+", *(d for pair in zip(x, y, strict=True) for d in pair)] if self.aligned else [*x, "+", *y]
        return tuple(source), tuple(reversed(padded(a + b, width)))


class TimesDigit(ArithmeticTask):
    """N x 1: a multi-digit number times one digit 0-9 (drawn uniformly, in interpolation and test alike)."""

    name = "times_digit"

    @property
    def stride(self):
        return 2 if self.aligned else 1

    @property
    def tail(self):
        """`* d` follows the number's digits unless the digits are interleaved with the multiplier."""
        return super().tail + (0 if self.aligned else 2)

    def draw(self, length, gen):
        return self.example((self.number(length, gen), int(torch.randint(10, (1,), generator=gen))))

    def interpolation_numbers(self, split, rows, gen):
        numbers = super().interpolation_numbers(split, rows, gen)
        digits = torch.randint(10, (rows,), generator=gen).tolist()
        return [(a, d) for (a,), d in zip(numbers, digits, strict=True)]

    def _example(self, numbers):
        a, d = numbers
        width = self.padding(a)
        x = padded(a, width)
        source = ["*", *(t for digit in x for t in (digit, str(d)))] if self.aligned else [*x, "*", str(d)]
        return tuple(source), tuple(reversed(padded(a * d, width)))


class Parity(ArithmeticTask):
    """Prefix XOR of the bits of n (most significant first): y_1 = x_1 (the last bit), y_i = y_(i-1) xor x_i."""

    name = "parity"
    base = 2

    def _example(self, numbers):
        (n,) = numbers
        bits = self.digits(n) if self.width is None else self.digits(n).zfill(self.width)
        running, out = 0, []
        for bit in reversed(bits):
            running ^= int(bit)
            out.append(str(running))
        return tuple(bits), tuple(out)


LISTOPS = {"sum": lambda a, b: (a + b) % 10, "max": max, "min": min}


class ListOps(ArithmeticTask):
    """Single-operator, depth-1 ListOps as the paper's Appendix C: `op x_n .. x_1` -> the running fold from x_1,
    y_1 = x_1, y_i = op(y_(i-1), x_i); subclasses fix the operator. The digits are those of an interpolation number
    (or of an L-digit number)."""

    tokens = (*DIGITS, *LISTOPS)
    operator = ""

    def __init__(self, data_seed: int = 0, aligned: bool = False, width: int | None = None, markers: bool = False):
        if width is not None:
            raise LengthgenError(f"{self.name} lists have no fixed width (a padding 0 would change MIN); valid: "
                                 "width None")
        super().__init__(data_seed, aligned, markers=markers)

    def _example(self, numbers):
        (n,) = numbers
        return self.from_items([int(d) for d in reversed(str(n))])

    def from_items(self, items: list[int]) -> Example:
        """The example of a list given in the order it is folded (x_1 first): source `op x_n .. x_1`, target the
        running results."""
        running, out = items[0], [items[0]]
        for d in items[1:]:
            running = LISTOPS[self.operator](running, d)
            out.append(running)
        return (self.operator, *map(str, reversed(items))), tuple(map(str, out))


class ListOpsSum(ListOps):
    """ListOps with SUM mod 10: running sums of the digits, last digit first."""

    name, operator = "listops_sum", "sum"


class ListOpsSumBalanced(ListOpsSum):
    """ListOps SUM trained on lists of 5, 6 and 7 items equally often (beyond the paper).

    The interpolation numbers' own mix is 86% 6-item lists (8.6% 5, 4.6% 7), so with cyclic positions of period 3
    one phase of the list's end dominates training. The training numbers come from ListOpsSum's training pool; dev
    and test examples are ListOpsSum's."""

    name, data_name = "listops_sum_balanced", "listops_sum"  # ListOpsSum's numbers and test examples
    balanced = (5, 6, 7)  # item counts drawn equally often in training

    @cached_property
    def by_items(self) -> list[torch.Tensor]:
        """The training pool's numbers with each of `balanced` digit counts."""
        pool = self.pool("train")
        items = torch.tensor([len(str(int(n))) for n in pool])
        return [pool[items == k] for k in self.balanced]

    def interpolation_numbers(self, split, rows, gen):
        if split != "train":
            return super().interpolation_numbers(split, rows, gen)
        groups = torch.randint(len(self.balanced), (rows,), generator=gen).tolist()
        return [(int(self.by_items[g][int(torch.randint(len(self.by_items[g]), (1,), generator=gen))]),)
                for g in groups]


class ListOpsMax(ListOps):
    """ListOps with MAX: running maxima of the digits, last digit first."""

    name, operator = "listops_max", "max"


class ListOpsMin(ListOps):
    """ListOps with MIN: running minima of the digits, last digit first."""

    name, operator = "listops_min", "min"
