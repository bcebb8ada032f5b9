"""Where models run: CUDA when present, else the CPU; `LENGTHGEN_DEVICE` overrides (e.g. `cpu` for the tests)."""

import os

import torch
from torch import nn


def default_device() -> torch.device:
    """`LENGTHGEN_DEVICE` if set, else the first CUDA device when one is present, else the CPU."""
    if name := os.environ.get("LENGTHGEN_DEVICE"):
        return torch.device(name)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def device_of(model: nn.Module) -> torch.device:
    """The device holding the model's parameters (batches are moved there)."""
    return next(model.parameters()).device
