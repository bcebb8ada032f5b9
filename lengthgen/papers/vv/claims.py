"""The vanishing-variance paper's claims (`analysis.claims.Claim`) and the readings that judge them, for the chapter's
summary (`analysis.claims.claims_summary`). Proposition 1 and Fig. 1 are read live in the chapter; Tables 1-3 and 6
on the retrieval runs (one reading per comparison of `paper.COMPARISONS`, and one per gains table); Figs. 2-4 on
the (baseline, +LN) seed pairs of `vv-internals` (`analysis.variance.pair_table`)."""

import pandas as pd

from lengthgen.analysis.claims import LIVE, Claim, evidence
from lengthgen.analysis.report import majority_verdict
from lengthgen.analysis.variance import FIG_HOLDS
from lengthgen.analysis.verdicts import decay_verdict, exponent_verdict, share_verdict
from lengthgen.papers.vv.paper import COMPARISONS, TRAIN_MAX, compare, comparison, gains

FIGURES = "figures"  # the reading of Figs. 2-4: `figure_claims`


def _beyond_training(table: pd.DataFrame) -> pd.DataFrame:
    """A table's cells at N beyond the training lengths: the claims are about those."""
    return table[table.N > TRAIN_MAX]


def _majority(verdicts: pd.Series) -> str:
    """A table claim's verdict rule: the verdict of the majority of its cells, or "mixed"."""
    return majority_verdict(verdicts)[0]


def _counts(cells: pd.DataFrame) -> str:
    """How many cells have each verdict, e.g. "7 cells reproduced, 1 cell inconclusive"."""
    return majority_verdict(cells.verdict)[1]


def _table(where: str, statement: str, reading: str) -> Claim:
    """A claim of Tables 1-3 or 6, judged by the majority of the cells of its reading beyond the training lengths."""
    return Claim(where, statement, "vv-retrieval", reading, _counts, _beyond_training, _majority)


def _figure(where: str, statement: str) -> Claim:
    """A claim of Figs. 2-4, judged on its row of the FIGURES reading."""
    return Claim(where, statement, "vv-internals", FIGURES, evidence, lambda t: t[t.figure == where])


CLAIMS = [
    Claim("Prop. 1", "Var(O_d) vanishes, like 1/N for i.i.d. tokens", LIVE, "prop1", evidence),
    Claim("Fig. 1", "decay in a pretrained model's first layer", LIVE, "fig1", evidence),
    _table("Table 1", "+LN beats baseline at OOD N, argmax", "Table 1, argmax"),
    _table("Table 1, adaptive θ", "+LN beats baseline, argmax", "Table 1, argmax, adaptive θ"),
    _table("Table 2", "+LN beats baseline at OOD N, dictionary", "Table 2, dictionary"),
    _table("Table 2, adaptive θ", "+LN beats baseline, dictionary", "Table 2, dictionary, adaptive θ"),
    _table("Table 3", "+LN beats +std, argmax", "Table 3, argmax"),
    _table("Table 6", "+LN close to +std, dictionary", "Table 6, dictionary"),
    _table("Table 3, gains", "+std's and +LN's gains over the baseline, argmax", "Table 3, argmax, gains"),
    _table("Table 6, gains", "+std's and +LN's gains over the baseline, dictionary", "Table 6, dictionary, gains"),
    _figure("Fig. 2", "each feature concentrates as N grows"),
    _figure("Fig. 3", "LN keeps global variance steadier"),
    _figure("Fig. 4", "LN mitigates dispersion"),
]

# Figs. 2-4: the `pair_table` column that says whether the claim holds in a pair, and the measure it compares.
FIGURE_MEASURES = {"Fig. 2": ("fig2", "spread ratio"), "Fig. 3": ("fig3", "variance ratio"),
                   "Fig. 4": ("fig4", "max weight")}


def figure_claims(pairs: pd.DataFrame) -> pd.DataFrame:
    """The FIGURES reading: one row per figure's claim judged on a `pair_table`: figure, claim, verdict (reproduced
    when it holds in every pair, `verdicts.share_verdict`), evidence (the count and each variant's mean measure),
    pairs."""
    statements = {c.where: c.statement for c in CLAIMS if c.reading == FIGURES}
    rows = []
    for figure, (column, measure) in FIGURE_MEASURES.items():
        holds = int(pairs[column].sum())
        means = " vs ".join(f"{pairs[f'{norm} {measure}'].mean():.3g} ({name})"
                            for norm, name in (("baseline", "baseline"), ("ln", "+LN")))
        rows.append({"figure": figure, "claim": statements[figure], "verdict": share_verdict(holds, len(pairs)),
                     "evidence": f"{holds} of {len(pairs)} seed pairs; mean {measure} {means}", "pairs": len(pairs)})
    return pd.DataFrame(rows)


def comparison_readings(runs: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The readings of Tables 1-3 and 6 on retrieval `runs`: each comparison's `paired_table` by its name (a
    COMPARISONS title up to its colon), and for the comparisons the paper prints as gains their `gains` table
    ("<name>, gains")."""
    readings = {}
    for title, args in COMPARISONS.items():
        name = title.split(":")[0]
        read, readings[name] = compare(runs, args)
        if args.get("relative_to"):
            readings[f"{name}, gains"] = gains(read, args)
    return readings


def prop1_reading(slopes: pd.Series, longest: int) -> pd.DataFrame:
    """Prop. 1's reading: the per-component log-log slopes of the variance (N >= 16, up to `longest`) against the
    law's -1 (`verdicts.exponent_verdict`)."""
    return pd.DataFrame([{"verdict": exponent_verdict(slopes, -1.0),
                          "evidence": f"slopes {slopes.min():.2f} to {slopes.max():.2f} up to N = {longest}; "
                                      "mean-zero not needed"}])


def fig1_reading(slopes: pd.Series, model: str) -> pd.DataFrame:
    """Fig. 1's reading: the median log-log slope of the attention output's std over `model`'s components, random
    tokens without positions and a fixed query, against Prop. 1's -0.5 (`verdicts.decay_verdict`)."""
    median = slopes.loc[("random tokens, no positions", "fixed last token")].median()
    return pd.DataFrame([{"verdict": decay_verdict(median, -0.5),
                          "evidence": f"{model}, no positions, fixed query: median std slope {median:.2f} "
                                      "(Prop. 1: -0.5)"}])


def stored_pairs(table: pd.DataFrame) -> int:
    """How many seed pairs a reading rests on (its `pairs` or its largest `seeds`)."""
    return int(table.pairs.max() if "pairs" in table else table.seeds.max())


def _task(claim: Claim) -> str:
    """The task of a claim's runs: its comparison's; argmax for Figs. 2-4 (`vv-internals` trains argmax models)."""
    if claim.reading == FIGURES:
        return "argmax"
    return comparison(claim.reading.removesuffix(", gains"))["task"]


def at_budget(steps: dict[str, int], declared: dict[str, int], figure_pairs: int):
    """The `claims_summary` context of readings at the paper's budget: its training steps (`steps` by task) and how
    many of the declared seed pairs (`declared` by task; `figure_pairs` for Figs. 2-4) the reading rests on."""
    def context(claim: Claim, table: pd.DataFrame) -> str:
        task = _task(claim)
        of = figure_pairs if claim.reading == FIGURES else declared[task]
        return f", at the paper's {steps[task]:,} steps ({stored_pairs(table)} of {of} declared pairs stored)"
    return context


def trajectory_evidence(table: pd.DataFrame) -> str:
    """`variance.trajectory`'s table in words, one clause per number of steps: in how many of its pairs each of
    Figs. 2-4 holds and +LN is the more accurate (at the table's accuracy length)."""
    def clause(steps: int, row: pd.Series) -> str:
        figures = ", ".join(f"{holds.removesuffix(' holds')} in {int(row[holds])}" for holds in FIG_HOLDS)
        better = int(row["ln more accurate"])
        return f"{steps:,} steps: {figures} of {int(row.pairs)} pairs, +LN more accurate in {better}"
    return "; ".join(clause(steps, row) for steps, row in table.iterrows())


def trajectory_finding(table: pd.DataFrame) -> pd.DataFrame:
    """The summary's row of our finding along training (`trajectory_evidence`)."""
    return pd.DataFrame([("Along training: Figs. 2-4 and +LN's accuracy at N = 256 (stored pairs)", "finding of ours",
                          trajectory_evidence(table))], columns=["claim", "verdict", "evidence"])
