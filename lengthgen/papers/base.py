"""What a paper provides: its experiments (named configs per profile, a function computing one config, row labels)
and its scorecard rows (`Paper`), in one shape for every paper, so that the scorecard and the book iterate over
`papers.PAPERS` without naming one."""

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from lengthgen.analysis.claims import Claim
from lengthgen.analysis.verdicts import NOT_RUN
from lengthgen.results.experiment import Experiment
from lengthgen.results.store import ResultStore
from lengthgen.results.sweep import stored_runs


def load_trained(experiment: Experiment, cfg, store: ResultStore) -> tuple:
    """(model in eval mode, task) of a stored run: the config's model, built as the run built it, with the weights of
    the run's checkpoint (kept beside its entry; not committed, so only runs made on this machine have one)."""
    task, model = experiment.build(cfg)
    model.load_state_dict(store.load_checkpoint(experiment.name, cfg))
    return model.eval(), task


# The columns of a scorecard row, as a paper's `Paper.rows` returns them. "former verdict": the lenient rule's verdict
# on the same numbers where one applied (`verdicts.former_cell_verdict`, `former_mean_verdict`), else None.
ROW = ["source", "cell", "paper value", "ours", "seeds", "verdict", "reason", "former verdict"]


def row_frame(source, cell: list, paper, ours: list, seeds, verdict: list, reason,
              former: list | None = None) -> pd.DataFrame:
    """Scorecard rows (`ROW`), one per cell; a scalar argument holds for every row."""
    return pd.DataFrame({"source": source, "cell": cell, "paper value": paper, "ours": ours, "seeds": seeds,
                         "verdict": verdict, "reason": reason, "former verdict": former}, columns=ROW)


def claim_rows(claims: list[Claim], readings: dict[str, pd.DataFrame], seeds: dict[str, int] | None = None,
               scales: dict[str, str] | None = None) -> pd.DataFrame:
    """A scorecard row per claim whose reading is there, or per part of it (`Claim.parts`): where in the paper, the
    part's name, what the paper states, our side, the seeds its reading judged and the scale it ran at (`seeds`,
    `scales`: by reading key; none where not given) and the part's verdict."""
    shown = [(c, part) for c in claims for part in c.parts(readings) if part[2] != NOT_RUN]
    return row_frame([c.where for c, _ in shown], [name for _, (name, _, _) in shown],
                     [c.statement for c, _ in shown], [text for _, (_, text, _) in shown],
                     [(seeds or {}).get(c.reading) for c, _ in shown], [verdict for _, (_, _, verdict) in shown],
                     [(scales or {}).get(c.reading, "") for c, _ in shown])


def grid_runs(experiment: Experiment, profile: str, store: ResultStore) -> pd.DataFrame:
    """The stored runs of an experiment's grid at `profile`; none when the experiment has no such profile."""
    return stored_runs(experiment, profile, store) if profile in experiment.profiles else pd.DataFrame()


@dataclass(frozen=True)
class Paper:
    """One reproduced paper: its chapter, its experiments, its claims and its scorecard rows.

    Attributes:
        name: the short name used everywhere: folder (`papers/<name>/`), experiment prefix, notebook, chapter.
        title: as the scorecard names the paper.
        experiments: its experiments, in the order `lengthgen list` shows them.
        rows: (store, profile) -> the scorecard rows (`ROW`) of the store's runs at that profile.
        stored_profiles: the profiles whose runs are committed in `results/`.
        compares_live: whether the chapter sets its live (quick) runs beside the paper, so that they are scored too.
        claims: the statements of the paper that its chapter judges (`analysis.claims.Claim`), in the paper's order.
        methods: sections of the Methods page generated from its stored runs or its code, (file name under book/,
            store -> Markdown): written at every build (`book.write_methods_sections`), as the scorecard is;
            methods.md includes them.
    """

    name: str
    title: str
    experiments: tuple[Experiment, ...]
    rows: Callable[[ResultStore, str], pd.DataFrame]
    stored_profiles: tuple[str, ...]
    compares_live: bool
    claims: tuple[Claim, ...] = ()
    methods: tuple[tuple[str, Callable[[ResultStore], str]], ...] = ()
