"""Cross-attention mechanisms: distributions over valid positions, hand-set steps, direction gate, mixing, PR."""

import pytest
import torch

from lengthgen.models.cross_attention import CROSS_ATTENTION, CrossAttention, Memory, on_source
from lengthgen.models.hooks import capture, hook_names
from lengthgen.models.location import leaky_clamp, softstair

D = 16


def memory(lengths=(3, 6, 1), d=D, seed=0) -> Memory:
    """Random encodings with START/END: n = length + 2 valid positions per sequence."""
    g = torch.Generator().manual_seed(seed)
    n = torch.tensor(lengths) + 2
    S = int(n.max())
    enc = torch.randn(len(lengths), S, d, generator=g)
    mask = torch.arange(S)[None, :] < n[:, None]
    return Memory(enc * mask[:, :, None], mask, n, torch.randn(len(lengths), d, generator=g))


def build(name: str, seed=0) -> CrossAttention:
    torch.manual_seed(seed)
    return CrossAttention(CROSS_ATTENTION[name], D)


def run(attn: CrossAttention, mem: Memory, steps: int, h=None):
    """Weights (B, steps, S) and pa after each step, with fixed or random decoder states."""
    state = attn.prepare(mem, steps)
    g = torch.Generator().manual_seed(1)
    ws, pas = [], []
    for t in range(steps):
        ht = h if h is not None else torch.randn(mem.enc.shape[0], D, generator=g)
        _, w = attn.step(ht, t, state)
        ws.append(w)
        pas.append(state.get("pa"))
    return torch.stack(ws, 1), pas


def set_heads(attn, sigma=-10.0, step=0.0, gate=0.0, start=0.0):
    """Make the location read-outs constant (sigma -10 -> its minimum): l_t = e_0 whatever h, read out as given."""
    with torch.no_grad():
        attn.location.project.weight.zero_()
        attn.location.project.bias.zero_()
        attn.location.project.bias[0] = 1.0
        attn.location.heads.weight.zero_()
        attn.location.heads.weight[:, 0] = torch.tensor([sigma, step, gate, start])


def set_direction(attn, forward: bool):
    with torch.no_grad():
        attn.direction.weight.zero_()
        attn.direction.bias.fill_(10.0 if forward else -10.0)


@pytest.mark.parametrize("name", list(CROSS_ATTENTION))
def test_weights_are_distributions_over_valid_positions(name):
    mem = memory()
    attn = build(name)
    w, _ = run(attn, mem, steps=7)
    assert (w >= 0).all() and (w[~mem.mask[:, None, :].expand_as(w)] < 1e-6).all()
    if attn.location is None:
        assert torch.allclose(w.sum(-1), torch.ones(w.shape[:2]), atol=1e-5)
        return
    # location weights are a Gaussian divided by its sum: they sum to 1 unless the Gaussian underflows everywhere
    # (random read-outs can send mu far outside [0, 1]); with the centre kept inside [0, 1] they always do
    assert (w.sum(-1) <= 1 + 1e-5).all()
    set_heads(attn)  # read-outs 0: mu moves at most half a position past pa (<= 1), or to 0.5 pa + 0.5 (learned)
    w, _ = run(attn, mem, steps=7)
    assert torch.allclose(w.sum(-1), torch.ones(w.shape[:2]), atol=1e-5)


def test_location_weights_vanish_far_from_every_position_and_pa_restarts():
    """As in the public code: a centre far beyond END gives all-zero weights, so pa (and the context) fall to 0."""
    attn = build("onestep_no_sigmoid")
    set_heads(attn, step=1000.0)  # identity step: mu = pa + 1000 / (n - 1)
    set_direction(attn, forward=True)
    w, pas = run(attn, memory(lengths=(5,)), steps=3)
    assert torch.equal(w, torch.zeros_like(w)) and all(bool((pa == 0).all()) for pa in pas)


def test_code_faithful_mix_variants_are_the_unmixed_mechanisms():
    for name in ("onestep", "mono", "rmono"):
        assert CROSS_ATTENTION[f"mix_{name}_code"] == CROSS_ATTENTION[name]
        assert CROSS_ATTENTION[f"mix_{name}"].mix and CROSS_ATTENTION[f"mix_{name}"].scorer == "content"


def test_softstair_and_leaky_clamp_by_hand():
    x = torch.tensor([1.5, 2.9, -0.5])
    expected = torch.tensor([1.5, 2 + torch.sigmoid(torch.tensor(8.0)).item(), -1 + 0.5])
    assert torch.allclose(softstair(x), expected)
    assert torch.allclose(leaky_clamp(torch.tensor([-1.0, 0.3, 1.5])), torch.tensor([-0.01, 0.3, 1.005]))


def test_memory_reversal_respects_padding():
    mem = memory(lengths=(1, 3))
    rev = mem.reversed()
    assert torch.equal(rev[0, :3], mem.enc[0, [2, 1, 0]]) and torch.equal(rev[0, 3:], mem.enc[0, 3:])
    assert torch.equal(rev[1], mem.enc[1, [4, 3, 2, 1, 0]])
    assert torch.allclose(mem.positions()[0, :3], torch.tensor([0.0, 0.5, 1.0]))


@pytest.mark.parametrize("name,step,stride", [("onestep", 10.0, 1), ("onestep", -10.0, 0), ("rmono", 2.0, 2),
                                              ("mono", 2.0, 2), ("onestep_no_sigmoid", 2.0, 2),
                                              ("onestep_no_step3", 1.2, 1)])
def test_location_moves_by_the_step_it_predicts(name, step, stride):
    attn = build(name)
    set_heads(attn, step=step)
    set_direction(attn, forward=True)
    mem = memory(lengths=(12,))
    w, pas = run(attn, mem, steps=5)
    peaks = w[0].argmax(-1).tolist()
    assert peaks == [min(stride * (t + 1), 13) for t in range(5)]  # from pa_0 = 0 (START)
    assert w[0].max(-1).values.min() > 0.99  # minimum width: one position
    assert all(b >= a for a, b in zip(pas, pas[1:], strict=False))  # monotone


def test_direction_gate_reverses_the_values():
    mem = memory(lengths=(5,))
    for forward in (True, False):
        attn = build("onestep")
        set_heads(attn, step=10.0)
        set_direction(attn, forward)
        state = attn.prepare(mem, 3)
        ctx, _ = attn.step(torch.zeros(1, D), 0, state)
        source = mem.enc[0, 1] if forward else mem.enc[0, 5]  # first token, or last token (before END)
        assert torch.allclose(ctx[0], attn.value(source), atol=2e-3)  # neighbours keep weights ~1e-4


def test_locattn_reference_and_locattn_s_first_step():
    mem = memory(lengths=(8,))
    attn = build("locattn")
    set_heads(attn, step=0.0, gate=-20.0, start=20.0)  # ignore pa, b = 1: attend END, always
    w, _ = run(attn, mem, steps=3)
    assert w[0].argmax(-1).tolist() == [9, 9, 9]
    s_attn = build("locattn_s")
    set_heads(s_attn, step=-0.6, gate=-20.0, start=20.0)  # b = 1 at t = 0, then pa + softstair(-0.6) = pa - 1
    w, _ = run(s_attn, mem, steps=3)
    assert w[0].argmax(-1).tolist() == [8, 7, 6]


def test_step2_ablation_keeps_locattn_clamp():
    """-Step 2 (public code): LocAttn's reference sigma(g) pa + sigma(b) and its leaky clamp, so a centre pushed past
    END stays there instead of leaving every position (which would zero the weights)."""
    attn = build("onestep_no_step2")
    set_heads(attn, step=10.0, gate=20.0, start=20.0)  # mu = pa + 1 + 1/(n-1) before the clamp
    set_direction(attn, forward=True)
    w, _ = run(attn, memory(lengths=(8,)), steps=3)
    assert w[0].argmax(-1).tolist() == [9, 9, 9] and torch.allclose(w.sum(-1), torch.ones(1, 3), atol=1e-5)


@pytest.mark.parametrize("name", ["mix_onestep", "mix_onestep_pr"])
def test_mixing_and_pr(name):
    mem = memory(lengths=(6,))
    attn = build(name)
    set_heads(attn, step=10.0)
    with torch.no_grad():
        attn.mixer.weight.zero_()
        attn.mixer.bias.fill_(0.0)  # m = 0.5
    state = attn.prepare(mem, 3)
    h = torch.randn(1, D)
    loc = attn.location(h, 0, state)
    content = torch.softmax(attn.scorer(h, 0, state["scorer"]) + state["bias"], -1)
    _, w = attn.step(h, 0, state)
    assert torch.allclose(w, 0.5 * loc + 0.5 * content, atol=1e-6)
    followed = loc if name.endswith("_pr") else w  # PR: pa from the location-only distribution
    assert torch.allclose(state["pa"], (followed * state["pos"]).sum(-1))
    assert not torch.allclose((loc * state["pos"]).sum(-1), (w * state["pos"]).sum(-1))


def test_relative_and_rope_scores_depend_on_distance_only():
    mem = memory(lengths=(10,))
    for name in ("relative", "bi_rope"):
        attn = build(name)
        with torch.no_grad():
            attn.scorer.key.weight.copy_(torch.eye(D) if name == "bi_rope" else torch.zeros(D, D))
        enc = torch.ones_like(mem.enc) if name == "bi_rope" else mem.enc
        pre = attn.scorer.prepare(enc, 6)
        h = torch.randn(1, D)
        s0, s1 = attn.scorer(h, 0, pre)[0], attn.scorer(h, 1, pre)[0]
        assert torch.allclose(s0[:-1], s1[1:], atol=1e-4)  # shift query and key by one: same score


def test_on_source_maps_mixed_positions_back():
    mem = memory(lengths=(4, 2))
    attn = build("onestep")
    weights = torch.softmax(torch.randn(2, 3, mem.enc.shape[1]) + torch.where(mem.mask, 0.0, -1e9)[:, None], -1)
    for forward in (True, False):
        set_direction(attn, forward)
        with capture(attn, "direction_gate") as rec:
            attn.prepare(mem, 3)
        out = on_source(weights, rec["direction_gate"][0], mem.n)
        expected = weights if forward else torch.stack([weights[0, :, [5, 4, 3, 2, 1, 0]],
                                                        weights[1, :, [3, 2, 1, 0, 4, 5]]])
        assert torch.allclose(out, expected, atol=1e-4)
    assert on_source(weights, None, mem.n) is weights
    assert "direction_gate" not in hook_names(build("content"))  # no direction mixing: no gate to capture


def test_mono_gate_gets_no_gradient_at_its_initial_value():
    """b = 20: sigmoid(b) is exactly 1 in float32, so MonoAttn's step is ReLU and b never moves (chapter, section 2)."""
    attn = build("mono")
    w, _ = run(attn, memory(), steps=4)
    (w * torch.arange(w.shape[-1])).sum().backward()
    gate = attn.location.step_activation.gate
    assert gate.grad is not None and gate.grad.item() == 0.0
    assert attn.location.project.weight.grad.abs().sum() > 0  # the rest of the read-out does learn

