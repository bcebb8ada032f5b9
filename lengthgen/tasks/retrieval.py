"""Order-invariant retrieval tasks over sets of items (vanishing-variance chapter).

Both tasks are defined by a pure reference function (`*_reference`) that the tests compare against.
"""

from dataclasses import dataclass

import torch

from lengthgen.data import SetBatch
from lengthgen.errors import LengthgenError


@dataclass(frozen=True)
class ArgmaxRetrieval:
    """Predict the class of the item with the highest priority.

    Each item is [priority ~ U[0,1], one-hot of its class ~ U{0..n_classes-1}]; there is no query input
    (the model learns one query vector). Ties have probability zero.

    Examples:
        priorities [0.2, 0.9, 0.4], classes [3, 7, 1]  ->  7
    """

    n_classes: int = 10
    query_kind = "learned"

    @property
    def feature_dim(self) -> int:
        return 1 + self.n_classes

    def max_length(self) -> int | None:
        return None

    def sample(self, batch_size: int, length: int, generator: torch.Generator) -> SetBatch:
        check_length(self, length)
        priority = torch.rand(batch_size, length, generator=generator)
        cls = torch.randint(self.n_classes, (batch_size, length), generator=generator)
        items = torch.cat([priority.unsqueeze(-1), torch.nn.functional.one_hot(cls, self.n_classes).float()], -1)
        target = cls.gather(1, priority.argmax(1, keepdim=True)).squeeze(1)  # B
        return SetBatch(items, None, target)


def argmax_reference(priorities: list[float], classes: list[int]) -> int:
    """The class of the highest-priority item, computed the obvious way."""
    best = max(range(len(priorities)), key=lambda i: priorities[i])
    return classes[best]


@dataclass(frozen=True)
class DictionaryLookup:
    """Given N (key, value) items with distinct keys and a query key present among them, predict its value.

    Keys are drawn without replacement from `n_keys` classes, values i.i.d. from `n_values` classes
    (paper: 16,384 and 64). Items are long ids [key, value]; the query is a long id [key].

    Examples:
        items [(5, 2), (11, 40), (3, 7)], query 11  ->  40
    """

    n_keys: int = 16384
    n_values: int = 64
    query_kind = "key"

    @property
    def n_classes(self) -> int:
        return self.n_values

    def max_length(self) -> int | None:
        return self.n_keys

    def sample(self, batch_size: int, length: int, generator: torch.Generator) -> SetBatch:
        check_length(self, length)
        keys = distinct_ints(batch_size, length, self.n_keys, generator)  # B,N
        values = torch.randint(self.n_values, (batch_size, length), generator=generator)
        pick = torch.randint(length, (batch_size, 1), generator=generator)
        query = keys.gather(1, pick)  # B,1
        target = values.gather(1, pick).squeeze(1)  # B
        return SetBatch(torch.stack([keys, values], -1), query, target)


def dictionary_reference(pairs: list[tuple[int, int]], query: int) -> int:
    """The value stored under `query`, computed with a Python dict."""
    return dict(pairs)[query]


def distinct_ints(rows: int, k: int, n: int, generator: torch.Generator) -> torch.Tensor:
    """(rows, k) integers from range(n), distinct within each row, uniformly among such rows.

    Short rows redraw the rows that contain a repeat (cheap when k << n); long rows take the top-k of
    uniform noise, a uniformly random k-subset in random order.
    """
    if 4 * k * k > n:
        return torch.rand(rows, n, generator=generator).topk(k, dim=1).indices
    out = torch.randint(n, (rows, k), generator=generator)
    while True:
        bad = (out.sort(1).values.diff(dim=1) == 0).any(1)  # rows holding a repeated value
        if not bad.any():
            return out
        out[bad] = torch.randint(n, (int(bad.sum()), k), generator=generator)


def check_length(task, length: int) -> None:
    """Raise a clear error for a length the task cannot produce."""
    cap = task.max_length()
    if length < 1 or (cap is not None and length > cap):
        valid = f"1..{cap}" if cap is not None else ">= 1"
        raise LengthgenError(f"impossible length {length} for {type(task).__name__}; valid: {valid}")
