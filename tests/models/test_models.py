import math

import pytest
import torch

from lengthgen.errors import LengthgenError
from lengthgen.models import MODELS, AttentionProbe, ProbeConfig, Seq2SeqConfig, build_model
from lengthgen.models.attention import softmax
from lengthgen.models.hooks import capture
from lengthgen.models.norms import NORMS, standardize
from lengthgen.models.softmax import adaptive_beta, entropy
from lengthgen.seeding import init_model
from lengthgen.tasks import TASKS


def test_standardize_hand_computed():
    x = torch.tensor([[1.0, 2.0, 3.0, 6.0]])  # mean 3, biased var (4+1+0+9)/4 = 3.5
    sigma = math.sqrt(3.5)
    expected = torch.tensor([[-2.0, -1.0, 0.0, 3.0]]) / (sigma + 1e-5)
    assert torch.allclose(standardize(x), expected, atol=1e-6)


def test_paper_layernorm_applies_gamma_beta_and_std_has_no_parameters():
    x = torch.tensor([[1.0, 2.0, 3.0, 6.0]])
    ln = NORMS["ln"](4)
    with torch.no_grad():
        ln.gamma.copy_(torch.tensor([1.0, 2.0, 3.0, 4.0]))
        ln.beta.copy_(torch.tensor([0.5, 0.0, -0.5, 1.0]))
    assert torch.allclose(ln(x), ln.gamma * standardize(x) + ln.beta)
    assert list(NORMS["std"](4).parameters()) == []
    assert torch.equal(NORMS["baseline"](4)(x), x)


def test_adaptive_beta_hand_computed():
    # Uniform over 4 items: H = log 4 = 1.3863 > 0.5; polyval gives 1.7501 by hand.
    h = math.log(4)
    poly = -0.037 * h**4 + 0.481 * h**3 - 2.3 * h**2 + 4.917 * h - 1.791
    assert abs(poly - 1.7501) < 1e-3
    logits = torch.zeros(1, 4)
    assert torch.allclose(entropy(logits), torch.tensor([h]), atol=1e-6)
    assert torch.allclose(adaptive_beta(logits), torch.tensor([poly]), atol=1e-5)


def test_adaptive_beta_is_one_for_sharp_attention_and_never_below_one():
    sharp = torch.tensor([[10.0, 0.0, 0.0]])  # entropy ~ 0.001 < 0.5
    assert adaptive_beta(sharp).item() == 1.0
    wide = torch.zeros(1, 10_000)  # H = log(1e4) = 9.2: the polynomial is negative there, clamped to 1
    assert adaptive_beta(wide).item() == 1.0
    logits = torch.randn(50, 30)
    assert torch.all(adaptive_beta(logits) >= 1.0)
    assert torch.allclose(softmax(logits, True).sum(-1), torch.ones(50))


@pytest.mark.parametrize("task_name", ["argmax", "dictionary"])
@pytest.mark.parametrize("norm", ["baseline", "ln", "std"])
def test_probe_shapes_weights_and_order_invariance(task_name, norm):
    task = TASKS[task_name]()
    model = init_model(AttentionProbe, task, ProbeConfig(width=16, embed_dim=8, norm=norm), seed=0).eval()
    batch = task.sample(5, 12, torch.Generator().manual_seed(0))
    with capture(model, "attention.hook_pattern", "attention.hook_output") as rec:
        out = model(batch)
    assert out.shape == (5, task.n_classes)
    assert torch.allclose(rec["attention.hook_pattern"][0].sum(-1), torch.ones(5, 1, 1))  # (B, H=1, T=1, N)
    assert rec["attention.hook_output"][0].shape == (5, 1, 1, 16)
    perm = torch.randperm(12, generator=torch.Generator().manual_seed(1))
    shuffled = type(batch)(batch.items[:, perm], batch.query, batch.target)
    assert torch.allclose(model(shuffled), out, atol=1e-5)  # sets: item order must not matter


def test_init_is_seeded_and_leaves_global_rng_alone():
    task = TASKS["argmax"]()
    torch.manual_seed(123)
    before = torch.random.get_rng_state()
    a = init_model(AttentionProbe, task, ProbeConfig(width=8), seed=4)
    assert torch.equal(torch.random.get_rng_state(), before)
    b = init_model(AttentionProbe, task, ProbeConfig(width=8), seed=4)
    c = init_model(AttentionProbe, task, ProbeConfig(width=8), seed=5)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters(), strict=True))
    assert not torch.equal(a.query, c.query)


def test_capture_rejects_unknown_hook_and_model_registry():
    model = AttentionProbe(TASKS["argmax"](), ProbeConfig(width=8))
    with pytest.raises(KeyError, match="attention.hook_pattern"), capture(model, "nope"):
        pass
    assert MODELS["probe"].config is ProbeConfig
    assert isinstance(MODELS["probe"].build(ProbeConfig(width=8), TASKS["argmax"]()), AttentionProbe)


def test_build_model_is_seeded_on_the_cpu_and_checks_its_config():
    task = TASKS["copy"]()
    a = build_model("gru_seq2seq", Seq2SeqConfig(attention="mono"), task, seed=3, device="cpu")
    b = build_model("gru_seq2seq", Seq2SeqConfig(attention="mono"), task, seed=3)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters(), strict=True))
    assert a.embedding.num_embeddings == len(task.vocab)
    with pytest.raises(LengthgenError, match="takes a Seq2SeqConfig, not a ProbeConfig"):
        build_model("gru_seq2seq", ProbeConfig(), task, seed=0)
    with pytest.raises(LengthgenError, match="valid: probe, gru_seq2seq"):
        build_model("transformer9", ProbeConfig(), task, seed=0)
