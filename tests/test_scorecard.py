"""The reproduction scorecard: verdict classes on hand-made verdicts, the page follows the stored data, the totals
add up, and the command's bad input."""

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lengthgen import scorecard
from lengthgen.analysis import verdicts
from lengthgen.analysis.verdicts import NOT_RUN, NOT_TRAINED
from lengthgen.book import ROOT, write_scorecard
from lengthgen.cli import main
from lengthgen.display import breakable, markdown_table
from lengthgen.papers import CHAPTER, EXPERIMENTS
from lengthgen.papers.abc.experiments import arithmetic_steps
from lengthgen.papers.vv import paper as variance_paper
from lengthgen.papers.vv import rows as vv_rows
from lengthgen.results.store import ResultStore, config_key


@pytest.mark.parametrize("verdict,expected", [
    ("reproduced", "reproduced"), ("reproduced (no difference)", "reproduced"), ("partly", "partly"),
    ("partly (k = 1 not solved either)", "partly"), ("not reproduced (opposite sign)", "not reproduced"),
    ("not reproduced: a trained baseline reaches as far", "not reproduced"), (NOT_TRAINED, NOT_TRAINED),
    ("not trained: j=2, j=3 do not fit their training lengths", NOT_TRAINED),
    ("inconclusive (ours not significant)", "inconclusive"),
    ("coupled ahead, but no baseline fits its training lengths", "inconclusive"), (NOT_RUN, NOT_RUN)])
def test_every_verdict_falls_in_one_class(verdict, expected):
    assert verdicts.verdict_class(verdict) == expected


@pytest.mark.parametrize("classes,expected", [
    ([], NOT_RUN), ([NOT_RUN], NOT_RUN), (["reproduced", "reproduced", NOT_RUN], "reproduced"),
    (["reproduced", "not reproduced"], "partly"), (["partly", NOT_TRAINED], "partly"),
    ([NOT_TRAINED, "not reproduced"], "not reproduced"), (["inconclusive", NOT_TRAINED], NOT_TRAINED)])
def test_a_claim_on_several_rows_gets_one_class(classes, expected):
    assert verdicts.claim_class(classes) == expected


def test_markdown_table_escapes_pipes_and_leaves_missing_values_empty():
    table = markdown_table(pd.DataFrame({"a": ["x|y", None], "b": [1.5, float("nan")]}))
    assert table.splitlines() == ["| a | b |", "|---|---|", "| x\\|y | 1.5 |", "|  |  |"]


def test_breakable_lets_identifiers_in_table_rows_wrap_and_leaves_the_rest():
    page = "# a_b\n\nprose_word\n| `x_y` | onestep_no_sigmoid / reverse_copy | _lead | 1_000 | [a_b](c_d.html) |"
    assert breakable(page).splitlines() == [
        "# a_b", "", "prose_word",
        "| `x_y` | onestep_<wbr>no_<wbr>sigmoid / reverse_<wbr>copy | _lead | 1_<wbr>000 | [a_<wbr>b](c_d.html) |"]


@pytest.fixture
def abc_root(tmp_path):
    """A book root whose stored results are a copy of the committed ABC cpu runs (Successor, 3 seeds): the runs of
    other profiles (regime) left out, so that the counts below are those of one profile's grids."""
    def other_profile(folder, names):
        return [n for n in names if (Path(folder) / n / "meta.json").exists()
                and json.loads((Path(folder) / n / "meta.json").read_text()).get("profile") != "cpu"]

    for name in ("abc-table1", "abc-scaffolding"):
        shutil.copytree(ROOT / "results" / name, tmp_path / "results" / name, ignore=other_profile)
    (tmp_path / "book").mkdir()
    return tmp_path


def _set_vanilla_successor(root, length: int, value: float, runs: int = 3) -> int:
    """Overwrite the stored exact match of the first `runs` vanilla Successor runs (in the store's key order) at
    `length`; returns how many runs."""
    changed = 0
    for entry in sorted((root / "results" / "abc-table1").iterdir()):
        config = json.loads((entry / "config.json").read_text())
        if config["task"] == "successor" and config["model"]["positional"] == "sinusoidal" and changed < runs:
            metrics = pd.read_csv(entry / "metrics.csv")
            at = (metrics.stage == "trained") & (metrics.length == length)
            metrics.loc[at, "value"] = value
            metrics.to_csv(entry / "metrics.csv", index=False)
            changed += 1
    return changed


def test_the_page_follows_the_stored_results(abc_root):
    row = "| stored cpu | Table 1 | successor / vanilla / 10 digits | 0 | "
    page = write_scorecard(abc_root, "quick", abc_root / "live").read_text()
    assert row + "0 (0-0) | 3 | reproduced |" in page  # the vanilla model collapses, as in the paper
    assert _set_vanilla_successor(abc_root, 10, 100.0) == 3
    page = write_scorecard(abc_root, "quick", abc_root / "live").read_text()
    assert row + "100 (100-100) | 3 | not reproduced (ours higher) |" in page  # a changed result changes its row


def test_the_page_counts_the_reproduced_rows_whose_seeds_split(abc_root):
    def split_sentence(page: str) -> str:
        return next((line for line in page.split("\n") if line.startswith("*reproduced (seeds split)*: ")), "")

    card = scorecard.scorecard(ResultStore(abc_root / "results"))
    before = (card.verdict == verdicts.SEEDS_SPLIT).sum()
    assert _set_vanilla_successor(abc_root, 10, 100.0, runs=1) == 1  # seeds 100 / 0 / 0; the paper's 0 within them
    page = write_scorecard(abc_root, "quick", abc_root / "live").read_text()
    assert "| stored cpu | Table 1 | successor / vanilla / 10 digits | 0 | 0 (0-100) | 3 | " \
           "reproduced (seeds split) |" in page
    card = scorecard.scorecard(ResultStore(abc_root / "results"))
    assert (card.verdict == verdicts.SEEDS_SPLIT).sum() == before + 1
    reproduced = (card["class"] == "reproduced").sum()
    assert split_sentence(page).startswith(f"*reproduced (seeds split)*: {before + 1} of the {reproduced} reproduced "
                                           "stored rows. Our median agrees")
    live = scorecard.scorecard(ResultStore(abc_root / "nothing"), ResultStore(abc_root / "results"), live_profile="cpu")
    live_reproduced = (live["class"] == "reproduced").sum()  # the cpu runs alone: stored rows also read regime's
    assert live_reproduced == (card[card.runs == "stored cpu"]["class"] == "reproduced").sum()
    both = split_sentence(scorecard.page(pd.concat([card, live]), "stored and live rows"))
    assert both.startswith(f"*reproduced (seeds split)*: {before + 1} of the {reproduced} reproduced stored rows, "
                           f"{before + 1} of the {live_reproduced} reproduced live rows. ")  # the cpu runs as live


@pytest.mark.parametrize("paper,ours,expected", [
    (28.5, 55.7, "reproduced"), (0.0, 10.0, "reproduced"), (90.0, 100.0, "reproduced"),  # the same band
    (100.0, 50.0, "partly"), (0.0, 10.5, "partly"), (100.0, 0.0, "not reproduced"), (5.0, 95.0, "not reproduced")])
def test_the_former_cell_rule_compares_bands(paper, ours, expected):
    assert verdicts.former_cell_verdict(paper, ours) == expected


@pytest.mark.parametrize("ours,expected", [
    (24.6 + 2 * 17.5, "reproduced"), (-10.4, "reproduced"), (60.0, "not reproduced (ours higher)"),
    (-10.5, "not reproduced (ours lower)")])
def test_the_former_mean_rule_is_a_band_of_two_stds(ours, expected):
    assert verdicts.former_mean_verdict(24.6, 17.5, ours) == expected  # SCAN LocAttn: 24.6 +- 17.5


def test_rule_changes_set_both_rules_on_the_same_numbers(abc_root):
    cell = "successor / vanilla / 10 digits"
    assert _set_vanilla_successor(abc_root, 10, 50.0) == 3  # paper 0: failed vs partial, and 50 points off
    card = scorecard.scorecard(ResultStore(abc_root / "results"))
    counts, changed = scorecard.rule_changes(card)
    cells = card[~card.cell.isin(["claims", "attention"])]  # the ABC rows but its claims' (`paper.CLAIMS`, judged by
    # no former rule)
    assert counts.rows.sum() == card["former verdict"].notna().sum() == len(cells) > 0 and len(card) > len(cells)
    row = changed.set_index("cell").loc[cell]
    assert (row["former verdict"], row.verdict) == ("partly", "not reproduced (ours higher)")
    assert ((changed["former verdict"].map(verdicts.verdict_class))
            != changed.verdict.map(verdicts.verdict_class)).all()
    page = write_scorecard(abc_root, "quick", abc_root / "live").read_text()
    assert "## What the strict rules changed" in page
    assert f"| {cell} | 0 | 50 (50-50) | 3 | partly | not reproduced (ours higher) |" in page


def test_totals_count_every_row_once(abc_root):
    card = scorecard.scorecard(ResultStore(abc_root / "results"))
    assert set(card.paper) == {"Attention bias calibration"} and set(card.runs) == {"stored cpu"}
    table = scorecard.totals(card)
    mine = table.loc[("stored", "Attention bias calibration")]
    assert mine["rows"] == len(card) == mine.drop("rows").sum()
    assert mine[NOT_TRAINED] == (card.verdict == NOT_TRAINED).sum() > 0  # Table 3's NoPE scaffold: not trained
    assert table.loc[("stored", "all papers")].equals(mine.rename(("stored", "all papers")))


def test_live_rows_only_for_pages_that_compare_live_runs(abc_root):
    live = ResultStore(abc_root / "results")  # the stored cpu runs read as if they were live cpu runs
    card = scorecard.scorecard(ResultStore(abc_root / "nothing"), live, live_profile="cpu")
    assert set(card.runs) == {"live cpu"} and len(card) == len(scorecard.scorecard(live))


def test_the_command_prints_json_and_refuses_a_missing_folder(abc_root, capsys):
    assert main(["scorecard", "--results", str(abc_root / "results"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    every = next(t for t in out["totals"] if t["paper"] == "all papers")
    assert every["rows"] == len(out["rows"]) and {r["class"] for r in out["rows"]} <= set(verdicts.CLASSES)
    assert main(["scorecard", "--results", str(abc_root / "missing")]) == 2
    assert "no results folder" in capsys.readouterr().err


def test_figure_rows_judge_every_stored_seed_pair(tmp_path):
    from lengthgen.analysis import variance
    from lengthgen.results.sweep import sweep

    exp = EXPERIMENTS["vv-internals"]
    runs = sweep(exp, exp.configs_for("smoke"), ResultStore(tmp_path), "smoke", progress=False)
    rows = vv_rows.scorecard_rows(ResultStore(tmp_path), "smoke").set_index("source")
    pairs = variance.pair_table(runs, (16, 64))
    assert list(rows.index) == ["Fig. 2", "Fig. 3", "Fig. 4"] and (rows.seeds == 2).all() and len(pairs) == 2
    for figure, column in (("Fig. 2", "fig2"), ("Fig. 3", "fig3"), ("Fig. 4", "fig4")):
        holds = int(pairs[column].sum())
        assert rows.loc[figure, "verdict"] == verdicts.share_verdict(holds, 2)
        assert rows.loc[figure, "ours"].startswith(f"{holds} of 2 seed pairs; mean ")
        assert rows.loc[figure, "cell"].endswith("N = 64 vs 16")
        assert rows.loc[figure, "reason"] in ("", "smoke profile: 20 training steps; 2 of 2 declared pairs stored")


def test_grids_count_only_the_declared_runs_stored(abc_root):
    store = ResultStore(abc_root / "results")
    table = scorecard.grids(store).set_index(["experiment", "profile"])
    declared = {config_key(c) for c in EXPERIMENTS["abc-table1"].configs_for("cpu")}
    entries = [e for e in (abc_root / "results" / "abc-table1").iterdir() if e.name in declared]
    hours = sum(json.loads((e / "meta.json").read_text())["wall_seconds"] for e in entries) / 3600
    table1 = table.loc[("abc-table1", "cpu")]
    assert (table1.declared, table1.stored, table1.missing, table1.complete) == (27, 27, 0, "yes") == (
        len(declared), len(entries), 0, "yes")
    assert len(list((abc_root / "results" / "abc-table1").iterdir())) == 37  # 10 of an earlier protocol: left out
    assert table1["CPU-thread hours"] == pytest.approx(hours)
    assert table.loc[("mla-main", "full"), ["stored", "missing", "complete"]].tolist() == [0, 240, "no"]
    assert ("vv-retrieval", "full") not in table.index  # not its stored profile, and nothing stored there
    assert table1["hours to go"] == 0 and pd.isna(table.loc[("mla-main", "full"), "hours to go"])  # none to go from
    steps = {config_key(c): arithmetic_steps(c) for c in EXPERIMENTS["abc-table1"].configs_for("cpu")}
    assert sorted(set(steps.values())) == [3_000, 7_000, 30_000, 42_000]  # ALiBi, RoPE; vanilla + 4 ABC models
    gone = json.loads((entries[0] / "config.json").read_text())["task"]
    shutil.rmtree(entries[0])
    pace = [json.loads((e / "meta.json").read_text())["wall_seconds"] / steps[e.name] for e in entries[1:]
            if json.loads((e / "config.json").read_text())["task"] == gone]
    after = scorecard.grids(store).set_index(["experiment", "profile"]).loc[("abc-table1", "cpu")]
    assert (after.stored, after.missing, after.complete) == (26, 1, "no")
    assert after["hours to go"] == pytest.approx(steps[entries[0].name] * float(np.median(pace)) / 3600)  # its
    # steps at its task's median wall time per step
    page = write_scorecard(abc_root, "quick", abc_root / "live").read_text()
    assert "## Stored grids" in page and "| abc-table1 | cpu | 27 | 26 | 1 | no |" in page
    assert "| mla-main | full | 240 | 0 | 240 | no | 0.0 | unknown |" in page


def test_a_grid_with_none_stored_borrows_its_chapters_runs_for_the_estimate(abc_root):
    """abc-balanced (3 ListOps-balanced runs, none stored) is estimated from the stored runs of the chapter's other cpu
    grids: its task has none there, so at the median wall time per training step of all of them, times its steps; an
    MLA grid has no stored chapter-mate."""
    store = ResultStore(abc_root / "results")
    grids = ("abc-table1", "abc-scaffolding")
    steps = {config_key(c): arithmetic_steps(c) for name in grids for c in EXPERIMENTS[name].configs_for("cpu")}
    pace = [json.loads((e / "meta.json").read_text())["wall_seconds"] / steps[e.name] for name in grids
            for e in (abc_root / "results" / name).iterdir() if e.name in steps]
    table = scorecard.grids(store).set_index(["experiment", "profile"])
    balanced = table.loc[("abc-balanced", "cpu")]
    assert (balanced.stored, balanced.missing, len(pace)) == (0, 3, 72)
    assert {arithmetic_steps(c) for c in EXPERIMENTS["abc-balanced"].configs_for("cpu")} == {3_000}
    assert balanced["hours to go"] == pytest.approx(3 * 3_000 * float(np.median(pace)) / 3600)
    assert pd.isna(table.loc[("mla-variants", "full"), "hours to go"])
    assert CHAPTER["abc-balanced"] == CHAPTER["abc-table1"] != CHAPTER["mla-main"]


def test_grids_leave_out_runs_of_other_profiles(tmp_path):
    from lengthgen.results.sweep import sweep

    exp = EXPERIMENTS["vv-internals"]
    smoke_configs = exp.configs_for("smoke")
    sweep(exp, smoke_configs[:-1], ResultStore(tmp_path), "smoke", progress=False)
    full = scorecard.grids(ResultStore(tmp_path)).set_index("experiment").loc["vv-internals"]
    assert (full.profile, full.stored, full.declared) == ("full", 0, 10)  # smoke runs are not full-profile runs
    smoke = scorecard.grids(ResultStore(tmp_path), "smoke").set_index("experiment").loc["vv-internals"]
    assert (smoke.stored, smoke.declared, smoke.complete) == (len(smoke_configs) - 1, len(smoke_configs), "no")
    vv = scorecard.grids(ResultStore(tmp_path), "smoke", chapter="vv")
    assert set(vv.experiment) == {n for n, e in EXPERIMENTS.items() if n.startswith("vv-") and "smoke" in e.profiles}
    assert vv.set_index("experiment").loc["vv-internals"].stored == len(smoke_configs) - 1


def test_results_without_an_experiment_print_every_grid(abc_root, capsys):
    assert main(["results", "--results", str(abc_root / "results")]) == 0
    out = capsys.readouterr().out
    assert "abc-table1" in out and "mla-main" in out
    grids = scorecard.grids(ResultStore(abc_root / "results"))
    to_go = grids["hours to go"].sum()  # abc-balanced's and abc-factors', borrowed from the chapter's stored runs
    assert out.rstrip().endswith(f"2 of {len(grids)} grids complete; 72 of {grids.declared.sum():,} declared runs "
                                 f"stored in {abc_root / 'results'}; about {to_go:.0f} CPU-thread hours to go "
                                 f"(not counting {len(grids) - 4} grids with no stored run to estimate from)")
    assert main(["results", "--task", "copy", "--results", str(abc_root / "results")]) == 2
    assert "--task needs an experiment; valid: mla-main" in capsys.readouterr().err


def test_variance_rows_test_the_compared_seeds_until_a_task_grid_is_complete(tmp_path, monkeypatch):
    from dataclasses import replace

    from lengthgen.papers.vv import experiments as vanishing_variance
    from lengthgen.results.sweep import sweep

    exp = EXPERIMENTS["vv-retrieval"]
    runs = sweep(exp, exp.configs_for("smoke"), ResultStore(tmp_path), "smoke", progress=False)
    both = vv_rows.scorecard_rows(ResultStore(tmp_path), "smoke")
    assert set(both.seeds) == {2} and runs.seed.nunique() == 2
    profiles = {**vanishing_variance.RETRIEVAL_PROFILES}
    profiles["smoke"] = replace(profiles["smoke"], compared=1)  # the interim comparison: seed 0 alone
    monkeypatch.setattr(vanishing_variance, "RETRIEVAL_PROFILES", profiles)
    pd.testing.assert_frame_equal(vv_rows.scorecard_rows(ResultStore(tmp_path), "smoke"), both)  # grids complete
    (key,) = runs.key[(runs.task == "argmax") & (runs.variant == "ln") & (runs.seed == 1)].unique()
    shutil.rmtree(tmp_path / "vv-retrieval" / key)  # argmax's grid incomplete: its tests fall back to seed 0
    first = vv_rows.scorecard_rows(ResultStore(tmp_path), "smoke")
    argmax = first.source.str.contains("argmax")
    assert set(first.seeds[argmax]) == {1} and set(first.seeds[~argmax]) == {2} and len(first) == len(both)
    alone = variance_paper.paired_table(runs[runs.seed == 0], **variance_paper.COMPARISONS[first.source.iloc[0]])
    seed0 = [f"{d:+.2f} (p {p})" for d, p in zip(alone["ours b-a"], alone["ours p"], strict=True)]
    assert len(alone) == 2 and first.ours.iloc[:len(alone)].tolist() == seed0  # smoke: N = 16, 64


def test_a_papers_table_leaves_out_the_seeds_and_reason_columns_none_of_its_rows_has():
    row = {"runs": "stored cpu", "source": "Fig. 1", "cell": "c", "paper value": "1", "ours": "2", "verdict": "partly",
           "former verdict": None, "class": "partly"}
    card = pd.DataFrame([{**row, "paper": "A", "reason": ""}, {**row, "paper": "B", "reason": ""},
                         {**row, "paper": "B", "reason": "ours lower"}],
                        columns=["paper", "runs", *scorecard.ROW, "class"])
    card["seeds"] = pd.Series([None, 3, None], dtype=object)
    page = scorecard.page(card, "hand-made rows")
    a, b = page.split("## A")[1].split("## B")
    assert "| runs | source | cell | paper value | ours | verdict |" in a and "| 2 | partly |" in a
    assert "| runs | source | cell | paper value | ours | seeds | verdict | reason |" in b
    assert "| 2 | 3 | partly |  |" in b and "| 2 |  | partly | ours lower |" in b


def test_a_paired_divergence_says_how_many_declared_pairs_it_rests_on():
    side = pd.DataFrame({"N": [16, 32], "paper b-a": [0.1, 0.2], "paper p": [0.01, 0.02], "ours b-a": [0.5, 0.3],
                         "ours p": [0.3, 0.001], "seeds": [2, 2],
                         "verdict": ["inconclusive (ours not significant)", "reproduced"]})
    rows = vv_rows._paired("Table 3", side, "full profile: 100,000 training steps", declared=20)
    assert rows.reason.tolist() == ["full profile: 100,000 training steps; 2 of 20 declared pairs stored", ""]
    assert rows.ours.tolist() == ["+0.50 (p 0.3)", "+0.30 (p 0.001)"] and rows.seeds.tolist() == [2, 2]


def test_a_gain_row_shows_our_interval_where_we_have_one():
    gains = pd.DataFrame({"variant": ["+std", "+LN"], "N": [16, 16], "paper": [0.09, 0.09], "ours": [0.48, 0.4],
                          "ci95": [0.41, float("nan")], "seeds": [20, 1],
                          "verdict": ["reproduced", "inconclusive (one seed pair)"]})
    rows = vv_rows._gains("Table 6", gains, "full profile: 10,000 training steps", declared=20)
    assert rows.cell.tolist() == ["+std gain, N = 16", "+LN gain, N = 16"]
    assert rows["paper value"].tolist() == ["+0.09", "+0.09"] and rows.ours.tolist() == ["+0.48 ± 0.41", "+0.40"]
    assert rows.reason.tolist() == ["", "full profile: 10,000 training steps; 1 of 20 declared pairs stored"]


def test_compared_seeds_widen_when_every_variant_of_the_grid_has_every_declared_seed():
    from lengthgen.papers.vv.experiments import CURRICULUM_NORMS, compared_runs, compared_seeds

    full = [(task, v, s) for task in ("argmax", "dictionary") for v in ("baseline", "ln") for s in range(100)]
    std = [("dictionary", "std", s) for s in range(100)] + [("argmax", "std", s) for s in range(99)]
    runs = pd.DataFrame(full + std, columns=["task", "variant", "seed"])
    assert compared_seeds(runs, "full", "dictionary") == tuple(range(100))
    assert compared_seeds(runs, "full", "argmax") == tuple(range(20))  # +std lacks seed 99: the interim 20
    assert compared_seeds(runs, "full", "argmax", CURRICULUM_NORMS) == tuple(range(100))  # a grid without +std
    kept = compared_runs(runs, "full")
    assert len(kept) == 300 + 60 and set(kept.seed[kept.task == "argmax"]) == set(range(20))


def test_the_grids_of_a_chapter_count_work_in_one_unit():
    """A grid with none of its runs stored is estimated at the pace of its chapter's grids (`chapter_runs`): training
    steps and whole runs must not be mixed there."""
    from lengthgen.papers import EXPERIMENTS
    from lengthgen.scorecard import CHAPTER

    units: dict[str, set[bool]] = {}
    for name, experiment in EXPERIMENTS.items():
        units.setdefault(CHAPTER[name], set()).add(experiment.steps is None)
    assert {chapter: counts for chapter, counts in units.items() if len(counts) > 1} == {}


def test_a_task_with_no_run_in_its_grid_is_timed_from_the_chapters_other_grids(monkeypatch):
    own = pd.DataFrame({"key": ["a"], "task": ["copy"], "wall_seconds": [30.0], "work": [3000.0]})
    chapter = pd.DataFrame({"key": ["a", "s1", "s2"], "task": ["copy", "copy", "recopy"],
                            "wall_seconds": [30.0, 10.0, 400.0], "work": [3000.0, 1000.0, 8000.0]})
    monkeypatch.setattr(scorecard, "chapter_runs", lambda store, experiment, profile: chapter)
    basis = scorecard.estimate_basis(None, None, "cpu", own)
    assert basis.key.tolist() == ["a", "s2"]  # copy from the grid's own run only; recopy from the sizing study's
    assert scorecard.estimate_basis(None, None, "cpu", own.iloc[:0]).key.tolist() == ["a", "s1", "s2"]
