"""What every task returns: a batch of sets of items, one query per set, one target class per set."""

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class SetBatch:
    """A batch of B sets of N items with one query each.

    Attributes:
        items: (B, N, F) float features, or (B, N, F) long class ids, depending on the task.
        query: (B, Fq) query features/ids, or None when the model learns a single query.
        target: (B,) long target class.
    """

    items: torch.Tensor
    query: torch.Tensor | None
    target: torch.Tensor

    @property
    def size(self) -> int:
        return self.target.shape[0]

    @property
    def length(self) -> int:
        return self.items.shape[1]

    def slice(self, start: int, stop: int) -> "SetBatch":
        """The sub-batch of sets start:stop (used for memory-bounded evaluation)."""
        query = None if self.query is None else self.query[start:stop]
        return SetBatch(self.items[start:stop], query, self.target[start:stop])
