"""What a paper provides: its experiments (named configs per profile, a function computing one config, row labels)
and its scorecard rows (`Paper`), in one shape for every paper, so that the scorecard and the book iterate over
`papers.PAPERS` without naming one."""

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from lengthgen.analysis.claims import Claim
from lengthgen.analysis.verdicts import NOT_RUN
from lengthgen.errors import LengthgenError
from lengthgen.results.store import ResultStore, RunOutput
from lengthgen.results.sweep import stored_runs

PROFILES = ("smoke", "quick", "cpu", "regime", "full")
PROFILE_HELP = {
    "smoke": "seconds; exercises code paths in tests, proves nothing",
    "quick": "the book build on a 2-core CPU (minutes per chapter), still testing the paper's claim",
    "cpu": "the largest runs done here on CPU in the background, stored and committed",
    "regime": "the paper's recipe at the smallest size where its mechanism fits (sized on sizing seeds, Methods); "
              "stored runs on CPU",
    "full": "the paper's own settings (seeds, steps); meant for a GPU or a long CPU run",
}


@dataclass(frozen=True)
class Experiment:
    """A named experiment of one paper (its `Paper.experiments`; the paper's name is the prefix of its name).

    Attributes:
        name: CLI name.
        description: one line.
        configs: (profile, seeds or None for the profile's default) -> list of run configs.
        run: config -> tidy metrics DataFrame (length, metric, value), or a RunOutput (metrics plus a
            checkpoint and/or a training history for the store to keep).
        labels: config -> {task, model, variant, seed} for the tidy table.
        build: config -> (task, untrained model), as `run` builds them (so a stored checkpoint can be loaded).
        profiles: profiles this experiment defines (of PROFILES).
        steps: config -> the training steps it runs in all (retraining included), by which the time of a missing run
            is scaled from the stored runs' wall time per step; None: every run of a task is taken to cost alike.
    """

    name: str
    description: str
    configs: Callable[[str, tuple[int, ...] | None], list]
    run: Callable[[object], pd.DataFrame | RunOutput]
    labels: Callable[[object], dict]
    build: Callable[[object], tuple]
    profiles: tuple[str, ...]
    steps: Callable[[object], int] | None = None

    def work(self, config) -> float:
        """What the time estimates scale a run's wall time by: its training steps (`steps`), else 1."""
        return 1.0 if self.steps is None else float(self.steps(config))

    @property
    def stored_profile(self) -> str:
        """The profile whose results are committed: cpu where defined, else full."""
        return "cpu" if "cpu" in self.profiles else "full"

    def configs_for(self, profile: str, seeds: tuple[int, ...] | None = None) -> list:
        """The configs of a profile; raises a clear error for an unknown profile."""
        if profile not in self.profiles:
            raise LengthgenError(f"unknown profile {profile!r} for {self.name}; valid: {', '.join(self.profiles)}")
        return self.configs(profile, seeds)

    def select(self, configs: list, **wanted: str | None) -> list:
        """The configs whose labels match, e.g. select(cs, task="copy,recopy", variant="mono"); None keeps all.

        Each value is a comma-separated list of label values, where a value may hold commas itself (Table 3's
        "w=1, T=3, aligned"); one that no config has raises a clear error.
        """
        for key, text in wanted.items():
            if text is None:
                continue
            have = list(dict.fromkeys(str(self.labels(c)[key]) for c in configs))
            values = listed_values(text, have)
            unknown = [v for v in values if v not in have]
            if unknown:
                valid = ", ".join(repr(v) if "," in v else v for v in have)
                raise LengthgenError(f"no {key} {unknown[0]!r} in {self.name}; valid: {valid}")
            configs = [c for c in configs if str(self.labels(c)[key]) in values]
        return configs


def listed_values(text: str, have: list[str]) -> list[str]:
    """The values of a comma-separated list whose values may hold commas: at each place, the longest run of parts
    that is one of `have`, else the next part alone (an unknown value, for the caller to name)."""
    parts, values, start = text.split(","), [], 0
    while start < len(parts):
        end = next((end for end in range(len(parts), start, -1) if ",".join(parts[start:end]).strip() in have),
                   start + 1)
        values.append(",".join(parts[start:end]).strip())
        start = end
    return values


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


def claim_rows(claims: list[Claim], readings: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """A scorecard row per claim whose reading is there, or per part of it (`Claim.parts`): where in the paper, the
    part's name, what the paper states, our side and the part's verdict."""
    shown = [(c, part) for c in claims for part in c.parts(readings) if part[2] != NOT_RUN]
    return row_frame([c.where for c, _ in shown], [name for _, (name, _, _) in shown],
                     [c.statement for c, _ in shown], [text for _, (_, text, _) in shown], None,
                     [verdict for _, (_, _, verdict) in shown], "")


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
