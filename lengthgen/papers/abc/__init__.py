"""Duan, Shi & Xu, "From Interpolation to Extrapolation: Complete Length Generalization for Arithmetic
Transformers": attention bias scaffolding and calibration (ABC) on arithmetic tasks."""

from lengthgen.papers.abc.experiments import ABC_EXPERIMENTS
from lengthgen.papers.abc.factor_readings import factor_methods
from lengthgen.papers.abc.factors import ABC_FACTORS
from lengthgen.papers.abc.paper import CLAIMS
from lengthgen.papers.abc.rows import scorecard_rows
from lengthgen.papers.base import Paper

PAPER = Paper(name="abc", title="Attention bias calibration", experiments=(*ABC_EXPERIMENTS, ABC_FACTORS),
              rows=scorecard_rows, stored_profiles=("cpu", "regime"), compares_live=True, claims=tuple(CLAIMS),
              methods=(("abc-factors.md", factor_methods),))
