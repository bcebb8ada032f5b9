"""Model registry: MODELS[name] = (config class, build(config, task) -> untrained model); `build_model` adds the
seeded initialisation and the device. Every model exposes `loss(batch)` and `predict(batch, ...)`."""

from collections.abc import Callable
from typing import Any, NamedTuple

import torch
from torch import nn

from lengthgen.device import default_device
from lengthgen.errors import LengthgenError
from lengthgen.models import gru_seq2seq, probe, transformer
from lengthgen.models.cross_attention import CROSS_ATTENTION
from lengthgen.models.gru_seq2seq import GRUSeq2Seq, Seq2SeqConfig
from lengthgen.models.probe import AttentionProbe, ProbeConfig
from lengthgen.models.transformer import DecoderOnly, EncoderDecoder, TransformerConfig
from lengthgen.registry import Registry
from lengthgen.seeding import init_model


class ModelEntry(NamedTuple):
    """One registered model."""

    config: type  # its config dataclass
    build: Callable[[Any, Any], nn.Module]  # (config, task) -> the untrained model


MODELS = Registry("model", {"probe": ModelEntry(ProbeConfig, probe.build),
                            "gru_seq2seq": ModelEntry(Seq2SeqConfig, gru_seq2seq.build),
                            "decoder": ModelEntry(TransformerConfig, transformer.build_decoder),
                            "encoder_decoder": ModelEntry(TransformerConfig, transformer.build_encoder_decoder)})


def build_model(name: str, cfg, task, seed: int, device: torch.device | str | None = None) -> nn.Module:
    """The untrained model `name` for `task`, its parameters drawn from the seed's "init" stream (on the CPU, so the
    same seed gives the same weights everywhere), then moved to `device` (default: `default_device()`)."""
    entry = MODELS[name]
    if not isinstance(cfg, entry.config):
        raise LengthgenError(f"model {name!r} takes a {entry.config.__name__}, not a {type(cfg).__name__}")
    return init_model(entry.build, cfg, task, seed=seed).to(device or default_device())


__all__ = ["CROSS_ATTENTION", "MODELS", "AttentionProbe", "DecoderOnly", "EncoderDecoder", "GRUSeq2Seq", "ModelEntry",
           "ProbeConfig", "Seq2SeqConfig", "TransformerConfig", "build_model"]
