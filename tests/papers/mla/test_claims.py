"""The monotonic location attention claims (papers/mla/claims.py): each table's ranking and separation as Claims."""

import pandas as pd

from lengthgen.analysis.claims import claims_summary, of_runs
from lengthgen.papers.mla import claims

SIDE = pd.DataFrame({"paper": [0.0, 20.0, 40.0, 60.0, 100.0, 100.0], "ours": [1.0, 10.0, 50.0, 70.0, 99.0, 0.0],
                     "verdict": ["reproduced"] * 5 + ["not trained"]})  # the untrained cell is not ranked
SEPARATION = pd.DataFrame({"same separation": ["yes", "no", "not judged"]}, index=["copy", "lookup", "recopy"])


def summary(name: str, side: pd.DataFrame, separation: pd.DataFrame | None = None) -> pd.DataFrame:
    return claims_summary(claims.CLAIMS, claims.table_readings(name, side, separation), of_runs("runs")).set_index(
        "claim")


def test_a_table_is_judged_by_its_ranking_and_its_separation():
    table = summary("mla-main", SIDE, SEPARATION)
    ranking = table.loc["Table 2: the mechanisms' cells rank as the paper's (Spearman), runs"]
    assert ranking.verdict == "reproduced"
    assert ranking.evidence.startswith("Spearman's rho 1.00 (p = ") and ranking.evidence.endswith(
        ") over the 5 cells whose runs learned their task; cells: 5 reproduced, 1 not trained")
    separation = table.loc["Table 2: the same mechanisms solve and fail each task at its longest split, runs"]
    assert separation.verdict == "partly (1 of 2 tasks)"
    assert separation.evidence.endswith("1 of 3 tasks: copy; 1 not judged (runs that did not learn the task)")
    assert summary("mla-ablations", SIDE, SEPARATION.iloc[2:]).verdict.tolist() == ["reproduced", "not trained"]
    variants = summary("mla-variants", SIDE)  # no separation given: the ranking alone
    assert variants.index.str.startswith("Table 7").all() and len(variants) == 1


def test_rankings_that_cannot_agree_do_not():
    constant = summary("mla-main", SIDE.assign(ours=50.0)).iloc[0]
    assert constant.verdict.startswith("inconclusive")
    assert constant.evidence.startswith("no rank correlation over the 5")
    assert summary("mla-main", SIDE.assign(ours=SIDE.ours[::-1].values)).verdict.iloc[0] == "not reproduced"
    scan = summary("mla-scan", SIDE.rename(columns={"paper": "paper mean"}))
    assert scan.index.tolist() == ["Tables 3 and 8: the mechanisms' cells rank as the paper's (Spearman), runs"]


def test_the_findings_follow_the_gate():
    empty = pd.DataFrame()
    assert claims.our_findings(empty, "", {"copy": 19.9, "lookup": 20.0}).evidence.tolist() == [
        "19.9000 to 20.0000 after training: MonoAttn runs as RMonoAttn"]
    moved = claims.our_findings(empty, "", {"copy": 0.3}).evidence[0]
    assert moved.endswith("the gate moved: MonoAttn is not RMonoAttn")
    assert claims.our_findings(empty, "", {}).evidence.tolist() == ["no MonoAttn model"]
