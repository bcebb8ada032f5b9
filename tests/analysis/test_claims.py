"""One claim type for every paper: its text and verdict read from a reading table, its rows chosen by the claim."""

import pandas as pd
import pytest

from lengthgen.analysis.claims import LIVE, NOT_JUDGED, Claim, claims_table, claims_versus, seed_check
from lengthgen.analysis.verdicts import NOT_RUN
from lengthgen.papers import EXPERIMENTS, PAPERS

READING = pd.DataFrame({"model": ["PPC", "NoPE", "RoPE"], "verdict": ["reproduced", "baseline", "not reproduced"]})


def claim(**kw) -> Claim:
    return Claim(where="Fig. 3", statement="PPC generalizes", experiment="sparsity-assignment", reading="assign",
                 read=lambda t: ", ".join(t.model), **kw)


def test_a_claim_is_judged_on_its_rows_without_the_baselines():
    assert claim().verdict({"assign": READING}) == "partly"  # one row reproduces, one does not; NoPE is a baseline
    ppc = claim(rows=lambda t: t[t.model == "PPC"])
    assert ppc.verdict({"assign": READING}) == "reproduced" and ppc.text({"assign": READING}) == "PPC"
    assert claim().text({"assign": READING}) == "PPC, NoPE, RoPE"  # the text sees the baselines too


def test_a_claim_whose_rows_are_all_baselines_is_not_run():
    alone = READING.iloc[[1]]  # the reference without the models judged against it (PPC without its ablations)
    assert claim().verdict({"assign": alone}) == claim().text({"assign": alone}) == NOT_RUN
    assert claim().parts({"assign": alone}) == [] and claim(each="model").parts({"assign": alone}) == []
    ppc = claim(rows=lambda t: t[t.model != "RoPE"])  # its rows: one judged, one baseline -> judged
    assert ppc.verdict({"assign": READING}) == "reproduced"
    none = claim(rows=lambda t: t.iloc[:0])  # no row chosen: left to its own read (a chapter's "not run") and judge
    assert none.text({"assign": READING}) == "" and none.verdict({"assign": READING}) == NOT_RUN


def test_a_claim_takes_its_own_verdict_rule_over_its_rows_verdicts():
    first = claim(judge=lambda verdicts: verdicts.iloc[0])
    assert first.verdict({"assign": READING}) == "reproduced" and first.label == "Fig. 3: PPC generalizes"
    seen = []
    claim(judge=lambda verdicts: seen.append(list(verdicts)) or "x").verdict({"assign": READING})
    assert seen == [["reproduced", "baseline", "not reproduced"]]  # a rule of its own sees the baselines too


def test_a_claim_split_by_a_column_is_judged_part_by_part_and_lists_a_row_each():
    from lengthgen.papers.base import claim_rows

    reading = READING.assign(depth=[2, 2, 3])
    parts = claim(each="depth").parts({"assign": reading})
    assert parts == [("assign (depth 2)", "PPC, NoPE", "reproduced"), ("assign (depth 3)", "RoPE", "not reproduced")]
    assert claim().parts({"assign": reading}) == [("assign", "PPC, NoPE, RoPE", "partly")]  # one part: the whole
    rows = claim_rows([claim(each="depth"), claim()], {"assign": reading})
    assert rows.cell.tolist() == ["assign (depth 2)", "assign (depth 3)", "assign"]
    assert rows.verdict.tolist() == ["reproduced", "not reproduced", "partly"] and set(rows.source) == {"Fig. 3"}
    assert claim(each="depth").parts({}) == [] and claim_rows([claim(each="depth")], {}).empty
    scaled = claim_rows([claim(each="depth")], {"assign": reading}, {"assign": 3}, {"assign": "regime profile"})
    assert scaled.seeds.tolist() == [3, 3] and scaled.reason.tolist() == ["regime profile"] * 2  # each part its grid's
    assert rows.seeds.isna().all() and (rows.reason == "").all()  # none given: none shown


def test_the_seed_check_compares_each_part_s_verdict_class_across_seeds():
    reading = READING.assign(depth=[2, 2, 3])
    other = reading.assign(verdict=["partly (k = 2 not solved)", "baseline", "not reproduced (falls 2 points)"])
    by_seed = {0: {"assign": reading}, 1: {"assign": other}, 2: {"assign": reading.iloc[:2]}}
    table = seed_check([claim(each="depth")], by_seed)
    assert table.columns.tolist() == ["where", "part", "seed 0", "seed 1", "seed 2", "same on every seed"]
    # depth 3 is not judged on seed 2 (its reading has no depth-3 row): left out, not counted as agreeing
    assert table.values.tolist() == [["Fig. 3", "assign (depth 2)", "reproduced", "partly", "reproduced", "no"]]
    same = seed_check([claim(each="depth")], {0: {"assign": reading}, 1: {"assign": other.iloc[1:]}})
    assert same.values.tolist() == [["Fig. 3", "assign (depth 3)", "not reproduced", "not reproduced", "yes"]]


def test_a_part_not_trained_on_every_seed_is_not_judged_and_one_not_trained_on_some_seeds_changes():
    untrained = READING.assign(verdict=["not trained: PPC does not fit", "baseline", "not trained"])
    table = seed_check([claim()], {0: {"assign": untrained}, 1: {"assign": untrained}})
    assert table["same on every seed"].tolist() == [NOT_JUDGED]
    table = seed_check([claim()], {0: {"assign": untrained}, 1: {"assign": READING}})
    assert table.values.tolist() == [["Fig. 3", "assign", "not trained", "partly", "no"]]


def test_a_claim_without_its_reading_is_not_run():
    for readings in ({}, {"assign": None}, {"assign": READING.iloc[:0]}):
        assert claim().text(readings) == NOT_RUN and claim().verdict(readings) == NOT_RUN


def test_the_chapter_tables_list_each_claim_once():
    assert claims_table([claim()]).values.tolist() == [["Fig. 3", "PPC generalizes", "sparsity-assignment"]]
    table = claims_versus([claim()], {}, {"assign": READING}, "figure", "stored cpu runs")
    assert table.columns.tolist() == ["figure", "the paper states", "ours, live", "ours, stored cpu runs"]
    assert table.values.tolist() == [["Fig. 3", "PPC generalizes", NOT_RUN, "PPC, NoPE, RoPE"]]
    short = claims_versus([claim()], {}, {"assign": READING}, "figure", "stored cpu runs", verdicts_only=True)
    assert short.columns.tolist() == ["figure", "the paper states", "verdict, live", "verdict, stored cpu runs"]
    assert short.values.tolist() == [["Fig. 3", "PPC generalizes", NOT_RUN, "partly"]]


@pytest.mark.parametrize("paper", PAPERS.values(), ids=lambda p: p.name)
def test_every_claim_of_a_paper_names_a_runnable_experiment(paper):
    assert paper.claims and all(isinstance(c, Claim) for c in paper.claims)
    assert {c.experiment for c in paper.claims} <= set(EXPERIMENTS) | {LIVE}
    assert len({c.label for c in paper.claims}) == len(paper.claims)  # each summary line names one claim
