"""Normalizations applied to attention outputs O (B, D), exactly as written in the vanishing-variance paper.

Both divide by (sigma + eps) with the biased standard deviation over the D features, not sqrt(var + eps).
"""

import torch
from torch import nn

from lengthgen.registry import Registry

EPS = 1e-5


def standardize(x: torch.Tensor, eps: float = EPS) -> torch.Tensor:
    """(x - mean) / (std + eps) over the last dim, std biased (divide by D)."""
    mu = x.mean(-1, keepdim=True)
    sigma = (x - mu).pow(2).mean(-1, keepdim=True).sqrt()
    return (x - mu) / (sigma + eps)


class Standardize(nn.Module):
    """Paper's "+std.": standardization without learnable scale and shift."""

    def __init__(self, width: int):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return standardize(x)


class PaperLayerNorm(nn.Module):
    """Paper's "+LN": gamma * standardize(x) + beta with learnable gamma, beta in R^D."""

    def __init__(self, width: int):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(width))
        self.beta = nn.Parameter(torch.zeros(width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.gamma * standardize(x) + self.beta


class NoNorm(nn.Module):
    """Baseline: attention outputs go on unchanged."""

    def __init__(self, width: int):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x


NORMS = Registry("norm", {"baseline": NoNorm, "ln": PaperLayerNorm, "std": Standardize})
