"""Duan, Shi & Xu, "From Interpolation to Extrapolation: Complete Length Generalization for Arithmetic
Transformers": attention bias scaffolding and calibration (ABC) on arithmetic tasks."""

from lengthgen.papers.abc.experiments import ABC_EXPERIMENTS, recipe_section
from lengthgen.papers.abc.factor_readings import factor_methods
from lengthgen.papers.abc.factors import ABC_FACTORS
from lengthgen.papers.abc.paper import CLAIMS, PUBLIC_CODE_RECIPE
from lengthgen.papers.abc.rows import scorecard_rows
from lengthgen.papers.base import Paper

PAPER = Paper(name="abc", title="Attention bias calibration", experiments=(*ABC_EXPERIMENTS, ABC_FACTORS),
              rows=scorecard_rows, stored_profiles=("cpu", "regime"), compares_live=True, claims=tuple(CLAIMS),
              methods=(("abc-recipe.md", lambda _: recipe_section(PUBLIC_CODE_RECIPE)),
                       ("abc-factors.md", factor_methods)))
