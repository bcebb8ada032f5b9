"""Model registry: name -> (config class, model class)."""

from lengthgen.models.cross_attention import CROSS_ATTENTION
from lengthgen.models.gru_seq2seq import GRUSeq2Seq, Seq2SeqConfig
from lengthgen.models.probe import AttentionProbe, ProbeConfig
from lengthgen.registry import Registry

MODELS = Registry("model", {"probe": (ProbeConfig, AttentionProbe), "gru_seq2seq": (Seq2SeqConfig, GRUSeq2Seq)})

__all__ = ["CROSS_ATTENTION", "MODELS", "AttentionProbe", "GRUSeq2Seq", "ProbeConfig", "Seq2SeqConfig"]
