"""The sizing study of the sparsity chapter: at which model size and budget do the paper's synthetic mechanisms fit
their training lengths?

A result on lengths beyond training counts only on a model that fits its training lengths (>= TRAINED). The chapter's
first `cpu` models (2 layers of width 64) did not fit several of the paper's mechanisms: PPC with learned absolute ids
on variable assignment, PPC with jumps j = 2 and 3, both of Fig. 8's ablations. The paper's models are GPT-NeoX decoders
of 12 layers and width 1024, about 1,500 times the parameters of ours. This study trains each mechanism at each
candidate size (`CANDIDATES`: depth x width, heads of width 16; a mechanism that fits at none, at `LARGER` too) on its
paper's training lengths and reads the course of training (`DecoderRun.course`: exact match at the longest training
length every `course` steps, with a PPC model's tokens, ids and oracle apart), so that one run tells how many steps a
size needs, or that it does not fit in the budget. A run stops at the first point of its course that fits
(`DecoderRun.stop_fitted`): the steps after it would say nothing more about the size, and its tests beyond the training
lengths are those of a model that just fits (on a learning-rate schedule set for the whole budget):

- `sparsity-sizing-scratchpad`: parity with a scratchpad, every jump j with coupled ids and PPC (learned absolute
  ids, coupling's random offset) and j = 1's two ablations (`experiments.scratchpad_runs`), trained on combined
  lengths 10-40 as the paper;
- `sparsity-sizing-assignment`: variable assignment in the paper's format (Appendix E.3: no step separator, no
  copied query, lengths in tokens between the separators), 200 variables, trained on 20-60 tokens and tested to 200
  as the paper, with the paper's learned absolute ids: PPC and its three baselines (`experiments.assignment_runs`).

The seeds are sizing seeds, outside every seed the chapter's grids declare; no run of this study enters a
declared cell. `sizing_table` reads what the runs say.
"""

from dataclasses import dataclass, replace

import pandas as pd

from lengthgen.analysis.sizing import sizing_markdown
from lengthgen.analysis.verdicts import TRAINED
from lengthgen.papers.sparsity.experiments import (
    DecoderRun,
    DecoderSizes,
    assignment_runs,
    build_decoder_run,
    decoder_labels,
    run_decoder,
    scratchpad_runs,
    variant,
)
from lengthgen.results.experiment import Experiment
from lengthgen.results.store import ResultStore
from lengthgen.results.sweep import stored_runs

SIZING_SEEDS = (100, 101)  # outside the chapter's declared seeds (0, 1, 2)
CANDIDATES = ((2, 64), (4, 128))  # (decoder layers, width): the chapter's first size and the next one up; a
# training step of the second costs about 5x the first's (measured side by side on this machine)
LARGER = (4, 256)  # the size after them, for the mechanisms that fit at neither (j = 3 PPC stayed at chance for
# 10,000 steps at both): twice the width, a step about 2.7x a 4x128 one's (measured side by side)
HEAD_WIDTH = 16  # heads = width / HEAD_WIDTH (4 at width 64, as the chapter's models)


@dataclass(frozen=True, kw_only=True)
class SizingSizes:
    """One profile of the sizing study: the candidate sizes, each experiment's recipe (its model size replaced by
    each candidate's) and how the course is read."""

    candidates: tuple[tuple[int, int], ...]  # (layers, width)
    scratchpad: DecoderSizes  # parity with a scratchpad: training, lengths, jumps
    assignment: DecoderSizes  # variable assignment: training, lengths, depths, format
    course: int  # steps between two points of the course
    course_samples: int  # test prompts per point
    seeds: tuple[int, ...]
    larger: tuple[int, int] = (0, 0)  # (layers, width) of a further size, for the scratchpad's `larger_variants` only
    larger_variants: tuple[str, ...] = ()  # the mechanisms (`experiments.variant`) that fit at no candidate

    def at(self, sizes: DecoderSizes, layers: int, width: int) -> DecoderSizes:
        """`sizes` at one candidate size."""
        return replace(sizes, layers=layers, width=width, heads=max(1, width // HEAD_WIDTH))

    def coursed(self, runs: list[DecoderRun]) -> list[DecoderRun]:
        """The runs with their course read every `course` steps, each stopping at its first point that fits."""
        return [replace(run, course=self.course, course_samples=self.course_samples, stop_fitted=True)
                for run in runs]


SIZING_PROFILES = {
    "smoke": SizingSizes(
        candidates=((1, 16),),
        scratchpad=DecoderSizes(width=16, heads=2, layers=1, steps=20, batch=8, lr=1e-3, warmup=5,
                                train_lengths=(2, 4), eval_lengths=(4, 6), samples=8, max_positions=32, seeds=(100,),
                                jumps=(1, 2)),
        assignment=DecoderSizes(width=16, heads=2, layers=1, steps=20, batch=8, lr=1e-3, warmup=5,
                                train_lengths=(4, 8), eval_lengths=(8, 12), samples=8, max_positions=32,
                                seeds=(100,), depths=(2,), positions="learned", variables=20, format="paper"),
        course=10, course_samples=8, seeds=(100,), larger=(1, 32), larger_variants=("j=2 PPC",)),
    "cpu": SizingSizes(
        candidates=CANDIDATES,
        scratchpad=DecoderSizes(width=64, heads=4, layers=2, steps=10_000, batch=64, lr=1e-3, warmup=100,
                                train_lengths=(5, 20), eval_lengths=(5, 10, 20, 40, 60, 100), samples=192,
                                max_positions=210, seeds=SIZING_SEEDS, jumps=(1, 2, 3)),
        assignment=DecoderSizes(width=64, heads=4, layers=2, steps=20_000, batch=32, lr=1e-3, warmup=300,
                                train_lengths=(20, 60), eval_lengths=(20, 40, 60, 100, 150, 200), samples=192,
                                max_positions=256, seeds=SIZING_SEEDS, depths=(2, 3), positions="learned",
                                variables=200, format="paper"),
        course=500, course_samples=64, seeds=SIZING_SEEDS[:1], larger=LARGER, larger_variants=("j=3 PPC",)),
}


def sized_labels(cfg: DecoderRun) -> dict:
    """The chapter's labels with the candidate size ahead of the variant: "4x128 j=1 PPC"."""
    labels = decoder_labels(cfg)
    return labels | {"variant": f"{cfg.model.layers}x{cfg.model.width} {labels['variant']}"}


def scratchpad_sizing(profile: str, seeds: tuple[int, ...] | None) -> list[DecoderRun]:
    """Every scratchpad mechanism at every candidate size, then the ones that fit at none at the larger size."""
    p = SIZING_PROFILES[profile]
    seeds = seeds if seeds is not None else p.seeds
    candidates = [run for layers, width in p.candidates
                  for run in p.coursed(scratchpad_runs(p.at(p.scratchpad, layers, width), seeds))]
    larger = p.coursed(scratchpad_runs(p.at(p.scratchpad, *p.larger), seeds)) if p.larger_variants else []
    return candidates + [run for run in larger if variant(run) in p.larger_variants]


def assignment_sizing(profile: str, seeds: tuple[int, ...] | None) -> list[DecoderRun]:
    """PPC and its baselines on variable assignment, in the paper's format, at every candidate size."""
    p = SIZING_PROFILES[profile]
    seeds = seeds if seeds is not None else p.seeds
    return [run for layers, width in p.candidates
            for run in p.coursed(assignment_runs(p.at(p.assignment, layers, width), seeds))]


def _experiment(name: str, description: str, configs) -> Experiment:
    return Experiment(name=name, description=description, configs=configs, run=run_decoder, labels=sized_labels,
                      build=build_decoder_run, profiles=tuple(SIZING_PROFILES))


SIZING_EXPERIMENTS = (
    _experiment("sparsity-sizing-scratchpad", "sizing: every scratchpad mechanism (jumps with PPC, Fig. 8's "
                "ablations) at each candidate size, with its course of training; sizing seeds", scratchpad_sizing),
    _experiment("sparsity-sizing-assignment", "sizing: variable assignment in the paper's format (PPC with learned "
                "ids, its baselines) at each candidate size, with its course of training; sizing seeds",
                assignment_sizing),
)


def sizing_methods(store: ResultStore) -> str:
    """The sizing study's section of the Methods page (`Paper.methods`) from a results store."""
    return sizing_section(pd.concat([stored_runs(e, "cpu", store) for e in SIZING_EXPERIMENTS], ignore_index=True))


def sizing_section(runs: pd.DataFrame) -> str:
    """The Markdown of `sizing_methods`: the stored runs' `sizing_table`, or a line saying that none is stored."""
    return sizing_markdown(runs, "**The sizing study, as stored** (`sizing.sizing_table`: the first step of the course "
                                 f"at which every seed is >= {TRAINED:.0f}% at the longest training length, where "
                                 "each run stops; the last point and, for PPC, its parts). ")
