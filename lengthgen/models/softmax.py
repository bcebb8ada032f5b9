"""The test-time adaptive temperature of Velickovic et al. 2024 (`attention.softmax(scores, adaptive=True)` uses it)."""

import torch

# Degree-4 fit of the inverse temperature beta as a function of the entropy H (highest power first).
ADAPTIVE_COEFFS = (-0.037, 0.481, -2.3, 4.917, -1.791)


def entropy(logits: torch.Tensor) -> torch.Tensor:
    """H = -sum p log(p + 1e-9) of softmax(logits) over the last dim."""
    p = logits.softmax(-1)
    return -(p * (p + 1e-9).log()).sum(-1)


def adaptive_beta(logits: torch.Tensor) -> torch.Tensor:
    """Inverse temperature per row: max(poly(H), 1) where H > 0.5, else 1. Shape: logits (..., S) -> (...)."""
    h = entropy(logits)
    beta = torch.zeros_like(h)
    for c in ADAPTIVE_COEFFS:  # Horner's rule, as numpy.polyval
        beta = beta * h + c
    return torch.where(h > 0.5, beta.clamp_min(1.0), torch.ones_like(h))
