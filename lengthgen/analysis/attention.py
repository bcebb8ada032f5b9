"""Attention captured from a model's hook points: top-k weights (dispersion) and attention outputs."""

import torch

from lengthgen.models.hooks import capture


@torch.no_grad()
def probe_internals(model, batch) -> dict[str, torch.Tensor]:
    """Attention weights (B,N), outputs O (B,D) and normed outputs (B,D) of the probe on one batch."""
    with capture(model, "hook_weights", "hook_out", "hook_normed") as rec:
        model(batch)
    return {"weights": rec["hook_weights"][0], "outputs": rec["hook_out"][0], "normed": rec["hook_normed"][0]}


def top_k(weights: torch.Tensor, k: int) -> torch.Tensor:
    """The k largest attention weights of each row, in decreasing order (B, k)."""
    return weights.topk(min(k, weights.shape[-1]), dim=-1).values
