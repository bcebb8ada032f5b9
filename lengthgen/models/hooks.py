"""Named hook points: identity modules that models call on intermediate tensors, so analyses can capture them."""

from collections.abc import Iterator
from contextlib import contextmanager

import torch
from torch import nn


class HookPoint(nn.Module):
    """Identity; a capture context records what passes through it under the module's name."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x


def hook_names(model: nn.Module) -> list[str]:
    """The names of every hook point in `model` (what it lets analyses read), in module order."""
    return [n for n, m in model.named_modules() if isinstance(m, HookPoint)]


@contextmanager
def capture(model: nn.Module, *names: str) -> Iterator[dict[str, list[torch.Tensor]]]:
    """Record the tensors passing through the named hook points while the context is open.

    Args:
        model: any module containing `HookPoint`s.
        names: hook-point names (as in `model.named_modules()`, listed by `hook_names`); none records nothing.

    Returns:
        A dict name -> list of detached tensors, one per call (several when evaluation is sub-batched).
    """
    points = {n: m for n, m in model.named_modules() if isinstance(m, HookPoint)}
    missing = [n for n in names if n not in points]
    if missing:
        raise KeyError(f"no hook point {missing}; valid: {', '.join(points)}")
    records: dict[str, list[torch.Tensor]] = {n: [] for n in names}
    handles = [
        points[n].register_forward_hook(lambda _m, _i, out, n=n: records[n].append(out.detach()))
        for n in names
    ]
    try:
        yield records
    finally:
        for h in handles:
            h.remove()
