import pytest
import torch

from lengthgen import pretrained
from lengthgen.analysis.variance import loglog_slope
from lengthgen.errors import LengthgenError


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory):
    """A randomly initialised 1-layer Llama saved as a local Hugging Face folder (no tokenizer)."""
    from transformers import LlamaConfig, LlamaModel

    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=97, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                      num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=256)
    path = tmp_path_factory.mktemp("tiny-llama")
    LlamaModel(cfg).save_pretrained(path)
    return path


def test_llama_loads_and_gives_first_layer_outputs(tiny_llama):
    model, tokenizer = pretrained.load_local(tiny_llama)
    assert tokenizer is None
    ids = torch.randint(97, (3, 10), generator=torch.Generator().manual_seed(0))
    out = pretrained.first_layer_outputs(model, ids)
    assert out.shape == (3, 32)


def test_without_positions_makes_the_last_output_order_invariant(tiny_llama):
    model, _ = pretrained.load_local(tiny_llama)
    ids = torch.randint(97, (1, 12), generator=torch.Generator().manual_seed(1))
    shuffled = torch.cat([ids[:, :-1].flip(1), ids[:, -1:]], 1)  # same multiset, same last (query) token
    with pretrained.without_positions(model):
        a, b = pretrained.first_layer_outputs(model, ids), pretrained.first_layer_outputs(model, shuffled)
    assert torch.allclose(a, b, atol=1e-5)
    with_pos = pretrained.first_layer_outputs(model, ids), pretrained.first_layer_outputs(model, shuffled)
    assert not torch.allclose(*with_pos, atol=1e-5)
    assert torch.allclose(pretrained.first_layer_outputs(model, ids), with_pos[0])  # rotary restored


def test_std_decays_with_length_on_random_tokens_without_positions(tiny_llama):
    model, _ = pretrained.load_local(tiny_llama)
    df = pretrained.std_by_length(model, None, [4, 16, 64, 256], n_sequences=64,
                                  strategies=("random tokens, no positions",), fixed_query=True)
    curve = df.groupby("length")["std"].mean()
    assert loglog_slope(curve.index, curve.values) < -0.2


def test_minilm_ships_and_zeroing_positions_is_undone():
    model, tokenizer = pretrained.load_local(pretrained.minilm_dir())
    table = model.embeddings.position_embeddings.weight
    before = table.detach().clone()
    with pretrained.without_positions(model):
        assert torch.count_nonzero(table) == 0
    assert torch.equal(table, before)
    ids = pretrained.text_ids(tokenizer)
    assert len(ids) > 50_000


def test_not_a_model_folder(tmp_path):
    with pytest.raises(LengthgenError, match="no config.json"):
        pretrained.load_local(tmp_path)
