"""A paper's claims as data, one type for every paper: where in the paper, what it states, the experiment that tests
it, the reading that judges it and its verdict rule (`Claim`). A chapter shows them (`claims_table`,
`claims_versus`, `claims_summary`); a paper's scorecard rows list each as a row (`papers.base.claim_rows`), or, for
claims judged over many cells (mla's tables, vv's comparisons), each cell."""

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from lengthgen.analysis.verdicts import NOT_RUN, NOT_TRAINED, claim_class, verdict_class

LIVE = "(live, in the chapter)"  # the experiment of a claim that the chapter reads on what it computes itself
BASELINE = "baseline"  # the verdict of a reading's reference rows (e.g. the uncoupled models): never judged
NOT_JUDGED = "not judged (not trained on any seed)"


def every_row(table: pd.DataFrame) -> pd.DataFrame:
    """A claim's default choice of rows: the whole reading."""
    return table


def evidence(table: pd.DataFrame) -> str:
    """A claim's text read from a one-row reading with an `evidence` column."""
    return table.evidence.iloc[0]


def by_class(verdicts: pd.Series) -> str:
    """A claim's default verdict rule: `verdicts.claim_class` of its rows' verdict classes, baseline rows left out."""
    return claim_class([verdict_class(v) for v in verdicts if v != BASELINE])


@dataclass(frozen=True)
class Claim:
    """One statement of a paper that a chapter tests.

    Attributes:
        where: where the paper makes it ("Fig. 3", "Table 1, Figs. 4, 5").
        statement: what it states, in our words.
        experiment: the experiment of ours that tests it (an `EXPERIMENTS` name, or LIVE).
        reading: the key of the reading table that judges it (the chapter's readings of its runs, by key).
        read: the claim's rows of that table -> the text shown beside the statement: verdicts and numbers.
        rows: the reading -> the rows that judge the claim (default: all of them).
        judge: the verdict rule: those rows' `verdict` column -> the claim's verdict (default `by_class`).
        each: a column of the reading that splits the claim into one judged part per value (T1 per training bound
            K, Fig. 3 per depth): the scorecard lists each part as a row of its own (`parts`); None: one row.
    """

    where: str
    statement: str
    experiment: str
    reading: str
    read: Callable[[pd.DataFrame], str]
    rows: Callable[[pd.DataFrame], pd.DataFrame] = every_row
    judge: Callable[[pd.Series], str] = by_class
    each: str | None = None

    @property
    def label(self) -> str:
        """Where and what, in one line: "Fig. 2: each feature concentrates as N grows"."""
        return f"{self.where}: {self.statement}"

    def judged_rows(self, readings: dict[str, pd.DataFrame | None]) -> pd.DataFrame | None:
        """The rows that judge the claim (`rows` of its reading; none chosen is left to `read` and `judge`); None
        when its reading is missing, None or empty, or when every chosen row is a BASELINE (a reference with nothing
        judged against it, e.g. PPC without its ablations)."""
        table = readings.get(self.reading)
        rows = None if table is None or table.empty else self.rows(table)
        return None if rows is None or (len(rows) and (rows.verdict == BASELINE).all()) else rows

    def text(self, readings: dict[str, pd.DataFrame | None]) -> str:
        """Our side of the claim from the readings by key; NOT_RUN when nothing judges it (`judged_rows`)."""
        rows = self.judged_rows(readings)
        return NOT_RUN if rows is None else self.read(rows)

    def verdict(self, readings: dict[str, pd.DataFrame | None]) -> str:
        """The claim's verdict (`judge`) on the verdicts of its rows; NOT_RUN when nothing judges it."""
        rows = self.judged_rows(readings)
        return NOT_RUN if rows is None else self.judge(rows.verdict)

    def parts(self, readings: dict[str, pd.DataFrame | None]) -> list[tuple[str, str, str]]:
        """(name, text, verdict) of each part of the claim (`each`), or of the whole claim as one part named by its
        reading; none when nothing judges it."""
        rows = self.judged_rows(readings)
        if rows is None:
            return []
        if self.each is None:
            return [(self.reading, self.read(rows), self.judge(rows.verdict))]
        return [(f"{self.reading} ({self.each} {value})", self.read(group), self.judge(group.verdict))
                for value, group in rows.groupby(self.each, sort=False)]


def claims_table(claims: list[Claim]) -> pd.DataFrame:
    """The claims a chapter tests (where, what the paper states, our experiment), for the chapter's opening."""
    return pd.DataFrame([(c.where, c.statement, c.experiment) for c in claims],
                        columns=["where", "the paper states", "our experiment"])


def claims_versus(claims: list[Claim], live: dict, stored: dict, first: str, stored_label: str,
                  verdicts_only: bool = False) -> pd.DataFrame:
    """Each claim with our side for the live and the stored runs' readings by key: its text (`Claim.text`: verdicts
    and numbers) or, `verdicts_only`, its one verdict (`Claim.verdict`), for a chapter whose cells a figure shows
    (`verdict_grid`). `first` names the first column ("figure", "where"), `stored_label` the stored runs (e.g.
    "stored cpu runs")."""
    side = Claim.verdict if verdicts_only else Claim.text
    word = "verdict" if verdicts_only else "ours"
    return pd.DataFrame([(c.where, c.statement, side(c, live), side(c, stored)) for c in claims],
                        columns=[first, "the paper states", f"{word}, live", f"{word}, {stored_label}"])


def of_runs(label: str) -> Callable[[Claim, pd.DataFrame], str]:
    """The `claims_summary` context that names the runs every reading comes from: ", <label>"."""
    return lambda claim, table: f", {label}"


def claims_summary(claims: list[Claim], readings: dict[str, pd.DataFrame],
                   context: Callable[[Claim, pd.DataFrame], str] = lambda claim, table: "") -> pd.DataFrame:
    """A chapter's summary lines: one row per claim that `readings` judge (its reading there and not empty): claim
    (`Claim.label` and `context(claim, reading)`, e.g. the runs the readings come from), verdict, evidence."""
    rows = [(c.label + context(c, readings[c.reading]), c.verdict(readings), c.text(readings))
            for c in claims if readings.get(c.reading) is not None and not readings[c.reading].empty]
    return pd.DataFrame(rows, columns=["claim", "verdict", "evidence"])


SAME = "same on every seed"  # `seed_check`'s last column: yes, no, or NOT_JUDGED


def seed_check(claims: list[Claim], by_seed: dict[int, dict[str, pd.DataFrame]]) -> pd.DataFrame:
    """Whether each claim's verdict holds beyond one seed: one row per part of a claim (`Claim.parts`) judged on
    every seed of `by_seed` (seed -> readings by key, each read on that seed's runs alone), its verdict class on each
    seed, and whether they are one class (SAME: "yes" or "no"; NOT_JUDGED where the part's models are not trained on
    any seed, so no verdict holds or changes). A part that some seed does not judge (not run: no rows but baselines)
    is left out."""
    rows = []
    for claim in claims:
        parts = {seed: {name: verdict_class(v) for name, _, v in claim.parts(readings) if v != NOT_RUN}
                 for seed, readings in by_seed.items()}
        first, *others = parts.values()
        for name in (n for n in first if all(n in other for other in others)):
            classes = [parts[seed][name] for seed in by_seed]
            same = NOT_JUDGED if set(classes) == {NOT_TRAINED} else "yes" if len(set(classes)) == 1 else "no"
            rows.append((claim.where, name, *classes, same))
    return pd.DataFrame(rows, columns=["where", "part", *(f"seed {s}" for s in by_seed), SAME])
