"""The monotonic location attention paper's claims (`analysis.claims.Claim`) beyond its single cells: each table's
ranking of the mechanisms, and, for the probing tables, which mechanisms solve and which fail each task at its longest
split (the separation). Their readings come from a table's side-by-side frame (`readings.against_paper`,
`compare.cell_side_by_side`, or `readings.scan_side` for SCAN) and its `compare.separation`; the chapter's summary
lists them (`analysis.claims.claims_summary`) and two findings of ours."""

import pandas as pd

from lengthgen.analysis import compare
from lengthgen.analysis.claims import Claim, evidence
from lengthgen.analysis.report import direction_outcomes, separated_tasks, verdict_counts
from lengthgen.analysis.verdicts import NOT_TRAINED, share_verdict

WHERE = {"mla-main": "Table 2", "mla-ablations": "Table 4", "mla-variants": "Table 7", "mla-extra": "Table 6",
         "mla-scan": "Tables 3 and 8"}  # each grid's table in the paper
NOT_JUDGED = "not judged"  # `compare.separation`'s answer for a task whose runs did not learn it
GATE_CLOSED = 4.6  # MonoAttn's gate b at which sigmoid(b) = 0.99: the step as good as closed


def _separation_text(separation: pd.DataFrame) -> str:
    judged = (separation.verdict != NOT_JUDGED).sum()
    return (f"separated as in the paper: {separated_tasks(separation)}; {len(separation) - judged} not judged (runs "
            "that did not learn the task)")


def _separated(answers: pd.Series) -> str:
    """A separation's verdict rule: `share_verdict` over the tasks it judges; not trained when it judges none."""
    judged = answers[answers != NOT_JUDGED]
    return share_verdict(int((judged == "yes").sum()), len(judged), "tasks") if len(judged) else NOT_TRAINED


def _ranking(name: str) -> Claim:
    return Claim(WHERE[name], "the mechanisms' cells rank as the paper's (Spearman)", name, f"{name} ranking",
                 evidence)


def _separation(name: str) -> Claim:
    return Claim(WHERE[name], "the same mechanisms solve and fail each task at its longest split", name,
                 f"{name} separation", _separation_text, judge=_separated)


CLAIMS = [claim(name) for name in ("mla-main", "mla-ablations", "mla-variants", "mla-extra")
          for claim in (_ranking, _separation)] + [_ranking("mla-scan")]


def table_readings(name: str, side: pd.DataFrame, separation: pd.DataFrame | None = None) -> dict[str, pd.DataFrame]:
    """The readings of grid `name`'s table: its ranking (`compare.ranking` over `side`, one row: verdict, evidence)
    and, given its `compare.separation`, the separation (one row per task, `verdict` its answer: yes, no, not
    judged)."""
    rank = compare.ranking(side, paper="paper mean" if name == "mla-scan" else "paper")
    rho = (f"Spearman's rho {rank['rho']:.2f} (p = {rank['p']:.2g})" if rank["rho"] == rank["rho"]
           else "no rank correlation")
    text = f"{rho} over the {rank['cells']} cells whose runs learned their task; cells: {verdict_counts(side)}"
    readings = {f"{name} ranking": pd.DataFrame([{"verdict": rank["verdict"], "evidence": text}])}
    if separation is not None:
        readings[f"{name} separation"] = separation.assign(verdict=separation["same separation"])
    return readings


def our_findings(directions: pd.DataFrame, lean_test: str, gates: dict[str, float]) -> pd.DataFrame:
    """The summary's findings of ours: how the stored runs' reading direction goes with their failures (`directions`,
    `readings.direction_table`; `lean_test`, the untrained gate's side), and where MonoAttn's gate b (initialised to
    20) ends after training (`gates`, task -> b): at sigmoid(b) >= 0.99 it keeps the step closed, so MonoAttn runs as
    RMonoAttn."""
    rows = []
    if not directions.empty:
        rows.append(("Reading direction and failure, stored runs", "finding of ours",
                     f"{direction_outcomes(directions)} Untrained gate's side (exploratory): {lean_test}"))
    if gates:
        low, high = min(gates.values()), max(gates.values())
        says = "MonoAttn runs as RMonoAttn" if low >= GATE_CLOSED else "the gate moved: MonoAttn is not RMonoAttn"
        gate = f"{low:.4f} to {high:.4f} after training: {says}"
    else:
        gate = "no MonoAttn model"
    rows.append(("MonoAttn's gate b (initialised to 20)", "finding of ours", gate))
    return pd.DataFrame(rows, columns=["claim", "verdict", "evidence"])

