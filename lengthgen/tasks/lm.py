"""What the decoder-only tasks share: an example is a `Sequence` (tokens: prompt, then answer; position ids: the
task's coupled ids, or None for 0, 1, 2, ...; the prompt's length); `sample(batch_size, length, gen)` draws a batch of
one length (`LMBatch`, nothing padded), `sequence(length, gen)` one example."""

from typing import NamedTuple

import torch

from lengthgen.data import LMBatch, Vocab
from lengthgen.seeding import fixed_generator


class Sequence(NamedTuple):
    """One example: tokens, their position ids (None: 0..P-1) and the number of prompt tokens."""

    tokens: list[str]
    ids: list[int] | None
    prompt: int


class LMTask:
    """Base class: subclasses set `name` and `tokens`, and implement `sequence(length, gen)` and `check(length)`."""

    name = ""
    tokens: tuple[str, ...] = ()
    unit = "tokens"  # what `length` counts
    ids_follow_input = False  # whether coupled ids depend on the input (then a model must predict them: PPC)

    @property
    def vocab(self) -> Vocab:
        return Vocab(self.tokens)

    def check(self, length: int) -> None:
        """Raise a clear error if the task cannot produce `length`."""

    def sequence(self, length: int, gen: torch.Generator) -> Sequence:
        raise NotImplementedError

    def sample(self, batch_size: int, length: int, gen: torch.Generator) -> LMBatch:
        """`batch_size` examples of `length`, one tensor each for tokens and (if the task has them) ids."""
        self.check(length)
        return self.batch([self.sequence(length, gen) for _ in range(batch_size)])

    def batch(self, rows: list[Sequence]) -> LMBatch:
        """Examples of one layout (tokens, prompt and ids alike in length) as one batch."""
        vocab = self.vocab
        tokens = torch.tensor([vocab.encode(r.tokens) for r in rows], dtype=torch.long)
        ids = None if rows[0].ids is None else torch.tensor([r.ids for r in rows], dtype=torch.long)
        return LMBatch(tokens, ids, rows[0].prompt)

    def max_id(self, length: int) -> int:
        """The largest position id of an example of `length` (before any training offset): every example of a length
        has the same layout, so one drawn example tells."""
        s = self.sequence(length, fixed_generator(0))
        return max(s.ids) if s.ids is not None else len(s.tokens) - 1
