"""The reproduced papers, one folder each (`papers/<name>/`: its numbers as data, grids and sizes, readings, scorecard
rows), and every named experiment the CLI can run."""

from lengthgen.papers import abc, mla, sparsity, vv
from lengthgen.papers.base import PROFILES, Experiment, Paper, load_trained
from lengthgen.registry import Registry

PAPERS = Registry("paper", {p.name: p for p in (mla.PAPER, sparsity.PAPER, vv.PAPER, abc.PAPER)})
EXPERIMENTS = Registry("experiment", {e.name: e for p in PAPERS.values() for e in p.experiments})
CHAPTER = {e.name: p.name for p in PAPERS.values() for e in p.experiments}  # experiment -> its paper's chapter

__all__ = ["CHAPTER", "EXPERIMENTS", "PAPERS", "PROFILES", "Experiment", "Paper", "load_trained"]
