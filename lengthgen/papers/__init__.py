"""The reproduced papers, one folder each (`papers/<name>/`: its numbers as data, grids and sizes, readings, scorecard
rows), and every named experiment the CLI can run: the papers' and the leaderboard's."""

from lengthgen.leaderboard.grid import LEADERBOARD
from lengthgen.leaderboard.headlines import LEADERBOARD_HEADLINES
from lengthgen.leaderboard.sizing import LEADERBOARD_CONTROL_BUDGET, LEADERBOARD_CONTROL_NOPE, LEADERBOARD_SIZING
from lengthgen.papers import abc, mla, sparsity, vv
from lengthgen.papers.base import Paper, load_trained
from lengthgen.registry import Registry
from lengthgen.results.experiment import PROFILES, Experiment

PAPERS = Registry("paper", {p.name: p for p in (mla.PAPER, sparsity.PAPER, vv.PAPER, abc.PAPER)})
LEADERBOARDS = (LEADERBOARD, LEADERBOARD_SIZING, LEADERBOARD_CONTROL_NOPE, LEADERBOARD_CONTROL_BUDGET,
                LEADERBOARD_HEADLINES)
EXPERIMENTS = Registry("experiment", {e.name: e for p in PAPERS.values() for e in p.experiments}
                       | {e.name: e for e in LEADERBOARDS})
# experiment -> its chapter
CHAPTER = ({e.name: p.name for p in PAPERS.values() for e in p.experiments}
           | {e.name: "leaderboard" for e in LEADERBOARDS})

__all__ = ["CHAPTER", "EXPERIMENTS", "PAPERS", "PROFILES", "Experiment", "Paper", "load_trained"]
