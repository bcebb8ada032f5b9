"""Dropout with a choice of how its mask is drawn (`TransformerConfig.dropout_mask`).

"torch" is torch's own dropout (`F.dropout`: one Bernoulli draw per element), what every stored run with dropout
used. "bits" draws the same mask from random 64-bit words, cut into four 16-bit numbers each, and drops an element
whose number falls below round(p x 65536): a drop probability within 2^-17 of p (0.3 -> 19,661 / 65,536 =
0.300003), the same distribution otherwise, and several times cheaper to draw on a CPU, where torch's Bernoulli
draws took about a third of an ABC model's training step (`lengthgen bench --suite dropout` measures both). Both
draw from the global RNG, which `train.loop.train(noise=)` seeds, so either is reproducible; they draw different
masks, so a config's numbers depend on which it names.
"""

import torch
import torch.nn.functional as F
from torch import nn

DROPOUT_MASKS = ("torch", "bits")
LEVELS = 1 << 16  # values of one 16-bit number


def check_mask(mask: str, name: str = "dropout mask") -> None:
    """Raise the one clear error for a mask not in DROPOUT_MASKS (`name`: how the caller calls it)."""
    if mask not in DROPOUT_MASKS:
        raise ValueError(f"unknown {name} {mask!r}; valid: {', '.join(DROPOUT_MASKS)}")


def drop(x: torch.Tensor, p: float, mask: str = "torch") -> torch.Tensor:
    """`x` with each element zeroed with probability p (`mask` "bits": round(p x LEVELS) / LEVELS) and the others
    divided by the probability of keeping them; training-time dropout, whatever the caller's mode."""
    check_mask(mask)
    if mask == "torch":
        return F.dropout(x, p)
    dropped = round(p * LEVELS)
    if not 0 <= dropped < LEVELS:
        raise ValueError(f"dropout {p} drops {dropped} of {LEVELS} levels; valid: 0 <= p < {1 - 0.5 / LEVELS}")
    n = x.numel()
    words = torch.randint(-(1 << 63), (1 << 63) - 1, ((n + 3) // 4,), dtype=torch.int64, device=x.device)
    numbers = words.view(torch.int16)[:n].view(x.shape)  # uniform on -2^15 .. 2^15 - 1
    keep = numbers >= dropped - LEVELS // 2
    return x * (keep.to(x.dtype) * (LEVELS / (LEVELS - dropped)))


class Dropout(nn.Module):
    """`drop` in training mode, the identity in evaluation (as `nn.Dropout`)."""

    def __init__(self, p: float, mask: str = "torch"):
        super().__init__()
        check_mask(mask)
        if not 0.0 <= p < 1.0:
            raise ValueError(f"dropout {p} is not a probability in [0, 1)")
        self.p, self.mask = p, mask

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return drop(x, self.p, self.mask) if self.training and self.p else x

    def extra_repr(self) -> str:
        return f"p={self.p}, mask={self.mask}"
