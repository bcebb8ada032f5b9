"""Peers' headline results, each run in its own shape (its task, mechanism, depth and training lengths) at this
machine's scale, beside the board: `lengthgen run leaderboard-headlines --profile cpu`.

A headline states how far a peer's mechanism extrapolates; ours is the board's mechanism that implements it
(`grid.MECHANISMS`: position coupling's learned ids, which on numbers are Abacus's digit places) trained on the peer's
lengths, with the peer's number of layers where its model is small enough to run here (position coupling's one layer)
and the board's two otherwise. The peer's model and training are much larger, so a headline that does not reproduce
here says what this scale does, not that the peer is wrong; the in-distribution score tells whether ours fit at all.
"""

from dataclasses import dataclass

import pandas as pd

from lengthgen.analysis.verdicts import NOT_TRAINED, TRAINED
from lengthgen.leaderboard.grid import (
    MECHANISMS,
    LeaderboardRun,
    LeaderboardSizes,
    TaskLengths,
    build_run,
    run_leaderboard,
    run_steps,
)
from lengthgen.leaderboard.protocol import run_scores
from lengthgen.metrics import ACCURACY
from lengthgen.registry import Registry
from lengthgen.results.experiment import Experiment


@dataclass(frozen=True)
class Headline:
    """A peer's headline: its task and mechanism on the board, its number of layers, its training lengths and the
    longest test length it reports, with the accuracy it reports there (None where it states only that it
    "reaches" it)."""

    peer: str  # who states it, and what
    task: str  # a board task (`grid.TASK_LENGTHS`)
    mechanism: str  # a board mechanism (`grid.MECHANISMS`)
    layers: int  # ours: the peer's where its model is small enough, else the board's
    train: tuple[int, int]  # shortest and longest training length (the task's unit: digits)
    tests: tuple[int, ...]  # the lengths scored, the longest training length first and the peer's last
    accuracy: float | None = None  # the peer's exact match (%) at its longest test length

    def run(self, sizes: LeaderboardSizes, seed: int) -> LeaderboardRun:
        """The run of this headline at a profile's sizes (its width, budget, test examples; the headline's depth and
        lengths)."""
        return sizes.run(self.task, self.mechanism, seed, self.layers,
                         TaskLengths(self.train, self.tests, self.peer))


HEADLINES = Registry("headline", {
    "coupling 1-30": Headline("position coupling (Cho et al. 2024): a 1-layer model trained on 1-30-digit additions "
                              "reaches 200 digits", "addition", "coupling", 1, (1, 30), (30, 50, 100, 200)),
    "abacus 1-20": Headline("Abacus embeddings (McLeish et al. 2024): trained on operands of up to 20 digits, up to "
                            "99% at 100 (its models are 16 layers deep or looped; ours has 2)", "addition", "coupling",
                            2, (1, 20), (20, 50, 100), 99.0),
})


# A profile sets the board's width, heads, budget and test examples for every headline, and the seeds (its tasks and
# mechanisms are the headlines'; max_positions: ids up to the longest test, with room for coupling's random shift in
# training). cpu: the board's quick width and budget (2 layers of width 64 fit Copy in 2,000 steps there; addition is
# given five times as many), the peer's depth.
HEADLINE_PROFILES = {
    "smoke": LeaderboardSizes(tasks=(), mechanisms=(), width=16, heads=2, layers=2, steps=5, batch=8, lr=1e-3,
                              samples=8, seeds=(0,), max_positions=128, longest=50),
    "cpu": LeaderboardSizes(tasks=(), mechanisms=(), width=64, heads=4, layers=2, steps=10_000, batch=64, lr=1e-3,
                            samples=200, seeds=(0, 1, 2), max_positions=256),
}


def headline_of(cfg: LeaderboardRun) -> str:
    """The headline a run belongs to (by its task, mechanism, depth and training lengths)."""
    for name, h in HEADLINES.items():
        if (h.task, h.mechanism, h.layers, h.train) == (cfg.task, cfg.mechanism, cfg.model.layers,
                                                          (cfg.train.min_length, cfg.train.max_length)):
            return name
    raise ValueError(f"no headline runs {cfg.mechanism} on {cfg.task} with {cfg.model.layers} layers")


def headline_shape(profile: str) -> str:
    """How a profile runs the headlines, in a sentence: each one's depth, and the width, heads, steps, batch and
    learning rate they share."""
    sizes = HEADLINE_PROFILES[profile]
    depths = "; ".join(f"{name}: {h.layers} layer{'' if h.layers == 1 else 's'}" for name, h in HEADLINES.items())
    return (f"Ours ({profile}): {depths}; each of width {sizes.width} with {sizes.heads} heads, trained "
            f"{sizes.steps:,} steps of batch {sizes.batch} (AdamW, learning rate {sizes.lr:g}) on additions whose "
            "operands are drawn at one length from the training lengths, at seeds "
            f"{', '.join(map(str, sizes.seeds))}.")


def headline_labels(cfg: LeaderboardRun) -> dict:
    return {"task": headline_of(cfg), "model": MECHANISMS[cfg.mechanism].model_name, "variant": cfg.mechanism,
            "seed": cfg.seed}


def headline_configs(profile: str, seeds: tuple[int, ...] | None) -> list[LeaderboardRun]:
    """Every headline at every seed of a profile (its seeds unless given)."""
    sizes = HEADLINE_PROFILES[profile]
    return [h.run(sizes, seed) for h in HEADLINES.values() for seed in (seeds or sizes.seeds)]


LEADERBOARD_HEADLINES = Experiment(
    name="leaderboard-headlines", description="peers' headlines (position coupling's, Abacus's) in their shape at "
    "this machine's scale", configs=headline_configs, run=run_leaderboard, labels=headline_labels, build=build_run,
    profiles=tuple(HEADLINE_PROFILES), steps=run_steps)


def headline_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per headline: the peer's statement, ours in distribution, at each tested length past training and at the
    peer's longest length (median over seeds, with their range there), and the verdict there: "reproduced at this
    scale" when ours reaches the peer's accuracy (the board's bar, TRAINED, where the peer states none), "partly" when
    it reaches TRAINED but not the peer's accuracy, "not reproduced at this scale" below TRAINED; "not trained" when
    ours does not fit its training lengths; "not tested at the peer's length" where a profile stops short of it
    (smoke)."""
    scores = run_scores(runs, {name: HEADLINES[name].train[1] for name in set(runs.task)})
    acc = runs[runs.metric == ACCURACY]
    rows = []
    for name, g in scores.groupby("task", sort=False):
        h = HEADLINES[name]
        at = acc[(acc.task == name) & (acc.length == h.tests[-1])].value
        fit, ours = float(g["in distribution"].median()), float(at.median()) if len(at) else float("nan")
        verdict = ("not tested at the peer's length" if at.empty else NOT_TRAINED if not fit >= TRAINED else
                   "reproduced at this scale" if ours >= (TRAINED if h.accuracy is None else h.accuracy) else
                   f"partly (at or above {TRAINED:g}%, below the peer's)" if ours >= TRAINED else
                   "not reproduced at this scale")
        past = acc[(acc.task == name) & (acc.length > h.train[1])].groupby("length").value.median()
        rows.append({"headline": h.peer, "in distribution": round(fit, 1),
                     "past training (median)": ", ".join(f"{n}: {v:.1f}" for n, v in past.items()) or "–",
                     "length": h.tests[-1],
                     "peer": "–" if h.accuracy is None else h.accuracy, "ours": round(ours, 1),
                     "seeds": f"{at.min():.0f}-{at.max():.0f} ({len(at)})" if len(at) else "–",
                     "verdict": verdict})
    return pd.DataFrame(rows)
