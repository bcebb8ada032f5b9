"""Li, Boduljak & Zhou, "On Vanishing Variance in Transformer Length Generalization": the attention output's
variance shrinks with the length; LayerNorm after attention."""

from lengthgen.papers.base import Paper
from lengthgen.papers.vv.claims import CLAIMS
from lengthgen.papers.vv.experiments import VV_EXPERIMENTS
from lengthgen.papers.vv.rows import scorecard_rows

PAPER = Paper(name="vv", title="Vanishing variance", experiments=VV_EXPERIMENTS, rows=scorecard_rows,
              stored_profiles=("cpu", "full"), compares_live=False, claims=tuple(CLAIMS))
