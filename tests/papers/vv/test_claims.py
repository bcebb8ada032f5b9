"""The vanishing-variance claims (papers/vv/claims.py): their readings, their verdict rules and the summary."""

import pandas as pd

from lengthgen.analysis.claims import claims_summary
from lengthgen.papers.vv import claims
from lengthgen.papers.vv.paper import COMPARISONS


def cells(verdicts: dict[int, str], seeds: int = 4) -> pd.DataFrame:
    """A paired table's cells: N -> verdict, on `seeds` pairs."""
    return pd.DataFrame({"N": list(verdicts), "seeds": seeds, "verdict": list(verdicts.values())})


def pairs(fig2, fig3, fig4) -> pd.DataFrame:
    """A `pair_table` with the given holds per pair and measures 1, 2, 3 (baseline) and 2, 4, 6 (+LN)."""
    table = pd.DataFrame({"fig2": fig2, "fig3": fig3, "fig4": fig4})
    for norm, scale in (("baseline", 1.0), ("ln", 2.0)):
        for i, measure in enumerate(("spread ratio", "variance ratio", "max weight")):
            table[f"{norm} {measure}"] = scale * (i + 1)
    return table


def test_a_table_claim_is_the_majority_of_its_cells_beyond_training():
    readings = {"Table 1, argmax": cells({16: "not reproduced (opposite sign)", 32: "reproduced", 64: "reproduced"}),
                "Table 3, argmax": cells({32: "reproduced", 64: "inconclusive (ours not significant)"})}
    table = claims_summary(claims.CLAIMS, readings).set_index("claim")
    first = table.loc["Table 1: +LN beats baseline at OOD N, argmax"]
    assert (first.verdict, first.evidence) == ("reproduced", "2 cells reproduced")  # N = 16 is a training length
    assert table.loc["Table 3: +LN beats +std, argmax"].verdict == "mixed"  # one of two: no majority
    assert len(table) == 2  # the claims without a reading are left out


def test_figure_claims_hold_in_every_pair_or_partly():
    figures = claims.figure_claims(pairs([True, True, True], [True, False, False], [False, False, False]))
    assert figures.verdict.tolist() == ["reproduced", "partly (1 of 3 pairs)", "not reproduced"]
    assert figures.evidence[1] == "1 of 3 seed pairs; mean variance ratio 2 (baseline) vs 4 (+LN)"
    assert figures.claim[0] == "each feature concentrates as N grows" and (figures.pairs == 3).all()
    table = claims_summary(claims.CLAIMS, {claims.FIGURES: figures}).set_index("claim")
    assert table.verdict.tolist() == ["reproduced", "partly", "not reproduced"]  # the classes of the verdicts
    assert table.loc["Fig. 4: LN mitigates dispersion"].evidence == figures.evidence[2]


def test_the_budget_context_names_the_steps_and_the_stored_pairs():
    readings = {"Table 2, dictionary": cells({32: "reproduced"}, seeds=7),
                claims.FIGURES: claims.figure_claims(pairs([True], [True], [True]))}
    context = claims.at_budget({"argmax": 100_000, "dictionary": 10_000}, {"argmax": 100, "dictionary": 90}, 5)
    labels = claims_summary(claims.CLAIMS, readings, context).claim.tolist()
    assert labels[0] == ("Table 2: +LN beats baseline at OOD N, dictionary, at the paper's 10,000 steps "
                         "(7 of 90 declared pairs stored)")
    assert labels[1].endswith("at the paper's 100,000 steps (1 of 5 declared pairs stored)")  # Figs.: argmax


def test_the_live_readings_judge_the_slopes_against_the_laws():
    assert claims.prop1_reading(pd.Series([-0.95, -1.05]), 4096).verdict[0] == "reproduced"
    assert claims.prop1_reading(pd.Series([-0.95, -0.85]), 4096).verdict[0] == "not reproduced"  # 0.15 off -1
    index = pd.MultiIndex.from_tuples([("random tokens, no positions", "fixed last token", c) for c in range(3)])
    fig1 = claims.fig1_reading(pd.Series([-0.6, -0.2, -0.3], index=index), "MiniLM")  # decays, less than -0.45
    assert fig1.verdict[0] == "partly" and "median std slope -0.30" in fig1.evidence[0]
    assert claims.fig1_reading(pd.Series([-0.6, -0.2, -0.5], index=index), "MiniLM").verdict[0] == "reproduced"


def test_table_readings_cover_every_comparison_and_its_gains(runs_frame):
    rows = [(task, v, s, n, "accuracy", 90.0 + s + (1.0 if v == "ln" else 0.0))
            for task in ("argmax", "dictionary") for v in ("baseline", "ln", "std") for s in range(3) for n in (16, 32)]
    readings = claims.comparison_readings(runs_frame(rows))
    names = [title.split(":")[0] for title in COMPARISONS]
    assert set(readings) == {*names, "Table 3, argmax, gains", "Table 6, dictionary, gains"}
    assert {c.reading for c in claims.CLAIMS if c.experiment == "vv-retrieval"} == set(readings)
    assert readings["Table 3, argmax, gains"].variant.tolist() == ["+std", "+std", "+LN", "+LN"]


def test_trajectory_evidence_gives_each_number_of_steps_its_counts():
    table = pd.DataFrame({"pairs": [5, 3], "Fig. 2 holds": [4, 3], "Fig. 3 holds": [5, 0], "Fig. 4 holds": [0, 2],
                          "ln more accurate": [1, 3], "accuracy gap": [-0.5, 2.25]},  # a float column beside the counts
                         index=pd.Index([1000, 100_000], name="steps"))
    assert claims.trajectory_evidence(table) == (
        "1,000 steps: Fig. 2 in 4, Fig. 3 in 5, Fig. 4 in 0 of 5 pairs, +LN more accurate in 1; "
        "100,000 steps: Fig. 2 in 3, Fig. 3 in 0, Fig. 4 in 2 of 3 pairs, +LN more accurate in 3")
    assert claims.trajectory_finding(table).verdict[0] == "finding of ours"
