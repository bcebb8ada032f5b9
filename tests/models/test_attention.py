"""The attention core and the positional schemes, against references and hand-computed values."""

import math

import pytest
import torch
import torch.nn.functional as F

from lengthgen.models.attention import NEG, MultiHeadAttention, dot_scores, padding_bias, softmax, step_scores
from lengthgen.models.hooks import capture
from lengthgen.models.positional import POSITIONAL, Positional, Rotary, sinusoid, t5_bucket
from lengthgen.models.softmax import adaptive_beta

G = torch.Generator().manual_seed(0)


def test_multi_head_attention_matches_torch_scaled_dot_product_attention():
    attn = MultiHeadAttention(12, 10, 16, heads=4)
    query, keys = torch.randn(3, 5, 12, generator=G), torch.randn(3, 7, 10, generator=G)
    mask = torch.ones(3, 7, dtype=torch.bool)
    mask[1, 4:] = False  # the second example has 4 valid keys
    out = attn(query, keys, mask=mask)

    def heads(x):  # (B, P, 16) -> (B, 4, P, 4)
        return x.view(x.shape[0], x.shape[1], 4, 4).transpose(1, 2)

    ref = F.scaled_dot_product_attention(heads(attn.w_q(query)), heads(attn.w_k(keys)), heads(attn.w_v(keys)),
                                         attn_mask=mask[:, None, None, :])
    assert torch.allclose(out, ref.transpose(1, 2).reshape(3, 5, 16), atol=1e-6)


def test_padded_keys_get_no_weight_and_do_not_change_the_output():
    attn = MultiHeadAttention(8, 8, 8, heads=2)
    query, keys = torch.randn(2, 3, 8, generator=G), torch.randn(2, 6, 8, generator=G)
    mask = torch.tensor([[True] * 6, [True] * 4 + [False] * 2])
    with capture(attn, "hook_pattern") as rec:
        out = attn(query, keys, mask=mask)
    assert rec["hook_pattern"][0].shape == (2, 2, 3, 6)  # B, H, T, S
    assert float(rec["hook_pattern"][0][1, :, :, 4:].max()) == 0.0
    changed = keys.clone()
    changed[1, 4:] = 100.0
    assert torch.allclose(attn(query, changed, mask=mask), out)


def test_additive_bias_enters_the_scores_before_the_softmax():
    attn = MultiHeadAttention(4, 4, 4)
    query, keys = torch.randn(1, 2, 4, generator=G), torch.randn(1, 3, 4, generator=G)
    bias = torch.tensor([[0.0, NEG, NEG], [NEG, NEG, 0.0]])  # (T, S): query 0 sees key 0 only, query 1 key 2
    out = attn(query, keys, bias=bias)
    values = attn.w_v(keys)[0]
    assert torch.allclose(out[0], values[[0, 2]], atol=1e-6)


def test_adaptive_softmax_sharpens_by_the_entropy_temperature():
    scores = torch.randn(4, 30, generator=G)
    expected = (scores * adaptive_beta(scores)[:, None]).softmax(-1)
    assert torch.equal(softmax(scores, adaptive=True), expected)
    assert torch.equal(softmax(scores), scores.softmax(-1))


def test_step_scores_are_the_dot_scores_of_one_query():
    q, k = torch.randn(2, 8, generator=G), torch.randn(2, 5, 8, generator=G)
    assert torch.allclose(step_scores(k, q), dot_scores(q[:, None], k)[:, 0])
    assert float(step_scores(k, q)[1, 3]) == pytest.approx(float(k[1, 3] @ q[1]), abs=1e-5)
    assert torch.equal(padding_bias(torch.tensor([True, False])), torch.tensor([0.0, NEG]))


def test_sinusoid_by_hand():
    pe = sinusoid(torch.tensor([0, 1]), 4)  # frequencies 1 and 1/100
    assert torch.allclose(pe[0], torch.tensor([0.0, 0.0, 1.0, 1.0]))
    assert torch.allclose(pe[1], torch.tensor([math.sin(1), math.sin(0.01), math.cos(1), math.cos(0.01)]))
    assert torch.equal(POSITIONAL["sinusoidal"](4).embed(torch.tensor([0, 1])), pe)


def test_rope_scores_depend_only_on_the_relative_position():
    rope = Rotary(8)
    q, k = torch.randn(1, 8, generator=G), torch.randn(1, 8, generator=G)

    def score(i, j):
        return float(dot_scores(rope.rotate(q, torch.tensor([i])), rope.rotate(k, torch.tensor([j]))))

    assert score(3, 1) == pytest.approx(score(13, 11), abs=1e-5)
    assert score(3, 1) == pytest.approx(score(102, 100), abs=1e-4)
    assert score(3, 1) != pytest.approx(score(3, 2), abs=1e-3)
    assert torch.allclose(rope.rotate(q, torch.tensor([0])), q)  # position 0: no rotation
    assert torch.allclose(rope.rotate(q, torch.tensor([5])).norm(), q.norm())  # a rotation keeps the norm


def test_rope_inside_attention_is_invariant_to_shifting_every_position():
    attn = MultiHeadAttention(8, 8, 8, heads=2, positional=POSITIONAL["rope"](8, 2))
    query, keys = torch.randn(2, 3, 8, generator=G), torch.randn(2, 5, 8, generator=G)
    a = attn(query, keys)
    b = attn(query, keys, query_ids=torch.arange(3) + 40, key_ids=torch.arange(5) + 40)
    assert torch.allclose(a, b, atol=1e-5)
    assert not torch.allclose(a, attn(query, keys, query_ids=torch.arange(3) + 1), atol=1e-3)


def test_the_base_scheme_does_nothing():
    scheme = Positional(8, 2)
    x = torch.randn(3, 8, generator=G)
    assert scheme.embed(torch.arange(3)) is None and scheme.bias(torch.arange(3), torch.arange(4)) is None
    assert scheme.rotate(x, torch.arange(3)) is x
    assert list(POSITIONAL) == ["none", "learned", "sinusoidal", "cyclic", "rope", "alibi", "t5", "fire", "fire_order",
                                "bias"]


def test_t5_buckets_by_hand():
    # offsets (key - query): 8 exact buckets each way, then 8 + floor(8 log(d / 8) / log 16) up to 15; future + 16
    offsets = torch.tensor([0, -1, -7, -8, -11, -19, -20, -63, -127, -128, -5000, 1, 9, 17, 63, 200])
    assert t5_bucket(offsets).tolist() == [0, 1, 7, 8, 8, 10, 10, 13, 15, 15, 15, 17, 24, 26, 29, 31]
    # causal (T5's decoder): 16 exact buckets for the past, then 16 + floor(16 log(d / 16) / log 8) up to 31; a later
    # key (masked) shares the query's bucket 0
    offsets = torch.tensor([0, -1, -15, -16, -20, -32, -64, -127, -500, 1, 40])
    assert t5_bucket(offsets, causal=True).tolist() == [0, 1, 15, 16, 17, 21, 26, 31, 31, 0, 0]


def test_t5_bias_looks_up_one_learned_scalar_per_head_and_bucket():
    t5 = POSITIONAL["t5"](8, heads=2, layers=3)
    with torch.no_grad():
        # head h, bucket b: 100 h + b
        t5.tables["bidirectional"].weight.copy_(torch.arange(32.0)[:, None] + torch.tensor([0.0, 100.0]))
    bias = t5.bias(torch.tensor([0, 20]), torch.tensor([0, 1, 9, 17, 63, 200]), layer=2)  # every layer alike
    assert bias.shape == (2, 2, 6)
    assert bias[0].tolist() == [[0, 17, 24, 26, 29, 31], [10, 10, 8, 3, 28, 31]]  # offsets 43 -> 28, 180 -> 31
    assert torch.equal(bias[1], bias[0] + 100)
    batched = t5.bias(torch.tensor([[0, 20], [5, 25]]), torch.tensor([[0, 1, 9, 17, 63, 200]] * 2) + torch.tensor(
        [[0], [5]]))  # the second example shifted by 5: the same offsets
    assert batched.shape == (2, 2, 2, 6) and torch.equal(batched[0], bias) and torch.equal(batched[1], bias)


def test_t5_gives_causal_layers_a_table_of_their_own_with_the_decoders_buckets():
    t5 = POSITIONAL["t5"](8, heads=2, layers=3, causal=(1, 2))  # an encoder layer, then two decoder layers
    assert sorted(t5.tables) == ["bidirectional", "causal"]
    with torch.no_grad():
        t5.tables["bidirectional"].weight.copy_(torch.arange(32.0)[:, None].expand(32, 2))
        t5.tables["causal"].weight.copy_(1000 + torch.arange(32.0)[:, None].expand(32, 2))
    query, keys = torch.tensor([40]), torch.tensor([0, 8, 20, 39, 40])  # offsets -40, -32, -20, -1, 0
    assert t5.bias(query, keys, layer=0)[0, 0].tolist() == [12, 12, 10, 1, 0]  # the encoder's buckets (above)
    for layer in (1, 2):  # 16 + floor(16 log(d / 16) / log 8) past 15
        assert t5.bias(query, keys, layer=layer)[0, 0].tolist() == [1000 + b for b in (23, 21, 17, 1, 0)]
    assert list(POSITIONAL["t5"](8, layers=2, causal=range(2)).tables) == ["causal"]  # a decoder's model: one table


def test_fire_bias_by_hand():
    fire = POSITIONAL["fire"](8, heads=1, layers=2)
    with torch.no_grad():  # layer 1's f(x) = relu(x) - relu(-x) = x; c = 1
        for p in fire.mlps[1].parameters():
            p.zero_()
        fire.mlps[1][0].weight[:2, 0] = torch.tensor([1.0, -1.0])
        fire.mlps[1][2].weight[0, :2] = torch.tensor([1.0, -1.0])
    bias = fire.bias(torch.tensor([0, 1, 3]), torch.tensor([0, 1, 3]), layer=1)[0]  # (T, S): f(psi(i-j)/psi(max(1,i)))
    log = math.log
    expected = [[0, -log(2) / log(2), -log(4) / log(2)],  # query 0: L = 1 is the scale's floor
                [log(2) / log(2), 0, -log(3) / log(2)],
                [log(4) / log(4), log(3) / log(4), 0]]
    assert torch.allclose(bias, torch.tensor(expected), atol=1e-6)
    with torch.no_grad():
        fire.threshold[1] = 10.0  # L = 10: every query below it scaled by psi(10)
        fire.log_c[1] = math.log(2.0)  # c = 2: psi(x) = log(2x + 1)
    bias = fire.bias(torch.tensor([3]), torch.tensor([1]), layer=1)
    assert float(bias.detach()) == pytest.approx(log(5) / log(21), abs=1e-6)
    batched = fire.bias(torch.tensor([[3, 4]] * 2), torch.tensor([[1, 2]] * 2), layer=1)  # one MLP pass, expanded
    assert batched.shape == (2, 1, 2, 2)
    assert float(batched[1, 0, 0, 0].detach()) == pytest.approx(log(5) / log(21), abs=1e-6)
    assert torch.equal(fire.bias(torch.tensor([[3, 4], [3, 5]]), torch.tensor([[1, 2]] * 2), layer=1)[0],
                       batched[0])  # examples at different positions: each its own
    bias.sum().backward()
    assert all(p.grad is not None for p in (*fire.mlps[1].parameters(), fire.log_c, fire.threshold))


def test_alibi_bias_by_hand_and_inside_attention():
    alibi = POSITIONAL["alibi"](8, heads=2)  # slopes 2^-4 and 2^-8
    bias = alibi.bias(torch.arange(3), torch.arange(4))
    assert bias.shape == (2, 3, 4)
    assert float(bias[0, 2, 0]) == -2 / 16 and float(bias[1, 0, 3]) == -3 / 256 and float(bias[1, 1, 1]) == 0.0
    attn = MultiHeadAttention(8, 8, 8, heads=2, positional=alibi)
    query, keys = torch.randn(1, 3, 8, generator=G), torch.randn(1, 4, 8, generator=G)
    with capture(attn, "hook_scores") as rec:
        attn(query, keys)
    plain = MultiHeadAttention(8, 8, 8, heads=2)
    plain.load_state_dict(attn.state_dict())
    with capture(plain, "hook_scores") as without:
        plain(query, keys)
    assert torch.allclose(rec["hook_scores"][0] - without["hook_scores"][0], bias[None], atol=1e-6)


def test_order_fire_is_fire_over_the_order_whatever_the_ids():
    fire, order = POSITIONAL["fire"](8, heads=2, layers=1), POSITIONAL["fire_order"](8, heads=2, layers=1)
    order.load_state_dict(fire.state_dict())  # the same MLP, c and L
    ids = torch.tensor([[0, 7, 7, 3, 9], [4, 4, 1, 2, 2]])  # coupled ids, ties and all: not what the bias reads
    expected = fire.bias(torch.arange(5), torch.arange(5))  # (H, 5, 5) at positions 0 .. 4
    full = order.bias(ids, ids)
    def same(a, b):  # up to float rounding: a matmul's summation order may differ with its shape on some CPUs
        return torch.allclose(a, b, rtol=0, atol=1e-6)

    assert full.shape == (2, 2, 5, 5) and same(full[0], expected) and same(full[1], expected)
    step = order.bias(ids[:, -1:], ids)  # a decoding step: its one query is the last of the five keys
    assert step.shape == (2, 2, 1, 5) and same(step[1], expected[:, -1:])
    assert not torch.allclose(fire.bias(ids, ids)[0], expected)  # plain FIRE reads the ids
