"""The one attention of the package: scores (B, H, T, S), plus the positional scheme's bias, plus the padding
mask, then plain or adaptive softmax, then the weighted values.

The pieces are functions (`dot_scores` or its per-step form `step_scores`, `padding_bias`, `softmax`, `attend`)
that every model uses, the GRU's
per-step cross-attention included; `MultiHeadAttention` assembles them with projections, heads and hook points
(`hook_scores`, `hook_pattern`, `hook_output`: per layer and head, read through `hooks.capture`).

A module built with `fused=True` (the transformers) computes the same attention with torch's
`scaled_dot_product_attention` while no hook point is watched, and the explicit way, hooks and all, while one is, and
for one query at a time in evaluation (a decoding step, where the fused kernel is the slower on a CPU);
`KVCache` keeps a layer's rotated keys, values and key ids between generation steps.
"""

import torch
import torch.nn.functional as F
from torch import nn

from lengthgen.models.dropout import drop
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
    """(..., T, D): (..., T, S) weights x (..., S, D) values."""
    return torch.matmul(pattern, values)


def causal_bias(T: int, S: int, device: torch.device | str | None = None) -> torch.Tensor:
    """(T, S): 0 where query t (the last T of S positions) may see key s (s <= S - T + t), NEG where s is later."""
    later = torch.ones(T, S, dtype=torch.bool, device=device).triu(S - T + 1)
    return torch.zeros(T, S, device=device).masked_fill(later, NEG)


class KVCache:
    """One attention layer's keys and values so far, (B, H, S, D/H) each after rotation, and their ids (B, S).
    A `static` cache (cross-attention's, over a source that does not change while decoding) is filled by the first
    call and then read as it is: the keys given to later calls are not projected again.

    The positions live in buffers with room for more (`capacity`, doubled when full), so that a decoding step writes
    its own position instead of copying every earlier one."""

    def __init__(self, batch: int, heads: int, head_width: int, device: torch.device | str | None = None,
                 static: bool = False, capacity: int = 0):
        """An empty cache, with room for `capacity` positions before it grows."""
        self._keys, self._values, self._ids = self._buffers(batch, heads, head_width, capacity, device)
        self.size, self.static = 0, static  # the buffers' first `size` positions are filled

    @staticmethod
    def _buffers(batch: int, heads: int, head_width: int, capacity: int, device) -> tuple[torch.Tensor, ...]:
        kv = torch.zeros(batch, heads, capacity, head_width, device=device)
        return kv, kv.clone(), torch.zeros(batch, capacity, dtype=torch.long, device=device)

    @property
    def keys(self) -> torch.Tensor:
        return self._keys[:, :, :self.size]

    @property
    def values(self) -> torch.Tensor:
        return self._values[:, :, :self.size]

    @property
    def ids(self) -> torch.Tensor:
        return self._ids[:, :self.size]

    def extend(self, keys: torch.Tensor, values: torch.Tensor, ids: torch.Tensor) -> None:
        """Append new positions (in place)."""
        n = self.size + keys.shape[2]
        if n > self._keys.shape[2]:  # grow: new buffers of twice the room (at least n), the filled part copied
            B, H, _, Dh = keys.shape
            k, v, i = self._buffers(B, H, Dh, max(n, 2 * self._keys.shape[2]), keys.device)
            k[:, :, :self.size], v[:, :, :self.size], i[:, :self.size] = self.keys, self.values, self.ids
            self._keys, self._values, self._ids = k, v, i
        self._keys[:, :, self.size:n] = keys
        self._values[:, :, self.size:n] = values
        self._ids[:, self.size:n] = ids
        self.size = n


class MultiHeadAttention(nn.Module):
    """Queries attend to keys: bias-free projections to width D split into H heads of D/H, rotated by the positional
    scheme, scored by scaled dot product plus the scheme's bias, a given bias and the padding mask; softmax (plain or
    adaptive); the heads' outputs concatenated (B, T, D). No output projection: the caller applies its own.

    Args:
        query_in: width of the query inputs.
        key_in: width of the key/value inputs.
        width: D.
        heads: H (divides D).
        positional: the scheme (default: none); it may be shared by several layers.
        layer: this module's layer index (a per-layer positional bias reads its own table).
        fused: compute unwatched attention with torch's fused kernel (same numbers up to float rounding).
        dropout: in training, drop attention weights with this probability (torch's `nn.MultiheadAttention(dropout=)`,
            the ABC public code's 0.3); the hook points see the weights before it. 0: no dropout, nothing drawn.
        dropout_mask: how it draws its mask (`models.dropout`); with "bits" a training step takes the explicit way,
            whose dropout is ours, not the fused kernel's.
    """

    def __init__(self, query_in: int, key_in: int, width: int, heads: int = 1, positional: Positional | None = None,
                 layer: int = 0, fused: bool = False, dropout: float = 0.0, dropout_mask: str = "torch"):
        super().__init__()
        if width % heads:
            raise ValueError(f"width {width} is not divisible by {heads} heads")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"attention dropout {dropout} is not a probability in [0, 1)")
        self.heads, self.layer, self.fused, self.dropout, self.dropout_mask = heads, layer, fused, dropout, dropout_mask
        self.w_q = nn.Linear(query_in, width, bias=False)
        self.w_k = nn.Linear(key_in, width, bias=False)
        self.w_v = nn.Linear(key_in, width, bias=False)
        self.scale = (width // heads) ** -0.5
        # the scheme belongs to the model that owns it (its parameters are saved once, there), so it is kept outside
        # this module's registered children
        self.__dict__["positional"] = positional or Positional(width, heads)
        self.hook_scores = HookPoint()  # (B, H, T, S) scores after bias and mask, before the softmax
        self.hook_pattern = HookPoint()  # (B, H, T, S) attention weights
        self.hook_output = HookPoint()  # (B, H, T, D/H) each head's weighted values

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        B, P, D = x.shape
        return x.view(B, P, self.heads, D // self.heads).transpose(1, 2)  # (B, P, D) -> (B, H, P, D/H)

    def project(self, query: torch.Tensor, keys: torch.Tensor, query_ids: torch.Tensor | None = None,
                key_ids: torch.Tensor | None = None, cache: KVCache | None = None):
        """Rotated queries (B, H, T, D/H), keys and values (B, H, S, D/H) and the ids of both; with a cache, the
        new keys are appended to it and all of its keys are returned."""
        T, S = query.shape[1], keys.shape[1]
        query_ids = torch.arange(T, device=query.device) if query_ids is None else query_ids
        key_ids = torch.arange(S, device=keys.device) if key_ids is None else key_ids
        q = self.positional.rotate(self._split(self.w_q(query)), query_ids)  # (B, H, T, D/H)
        if cache is not None and cache.static and cache.keys.shape[2]:
            return q, cache.keys, cache.values, query_ids, cache.ids
        k = self.positional.rotate(self._split(self.w_k(keys)), key_ids)  # (B, H, S, D/H)
        v = self._split(self.w_v(keys))
        if cache is not None:
            if key_ids.dim() == 1:
                key_ids = key_ids.expand(keys.shape[0], S)  # (S,) -> (B, S)
            cache.extend(k, v, key_ids)
            k, v, key_ids = cache.keys, cache.values, cache.ids
        return q, k, v, query_ids, key_ids

    def _bias(self, query_ids, key_ids, mask, bias, dtype) -> torch.Tensor | None:
        """The sum of the scheme's bias, the given bias and the padding mask, broadcastable to (B, H, T, S)."""
        total = None
        if mask is not None:
            total = padding_bias(mask if mask.dim() == 3 else mask[:, None, :], dtype)[:, None]  # (B, 1, T, S)
        for extra in (self.positional.bias(query_ids, key_ids, self.layer), bias):
            if extra is not None:
                total = extra if total is None else total + extra
        return total

    def scores_and_values(self, query: torch.Tensor, keys: torch.Tensor, query_ids: torch.Tensor | None = None,
                          key_ids: torch.Tensor | None = None, mask: torch.Tensor | None = None,
                          bias: torch.Tensor | None = None, cache: KVCache | None = None
                          ) -> tuple[torch.Tensor, torch.Tensor]:
        """Scores (B, H, T, S) and values (B, H, S, D/H) of queries (B, T, query_in) over keys (B, S, key_in).

        Args:
            query_ids, key_ids: position ids (T,) / (B, T) and (S,) / (B, S); default 0..T-1 and 0..S-1.
            mask: (B, S) True at valid keys, or (B, T, S), or None (all valid).
            bias: an additive term broadcastable to (B, H, T, S), e.g. a causal mask or a calibrated bias.
            cache: earlier keys and values to attend to as well (extended with these).
        """
        q, k, v, query_ids, key_ids = self.project(query, keys, query_ids, key_ids, cache)
        s = dot_scores(q, k) * self.scale  # (B, H, T, S)
        total = self._bias(query_ids, key_ids, mask, bias, s.dtype)
        s = s if total is None else s + total
        return self.hook_scores(s), v

    def attend(self, scores: torch.Tensor, values: torch.Tensor, adaptive: bool = False) -> torch.Tensor:
        """Heads' outputs concatenated, (B, T, D), from `scores_and_values`' output (computed once, attended with
        either softmax)."""
        pattern = self.hook_pattern(softmax(scores, adaptive))
        if self.dropout and self.training:
            pattern = drop(pattern, self.dropout, self.dropout_mask)  # global RNG: `train.loop.train(noise=)` seeds it
        out = self.hook_output(attend(pattern, values))  # (B, H, T, D/H)
        B, H, T, Dh = out.shape
        return out.transpose(1, 2).reshape(B, T, H * Dh)  # (B, H, T, D/H) -> (B, T, D)

    @property
    def watched(self) -> bool:
        """Whether a capture is reading one of this module's hook points."""
        return any(h._forward_hooks for h in (self.hook_scores, self.hook_pattern, self.hook_output))

    def forward(self, query, keys, query_ids=None, key_ids=None, mask=None, bias=None, adaptive: bool = False,
                cache: KVCache | None = None, causal: bool = False):
        """(B, T, D): `attend(scores_and_values(...))`, or the fused kernel's equivalent (see the class).

        Args:
            causal: query t (the last T of S positions, by order, whatever their ids) sees keys up to its own.
        """
        step = query.shape[1] == 1 and not self.training  # one decoding step: faster unfused on a CPU
        ours = self.training and self.dropout and self.dropout_mask != "torch"  # a dropout the kernel lacks
        if not self.fused or adaptive or self.watched or step or ours:
            if causal and query.shape[1] > 1:  # one query, the last position, sees every key
                T, S = query.shape[1], keys.shape[1] + (0 if cache is None else cache.keys.shape[2])
                bias = causal_bias(T, S, query.device) if bias is None else bias + causal_bias(T, S, query.device)
            return self.attend(*self.scores_and_values(query, keys, query_ids, key_ids, mask, bias, cache), adaptive)
        q, k, v, query_ids, key_ids = self.project(query, keys, query_ids, key_ids, cache)
        T, S = q.shape[2], k.shape[2]
        total = self._bias(query_ids, key_ids, mask, bias, q.dtype)
        plain_causal = causal and total is None and T == S
        if causal and not plain_causal and T > 1:
            total = causal_bias(T, S, q.device) if total is None else total + causal_bias(T, S, q.device)
        drop = self.dropout if self.training else 0.0
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=total, dropout_p=drop, is_causal=plain_causal,
                                             scale=self.scale)
        B, H, T, Dh = out.shape
        return out.transpose(1, 2).reshape(B, T, H * Dh)  # (B, H, T, D/H) -> (B, T, D)
