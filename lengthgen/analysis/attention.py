"""Attention captured from a model's hook points: top-k weights (dispersion) and attention outputs."""

import torch

from lengthgen.models.hooks import capture
from lengthgen.train.evaluate import sub_batches


@torch.no_grad()
def probe_internals(model, batch) -> dict[str, torch.Tensor]:
    """Attention weights (B,N), outputs O (B,D) and normed outputs (B,D) of the probe, in memory-bounded parts."""
    names = {"weights": "hook_weights", "outputs": "hook_out", "normed": "hook_normed"}
    with capture(model, *names.values()) as rec:
        for part in sub_batches(batch, model.width):
            model(part)
    return {key: torch.cat(rec[hook]) for key, hook in names.items()}


def top_k(weights: torch.Tensor, k: int) -> torch.Tensor:
    """The k largest attention weights of each row, in decreasing order (B, k)."""
    return weights.topk(min(k, weights.shape[-1]), dim=-1).values
