"""The ABC public code's regime in the transformer: dropout on the attention weights and inside the feed-forward layer,
Xavier token embeddings; each off by default, and off means the model of before, bit for bit."""

import math

import pytest
import torch
import torch.nn.functional as F

from lengthgen.config import config_key
from lengthgen.data import EOS, Seq2SeqBatch
from lengthgen.models.attention import MultiHeadAttention
from lengthgen.models.hooks import capture
from lengthgen.models.transformer import EncoderDecoder, TransformerConfig

G = torch.Generator().manual_seed(0)


def seq2seq(**kw) -> EncoderDecoder:
    torch.manual_seed(0)
    cfg = TransformerConfig(width=16, heads=2, layers=2, encoder_layers=0, ff=32, post_ln=True,
                            positional="sinusoidal", max_positions=16, embed_scale=4.0, **kw)
    return EncoderDecoder(cfg, 14)


def batch() -> Seq2SeqBatch:
    src = torch.randint(4, 14, (5, 7), generator=G)
    tgt = torch.cat([torch.randint(4, 14, (5, 6), generator=G), torch.full((5, 1), EOS)], 1)
    return Seq2SeqBatch(src, torch.full((5,), 7), tgt, torch.full((5,), 7))


def test_the_new_fields_at_their_defaults_are_the_model_of_before():
    plain, explicit = seq2seq(), seq2seq(attention_dropout=0.0, ff_dropout=0.0, embed_init="normal")
    assert config_key(plain.cfg) == config_key(explicit.cfg)  # no stored key changes
    assert [type(m).__name__ for m in plain.decoder.blocks[0].ff] == ["Linear", "GELU", "Linear"]
    state = plain.state_dict()
    assert all(torch.equal(state[k], v) for k, v in explicit.state_dict().items())
    b = batch()
    with_noise = seq2seq(dropout=0.3, attention_dropout=0.3, ff_dropout=0.3)
    assert list(with_noise.state_dict()) == list(state)  # the same names: checkpoints load either way
    rng = torch.random.get_rng_state()
    trained_mode = plain.train().loss(b)
    assert torch.equal(torch.random.get_rng_state(), rng)  # no dropout: nothing drawn in training mode
    assert torch.equal(trained_mode, plain.eval().loss(b))  # and training mode computes what eval mode does


def test_attention_dropout_drops_the_weights_the_hooks_see_and_rescales_the_rest():
    attn = MultiHeadAttention(8, 8, 8, heads=2, dropout=0.5).train()
    query, keys = torch.randn(2, 4, 8, generator=G), torch.randn(2, 6, 8, generator=G)
    torch.manual_seed(3)
    with capture(attn, "hook_pattern") as rec:
        out = attn(query, keys)
    pattern = rec["hook_pattern"][0]
    assert torch.allclose(pattern.sum(-1), torch.ones(2, 2, 4))  # the hook sees the weights before dropout
    torch.manual_seed(3)
    dropped = F.dropout(pattern, 0.5)  # the same draws
    values = attn.w_v(keys).view(2, 6, 2, 4).transpose(1, 2)  # (B, S, D) -> (B, H, S, D/H)
    expected = (dropped @ values).transpose(1, 2).reshape(2, 4, 8)  # (B, H, T, D/H) -> (B, T, D)
    assert torch.allclose(out, expected, atol=1e-6)
    assert 0.3 < float((dropped == 0).float().mean()) < 0.7
    assert torch.allclose(dropped[dropped != 0], 2 * pattern[dropped != 0])  # the kept weights, rescaled by 1 / 0.5
    plain = MultiHeadAttention(8, 8, 8, heads=2)
    plain.load_state_dict(attn.state_dict())
    assert torch.equal(attn.eval()(query, keys), plain(query, keys))  # eval mode: no dropout


def test_fused_attention_dropout_follows_the_global_seed_and_only_in_training():
    attn = MultiHeadAttention(8, 8, 8, heads=2, fused=True, dropout=0.3).train()
    query, keys = torch.randn(2, 5, 8, generator=G), torch.randn(2, 5, 8, generator=G)
    torch.manual_seed(1)
    a = attn(query, keys, causal=True)
    torch.manual_seed(1)
    b = attn(query, keys, causal=True)
    assert torch.equal(a, b) and not torch.allclose(a, attn.eval()(query, keys, causal=True))
    with pytest.raises(ValueError, match="not a probability"):
        MultiHeadAttention(8, 8, 8, dropout=1.0)


def test_a_model_with_dropout_everywhere_trains_noisily_and_tests_deterministically():
    model, b = seq2seq(dropout=0.3, attention_dropout=0.3, ff_dropout=0.3), batch()
    torch.manual_seed(0)
    first = model.train().loss(b)
    assert not torch.equal(first, model.loss(b))  # other draws, other loss
    torch.manual_seed(0)
    assert torch.equal(first, model.loss(b))  # the same draws, the same loss
    assert torch.equal(model.eval().loss(b), model.eval().loss(b))
    ff = model.decoder.blocks[0].ff[1]
    assert [type(m).__name__ for m in ff] == ["GELU", "Dropout"] and ff[1].p == 0.3
    assert all(block.self_attn.dropout == 0.3 and block.cross_attn.dropout == 0.3 for block in model.decoder.blocks)


def test_xavier_token_embeddings_have_xavier_uniforms_scale():
    normal, xavier = seq2seq(), seq2seq(embed_init="xavier")
    V, D = xavier.decoder.embed.weight.shape
    bound = math.sqrt(6 / (V + D))  # fan_in D, fan_out V, as torch reads an (V, D) weight
    for stack in (xavier.encoder, xavier.decoder):
        w = stack.embed.weight.detach()
        assert float(w.abs().max()) <= bound and float(w.abs().max()) > 0.8 * bound
        assert float(w.std()) == pytest.approx(bound / math.sqrt(3), rel=0.15)
    assert float(normal.decoder.embed.weight.detach().std()) == pytest.approx(0.02, rel=0.15)
    with pytest.raises(ValueError, match="valid: normal, xavier"):
        TransformerConfig(embed_init="kaiming")
