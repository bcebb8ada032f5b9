"""The one attention of the package: scores (B, H, T, S), plus the positional scheme's bias, plus the padding
mask, then plain or adaptive softmax, then the weighted values.

The pieces are functions (`dot_scores` or its per-step form `step_scores`, `padding_bias`, `softmax`, `attend`)
that every model uses, the GRU's
per-step cross-attention included; `MultiHeadAttention` assembles them with projections, heads and hook points
(`hook_scores`, `hook_pattern`, `hook_output`: per layer and head, read through `hooks.capture`).
"""

import torch
from torch import nn

from lengthgen.models.hooks import HookPoint
from lengthgen.models.positional import Positional
from lengthgen.models.softmax import adaptive_beta

NEG = -1e9  # score of padded positions (finite, so softmax never sees an all -inf row)


def dot_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """(..., T, D) queries x (..., S, D) keys -> (..., T, S) dot products (unscaled)."""
    return torch.matmul(q, k.transpose(-1, -2))


def step_scores(keys: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """(B, S, D) keys x (B, D) one query per sequence -> (B, S) dot products (unscaled): the per-step form of a
    recurrent decoder, as a matrix-vector product. The same numbers as `dot_scores` up to float rounding (the sums
    run in another order); the GRU's stored runs were computed this way, so it keeps it."""
    return torch.bmm(keys, q[:, :, None])[:, :, 0]  # (B, S, 1) -> (B, S)


def padding_bias(mask: torch.Tensor, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """0 where `mask` is True (a valid key), NEG where it is False (padding); same shape as mask."""
    return torch.zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(~mask, NEG)


def softmax(scores: torch.Tensor, adaptive: bool = False) -> torch.Tensor:
    """softmax over the keys (last dim), or softmax(beta(H) * scores) with the test-time adaptive temperature."""
    if adaptive:
        scores = scores * adaptive_beta(scores).unsqueeze(-1)
    return scores.softmax(-1)


def attend(pattern: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """(..., T, S) weights x (..., S, D) values -> (..., T, D)."""
    return torch.matmul(pattern, values)


class MultiHeadAttention(nn.Module):
    """Queries attend to keys: bias-free projections to width D split into H heads of D/H, rotated by the positional
    scheme, scored by scaled dot product plus the scheme's bias, a given bias and the padding mask; softmax (plain or
    adaptive); the heads' outputs concatenated (B, T, D). No output projection: the caller applies its own.

    Args:
        query_in: width of the query inputs.
        key_in: width of the key/value inputs.
        width: D.
        heads: H (divides D).
        positional: the scheme (default: none).
    """

    def __init__(self, query_in: int, key_in: int, width: int, heads: int = 1, positional: Positional | None = None):
        super().__init__()
        if width % heads:
            raise ValueError(f"width {width} is not divisible by {heads} heads")
        self.heads = heads
        self.w_q = nn.Linear(query_in, width, bias=False)
        self.w_k = nn.Linear(key_in, width, bias=False)
        self.w_v = nn.Linear(key_in, width, bias=False)
        self.scale = (width // heads) ** -0.5
        self.positional = positional or Positional(width, heads)
        self.hook_scores = HookPoint()  # (B, H, T, S) scores after bias and mask, before the softmax
        self.hook_pattern = HookPoint()  # (B, H, T, S) attention weights
        self.hook_output = HookPoint()  # (B, H, T, D/H) each head's weighted values

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        B, P, D = x.shape
        return x.view(B, P, self.heads, D // self.heads).transpose(1, 2)  # (B, P, D) -> (B, H, P, D/H)

    def scores_and_values(self, query: torch.Tensor, keys: torch.Tensor, query_ids: torch.Tensor | None = None,
                          key_ids: torch.Tensor | None = None, mask: torch.Tensor | None = None,
                          bias: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Scores (B, H, T, S) and values (B, H, S, D/H) of queries (B, T, query_in) over keys (B, S, key_in).

        Args:
            query_ids, key_ids: position ids (T,) / (B, T) and (S,) / (B, S); default 0..T-1 and 0..S-1.
            mask: (B, S) True at valid keys, or (B, T, S), or None (all valid).
            bias: an additive term broadcastable to (B, H, T, S), e.g. a causal mask or a calibrated bias.
        """
        T, S = query.shape[1], keys.shape[1]
        query_ids = torch.arange(T, device=query.device) if query_ids is None else query_ids
        key_ids = torch.arange(S, device=keys.device) if key_ids is None else key_ids
        q = self.positional.rotate(self._split(self.w_q(query)), query_ids)  # (B, H, T, D/H)
        k = self.positional.rotate(self._split(self.w_k(keys)), key_ids)  # (B, H, S, D/H)
        s = dot_scores(q, k) * self.scale  # (B, H, T, S)
        for extra in (self.positional.bias(query_ids, key_ids), bias):
            if extra is not None:
                s = s + extra
        if mask is not None:
            s = s + padding_bias(mask if mask.dim() == 3 else mask[:, None, :], s.dtype)[:, None]  # (B, 1, T, S)
        return self.hook_scores(s), self._split(self.w_v(keys))

    def attend(self, scores: torch.Tensor, values: torch.Tensor, adaptive: bool = False) -> torch.Tensor:
        """Heads' outputs concatenated, (B, T, D), from `scores_and_values`' output (computed once, attended with
        either softmax)."""
        out = self.hook_output(attend(self.hook_pattern(softmax(scores, adaptive)), values))  # (B, H, T, D/H)
        B, H, T, Dh = out.shape
        return out.transpose(1, 2).reshape(B, T, H * Dh)  # (B, H, T, D/H) -> (B, T, D)

    def forward(self, query, keys, query_ids=None, key_ids=None, mask=None, bias=None, adaptive: bool = False):
        """(B, T, D): `attend(scores_and_values(...))`."""
        return self.attend(*self.scores_and_values(query, keys, query_ids, key_ids, mask, bias), adaptive)
