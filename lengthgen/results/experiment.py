"""A named experiment: its run configs per profile, the function computing one config, the labels of its rows. Every
experiment the CLI runs is one (the papers' and the leaderboard's); the results store and its sweeps run them."""

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from lengthgen.errors import LengthgenError
from lengthgen.results.store import RunOutput

PROFILES = ("smoke", "quick", "cpu", "regime", "full")
PROFILE_HELP = {
    "smoke": "seconds; exercises code paths in tests, proves nothing",
    "quick": "the book build on a 2-core CPU (minutes per chapter), still testing the paper's claim",
    "cpu": "the largest runs done here on CPU in the background, stored and committed",
    "regime": "the paper's regime where it decides whether the mechanism works, at the smallest size where it fits, "
              "the rest as cpu (sized on sizing seeds, Methods); stored runs on CPU",
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
        size: config -> its model's size as it sets a training step's cost (e.g. "4x128"): a missing run's time is
            read from the stored runs of its task at its size where there are any; None: every size alike.
        stored: the profile whose results are committed and read, where it is not `stored_profile`'s default.
        more: (profile, seeds or None, variants) -> the configs of variants the profile does not list but the
            experiment can run at its sizes (the leaderboard: a registered mechanism's row on the profile's tasks),
            for `configs_named`; None: a profile's variants are all there are.
    """

    name: str
    description: str
    configs: Callable[[str, tuple[int, ...] | None], list]
    run: Callable[[object], pd.DataFrame | RunOutput]
    labels: Callable[[object], dict]
    build: Callable[[object], tuple]
    profiles: tuple[str, ...]
    steps: Callable[[object], int] | None = None
    stored: str = ""
    size: Callable[[object], str] | None = None
    more: Callable[[str, tuple[int, ...] | None, tuple[str, ...]], list] | None = None

    def work(self, config) -> float:
        """What the time estimates scale a run's wall time by: its training steps (`steps`), else 1."""
        return 1.0 if self.steps is None else float(self.steps(config))

    def cost(self, config) -> tuple[str, str, float]:
        """What the time estimates read of a run (`sweep.estimated_seconds`): (its task, its size or "", its work)."""
        return self.labels(config)["task"], self.size(config) if self.size else "", self.work(config)

    @property
    def stored_profile(self) -> str:
        """The profile whose results are committed and read: `stored` where given, else cpu where defined, else full,
        else the largest it has."""
        return self.stored or next((p for p in ("cpu", "full") if p in self.profiles), self.profiles[-1])

    def configs_for(self, profile: str, seeds: tuple[int, ...] | None = None) -> list:
        """The configs of a profile; raises a clear error for an unknown profile."""
        if profile not in self.profiles:
            raise LengthgenError(f"unknown profile {profile!r} for {self.name}; valid: {', '.join(self.profiles)}")
        return self.configs(profile, seeds)

    def configs_named(self, profile: str, seeds: tuple[int, ...] | None, variants: str | None) -> list:
        """The configs of a profile and, of the variants named (comma-separated; None: none) that it does not list,
        those `more` runs at its sizes."""
        configs = self.configs_for(profile, seeds)
        if variants and self.more is not None:
            have = {str(self.labels(c)["variant"]) for c in configs}
            extra = tuple(dict.fromkeys(v.strip() for v in variants.split(",") if v.strip() not in have))
            configs += self.more(profile, seeds, extra) if extra else []
        return configs

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
