"""Experiment registry: every named experiment the CLI can run."""

from lengthgen.experiments.abc import ABC_EXPERIMENTS
from lengthgen.experiments.base import PROFILES, Experiment, load_trained
from lengthgen.experiments.monotonic import MLA_EXPERIMENTS
from lengthgen.experiments.sparsity import SPARSITY_EXPERIMENTS
from lengthgen.experiments.sparsity_language import LANGUAGE
from lengthgen.experiments.vanishing_variance import VV_EXPERIMENTS
from lengthgen.registry import Registry

EXPERIMENTS = Registry("experiment", {e.name: e for e in (*VV_EXPERIMENTS, *MLA_EXPERIMENTS, *SPARSITY_EXPERIMENTS,
                                                          LANGUAGE, *ABC_EXPERIMENTS)})

__all__ = ["EXPERIMENTS", "PROFILES", "Experiment", "load_trained"]
