"""Location attention (Dubois et al. 2020) and its OneStep / monotonic descendants (Chowdhury & Caragea 2023).

Positions are normalised, p_j = j / max(1, n - 1). At step t a Gaussian with centre mu_t and width sigma_t is
renormalised over the valid positions by its sum (as in the public code: where it underflows everywhere, far
from every position, the weights are all zero rather than a softmax's one-hot at the nearest position):
    l_t = f_l(h_{t-1});  sigma_t = (ReLU(w_s . l_t) + 0.27) / n   (the read-outs w of l_t have no bias)
    mu_t = reference_t + steps_t / max(1, n - 1)         (optionally leaky-clamped to [0, 1], slope 0.01)
`reference` (REFERENCES) and the step activation (STEPS) are what distinguish the mechanisms; pa_{t-1} is the
previously attended position sum_j a_{t-1,j} p_j (pa_0 = 0, the START vector).
"""

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from lengthgen.models.hooks import HookPoint
from lengthgen.registry import Registry

SOFTSTAIR_TEMPERATURE = 20.0
SIGMOID_SCALE = 5.0  # beta of the sigmoid step: sigmoid(5 rho)
CLAMP_SLOPE = 0.01
SUM_EPS = 1e-20  # added to every Gaussian value before summing: finite where all of them underflow


def softstair(x: torch.Tensor) -> torch.Tensor:
    """floor(x) + sigmoid(20 (x - floor(x) - 0.5)): pushes steps towards integers, stays differentiable."""
    floor = torch.floor(x)
    return floor + torch.sigmoid(SOFTSTAIR_TEMPERATURE * (x - floor - 0.5))


def leaky_clamp(x: torch.Tensor) -> torch.Tensor:
    """Identity on [0, 1], slope 0.01 outside it."""
    return torch.maximum(CLAMP_SLOPE * x, torch.minimum(1 + CLAMP_SLOPE * (x - 1), x))


class _Fixed(nn.Module):
    """A parameter-free step activation."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, rho: torch.Tensor) -> torch.Tensor:
        return self.fn(rho)


class GatedMonoStep(nn.Module):
    """MonoAttn: s * ReLU(rho) + (1 - s) * sigmoid(5 rho), s = sigmoid(b), b a learned scalar initialised to 20.

    As in the public code, b starts at 20, where sigmoid(20) rounds to exactly 1 in float32: s = 1, b receives a
    zero gradient and never moves, and the step is ReLU.
    """

    def __init__(self):
        super().__init__()
        self.gate = nn.Parameter(torch.tensor(20.0))
        self.hook_b = HookPoint()  # b, every step (a scalar: what training made of it)

    def forward(self, rho):
        s = torch.sigmoid(self.hook_b(self.gate))
        return s * F.relu(rho) + (1 - s) * torch.sigmoid(SIGMOID_SCALE * rho)


STEPS = Registry("step activation", {
    "softstair": lambda: _Fixed(softstair),
    "sigmoid": lambda: _Fixed(lambda r: torch.sigmoid(SIGMOID_SCALE * r)),
    "relu": lambda: _Fixed(F.relu),
    "identity": lambda: _Fixed(lambda r: r),
    "mono": GatedMonoStep,
})


def _learned(pa, gate, start, t):
    """LocAttn: sigmoid(g) * pa + sigmoid(b) (can ignore pa and jump anywhere)."""
    return torch.sigmoid(gate) * pa + torch.sigmoid(start)


def _first_learned(pa, gate, start, t):
    """LocAttn S: sigmoid(b) at the first step, then pa."""
    return torch.sigmoid(start) if t == 0 else pa


def _previous(pa, gate, start, t):
    """OneStep / Mono / RMono: pa."""
    return pa


REFERENCES = Registry("reference", {"learned": _learned, "first_learned": _first_learned, "previous": _previous})


@dataclass(frozen=True)
class LocationSpec:
    """One location-attention variant."""

    reference: str = "previous"  # key of REFERENCES
    step: str = "sigmoid"  # key of STEPS
    clamp: bool = False  # leaky-clamp the centre to [0, 1]
    min_sigma: float = 0.27  # minimum width, in units of 1/n


class Location(nn.Module):
    """Gaussian location attention over normalised positions (see module docstring)."""

    def __init__(self, spec: LocationSpec, d: int):
        super().__init__()
        self.spec = spec
        self.reference = REFERENCES[spec.reference]
        self.step_activation = STEPS[spec.step]()
        self.project = nn.Linear(d, d)  # l_t = f_l(h)
        self.heads = nn.Linear(d, 4, bias=False)  # sigma, step, gate, start: the scalar read-outs of l_t

    @staticmethod
    def constants(pos: torch.Tensor, n: torch.Tensor) -> dict:
        """Per-sequence tensors used at every step: positions, 1/n, the step size 1/max(1, n-1), and pa_0 = 0."""
        n = n.to(pos.dtype)
        return {"pos": pos, "inv_n": 1 / n, "stepsize": 1 / (n - 1).clamp(min=1), "pa": pos.new_zeros(pos.shape[0])}

    def forward(self, h: torch.Tensor, t: int, c: dict) -> torch.Tensor:
        """Location weights (B, S) at step t from h (B, D), the `constants` c and the padding bias c["bias"] (B, S)."""
        sigma, rho, gate, start = self.heads(self.project(h)).unbind(-1)  # each (B,)
        sigma = (F.relu(sigma) + self.spec.min_sigma) * c["inv_n"]
        mu = self.reference(c["pa"], gate, start, t) + self.step_activation(rho) * c["stepsize"]
        if self.spec.clamp:
            mu = leaky_clamp(mu)
        gauss = torch.exp((c["pos"] - mu[:, None]).square() * (-0.5 / sigma.square())[:, None] + c["bias"])  # (B, S)
        return gauss / (gauss + SUM_EPS).sum(-1, keepdim=True)

    @staticmethod
    def attended(weights: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        """pa_t = sum_j a_tj p_j, (B,)."""
        return (weights * pos).sum(-1)
