"""Explicit name -> object registries whose lookup errors list the valid names."""

from collections.abc import Iterator, Mapping
from typing import Generic, TypeVar

from lengthgen.errors import LengthgenError

T = TypeVar("T")


class Registry(Mapping[str, T], Generic[T]):
    """A read-only dict of named entries; an unknown name raises `LengthgenError` listing the valid ones.

    Args:
        kind: what the entries are ("task", "model", ...), used in error messages.
        entries: the explicit name -> entry mapping.
    """

    def __init__(self, kind: str, entries: dict[str, T]):
        self.kind = kind
        self._entries = dict(entries)

    def __getitem__(self, name: str) -> T:
        if name not in self._entries:
            raise LengthgenError(f"unknown {self.kind} {name!r}; valid: {', '.join(self._entries)}")
        return self._entries[name]

    def __contains__(self, name: object) -> bool:  # Mapping's default would raise LengthgenError, not return False
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)
