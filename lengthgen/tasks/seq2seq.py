"""What every sequence-to-sequence task shares: a vocabulary (`lengthgen.data`), named splits, seeded unique examples,
padded batches."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import torch

from lengthgen.data import Example, Seq2SeqBatch, Vocab, collate
from lengthgen.errors import LengthgenError
from lengthgen.seeding import generator


@dataclass(frozen=True)
class Split:
    """How one split is drawn: a length range (inclusive) and a number of unique examples."""

    min_length: int
    max_length: int
    size: int


class CoupledIds(NamedTuple):
    """Position coupling's ids of one example (`Seq2SeqTask.coupled_ids`): one per source token, the separator's, one
    per target token (and one for the <eos> that ends an answer of a task whose answers vary)."""

    source: list[int]
    separator: int
    target: list[int]


class Seq2SeqTask:
    """Base class: subclasses set `name`, `tokens`, `splits` and implement `draw(length, gen)`.

    `length` is the task's length unit (for the copy family: number of digits of the underlying sequence).
    """

    name: str = ""
    data_name: str = ""  # the name its data's seeds derive from, when not `name` (a variant drawing the same data)
    tokens: tuple[str, ...] = ()
    splits: dict[str, Split] = {}
    train_split, dev_split = "train", "dev"
    answers_vary = False  # whether targets of one source length differ in length (a decoder-only prompt then ends
    # its answers with <eos>: `tasks.prompted`)
    reads_in_order = False  # whether the answer reads its source in order from its first token (Copy, ReCopy): an
    # encoder-decoder's bias then lies along diagonals of source ids counted from the start (ABC on the leaderboard)
    ids_follow_input = False  # whether its coupled ids depend on the input (`coupled_ids`; a model must predict them:
    # PPC)

    def __init__(self, data_seed: int = 0):
        self.data_seed = data_seed
        self.vocab = Vocab(self.tokens)

    @property
    def seed_name(self) -> str:
        """`data_name` or, by default, `name`."""
        return self.data_name or self.name

    @property
    def test_splits(self) -> tuple[str, ...]:
        return tuple(s for s in self.splits if s not in (self.train_split, self.dev_split))

    def draw(self, length: int, gen: torch.Generator) -> Example:
        raise NotImplementedError

    def sample(self, batch_size: int, length: int, gen: torch.Generator) -> Seq2SeqBatch:
        """`batch_size` draws of `length` as one batch (a step-based training's batch, `train.loop.train`), drawn in
        the order a prompted task draws them (`tasks.prompted`), so the same generator gives both the same examples."""
        return self.batch([self.draw(length, gen) for _ in range(batch_size)])

    def coupled_ids(self, source: Sequence[str], target: Sequence[str]) -> CoupledIds | None:
        """Position coupling's ids (Cho et al. 2024) of an example as a prompt and its answer (`tasks.prompted`), or
        None where the task defines none; an answer that ends with <eos> (`answers_vary`) has an id for it too. Every
        id is at least 1 (0 is the pads', never shifted), and an answer token
        shares its id with the source token(s) it is read from. The separator stands one step before the answer's
        first id on the answer's line of ids: it predicts the first answer token as each answer token predicts the
        next, so one relative offset between a query's id and the ids it reads holds from the separator on (the public
        position-coupling code gives its "=" the id after the operands' units digits, the answer's first), but where
        the answer's line restarts (Duplicate String's second copy)."""
        return None

    def count(self, split: str, n: int | None) -> int:
        """Validate (split, n); returns n, defaulting to the split's size."""
        if split not in self.splits:
            raise LengthgenError(f"unknown split {split!r} for {self.name}; valid: {', '.join(self.splits)}")
        size = self.splits[split].size
        n = size if n is None else n
        if not 1 <= n <= size:
            raise LengthgenError(f"n={n} for {self.name}/{split}; valid: 1..{size}")
        return n

    def examples(self, split: str, n: int | None = None) -> list[Example]:
        """The first `n` (default: the split's size) unique examples of `split`, the same for the same data_seed."""
        n = self.count(split, n)
        spec = self.splits[split]
        return unique_draws(lambda g: self.draw(int(torch.randint(spec.min_length, spec.max_length + 1, (1,),
                                                                  generator=g)), g),
                            n, generator(self.data_seed, f"{self.seed_name}/{split}"), f"{self.name}/{split}")

    def batch(self, examples: Sequence[Example]) -> Seq2SeqBatch:
        return collate(examples, self.vocab)

    def construction(self, source: Sequence[str]) -> str | None:
        """The construction a source belongs to, for metrics by construction (SCAN: its conjunction); None for
        tasks without constructions."""
        return None


class ListedTask(Seq2SeqTask):
    """A task whose splits are fixed lists built once in `__init__` (`self._splits`: name -> examples)."""

    _splits: dict[str, list[Example]]

    def examples(self, split: str, n: int | None = None) -> list[Example]:
        n = self.count(split, n)  # first: an unknown split is a clear error, not a KeyError
        return self._splits[split][:n]


def unique_draws(draw: Callable[[torch.Generator], Example], n: int, gen: torch.Generator, what: str) -> list[Example]:
    """Draw until `n` distinct examples exist (in first-drawn order); fails clearly if the space is too small."""
    seen: dict[Example, None] = {}
    tries = 0
    while len(seen) < n:
        seen.setdefault(draw(gen), None)
        tries += 1
        if tries > 50 * n + 1000:
            raise LengthgenError(f"{what}: only {len(seen)} distinct examples found for n={n}")
    return list(seen)


def digits(length: int, gen: torch.Generator) -> list[int]:
    """`length` uniform random digits 0-9."""
    return torch.randint(0, 10, (length,), generator=gen).tolist()
