"""The public code's calibration as it is (PUBLIC_SELF, PUBLIC_CROSS) beside the paper's rule and "code" (its
thresholds on our directions), on hand-computed attention matrices where the three part."""

import pytest
import torch

from lengthgen.analysis.calibration import (
    CODE_CROSS,
    CODE_SELF,
    PAPER,
    PUBLIC_CODE,
    PUBLIC_CROSS,
    PUBLIC_SELF,
    average_attention,
    calibrate,
    calibrated_table,
)
from lengthgen.data import EOS, Seq2SeqBatch
from lengthgen.models.transformer import EncoderDecoder, TransformerConfig

INF = float("-inf")
OURS = ("diagonal", "vertical")  # the directions the chapter's rules search (`calibration.ABC_DIRECTIONS`)

# Self-attention of one head, causal (rows sum to 1): the diagonal, and a column on key 0.
SELF = torch.tensor([[1.0, 0.0, 0.0, 0.0],
                     [0.4, 0.6, 0.0, 0.0],
                     [0.4, 0.0, 0.6, 0.0],
                     [0.4, 0.0, 0.0, 0.6]])
# Diagonal lines j - i = c: c = 0 sums 2.8 (mean 0.7); c = -1, -2, -3 each sum 0.4 (means 0.133, 0.2, 0.4); c > 0 sum 0.
# Columns: 2.2 (mean 0.55), 0.6, 0.6, 0.6 (means 0.15).


def grid(size, value) -> torch.Tensor:
    """(M, N) of value(i, j)."""
    M, N = size
    return torch.tensor([[value(i, j) for j in range(N)] for i in range(M)])


def test_self_attention_the_three_rules_part():
    size = (6, 6)
    paper = calibrate(SELF[None], size, PAPER, OURS)[0]
    # means over all 7 diagonals: mu 0.2048, sigma 0.2433: only c = 0 (0.7) passes mu + 2 sigma = 0.691, and becomes
    # 0.7 - 0.7 = 0; columns: mu 0.25, sigma 0.173, mu + 2 sigma = 0.596 > 0.55: the column is dropped
    assert torch.equal(paper, grid(size, lambda i, j: 0.0 if i == j else INF))
    code = calibrate(SELF[None], size, CODE_SELF, OURS)[0]
    # sums, distinct non-zero: diagonals {2.8, 0.4}: 1.6 + 0.87 x 1.2 = 2.644 keeps c = 0 at 2.8; columns {2.2, 0.6}:
    # 1.4 + 0.87 x 0.8 = 2.096 keeps column 0 at 2.2; merged by max
    assert torch.allclose(code, grid(size, lambda i, j: 2.8 if i == j else 2.2 if j == 0 else INF))
    public = calibrate(SELF[None], size, PUBLIC_SELF, OURS)[0]  # its own directions: the diagonal only
    assert torch.allclose(public, grid(size, lambda i, j: 2.8 if i == j else PUBLIC_CODE))


# Cross-attention of two heads in `average_attention`'s frame (keys from the source's end: the reversed output's
# anti-diagonal is the diagonal): one head exactly on it, one uniform.
CROSS = torch.stack([torch.eye(3, 4), torch.full((3, 4), 0.25)])


def test_cross_attention_the_three_rules_part():
    size = (5, 6)
    paper = calibrate(CROSS, size, PAPER, OURS)
    # head 0: diagonal means (0, 0, 1, 0, 0, 0): 1 > 1/6 + 2 x 0.373 = 0.912, kept as 0; columns (1/3, 1/3, 1/3, 0)
    # reach no threshold (0.539); head 1: every line's mean 0.25: nothing stands out, transparent
    assert torch.equal(paper[0], grid(size, lambda i, j: 0.0 if i == j else INF))
    assert torch.equal(paper[1], torch.zeros(size))
    code = calibrate(CROSS, size, CODE_CROSS, OURS)
    # head 0: one distinct non-zero sum per direction (3 and 1): sigma 0, and no value is above its own mean: nothing
    # kept, transparent; head 1: diagonal sums {0.75, 0.5, 0.25} below 0.5 + 4.5 x 0.204; columns all 0.75: transparent
    assert torch.equal(code, torch.zeros(2, *size))
    public = calibrate(CROSS, size, PUBLIC_CROSS, OURS)
    # head 0: 3 >= 3 + 4.5 x 0 is kept (the code drops only values below the threshold), at its sum; cell (0, 0), the
    # public code's [0][-1], is set to 0; everything else closed at -1e6
    assert torch.equal(public[0], grid(size, lambda i, j: 0.0 if i == j == 0 else 3.0 if i == j else PUBLIC_CODE))
    # head 1: nothing kept, and a cross-attention head is not made transparent: closed but for the forced cell
    assert torch.equal(public[1], grid(size, lambda i, j: 0.0 if i == j == 0 else PUBLIC_CODE))


def test_the_public_self_rule_keeps_a_strong_diagonal_and_only_its_empty_heads_become_transparent():
    uniform = torch.tril(torch.ones(4, 4))
    uniform = uniform / uniform.sum(-1, keepdim=True)  # row t: 1 / (t + 1) on keys 0..t
    # diagonal sums: c = 0: 1 + 1/2 + 1/3 + 1/4 = 2.083; c = -1: 1/2 + 1/3 + 1/4 = 1.083; c = -2: 0.583; c = -3: 0.25
    # mean 1.0, sd 0.687: 1.0 + 0.87 x 0.687 = 1.598 keeps the main diagonal only
    bias = calibrate(uniform[None], (5, 5), PUBLIC_SELF)[0]
    assert torch.allclose(bias, grid((5, 5), lambda i, j: 25 / 12 if i == j else PUBLIC_CODE))
    assert torch.equal(calibrate(torch.zeros(1, 4, 4), (5, 5), PUBLIC_SELF)[0], torch.zeros(5, 5))
    assert torch.equal(calibrate(torch.zeros(1, 4, 4), (5, 5), PUBLIC_CROSS)[0],
                       grid((5, 5), lambda i, j: 0.0 if i == j == 0 else PUBLIC_CODE))


def test_the_public_code_reads_one_example_of_the_batch():
    torch.manual_seed(0)
    cfg = TransformerConfig(width=16, heads=2, layers=2, encoder_layers=0, ff=32, positional="sinusoidal+bias",
                            max_positions=24)
    model = EncoderDecoder(cfg, 14)
    torch.nn.init.normal_(model.encoder.embed.weight)
    torch.nn.init.normal_(model.decoder.embed.weight)
    gen = torch.Generator().manual_seed(0)
    src = torch.randint(4, 14, (8, 6), generator=gen)
    tgt = torch.cat([torch.randint(4, 14, (8, 5), generator=gen), torch.full((8, 1), EOS)], 1)
    batch = Seq2SeqBatch(src, torch.full((8,), 6), tgt, torch.full((8,), 6))
    table = calibrated_table(model, batch, 20, (PUBLIC_SELF, PUBLIC_CROSS))
    first = average_attention(model, batch.slice(0, 1))
    self_layers, cross_layers = model.decoder_layers
    assert torch.equal(table[self_layers.start], calibrate(first["self"], (20, 20), PUBLIC_SELF))
    assert torch.equal(table[cross_layers.start], calibrate(first["cross"], (20, 20), PUBLIC_CROSS))
    every = average_attention(model, batch)
    assert not torch.equal(table[self_layers.start], calibrate(every["self"], (20, 20), PUBLIC_SELF))
    with pytest.raises(ValueError, match="differ in samples"):
        calibrated_table(model, batch, 20, (PUBLIC_SELF, CODE_CROSS))
