"""Named hook points: identity modules that models call on intermediate tensors, so analyses can capture them."""

from collections.abc import Iterator
from contextlib import contextmanager

import torch
from torch import nn


class HookPoint(nn.Module):
    """Identity; a capture context records what passes through it under the module's name."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x


@contextmanager
def capture(model: nn.Module, *names: str) -> Iterator[dict[str, list[torch.Tensor]]]:
    """Record the tensors passing through the named hook points while the context is open.

    Args:
        model: any module containing `HookPoint`s.
        names: hook-point names (as in `model.named_modules()`); none means all of them.

    Returns:
        A dict name -> list of detached tensors, one per call (several when evaluation is sub-batched).
    """
    points = {n: m for n, m in model.named_modules() if isinstance(m, HookPoint)}
    wanted = names or tuple(points)
    missing = [n for n in wanted if n not in points]
    if missing:
        raise KeyError(f"no hook point {missing}; valid: {', '.join(points)}")
    records: dict[str, list[torch.Tensor]] = {n: [] for n in wanted}
    handles = [
        points[n].register_forward_hook(lambda _m, _i, out, n=n: records[n].append(out.detach()))
        for n in wanted
    ]
    try:
        yield records
    finally:
        for h in handles:
            h.remove()
