"""Positional schemes behind one interface, and the POSITIONAL registry.

A scheme sees position ids (from the batch, so a task can couple positions) and acts through three hooks, each a
no-op by default, so attention code calls all three and never branches on a scheme's name:
  * `embed(ids)`: a vector added to each token's embedding (absolute schemes);
  * `rotate(x, ids)`: queries and keys rotated by their positions (RoPE);
  * `bias(query_ids, key_ids)`: an additive term on the attention scores, per head.
A new scheme is one subclass overriding what it changes, plus one registry line.
"""

import math

import torch
from torch import nn

from lengthgen.registry import Registry

BASE = 10_000.0  # wavelength base of sinusoids and rotary angles


def frequencies(d: int, device: torch.device | str | None = None) -> torch.Tensor:
    """(d/2,) angular frequencies BASE^(-2i/d), i = 0 .. d/2 - 1, of sinusoids and rotary angles."""
    return torch.exp(-math.log(BASE) * torch.arange(0, d, 2, dtype=torch.float32, device=device) / d)


def sinusoid(positions: torch.Tensor, d: int) -> torch.Tensor:
    """(...) positions -> (..., d) sinusoidal encodings (sin on the first half, cos on the second)."""
    angle = positions.float()[..., None] * frequencies(d, positions.device)  # (..., d/2)
    return torch.cat([angle.sin(), angle.cos()], dim=-1)


class Positional(nn.Module):
    """No positional information (NoPE); the base class whose hooks every scheme overrides where it acts.

    Args:
        width: D, the width of the token embeddings.
        heads: H, the number of attention heads (queries and keys are rotated per head, of width D / H).
    """

    def __init__(self, width: int, heads: int = 1):
        super().__init__()
        self.width, self.heads = width, heads

    def embed(self, ids: torch.Tensor) -> torch.Tensor | None:
        """(..., D) added to the embeddings of tokens at position ids (...); None adds nothing."""
        return None

    def rotate(self, x: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        """Queries or keys x (..., P, Dh) at position ids (P,) or (..., P), transformed by their positions."""
        return x

    def bias(self, query_ids: torch.Tensor, key_ids: torch.Tensor) -> torch.Tensor | None:
        """Additive scores (..., H, T, S) for queries at ids (..., T) and keys at ids (..., S); None adds nothing."""
        return None


class Sinusoidal(Positional):
    """Fixed sinusoids of the absolute position added to the embeddings (Vaswani et al. 2017)."""

    def embed(self, ids):
        return sinusoid(ids, self.width)


class Rotary(Positional):
    """RoPE (Su et al. 2021): each pair of features (i, i + Dh/2) rotated by angle position x frequency i, so the
    dot product of a query and a key depends on their positions only through their difference."""

    def rotate(self, x, ids):
        angle = ids.float()[..., None] * frequencies(x.shape[-1], x.device)  # (..., P, Dh/2)
        angle = torch.cat([angle, angle], dim=-1)  # (..., P, Dh)
        half = x.shape[-1] // 2
        turned = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
        return x * angle.cos() + turned * angle.sin()


class ALiBi(Positional):
    """ALiBi (Press et al. 2022): no embedding; head h adds -m_h |i - j| to the score of query i for key j, with
    slopes m_h = 2^(-8 (h + 1) / H), a geometric sequence from 2^(-8/H) down to 2^-8."""

    def bias(self, query_ids, key_ids):
        slopes = 2.0 ** (-8.0 * torch.arange(1, self.heads + 1, device=key_ids.device) / self.heads)  # (H,)
        distance = (query_ids[..., :, None] - key_ids[..., None, :]).abs().float()  # (..., T, S)
        return -slopes[:, None, None] * distance[..., None, :, :]  # (..., H, T, S)


POSITIONAL = Registry("positional scheme", {"none": Positional, "sinusoidal": Sinusoidal, "rope": Rotary,
                                            "alibi": ALiBi})
