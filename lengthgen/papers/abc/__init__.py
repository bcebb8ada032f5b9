"""Duan, Shi & Xu, "From Interpolation to Extrapolation: Complete Length Generalization for Arithmetic
Transformers": attention bias scaffolding and calibration (ABC) on arithmetic tasks."""

from lengthgen.papers.abc.experiments import ABC_EXPERIMENTS
from lengthgen.papers.abc.rows import scorecard_rows
from lengthgen.papers.base import Paper

PAPER = Paper(name="abc", title="Attention bias calibration", experiments=ABC_EXPERIMENTS, rows=scorecard_rows,
              stored_profiles=("cpu",), compares_live=True)
