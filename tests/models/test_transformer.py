"""The transformers: causality, positional schemes inside the model, the fused path, the key/value cache, PPC."""

from dataclasses import replace

import pytest
import torch

from lengthgen.data import EOS, LMBatch, Seq2SeqBatch
from lengthgen.models import MODELS
from lengthgen.models.attention import KVCache, MultiHeadAttention, causal_bias
from lengthgen.models.hooks import capture, hook_names
from lengthgen.models.positional import POSITIONAL, offset, pose, randomized, sinusoid
from lengthgen.models.transformer import DecoderOnly, EncoderDecoder, TransformerConfig

G = torch.Generator().manual_seed(0)
SCHEMES = list(POSITIONAL)


def decoder(positional="rope", **kw) -> DecoderOnly:
    """A random decoder whose token embeddings are at unit scale: at GPT-2's 0.02 they are drowned by unit-scale
    sinusoids and greedy outputs come out constant, which would make the comparisons below trivial."""
    torch.manual_seed(0)
    model = DecoderOnly(TransformerConfig(width=32, heads=4, layers=2, ff=64, positional=positional,
                                          max_positions=64, **kw), 16).eval()
    torch.nn.init.normal_(model.stack.embed.weight)
    return model


def logits(model: DecoderOnly, tokens, ids=None):
    ids = torch.arange(tokens.shape[1]).expand_as(tokens) if ids is None else ids
    return model.head(model.stack(tokens, ids, causal=True))


def random_bias(model: DecoderOnly) -> None:
    """Fill a bias-table scheme with noise (its default table is all zeros, which would test nothing)."""
    if POSITIONAL["bias"] is type(model.positional):
        table = model.positional.table
        model.positional.set_table(torch.randn(table.shape, generator=G))


@pytest.mark.parametrize("positional", SCHEMES)
@pytest.mark.parametrize("post_ln", [False, True])
def test_a_future_token_never_changes_an_earlier_logit(positional, post_ln):
    model = decoder(positional, post_ln=post_ln)
    random_bias(model)
    tokens = torch.randint(4, 16, (2, 12), generator=G)
    changed = tokens.clone()
    changed[:, 7:] = torch.randint(4, 16, (2, 5), generator=G)
    a, b = logits(model, tokens), logits(model, changed)
    assert torch.equal(a[:, :7], b[:, :7])
    assert not torch.allclose(a[:, 7:], b[:, 7:])


@pytest.mark.parametrize("positional, relative", [("none", True), ("rope", True), ("alibi", True), ("t5", True),
                                                  ("learned", False), ("sinusoidal", False), ("fire", False)])
def test_relative_schemes_ignore_a_shift_of_every_id(positional, relative):
    model = decoder(positional)
    tokens = torch.randint(4, 16, (2, 10), generator=G)
    ids = torch.arange(10).expand(2, -1)
    same = torch.allclose(logits(model, tokens, ids), logits(model, tokens, ids + 17), atol=1e-4)
    assert same == relative


def test_cyclic_ids_and_bias_table_by_hand():
    cyclic = POSITIONAL["cyclic"](8, period=3)
    assert torch.equal(cyclic.embed(torch.tensor([0, 4, 5, 7])), sinusoid(torch.tensor([0, 1, 2, 1]), 8))
    table = POSITIONAL["bias"](8, heads=2, layers=2, max_positions=6)
    values = torch.arange(2 * 2 * 4 * 4, dtype=torch.float32).view(2, 2, 4, 4)
    table.set_table(values)
    bias = table.bias(torch.tensor([3, 1]), torch.tensor([0, 2, 5]), layer=1)  # (H, T, S)
    assert bias.shape == (2, 2, 3)
    assert float(bias[1, 0, 1]) == float(values[1, 1, 3, 2]) and float(bias[0, 1, 0]) == float(values[1, 0, 1, 0])
    assert float(bias[0, 0, 2]) == 0.0  # outside the given 4 x 4: zero
    batched = table.bias(torch.tensor([[3, 1]]), torch.tensor([[0, 2, 5]]), layer=1)  # per-example ids
    assert torch.equal(batched[0], bias)
    # a batch whose examples share their ids (looked up once) and one whose do not: each row its own lookup
    same = table.bias(torch.tensor([[3, 1]] * 3), torch.tensor([[0, 2, 5]] * 3), layer=1)
    assert same.shape == (3, 2, 2, 3) and all(torch.equal(same[b], bias) for b in range(3))
    mixed = table.bias(torch.tensor([[3, 1], [1, 3]]), torch.tensor([[0, 2, 5], [0, 2, 5]]), layer=1)
    assert torch.equal(mixed[0], bias) and torch.equal(mixed[1], bias.flip(1))  # the second's rows swapped
    with pytest.raises(ValueError, match="outside the table of 6"):
        table.bias(torch.tensor([6]), torch.tensor([0]))
    with pytest.raises(ValueError, match="does not fit"):
        table.set_table(torch.zeros(1, 2, 4, 4))


def test_pose_ids_keep_order_and_cover_the_target_range():
    ids = torch.arange(10).expand(2000, -1)
    shifted = pose(ids, 50, torch.Generator().manual_seed(1))
    steps = shifted.diff(dim=1)
    assert bool((steps >= 1).all())  # still increasing
    assert bool(((steps > 1).sum(1) <= 1).all())  # at most one jump: two chunks
    assert torch.equal(shifted[:, 0], ids[:, 0])  # the first chunk is never moved
    assert int(shifted.max()) == 49 and set(shifted[:, -1].tolist()) == set(range(9, 50))
    with pytest.raises(ValueError, match="shorter than the training window"):
        pose(ids, 5, G)


def test_coupling_offset_moves_every_nonzero_id_by_one_amount():
    ids = torch.tensor([[0, 1, 2, 3, 1, 2, 3]]).expand(3000, -1)
    moved = offset(ids, 20, torch.Generator().manual_seed(2))
    s = moved[:, 1] - 1
    assert torch.equal(moved[:, 0], torch.zeros(3000, dtype=torch.long))
    assert torch.equal(moved[:, 1:] - ids[:, 1:], s[:, None].expand(-1, 6))
    assert set(s.tolist()) == set(range(17))  # largest id 3 + s reaches 19 = max_positions - 1, never beyond
    with pytest.raises(ValueError, match="exceed max_positions"):
        offset(ids, 3, G)


def test_randomized_positions_keep_order_and_ties_and_draw_from_the_whole_range():
    ids = torch.tensor([[0, 1, 2, 3, 1, 2, 3]]).expand(3000, -1)  # coupled ids: 1, 2, 3 twice
    drawn = randomized(ids, 20, torch.Generator().manual_seed(3))
    assert bool((drawn[:, 1:4].diff(dim=1) >= 1).all()) and bool((drawn[:, 0] < drawn[:, 1]).all())  # order kept
    assert torch.equal(drawn[:, 1:4], drawn[:, 4:])  # equal ids stay equal
    assert int(drawn.min()) == 0 and int(drawn.max()) == 19  # every id below max_positions is drawn, none beyond
    assert int(drawn[:, 0].max()) <= 16 and int(drawn[:, 3].min()) >= 3  # 4 sorted distinct draws from 0..19
    assert abs(drawn[:, 0].float().mean() - 3.2) < 0.2  # uniform: the smallest of 4 averages 21 / 5 - 1 (se 0.055)
    assert torch.equal(randomized(ids[:2], 4, G), ids[:2])  # 4 ids into 4 places: the only order-keeping map
    again = randomized(ids[:5], 20, torch.Generator().manual_seed(3))
    assert torch.equal(again, drawn[:5])  # the draw is the generator's
    with pytest.raises(ValueError, match="exceed max_positions 3"):
        randomized(ids, 3, G)


@pytest.mark.parametrize("positional", ["rope", "alibi", "t5", "fire", "bias"])
def test_fused_attention_equals_the_explicit_one(positional):
    scheme = POSITIONAL[positional](16, heads=4, max_positions=32)
    if positional == "bias":
        scheme.set_table(torch.randn(1, 4, 32, 32, generator=G))
    attn = MultiHeadAttention(16, 16, 16, heads=4, positional=scheme, fused=True)
    x, ids = torch.randn(3, 9, 16, generator=G), torch.randint(0, 32, (3, 9), generator=G)
    for causal in (False, True):
        fast = attn(x, x, ids, ids, causal=causal)
        with capture(attn, "hook_pattern") as rec:
            slow = attn(x, x, ids, ids, causal=causal)
        assert torch.allclose(fast, slow, atol=1e-5)
        if causal:  # the explicit path masks the future
            assert float(rec["hook_pattern"][0].triu(1).abs().max()) == 0.0


@pytest.mark.parametrize("capacity", [0, 3, 7])  # grown from empty, grown once (3 -> 6 is too few: 7), never
def test_a_cache_gives_the_same_attention_as_the_whole_sequence(capacity):
    attn = MultiHeadAttention(16, 16, 16, heads=4, positional=POSITIONAL["rope"](16, 4), fused=True)
    x = torch.randn(2, 7, 16, generator=G)
    ids = torch.arange(7).expand(2, -1)
    whole = attn(x, x, ids, ids, causal=True)
    cache = KVCache(2, 4, 4, capacity=capacity)
    first = attn(x[:, :4], x[:, :4], ids[:, :4], ids[:, :4], causal=True, cache=cache)  # a prompt of 4
    rest = [attn(x[:, t:t + 1], x[:, t:t + 1], ids[:, t:t + 1], ids[:, t:t + 1], causal=True, cache=cache)
            for t in range(4, 7)]
    assert torch.allclose(torch.cat([first, *rest], 1), whole, atol=1e-5)
    assert cache.keys.shape == (2, 4, 7, 4) and torch.equal(cache.ids, ids)
    assert torch.equal(causal_bias(2, 4) < 0, torch.tensor([[False, False, False, True], [False] * 4]))


def test_a_static_cache_projects_the_memory_once_and_attends_as_without_it():
    attn = MultiHeadAttention(16, 16, 16, heads=4, positional=POSITIONAL["bias"](16, 4, max_positions=12),
                              fused=True)
    attn.positional.set_table(torch.randn(1, 4, 12, 12, generator=G))
    memory, queries = torch.randn(2, 9, 16, generator=G), torch.randn(2, 5, 16, generator=G)
    memory_ids, ids = torch.arange(9).flip(0).expand(2, -1), torch.arange(5).expand(2, -1)
    whole = attn(queries, memory, ids, memory_ids)
    cache = KVCache(2, 4, 4, static=True)
    steps = [attn(queries[:, t:t + 1], memory if t == 0 else torch.zeros_like(memory), ids[:, t:t + 1], memory_ids,
                  cache=cache) for t in range(5)]  # after the first step the memory given is ignored
    assert torch.allclose(torch.cat(steps, 1), whole, atol=1e-5) and cache.keys.shape == (2, 4, 9, 4)


@pytest.mark.parametrize("positional", SCHEMES)
def test_cached_generation_equals_generation_without_the_cache(positional):
    model = decoder(positional)
    random_bias(model)
    prompt = torch.randint(4, 16, (3, 6), generator=G)
    ids = torch.arange(6).expand(3, -1)
    fast, slow = model.generate(prompt, ids, 20), model.generate(prompt, ids, 20, cache=False)
    assert torch.equal(fast.tokens, slow.tokens) and torch.equal(fast.ids, slow.ids)
    assert torch.equal(fast.ids[:, -1], torch.full((3,), 25))  # default ids continue the prompt's
    assert len(set(fast.tokens.flatten().tolist())) > 1  # not a constant answer


def test_ppc_generation_feeds_back_its_own_predicted_ids():
    model = decoder("sinusoidal", ppc=True)
    with torch.no_grad():  # a position head that always predicts id 7
        model.position_head.weight.zero_()
        model.position_head.bias.zero_()
        model.position_head.bias[7] = 1.0
    prompt, ids = torch.randint(4, 16, (2, 5), generator=G), torch.arange(5).expand(2, -1)
    given = torch.full((2, 6), 30)
    out = model.generate(prompt, ids, 6, answer_ids=given)
    assert torch.equal(out.ids, torch.full((2, 6), 7))  # its predictions, not the given ids
    plain = decoder("sinusoidal")
    plain.load_state_dict({k: v for k, v in model.state_dict().items() if not k.startswith("position_head")})
    assert torch.equal(out.tokens, plain.generate(prompt, ids, 6, answer_ids=torch.full((2, 6), 7)).tokens)
    assert not torch.equal(out.tokens, plain.generate(prompt, ids, 6, answer_ids=given).tokens)


def test_ppc_loss_adds_the_position_loss():
    model = decoder("learned", ppc=True)
    tokens = torch.randint(4, 16, (2, 9), generator=G)
    ids = torch.tensor([[0, 1, 2, 3, 4, 1, 2, 3, 4]]).expand(2, -1)
    batch = LMBatch(tokens, ids, prompt=5)
    with torch.no_grad():  # values only
        h = model.stack(tokens[:, :-1], ids[:, :-1], causal=True)[:, 4:]
        tok = torch.nn.functional.cross_entropy(model.head(h).transpose(1, 2), tokens[:, 5:])
        pos = torch.nn.functional.cross_entropy(model.position_head(h).transpose(1, 2), ids[:, 5:])
        assert float(model.loss(batch)) == pytest.approx(float(tok + pos), abs=1e-5)


def test_post_ln_blocks_end_normalised_and_pre_ln_with_a_final_norm():
    for post in (False, True):
        model = decoder("rope", post_ln=post)
        tokens = torch.randint(4, 16, (2, 8), generator=G)
        h = model.stack(tokens, torch.arange(8).expand(2, -1), causal=True)
        assert torch.allclose(h.mean(-1), torch.zeros(2, 8), atol=1e-5)  # the last norm is the last operation
        assert type(model.stack.norm).__name__ == ("Identity" if post else "LayerNorm")


def test_every_layer_and_head_can_be_captured():
    model = decoder("alibi")
    names = [n for n in hook_names(model) if n.endswith("hook_pattern")]
    assert names == ["stack.blocks.0.self_attn.hook_pattern", "stack.blocks.1.self_attn.hook_pattern"]
    tokens = torch.randint(4, 16, (2, 8), generator=G)
    with capture(model, *names) as rec:
        with_capture = logits(model, tokens)
    for name in names:
        pattern = rec[name][0]
        assert pattern.shape == (2, 4, 8, 8) and torch.allclose(pattern.sum(-1), torch.ones(2, 4, 8))
    assert torch.allclose(with_capture, logits(model, tokens), atol=1e-5)


def seq2seq_batch(n=16, length=6) -> Seq2SeqBatch:
    src = torch.randint(4, 16, (n, length), generator=torch.Generator().manual_seed(3))
    tgt = torch.cat([src.flip(1), torch.full((n, 1), EOS)], 1)  # reverse, then <eos>
    return Seq2SeqBatch(src, torch.full((n,), length), tgt, torch.full((n,), length + 1))


@pytest.mark.parametrize("encoder_layers", [0, 1])
def test_encoder_decoder_fits_a_batch_and_decodes_it_with_the_cache(encoder_layers):
    torch.manual_seed(0)
    model = EncoderDecoder(TransformerConfig(width=32, heads=4, layers=2, ff=64, encoder_layers=encoder_layers,
                                             positional="sinusoidal"), 16)
    batch = seq2seq_batch()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for _ in range(150):
        loss = model.loss(batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    assert model.loss(batch).item() < 0.05
    assert torch.equal(model.predict(batch), batch.tgt)  # greedy, cached decoding reproduces the fitted targets


def test_a_models_scheme_knows_its_decoders_self_attention_layers_as_causal():
    cfg = TransformerConfig(width=32, heads=4, layers=2, ff=64, encoder_layers=3, positional="t5")
    assert decoder("t5").positional.causal == {0, 1} and list(decoder("t5").positional.tables) == ["causal"]
    both = EncoderDecoder(cfg, 16)
    assert both.positional.causal == {3, 4} == set(both.decoder_layers[0])  # the encoder's 0-2 and cross 5-6 are not
    assert sorted(both.positional.tables) == ["bidirectional", "causal"]  # T5's encoder table and decoder table


def test_registry_builds_both_transformers_from_the_config_over_the_tasks_vocabulary():
    """A task of 13 tokens (not the width, 16): each name builds its own class with the config's layers, embeddings
    and output head over those 13 tokens, the very parameters the class itself draws from the same random state."""
    class Task:
        vocab = list(range(13))

    cfg = TransformerConfig(width=16, heads=2, layers=3, encoder_layers=2)
    built = {}
    for name, cls in (("decoder", DecoderOnly), ("encoder_decoder", EncoderDecoder)):
        assert MODELS[name].config is TransformerConfig
        torch.manual_seed(0)
        built[name] = MODELS[name].build(cfg, Task())
        torch.manual_seed(0)
        direct = cls(cfg, 13).state_dict()
        assert type(built[name]) is cls and built[name].head.weight.shape == (13, 16)
        assert built[name].state_dict().keys() == direct.keys()
        assert all(torch.equal(v, direct[k]) for k, v in built[name].state_dict().items())
    decoder, encoder_decoder = built["decoder"], built["encoder_decoder"]
    assert decoder.stack.embed.weight.shape == (13, 16) and len(decoder.stack.blocks) == 3
    assert (len(encoder_decoder.encoder.blocks), len(encoder_decoder.decoder.blocks)) == (2, 3)
    assert encoder_decoder.encoder.embed.weight.shape == encoder_decoder.decoder.embed.weight.shape == (13, 16)
    tokens = torch.zeros(2, 5, dtype=torch.long)
    assert decoder.logits(tokens, torch.arange(5).expand(2, 5)).shape == (2, 5, 13)  # scores for the 13 tokens


def test_schemes_compose_by_name():
    from lengthgen.models.positional import Composite, build_scheme

    both = build_scheme("cyclic+bias", 8, heads=2, layers=1, max_positions=10, period=3)
    assert isinstance(both, Composite)
    ids = torch.arange(7)
    assert torch.equal(both.embed(ids), POSITIONAL["cyclic"](8, period=3).embed(ids))
    table = torch.randn(1, 2, 10, 10, generator=G)
    both.parts[1].set_table(table)
    assert torch.equal(both.bias(ids, ids, 0), table[0][:, :7, :7])
    assert build_scheme("none+sinusoidal", 8).embed(ids).equal(sinusoid(ids, 8))
    with pytest.raises(Exception, match="unknown positional scheme 'cyclc'; valid: none, learned"):
        build_scheme("cyclic+cyclc", 8)


def test_the_windowed_table_by_hand():
    from lengthgen.models.positional import windowed_table

    table = windowed_table(heads=2, size=6, self_layers=range(0, 1), cross_layers=range(1, 2), window=1, stride=2)
    open_ = table[:, 0] == 0
    assert table.shape == (2, 2, 6, 6) and torch.equal(table[:, 0], table[:, 1])
    assert [row.nonzero().flatten().tolist() for row in open_[0]] == [[0], [0, 1], [1, 2], [2, 3], [3, 4], [4, 5]]
    # output step t opens source ids (from the end) 2(t - 1) .. 2(t + 1) + 1
    assert [row.nonzero().flatten().tolist() for row in open_[1]][:3] == [[0, 1, 2, 3], [0, 1, 2, 3, 4, 5],
                                                                          [2, 3, 4, 5]]
    assert open_[1][4].nonzero().flatten().tolist() == []  # 6..11: beyond this table
    moved = windowed_table(heads=1, size=6, self_layers=range(0, 1), cross_layers=range(1, 2), window=1, offset=1)
    assert [row.nonzero().flatten().tolist() for row in (moved[1, 0] == 0)][:3] == [[0, 1, 2], [1, 2, 3], [2, 3, 4]]
    assert torch.equal(moved[0], windowed_table(1, 6, range(0, 1), range(1, 2), 1)[0])  # self-attention: unmoved
    # the paper's span: w = 1 token on each side of step t's pair 2t, 2t + 1 (four keys), not one pair (six)
    tokens = windowed_table(heads=1, size=8, self_layers=range(0, 1), cross_layers=range(1, 2), window=1, stride=2,
                            span="tokens")
    assert [row.nonzero().flatten().tolist() for row in (tokens[1, 0] == 0)][:3] == [[0, 1, 2], [1, 2, 3, 4],
                                                                                     [3, 4, 5, 6]]
    assert torch.equal(tokens[0], windowed_table(1, 8, range(0, 1), range(1, 2), 1)[0])  # self-attention: the same
    unary = dict(heads=1, size=6, self_layers=range(0, 1), cross_layers=range(1, 2), window=2)
    assert torch.equal(windowed_table(**unary, span="tokens"), windowed_table(**unary))  # the same at stride 1
    with pytest.raises(ValueError, match="unknown window span 'pairs'; valid: strides, tokens"):
        windowed_table(**unary, span="pairs")


@pytest.mark.parametrize("frame", ["end", "start"])
def test_cross_attention_reads_a_windowed_bias_along_the_source_from_its_frame(frame):
    """Sources of different lengths in one batch: output step t attends only to the source token t from the end (or
    from the start, `memory_from`)."""
    from lengthgen.models.positional import bias_table, windowed_table

    torch.manual_seed(0)
    cfg = TransformerConfig(width=16, heads=2, layers=2, encoder_layers=0, ff=32, positional="sinusoidal+bias",
                            max_positions=12, memory_from=frame)
    model = EncoderDecoder(cfg, 14).eval()
    bias_table(model).set_table(windowed_table(2, 12, range(0, 2), range(2, 4), window=0))
    src = torch.tensor([[4, 5, 6, 7, 8], [4, 5, 6, 0, 0]])
    batch = Seq2SeqBatch(src, torch.tensor([5, 3]), torch.tensor([[5, 6, EOS], [5, 6, EOS]]), torch.tensor([3, 3]))
    names = [n for n in hook_names(model) if "cross_attn.hook_pattern" in n]
    with capture(model, *names) as rec:
        model.loss(batch)
    for name in names:
        pattern = rec[name][0]  # (B, H, T, S)
        assert torch.allclose(pattern[0, :, :, :].sum(-1), torch.ones(2, 3))
        for t in range(3):  # from the end, row 0 (source length 5) reads position 4 - t, row 1 (length 3) 2 - t
            read = (4 - t, 2 - t) if frame == "end" else (t, t)
            assert torch.allclose(pattern[0, :, t, read[0]], torch.ones(2))
            assert torch.allclose(pattern[1, :, t, read[1]], torch.ones(2))
    rope = EncoderDecoder(TransformerConfig(width=16, heads=2, layers=1, encoder_layers=0, ff=32), 14)
    assert rope.decoder.blocks[0].cross_attn.positional.bias(torch.arange(3), torch.arange(5), 1) is None
    with pytest.raises(ValueError, match="unknown memory_from 'middle'; valid: end, start"):
        TransformerConfig(memory_from="middle")


def test_embedding_scale_and_dropout():
    base = decoder("sinusoidal")
    scaled = decoder("sinusoidal", embed_scale=4.0)
    tokens = torch.randint(16, (2, 9), generator=G)
    with torch.no_grad():
        base.stack.embed.weight.mul_(4.0)
    assert torch.allclose(logits(base, tokens), logits(scaled, tokens), atol=1e-5)
    dropped = decoder("sinusoidal", dropout=0.3)
    plain = decoder("sinusoidal")
    assert torch.equal(logits(dropped, tokens), logits(plain, tokens))  # eval mode: no dropout
    dropped.train()
    assert not torch.allclose(logits(dropped, tokens), logits(plain, tokens))


@pytest.mark.parametrize("mask", ["torch", "bits"])
def test_attention_dropout_alone_drops_attention_weights_in_training_only(mask):
    """Only the attention weights dropped (the fused kernel's dropout for torch masks, ours for bits): training
    outputs change from draw to draw, the same seed draws the same, and evaluation sees no dropout."""
    dropped = decoder("sinusoidal", attention_dropout=0.5, dropout_mask=mask)
    plain = decoder("sinusoidal")
    tokens = torch.randint(16, (2, 9), generator=G)
    assert torch.equal(logits(dropped, tokens), logits(plain, tokens))
    dropped.train()
    torch.manual_seed(3)
    first = logits(dropped, tokens)
    torch.manual_seed(3)
    assert torch.equal(logits(dropped, tokens), first)
    assert not torch.allclose(logits(dropped, tokens), first)


def test_bits_masks_take_our_dropout_not_the_fused_kernels(monkeypatch):
    """With bits masks a training step must drop attention weights by `models.dropout.drop` (the fused kernel would
    draw torch's masks instead); with torch masks the fused kernel does it and ours is never called."""
    import lengthgen.models.attention as attention

    calls = []
    monkeypatch.setattr(attention, "drop", lambda x, p, mask: calls.append(mask) or x)
    tokens = torch.randint(16, (2, 9), generator=G)
    for mask, expected in (("torch", []), ("bits", ["bits"] * 2)):  # one call per layer's self-attention
        calls.clear()
        logits(decoder("sinusoidal", attention_dropout=0.5, dropout_mask=mask).train(), tokens)
        assert calls == expected, mask


def test_an_oracle_generation_feeds_the_true_ids_and_returns_the_predicted_ones():
    torch.manual_seed(0)
    model = DecoderOnly(TransformerConfig(width=16, heads=2, layers=1, ff=32, positional="learned", max_positions=40,
                                          ppc=True), 16).eval()
    prompt, ids = torch.randint(16, (3, 5), generator=G), torch.arange(5).expand(3, 5)
    true_ids = torch.tensor([[30, 31, 32, 33]] * 3)  # ids the head would hardly predict
    free = model.generate(prompt, ids, 4, answer_ids=true_ids)
    fed = model.generate(prompt, ids, 4, answer_ids=true_ids, oracle=True)
    assert torch.equal(free.tokens[:, 0], fed.tokens[:, 0]) and torch.equal(free.ids[:, 0], fed.ids[:, 0])
    seq = torch.cat([prompt, fed.tokens], 1)
    by_hand = model.head(model.stack(seq[:, :-1], torch.cat([ids, true_ids[:, :-1]], 1), causal=True))[:, 5:]
    assert torch.equal(by_hand.argmax(-1), fed.tokens[:, 1:])  # every later token read at the true ids
    assert not torch.equal(fed.ids, true_ids)  # what it returns as ids is still the head's prediction
    with pytest.raises(ValueError, match="an oracle generation needs the answer's ids"):
        model.generate(prompt, ids, 4, oracle=True)


def test_layernorm_after_attention_standardizes_each_tokens_attention_output_before_its_projection():
    """The vanishing-variance paper's +LN on the decoder's self-attention output O (per token, over D, biased std),
    before the output projection; "baseline" adds no parameter, so stored models load as they were."""
    cfg = TransformerConfig(width=16, heads=2, layers=2, ff=32, max_positions=32)
    seen = []
    model = DecoderOnly(replace(cfg, attention_norm="ln"), 12)
    model.stack.blocks[1].self_norm.register_forward_hook(lambda m, i, out: seen.append((i[0], out)))
    tokens = torch.randint(0, 12, (3, 7), generator=torch.Generator().manual_seed(0))
    model.logits(tokens, torch.arange(7).expand(3, 7))
    (o, normed), = seen
    assert o.std(-1).min() > 0 and not torch.allclose(o.mean(-1), torch.zeros(3, 7), atol=1e-3)  # O itself is not
    assert torch.allclose(normed.mean(-1), torch.zeros(3, 7), atol=1e-5)
    assert torch.allclose(normed.pow(2).mean(-1), torch.ones(3, 7), atol=1e-3)  # biased variance 1
    plain = DecoderOnly(cfg, 12).state_dict().keys()
    assert set(model.state_dict()) - set(plain) == {f"stack.blocks.{i}.self_norm.{p}" for i in (0, 1)
                                                                  for p in ("gamma", "beta")}
    assert DecoderOnly(replace(cfg, attention_norm="baseline"), 12).state_dict().keys() == plain
    with pytest.raises(ValueError, match="unknown attention_norm 'rms'; valid: baseline, ln, std"):
        replace(cfg, attention_norm="rms")
