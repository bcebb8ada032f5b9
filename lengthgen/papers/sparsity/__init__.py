"""Golowich et al., "The Role of Sparsity for Length Generalization in Transformers": sparse parity, scratchpads with
(predictive) position coupling, variable assignment, sparsity in natural language."""

from lengthgen.papers.base import Paper
from lengthgen.papers.sparsity.experiments import SPARSITY_EXPERIMENTS
from lengthgen.papers.sparsity.language import LANGUAGE
from lengthgen.papers.sparsity.paper import CLAIMS
from lengthgen.papers.sparsity.rows import STORED_PROFILES, quick_methods, scorecard_rows
from lengthgen.papers.sparsity.setups import sizes_table
from lengthgen.papers.sparsity.sizing import (
    ASSIGNMENT_CONTROL,
    CONTROL,
    FORMAT_CONTROL,
    JUMP_CONTROL,
    LANGUAGE_CONTROL,
    PARITY_CONTROL,
    PARITY_SIZE_CONTROL,
    SIZING_EXPERIMENTS,
    sizing_methods,
)

PAPER = Paper(name="sparsity", title="Sparsity and length generalization",
              experiments=(*SPARSITY_EXPERIMENTS, LANGUAGE, *SIZING_EXPERIMENTS, CONTROL, PARITY_CONTROL,
                           PARITY_SIZE_CONTROL, FORMAT_CONTROL, JUMP_CONTROL,
                           LANGUAGE_CONTROL, ASSIGNMENT_CONTROL),
              rows=scorecard_rows, stored_profiles=STORED_PROFILES, compares_live=True, claims=tuple(CLAIMS),
              methods=(("sparsity-sizes.md", lambda _: sizes_table()), ("sparsity-sizing.md", sizing_methods),
                       ("sparsity-quick.md", quick_methods)))
