"""Model registry: name -> (config class, builder taking (task, config))."""

from lengthgen.models.probe import AttentionProbe, ProbeConfig
from lengthgen.registry import Registry

MODELS = Registry("model", {"probe": (ProbeConfig, AttentionProbe)})

__all__ = ["MODELS", "AttentionProbe", "ProbeConfig"]
