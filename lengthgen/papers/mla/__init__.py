"""Chowdhury & Caragea, "Monotonic Location Attention for Length Generalization": GRU seq2seq with every
cross-attention mechanism, on the probing tasks and SCAN."""

from lengthgen.papers.base import Paper
from lengthgen.papers.mla.claims import CLAIMS
from lengthgen.papers.mla.experiments import MLA_EXPERIMENTS
from lengthgen.papers.mla.rows import scorecard_rows

PAPER = Paper(name="mla", title="Monotonic location attention", experiments=MLA_EXPERIMENTS, rows=scorecard_rows,
              stored_profiles=("full",), compares_live=True, claims=tuple(CLAIMS))
