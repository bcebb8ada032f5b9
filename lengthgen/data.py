"""What tasks produce and models consume: the vocabulary with its special tokens, and the batch types.

Position ids are optional on every batch: None means the usual 0, 1, 2, ...; a task that couples positions
(e.g. a scratchpad whose output positions restart per item) supplies its own.
"""

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace

import torch

SPECIALS = ("<pad>", "<sos>", "<eos>", "<unk>")
PAD, SOS, EOS, UNK = range(4)

Example = tuple[tuple[str, ...], tuple[str, ...]]  # (source tokens, target tokens without <eos>)


class Vocab:
    """Token <-> id map: the four specials first (ids 0-3), then the task's tokens in the given order."""

    def __init__(self, tokens: Sequence[str]):
        self.tokens = SPECIALS + tuple(t for t in tokens if t not in SPECIALS)
        self.ids = {t: i for i, t in enumerate(self.tokens)}

    def __len__(self) -> int:
        return len(self.tokens)

    def encode(self, tokens: Sequence[str]) -> list[int]:
        return [self.ids.get(t, UNK) for t in tokens]

    def decode(self, ids: Sequence[int]) -> list[str]:
        """Ids -> tokens, cut before the first <eos> (padding after it is dropped)."""
        out = []
        for i in ids:
            if i == EOS:
                break
            out.append(self.tokens[i])
        return out


class _Batch:
    """Slicing and device moves shared by the batch types: every tensor field is cut or moved, None stays None."""

    def _tensors(self) -> dict[str, torch.Tensor]:
        return {f.name: v for f in fields(self) if isinstance(v := getattr(self, f.name), torch.Tensor)}

    def slice(self, start: int, stop: int):
        """The sub-batch of examples start:stop (memory-bounded evaluation)."""
        return replace(self, **{k: v[start:stop] for k, v in self._tensors().items()})

    def to(self, device: torch.device | str):
        """The batch with every tensor on `device` (the same object when it is already there)."""
        tensors = self._tensors()
        moved = {k: v.to(device) for k, v in tensors.items()}
        return self if all(moved[k] is tensors[k] for k in moved) else replace(self, **moved)


@dataclass(frozen=True)
class SetBatch(_Batch):
    """A batch of B sets of N items with one query each (sets are unordered: no position ids).

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


@dataclass(frozen=True)
class Seq2SeqBatch(_Batch):
    """B padded examples.

    Attributes:
        src: (B, S) source ids, <pad>-padded.
        src_len: (B,) source lengths.
        tgt: (B, T) target ids ending in <eos>, <pad>-padded.
        tgt_len: (B,) target lengths including <eos>.
        src_pos: (B, S) position ids of the source tokens, or None for 0..S-1.
        tgt_pos: (B, T) position ids of the target tokens, or None for 0..T-1.
    """

    src: torch.Tensor
    src_len: torch.Tensor
    tgt: torch.Tensor
    tgt_len: torch.Tensor
    src_pos: torch.Tensor | None = None
    tgt_pos: torch.Tensor | None = None

    @property
    def size(self) -> int:
        return self.src.shape[0]


@dataclass(frozen=True)
class LMBatch(_Batch):
    """B sequences of one length P for a decoder-only model: `prompt` tokens, then the answer, the only part the loss
    and the metrics count. Prompts of different lengths are left-padded with <pad>, which no attention reads (`mask`),
    so that every answer starts at column `prompt`; answers of different lengths end with <eos> and are right-padded
    with <pad>, which the loss and the metrics skip (and which causal attention never reads).

    Attributes:
        tokens: (B, P) token ids: (<pad>s,) prompt, then answer (then <pad>s).
        ids: (B, P) position ids, or None for 0, 1, 2, ... from each row's first real token.
        prompt: the column where every answer starts (>= 1).
        mask: (B, P) True at every token but left pads, or None (no left pad).
    """

    tokens: torch.Tensor
    ids: torch.Tensor | None
    prompt: int
    mask: torch.Tensor | None = None

    @property
    def size(self) -> int:
        return self.tokens.shape[0]

    @property
    def length(self) -> int:
        return self.tokens.shape[1]

    @property
    def positions(self) -> torch.Tensor:
        """(B, P) position ids (when the batch carries none: 0..P-1, or with left pads counted from each row's first
        real token, the pads at 0)."""
        if self.ids is not None:
            return self.ids
        if self.mask is not None:
            return (self.mask.long().cumsum(1) - 1).clamp(min=0)
        return torch.arange(self.length, device=self.tokens.device).expand(self.size, -1)

    @property
    def answer(self) -> torch.Tensor:
        """(B, P - prompt) the answer tokens."""
        return self.tokens[:, self.prompt:]


def pad(rows: Sequence[Sequence[int]], value: int = PAD) -> tuple[torch.Tensor, torch.Tensor]:
    """(len(rows), longest) long tensor of the rows padded with `value`, and the rows' lengths."""
    out = torch.full((len(rows), max(map(len, rows))), value, dtype=torch.long)
    for i, row in enumerate(rows):
        out[i, : len(row)] = torch.tensor(row, dtype=torch.long)
    return out, torch.tensor([len(r) for r in rows], dtype=torch.long)


def collate(examples: Sequence[Example], vocab: Vocab) -> Seq2SeqBatch:
    """Encode and pad a list of examples; targets get <eos> appended; default position ids."""
    (s, sl), (t, tl) = pad([vocab.encode(s) for s, _ in examples]), pad([vocab.encode(t) + [EOS] for _, t in examples])
    return Seq2SeqBatch(s, sl, t, tl)
