import pytest
import torch

from lengthgen.models.dropout import LEVELS, Dropout, drop
from lengthgen.models.transformer import TransformerConfig


def test_bits_drops_round_p_levels_of_65536_and_keeps_the_mean():
    torch.manual_seed(0)
    x = torch.ones(400_000)
    y = drop(x, 0.3, "bits")
    share = (y == 0).float().mean().item()
    # 19,661 of 65,536 levels: a drop rate of 0.300003; 400,000 draws have a standard error of 0.0007
    assert round(0.3 * LEVELS) == 19_661 and abs(share - 19_661 / LEVELS) < 0.003
    kept = y[y != 0]
    assert torch.allclose(kept, torch.full_like(kept, LEVELS / (LEVELS - 19_661)))  # 1 / (1 - p') exactly
    assert abs(y.mean().item() - 1.0) < 0.005  # the expectation of every element is kept


def test_bits_masks_are_independent_of_position_and_reproducible():
    torch.manual_seed(1)
    y = drop(torch.ones(4_000, 8), 0.5, "bits")
    per_column = (y == 0).float().mean(0)  # four 16-bit numbers per word: no column is favoured
    assert torch.all((per_column - 0.5).abs() < 0.03)
    odd = drop(torch.ones(3, 5, 7), 0.5, "bits")  # 105 elements: not a multiple of 4
    assert odd.shape == (3, 5, 7)
    torch.manual_seed(1)
    assert torch.equal(drop(torch.ones(4_000, 8), 0.5, "bits"), y)  # the global RNG decides the mask


def test_torch_mask_is_torch_dropout_and_modules_are_identity_in_eval():
    x = torch.randn(64, 32)
    torch.manual_seed(2)
    ours = drop(x, 0.3, "torch")
    torch.manual_seed(2)
    assert torch.equal(ours, torch.nn.functional.dropout(x, 0.3))
    module = Dropout(0.3, "bits").eval()
    assert torch.equal(module(x), x)
    assert not torch.equal(module.train()(x), x)
    with pytest.raises(ValueError, match="unknown dropout mask 'coin'; valid: torch, bits"):
        Dropout(0.3, "coin")
    with pytest.raises(ValueError, match="unknown dropout_mask 'coin'; valid: torch, bits"):
        TransformerConfig(dropout_mask="coin")
    with pytest.raises(ValueError, match="dropout 1.0 is not a probability"):
        Dropout(1.0, "bits")
    with pytest.raises(ValueError, match="drops 65536 of 65536 levels"):
        drop(torch.ones(4), 0.999995, "bits")  # rounds to every level: nothing would be kept
