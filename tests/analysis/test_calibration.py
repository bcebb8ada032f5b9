"""Attention Bias Calibration on hand-built attention matrices: lines found, extended to any size, weak lines and
noise dropped, empty heads transparent; the public code's rule beside the paper's."""

import pytest
import torch

from lengthgen.analysis.calibration import (
    CODE_CROSS,
    CODE_FLAT_CROSS,
    PAPER,
    PAPER_SUMS,
    Rule,
    calibrate,
    direction_bias,
    line_values,
)

INF = float("-inf")


def expected(size, on) -> torch.Tensor:
    """(M, N): 0 where on(i, j), -inf elsewhere."""
    M, N = size
    return torch.tensor([[0.0 if on(i, j) else INF for j in range(N)] for i in range(M)])


def anti_diagonal(m: int, n: int) -> torch.Tensor:
    """Ones where the reversed output's row i meets source column n - 1 - i."""
    return torch.tensor([[1.0 if i + j == n - 1 else 0.0 for j in range(n)] for i in range(m)])


@pytest.mark.parametrize("size", [(4, 5), (7, 9), (30, 50)])
def test_a_pure_anti_diagonal_comes_back_as_an_anti_diagonal_of_any_size(size):
    bias = calibrate(anti_diagonal(4, 5)[None], size, directions=("anti-diagonal",))
    M, N = size  # aligned on the top-right corner: row i opens column N - 1 - i
    assert torch.equal(bias[0], expected(size, lambda i, j: i + j == N - 1))


def test_noise_below_the_threshold_is_dropped():
    gen = torch.Generator().manual_seed(0)
    noisy = anti_diagonal(6, 6) + 0.05 * torch.rand(6, 6, generator=gen)
    bias = calibrate(noisy[None], (10, 12), directions=("anti-diagonal",))[0]
    assert torch.equal(bias, expected((10, 12), lambda i, j: i + j == 11))


def test_diagonal_and_vertical_lines_extend_from_the_top_left():
    diagonal = calibrate(torch.eye(5)[None], (8, 8), directions=("diagonal",))[0]
    assert torch.equal(diagonal, expected((8, 8), lambda i, j: i == j))
    column = torch.zeros(4, 6)
    column[:, 2] = 1.0
    vertical = calibrate(column[None], (9, 10), directions=("vertical",))[0]
    assert torch.equal(vertical, expected((9, 10), lambda i, j: j == 2))


def test_kept_lines_keep_their_strength_below_the_strongest():
    two = 0.8 * torch.eye(8)
    two[:, 0] = 0.0
    two[torch.arange(7) + 1, torch.arange(7)] = 0.4  # a weaker sub-diagonal
    names, values = line_values(two, 1, "mean")
    assert values[names == 0].item() == pytest.approx(0.7) and values[names == -1].item() == pytest.approx(0.4)
    bias = direction_bias(two.double(), (10, 10), 1, Rule(sigmas=1.0))
    assert bias[5, 5].item() == 0.0 and bias[5, 4].item() == pytest.approx(-0.3) and bias[5, 6].item() == INF


def test_directions_merge_by_max_and_an_empty_head_becomes_transparent():
    gen = torch.Generator().manual_seed(1)
    lines = 0.05 * torch.rand(6, 9, generator=gen) + anti_diagonal(6, 9)
    lines[:, 3] += 0.7
    attention = torch.stack([lines, torch.full((6, 9), 0.2)])
    bias = calibrate(attention, (9, 11))
    per_direction = torch.stack([direction_bias(lines.double(), (9, 11), d, PAPER) for d in (1, 0, -1)])
    assert torch.isfinite(per_direction[1:]).any(dim=(1, 2)).all()  # the column and the anti-diagonal both kept
    assert torch.equal(bias[0], per_direction.amax(0).float())
    assert torch.equal(bias[1], torch.zeros(9, 11))  # every line equal: nothing stands out


def test_the_public_codes_rule_reads_six_rows_and_keeps_raw_sums():
    gen = torch.Generator().manual_seed(2)
    attention = 0.01 * torch.rand(10, 40, generator=gen) + anti_diagonal(10, 40)
    attention[6:, 0] = 5.0  # a strong column in rows the code's rule never reads
    bias = calibrate(attention[None], (12, 44), CODE_CROSS, directions=("vertical", "anti-diagonal"))[0]
    assert bias[0, 43].item() == pytest.approx(6.0, abs=0.1)  # the anti-diagonal's sum over six rows, as it is
    assert bias[3, 40].item() == bias[0, 43].item() and bias[3, 0].item() == INF
    assert torch.isinf(bias).sum() == 12 * 44 - 12  # nothing but the anti-diagonal
    paper = calibrate(attention[None], (12, 44), directions=("vertical", "anti-diagonal"))[0]
    assert paper[0, 43].item() == 0.0 and paper[3, 0].item() == 0.0  # every row read: the column is kept too


def test_the_controls_keep_one_rules_lines_with_the_other_rules_values():
    gen = torch.Generator().manual_seed(3)
    attention = 0.01 * torch.rand(8, 30, generator=gen) + anti_diagonal(8, 30)
    attention[:, 4] += 0.5  # a weaker column, kept by both rules
    both = ("vertical", "anti-diagonal")
    rules = {rule: calibrate(attention[None], (10, 33), rule, both)[0] for rule in (PAPER, PAPER_SUMS, CODE_CROSS,
                                                                                     CODE_FLAT_CROSS)}
    for lines, values in ((PAPER, PAPER_SUMS), (CODE_CROSS, CODE_FLAT_CROSS)):
        assert torch.equal(torch.isinf(rules[lines]), torch.isinf(rules[values]))  # the same lines kept
    # the paper's: the anti-diagonal (mean about 1) and the column (mean about 0.5) each the strongest of its
    # direction, so both 0, equally open; its control gives them their sums over 8 rows, 8 and 4, as the code's would
    assert rules[PAPER][0, 32].item() == rules[PAPER][0, 4].item() == 0.0
    assert rules[PAPER_SUMS][0, 32].item() == pytest.approx(8.0, abs=0.2)
    assert rules[PAPER_SUMS][0, 4].item() == pytest.approx(4.0, abs=0.2)
    assert rules[CODE_CROSS][0, 32].item() == pytest.approx(6.0, abs=0.2)  # six rows read
    assert set(rules[CODE_FLAT_CROSS][torch.isfinite(rules[CODE_FLAT_CROSS])].tolist()) == {0.0}
    with pytest.raises(ValueError, match="valid: kept, sum, zero"):
        Rule(carries="mean")


def test_bad_sizes_and_directions_are_refused():
    with pytest.raises(ValueError, match="larger than the bias"):
        calibrate(torch.zeros(1, 5, 5), (4, 8))
    with pytest.raises(ValueError, match="valid: diagonal, vertical, anti-diagonal"):
        calibrate(torch.zeros(1, 5, 5), (8, 8), directions=("horizontal",))


@pytest.mark.parametrize("frame", ["end", "start"])
def test_abc_recovers_the_window_a_model_was_forced_to_attend_with(frame):
    """A model whose attention is forced by a windowed bias (w = 0: self-attention on the diagonal, cross-attention
    on the diagonal of its source ids: the reversed source's anti-diagonal, or with ids from the start the source in
    order) gives back that window, at a larger size, in the frame of its ids."""
    from lengthgen.analysis.calibration import calibrated_table
    from lengthgen.data import EOS, Seq2SeqBatch
    from lengthgen.models.positional import CLOSED, bias_table, windowed_table
    from lengthgen.models.transformer import EncoderDecoder, TransformerConfig

    torch.manual_seed(0)
    cfg = TransformerConfig(width=16, heads=2, layers=2, encoder_layers=1, ff=32, positional="sinusoidal+bias",
                            max_positions=24, memory_from=frame)
    model = EncoderDecoder(cfg, 14)
    window = windowed_table(2, 8, range(1, 3), range(3, 5), window=0)
    bias_table(model).set_table(window)
    gen = torch.Generator().manual_seed(0)
    src = torch.randint(4, 14, (16, 6), generator=gen)
    tgt = torch.cat([torch.randint(4, 14, (16, 5), generator=gen), torch.full((16, 1), EOS)], 1)
    batch = Seq2SeqBatch(src, torch.full((16,), 6), tgt, torch.full((16,), 6))
    table = calibrated_table(model, batch, 20, directions=(("diagonal",), ("diagonal",)))
    assert table.shape == (5, 2, 20, 20) and torch.equal(table[0], torch.zeros(2, 20, 20))  # the encoder stays open
    expected = windowed_table(2, 20, range(1, 3), range(3, 5), window=0)
    assert torch.equal(table[1:], expected[1:])
    bias_table(model).set_table(table)
    assert (bias_table(model).table[3, 0, 10, 11] == CLOSED) and bias_table(model).table[3, 0, 10, 10] == 0


def test_abc_calibrated_per_layer_gives_each_layer_its_own_line():
    """Two decoder layers forced to read different cross-attention lines (keys t and t + 2 from the source's end):
    a rule whose source is "last" writes the last layer's line into both layers, one whose source is "each" gives
    each layer back its own; the two rules of a table must agree on the source."""
    from dataclasses import replace

    from lengthgen.analysis.calibration import PAPER, calibrated_table
    from lengthgen.data import EOS, Seq2SeqBatch
    from lengthgen.models.positional import bias_table, windowed_table
    from lengthgen.models.transformer import EncoderDecoder, TransformerConfig

    torch.manual_seed(0)
    cfg = TransformerConfig(width=16, heads=2, layers=2, encoder_layers=0, ff=32, positional="sinusoidal+bias",
                            max_positions=24)
    model = EncoderDecoder(cfg, 14)
    self_layers, cross_layers = model.decoder_layers  # 0-1 and 2-3
    forced = windowed_table(2, 8, self_layers, cross_layers, window=0)
    forced[cross_layers[1]] = windowed_table(2, 8, self_layers, cross_layers, window=0, offset=2)[cross_layers[1]]
    bias_table(model).set_table(forced)
    gen = torch.Generator().manual_seed(0)
    src = torch.randint(4, 14, (16, 8), generator=gen)
    tgt = torch.cat([torch.randint(4, 14, (16, 5), generator=gen), torch.full((16, 1), EOS)], 1)
    batch = Seq2SeqBatch(src, torch.full((16,), 8), tgt, torch.full((16,), 6))
    directions = (("diagonal",), ("diagonal",))
    expected = [windowed_table(2, 20, self_layers, cross_layers, window=0, offset=o)[cross_layers[0]] for o in (0, 2)]
    last = calibrated_table(model, batch, 20, directions=directions)
    assert torch.equal(last[cross_layers[0]], expected[1]) and torch.equal(last[cross_layers[1]], expected[1])
    each = replace(PAPER, source="each")
    table = calibrated_table(model, batch, 20, (each, each), directions=directions)
    assert torch.equal(table[cross_layers[0]], expected[0]) and torch.equal(table[cross_layers[1]], expected[1])
    assert torch.equal(table[self_layers], last[self_layers])  # both self-attention layers read the diagonal
    with pytest.raises(ValueError, match="differ in source"):
        calibrated_table(model, batch, 20, (each, PAPER))
    with pytest.raises(ValueError, match="valid: last, each"):
        replace(PAPER, source="first")
