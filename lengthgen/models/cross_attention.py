"""Decoder-to-encoder (cross) attention mechanisms of the GRU seq2seq model, and the CROSS_ATTENTION registry.

A mechanism is assembled from parts named in an `AttentionSpec`:
  * a content scorer (`SCORERS`: content, relative, rope) or none,
  * optional direction mixing ("Bi-"): keys/values from g*e + (1-g)*reverse(e), g = sigmoid(5 f(e_cls)),
  * optional location attention (`models/location.py`): a Gaussian around a centre that moves by learned steps,
  * mixing of the two (a = m * location + (1 - m) * content), with the previous attended position taken from the
    mixed (default) or the location-only distribution (PR).
Every step maps the decoder state h_{t-1} (B, D) to a context (B, D) and weights (B, S) over valid positions.
The scores, padding, softmax and weighted sum are the pieces of `models/attention.py`; sinusoids and rotations come
from `models/positional.py`, the query's position id being the decoder step.
Hook points: `weights` (B, S) every step; `direction_gate` (B, 1, 1) once per sequence, where direction mixing is on.
"""

from dataclasses import dataclass

import torch
from torch import nn

from lengthgen.models.attention import attend, padding_bias, softmax, step_scores
from lengthgen.models.hooks import HookPoint
from lengthgen.models.location import Location, LocationSpec
from lengthgen.models.positional import Rotary, sinusoid
from lengthgen.registry import Registry


@dataclass
class Memory:
    """The encoded source as every mechanism sees it.

    Attributes:
        enc: (B, S, D) encodings including the learned START (position 0) and END (position n-1) vectors.
        mask: (B, S) True at valid positions.
        n: (B,) number of valid positions.
        cls: (B, D) summary of the sequence (final forward and backward GRU states).
    """

    enc: torch.Tensor
    mask: torch.Tensor
    n: torch.Tensor
    cls: torch.Tensor

    def reversed(self) -> torch.Tensor:
        """enc with the valid positions of each sequence in reverse order (padding stays in place)."""
        return self.enc.gather(1, reverse_index(self.n, self.enc.shape[1])[:, :, None].expand_as(self.enc))

    def positions(self) -> torch.Tensor:
        """(B, S) normalised positions j / max(1, n - 1), in [0, 1] on valid positions."""
        j = torch.arange(self.enc.shape[1], device=self.enc.device, dtype=self.enc.dtype)
        return j[None, :] / (self.n[:, None] - 1).clamp(min=1)


def reverse_index(n: torch.Tensor, S: int) -> torch.Tensor:
    """(B, S): position j -> n - 1 - j on the n valid positions of each sequence, j on padding."""
    j = torch.arange(S, device=n.device)
    return torch.where(j[None, :] < n[:, None], n[:, None] - 1 - j, j)


def on_source(weights: torch.Tensor, gate: torch.Tensor | None, n: torch.Tensor) -> torch.Tensor:
    """Weights (B, T, S) over the attended (possibly direction-mixed) positions -> over the source positions.

    With direction mixing (gate g (B, 1, 1), as captured from the `direction_gate` hook point), position j holds
    g e_j + (1 - g) e_{n-1-j}, so source position i receives g a_i + (1 - g) a_{n-1-i}; without it (gate None) the
    weights are already on the source positions. n (B,): valid positions.
    """
    if gate is None:
        return weights
    idx = reverse_index(n, weights.shape[-1])[:, None, :].expand_as(weights)  # (B, T, S)
    return gate * weights + (1 - gate) * weights.gather(2, idx)


class ContentScorer(nn.Module):
    """Scaled dot product <W_q h, W_k e_j> / sqrt(D)."""

    def __init__(self, d: int):
        super().__init__()
        self.query = nn.Linear(d, d, bias=False)
        self.key = nn.Linear(d, d, bias=False)
        self.scale = d**-0.5

    def prepare(self, enc: torch.Tensor, max_steps: int) -> dict:
        """Per-sequence tensors for up to `max_steps` query steps."""
        return {"keys": self.key(enc)}  # (B, S, D)

    def forward(self, h: torch.Tensor, t: int, pre: dict) -> torch.Tensor:
        """Scores (B, S) of step t for the decoder state h (B, D)."""
        return step_scores(pre["keys"], self.query(h)) * self.scale


class RelativeScorer(ContentScorer):
    """Transformer-XL style: (<q + u, k_j> + <q + v, W_r pe(j - t)>) / sqrt(D), pe sinusoidal."""

    def __init__(self, d: int):
        super().__init__(d)
        self.u = nn.Parameter(torch.zeros(d))
        self.v = nn.Parameter(torch.zeros(d))
        self.rel = nn.Linear(d, d, bias=False)

    def prepare(self, enc, max_steps):
        # row i of the table holds distance i - max_steps, so distance j - t of step t is row max_steps + j - t
        table = self.rel(sinusoid(torch.arange(-max_steps, enc.shape[1], device=enc.device), enc.shape[2]))
        return {"keys": self.key(enc), "table": table, "offset": max_steps}  # table (max_steps + S, D)

    def forward(self, h, t, pre):
        q = self.query(h)  # (B, D)
        S = pre["keys"].shape[1]
        start = pre["offset"] - t
        rel = pre["table"][start: start + S]  # (S, D): distances -t .. S-1-t
        content = step_scores(pre["keys"], q + self.u)  # (B, S)
        return (content + (q + self.v) @ rel.T) * self.scale


class RopeScorer(ContentScorer):
    """Rotary: the query rotated by its position id, the decoder step t; key j by its position j."""

    def __init__(self, d: int):
        super().__init__(d)
        self.rope = Rotary(d)

    def prepare(self, enc, max_steps):
        return {"keys": self.rope.rotate(self.key(enc), torch.arange(enc.shape[1], device=enc.device))}  # (B, S, D)

    def forward(self, h, t, pre):
        q = self.rope.rotate(self.query(h), torch.tensor(t, device=h.device))  # (B, D)
        return step_scores(pre["keys"], q) * self.scale


SCORERS = Registry("content scorer", {"content": ContentScorer, "relative": RelativeScorer, "rope": RopeScorer})


@dataclass(frozen=True)
class AttentionSpec:
    """The parts of one cross-attention mechanism."""

    scorer: str | None = "content"  # key of SCORERS, or None for location-only attention
    bidirectional: bool = False  # keys/values from the gated mix of forward and reversed encodings
    location: LocationSpec | None = None  # location attention (None: content only)
    mix: bool = False  # a = m * location + (1 - m) * content (needs scorer and location)
    pr: bool = False  # previous attended position from the location-only distribution (only with mix)

    def describe(self) -> dict[str, str]:
        """The parts as short texts ("" where a part is absent), for tables and `lengthgen list`."""
        loc = self.location
        return {"scorer": self.scorer or "", "direction mixing": "yes" if self.bidirectional else "",
                "reference": loc.reference if loc else "", "step": loc.step if loc else "",
                "clamp": "yes" if loc and loc.clamp else "", "mix": "yes" if self.mix else "",
                "PR": "yes" if self.pr else ""}


class CrossAttention(nn.Module):
    """One-head cross-attention assembled from an `AttentionSpec`.

    Usage: `state = attn.prepare(memory, max_steps)`, then per step `ctx, weights = attn.step(h, t, state)`.
    """

    def __init__(self, spec: AttentionSpec, d: int):
        super().__init__()
        if spec.mix and (spec.scorer is None or spec.location is None):
            raise ValueError("mixing needs both a content scorer and location attention")
        self.spec = spec
        self.scorer = SCORERS[spec.scorer](d) if spec.scorer else None
        self.location = Location(spec.location, d) if spec.location else None
        self.direction = nn.Linear(d, 1) if spec.bidirectional else None
        self.mixer = nn.Linear(d, 1) if spec.mix else None
        # Values: LeakyReLU(Linear) then the bias-free value projection, then the bias-free output projection that
        # the public code applies to the context. The weights sum to one, so projecting the values before attending
        # gives the same context, computed once per sequence instead of once per step.
        self.value = nn.Sequential(nn.Linear(d, d), nn.LeakyReLU(), nn.Linear(d, d, bias=False),
                                   nn.Linear(d, d, bias=False))
        self.weights = HookPoint()  # (B, S) attention weights of each step
        self.direction_gate = HookPoint() if spec.bidirectional else None  # (B, 1, 1) once per sequence
        for m in self.modules():  # Glorot-uniform weights for the projections, as in the public code, whose
            if isinstance(m, nn.Linear) and m is not self.direction:  # direction gate keeps torch's default
                nn.init.xavier_uniform_(m.weight)

    def gate(self, memory: Memory) -> torch.Tensor:
        """The direction gate g = sigmoid(5 f(e_cls)), (B, 1, 1): 1 keeps the encodings, 0 reverses them."""
        return self.direction_gate(torch.sigmoid(5 * self.direction(memory.cls))[:, :, None])

    def prepare(self, memory: Memory, max_steps: int) -> dict:
        """Per-sequence precomputation for up to `max_steps` steps; returns the step state."""
        enc = memory.enc
        if self.direction is not None:
            g = self.gate(memory)
            enc = g * enc + (1 - g) * memory.reversed()
        state = {"values": self.value(enc), "bias": padding_bias(memory.mask, enc.dtype)}  # (B, S, D); (B, S)
        if self.scorer is not None:
            state["scorer"] = self.scorer.prepare(enc, max_steps)
        if self.location is not None:  # pa_0 = 0: the START vector
            state |= self.location.constants(memory.positions(), memory.n)
        return state

    def step(self, h: torch.Tensor, t: int, state: dict) -> tuple[torch.Tensor, torch.Tensor]:
        """One decoder step: h (B, D) = h_{t-1} -> context (B, D), weights (B, S); updates state["pa"]."""
        if self.scorer is not None:
            content = softmax(self.scorer(h, t, state["scorer"]) + state["bias"])  # (B, S)
        if self.location is None:
            weights = content
        else:
            loc = self.location(h, t, state)  # (B, S)
            weights = loc
            if self.mixer is not None:
                m = torch.sigmoid(self.mixer(h))  # (B, 1)
                weights = m * loc + (1 - m) * content
            state["pa"] = self.location.attended(loc if self.spec.pr else weights, state["pos"])
        weights = self.weights(weights)
        return attend(weights[:, None, :], state["values"])[:, 0], weights  # (B, 1, S) x (B, S, D) -> (B, D)


def _loc(**kw) -> LocationSpec:
    return LocationSpec(**kw)


LOCATTN = _loc(reference="learned", step="softstair", clamp=True)
LOCATTN_S = _loc(reference="first_learned", step="softstair", clamp=True)
ONESTEP = _loc(reference="previous", step="sigmoid")
MONO = _loc(reference="previous", step="mono")
RMONO = _loc(reference="previous", step="relu")

CROSS_ATTENTION = Registry("cross-attention mechanism", {
    "content": AttentionSpec(),
    "relative": AttentionSpec(scorer="relative"),
    "bi_relative": AttentionSpec(scorer="relative", bidirectional=True),
    "bi_rope": AttentionSpec(scorer="rope", bidirectional=True),
    "locattn": AttentionSpec(scorer=None, location=LOCATTN),
    "locattn_s": AttentionSpec(scorer=None, location=LOCATTN_S),
    "mix_locattn": AttentionSpec(location=LOCATTN, mix=True),
    "mix_locattn_s": AttentionSpec(location=LOCATTN_S, mix=True),
    "mix_locattn_s_pr": AttentionSpec(location=LOCATTN_S, mix=True, pr=True),
    "onestep": AttentionSpec(scorer=None, bidirectional=True, location=ONESTEP),
    "mix_onestep": AttentionSpec(bidirectional=True, location=ONESTEP, mix=True),
    "mix_onestep_pr": AttentionSpec(bidirectional=True, location=ONESTEP, mix=True, pr=True),
    "mono": AttentionSpec(scorer=None, bidirectional=True, location=MONO),
    "mix_mono": AttentionSpec(bidirectional=True, location=MONO, mix=True),
    "mix_mono_pr": AttentionSpec(bidirectional=True, location=MONO, mix=True, pr=True),
    "rmono": AttentionSpec(scorer=None, bidirectional=True, location=RMONO),
    "mix_rmono": AttentionSpec(bidirectional=True, location=RMONO, mix=True),
    "mix_rmono_pr": AttentionSpec(bidirectional=True, location=RMONO, mix=True, pr=True),
    # OneStep ablations (Table 4): LocAttn's reference (and, as in the public code, its clamp), softstair steps,
    # or raw (identity) steps.
    "onestep_no_step2": AttentionSpec(scorer=None, bidirectional=True, location=_loc(reference="learned",
                                                                                      step="sigmoid", clamp=True)),
    "onestep_no_step3": AttentionSpec(scorer=None, bidirectional=True, location=_loc(reference="previous",
                                                                                      step="softstair")),
    "onestep_no_sigmoid": AttentionSpec(scorer=None, bidirectional=True, location=_loc(reference="previous",
                                                                                        step="identity")),
    # What the public code runs for its "Mix OneStep/Mono/RMono (PR)" configs: a location-only flag overrides
    # mixing, so they are the unmixed mechanisms (PR is then a no-op). Kept so that their rows can be re-run.
    "mix_onestep_code": AttentionSpec(scorer=None, bidirectional=True, location=ONESTEP),
    "mix_mono_code": AttentionSpec(scorer=None, bidirectional=True, location=MONO),
    "mix_rmono_code": AttentionSpec(scorer=None, bidirectional=True, location=RMONO),
})
