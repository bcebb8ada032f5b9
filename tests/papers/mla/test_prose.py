"""The monotonic-attention chapter's prose functions: each on a small hand-made frame with hand-computed values, and on
the committed stored runs where a sentence is bound by `holds` (that it holds today). These carry over what
tests/test_chapter_prose.py checked of the SCAN, Table 4 (inverted tasks) and Table 6 (DeDupe) paragraphs."""

import itertools
from functools import cache

import pandas as pd
import pytest

from lengthgen.analysis import compare
from lengthgen.book import ROOT
from lengthgen.display import ProseCheckFailed
from lengthgen.papers import EXPERIMENTS
from lengthgen.papers.mla import experiments as mla
from lengthgen.papers.mla import paper, phrases, prose, prose_live, prose_tasks
from lengthgen.papers.mla import readings as mla_readings
from lengthgen.results.store import ResultStore, split_and_length
from lengthgen.results.sweep import collect_history

STEP2, STEP3, SIGMOID = "onestep_no_step2", "onestep_no_step3", "onestep_no_sigmoid"


@cache
def store() -> ResultStore:
    return ResultStore(ROOT / "results")


@cache
def stored(name: str) -> pd.DataFrame:
    return mla_readings.stored(EXPERIMENTS[name], store())


def rows(records, **fixed) -> pd.DataFrame:
    """Tidy result rows as the store reads them (task, variant, seed, split, length, metric, value, key) from
    (variant, seed, split name, metric, value) tuples, with `fixed` columns (e.g. task)."""
    frame = pd.DataFrame(records, columns=["variant", "seed", "length", "metric", "value"]).assign(**fixed)
    return split_and_length(frame.assign(key=frame.variant + frame.seed.astype(str)))


def test_phrases_are_built_from_their_parts():
    assert [phrases.all_of(n, "seeds") for n in (1, 2, 5)] == ["the one seed", "both seeds", "all five seeds"]
    assert [phrases.seeds_and(s) for s in ([0, 1, 2, 4], [0, 1, 3], [3], [3, 4])] == [
        "seeds 0-2 and 4", "seeds 0, 1 and 3", "seed 3", "seeds 3 and 4"]
    assert phrases.paper_numbers([40.3, 0.0, 0]) == "40.3 / 0 / 0"
    assert [phrases.scan_name(v) for v in ("mix_locattn_s_pr", "locattn_s", "mix_onestep", "bi_rope")] == [
        "Mix LocAttn-S-PR", "LocAttn-S", "Mix OneStep", "Bi-RoPE"]
    runs = pd.DataFrame({"seed": [0, 1, 2]})
    assert phrases.generation_change(runs, 4, 30) == (
        "3 runs under both; 4 of 30 test cells change band (solved / partial / failed).")
    assert phrases.generation_change(runs.iloc[:0], 0, 0) == "No run has been made under both yet."
    history = pd.DataFrame({"task": ["copy"] * 4 + ["lookup"] * 2, "variant": "mono", "seed": [0, 0, 1, 1, 0, 0],
                            "epoch": [1, 2, 1, 2, 1, 2]})  # three runs, two epochs each; two of seed 0
    assert phrases.kept_history(history).startswith("3 stored runs keep a history (2 of seed 0 drawn above;")


def test_the_key_numbers_are_the_papers_table2():
    values = prose.key_numbers()  # OneStep: 100 on six tasks at their longest split, 0 on the two inverted ones
    assert values == {"key_paper_runs": 5, "key_onestep": 100.0, "key_onestep_solved": 6, "key_tasks": 8,
                      "key_mono_recopy": "98.3–100", "key_content": 0.0}
    table = {"onestep": {"a": (1, 2, 50)}, "mono": {"a_recopy": (0, 0, 7)}, "content": {"a": (3, 1, 0)}}
    with pytest.raises(ProseCheckFailed):  # only one ReCopy task, and Content not 0 beyond its shortest length
        prose.key_numbers(table)
    assert prose.code_configs() == {"code_mix_onestep_copy": "2.6 / 0 / 0", "code_onestep_copy": "100 / 100 / 100"}


def hand_scan() -> tuple[pd.DataFrame, pd.DataFrame]:
    """A SCAN side-by-side table of eight mechanisms and runs of seeds 0-4 (test accuracy ours - 1, ours, ours + 1;
    every dev score 100 but one, 99.95)."""
    side = pd.DataFrame(
        [(20.0, 5.0, 16.0, 1.0, 0.30, "reproduced"), (30.0, 6.0, 18.0, 2.0, 0.04, "not reproduced (ours lower)"),
         (10.0, 1.0, 22.0, 3.0, 0.50, "reproduced"), (25.0, 9.0, 20.0, 1.0, 0.07, "reproduced"),
         (28.0, 9.0, 15.5, 1.0, 0.06, "reproduced"), (5.0, 1.0, 11.0, 0.5, 0.08, "reproduced"),
         (14.0, 2.0, 13.0, 0.5, 0.90, "reproduced"), (15.0, 0.1, 17.0, 1.0, 0.20, "reproduced")],
        columns=["paper mean", "paper std", "ours", "std", "p", "verdict"],
        index=["onestep", "mix_onestep", "relative", "mix_mono", "mix_rmono", "bi_relative", "content", "mono"])
    test = [(v, s, "test", "accuracy", side.ours[v] + (s % 3) - 1) for v in side.index for s in range(5)]
    dev = [(v, s, "train", "best_dev", 99.95 if (v, s) == ("content", 2) else 100.0) for v in side.index
           for s in range(5)]
    return rows(test + dev, task="scan"), side


def test_scan_on_a_hand_made_table():
    runs, side = hand_scan()
    values = prose.scan_table(runs, side, unmixed=("onestep", "mono"))
    assert values["scan_seeds"] == "seeds 0-4" and values["scan_runs"] == 40
    assert values["scan_dev_min"] == 99.9 and values["scan_dev_full"] == 39  # 99.95 rounded down
    assert (values["scan_reproduced"], values["scan_rows"]) == (7, 8)
    assert values["scan_failed"] == "one is not, below the paper"
    assert values["scan_failed_rows"] == "Mix OneStep (ours 18.0% against the paper's 30.0%, p = 0.040)"
    assert values["scan_onestep"] == 16.0 and values["scan_paper_std_max"] == 9.0
    assert (values["scan_below"], values["scan_below_rows"], values["scan_below_p"]) == (
        "two", "Mix Mono, Mix RMono", "0.06 to 0.07")
    assert values["scan_above"] == "Bi-Relative above it at p = 0.08"
    assert (values["scan_tighter"], values["scan_mixing"]) == (6, 3)  # all stds but Relative's and Mono's
    assert (values["scan_paper_min_name"], values["scan_paper_max_name"]) == ("Bi-Relative", "Mix OneStep")
    assert values["scan_between"] == 4  # 16, 18, 15.5, 17 lie in [15, 19]
    assert (values["scan_top_name"], values["scan_top"], values["scan_top_seeds"]) == ("Relative", 22.0,
                                                                                       "21.0 to 23.0%")
    assert (values["scan_bottom_name"], values["scan_bottom"]) == ("Bi-Relative", 11.0)
    assert values["scan_ranking"] == "not reproduced"  # Spearman's rho 0.29
    assert values["scan_mix_bound"] == 3 and values["scan_mix_changes"] == "OneStep 16.0 → 18.0, Mono 17.0 → 20.0"


def test_scan_fails_when_a_sentence_stops_holding():
    runs, side = hand_scan()
    with pytest.raises(ProseCheckFailed, match="all declared"):  # seeds 0-2 only
        prose.scan_table(runs[runs.seed < 3], side, unmixed=("onestep", "mono"))
    lower = side.assign(ours=side.ours.where(side.index != "bi_relative", 4.0))  # below the paper at p 0.08
    with pytest.raises(ProseCheckFailed, match="above it"):
        prose.scan_table(runs, lower, unmixed=("onestep", "mono"))
    with pytest.raises(ProseCheckFailed, match="no nearer"):  # our OneStep nearer the paper's Mix OneStep
        prose.scan_table(runs, side.assign(ours=side.ours.where(side.index != "onestep", 25.0)),
                         unmixed=("onestep", "mono"))


def test_the_scan_paragraph_holds_on_the_stored_runs():
    runs = stored("mla-scan")
    side, common = mla_readings.scan_side(runs), compare.on_common_seeds(runs)[0]
    values = prose.scan_table(runs, side)
    failed = side[~side.verdict.str.startswith("reproduced")]
    assert values["scan_seeds"] == "seeds 0-4" and values["scan_runs"] == common.key.nunique() == 90
    assert values["scan_rows"] == len(side) == 18 and values["scan_reproduced"] == 18 - len(failed)
    assert "mix_onestep" in failed.index and (failed.ours < failed["paper mean"]).all()
    assert values["scan_failed"] == "two are not, both below the paper"
    assert values["scan_below"] == "four"  # "four more rows ... below the paper"
    assert values["scan_top_name"] == "Relative" and values["scan_bottom_name"] == "Bi-Relative"
    assert values["scan_mix_bound"] == 2  # "no mechanism's mean by more than 2 points"
    assert values["scan_ranking"] == "not reproduced"


def hand_table4():
    """Hand-made Table 4 runs on the two inverted tasks, seeds 0 and 1. OneStep and −Step 2 read both tasks the right
    way; −Step 3 reads both forward in seed 0 and both reversed in seed 1; −Sigmoid reads both the right way in seed 0
    and both the wrong way in seed 1. A run that reads the right way scores 90 + seed at 100, one that reads the wrong
    way 30 + 10 x seed at 15 and 0 beyond. Untrained gates: 0.45 in seed 0 (reversed), 0.52 in seed 1 (forward).
    Returns the runs, their untrained gates and the gate's course of seed 1's ablation runs (never crossing 0.5)."""
    way = {(STEP3, 0): (True, True), (STEP3, 1): (False, False), (SIGMOID, 0): (True, False),
           (SIGMOID, 1): (False, True)}  # (reads Inv ReCopy forward, reads Inv Reverse ReCopy forward)

    def forward(v, t, s):
        return way[v, s][prose.INVERTED.index(t)] if (v, s) in way else mla_readings.reads_forward(t)

    def gate(v, t, s):
        return 0.998 - 0.001 * s if forward(v, t, s) else 0.002 + 0.001 * s

    def acc(v, t, s):
        if v == "onestep":
            return (99.0, 0.1 * (s + 1), 0.0, 0.0)
        if v == STEP2:
            return (99.0, 80.0 + 10 * s, 0.1, 0.0)
        right = forward(v, t, s) == mla_readings.reads_forward(t)
        return (99.0, 99.0, 97.0, 90.0 + s) if right else (99.0, 30.0 + 10 * s, 0.0, 0.0)

    records = []
    for v, t, s in itertools.product(prose.ABLATION_NAMES, prose.INVERTED, (0, 1)):
        records.append((v, s, "test", "direction_gate", gate(v, t, s), t))
        records += [(v, s, n, "accuracy", x, t) for n, x in zip(("iid", "15", "30", "100"), acc(v, t, s),
                                                                 strict=True)]
    runs = split_and_length(pd.DataFrame(records, columns=["variant", "seed", "length", "metric", "value", "task"]))
    initial = pd.DataFrame([{"task": t, "variant": v, "seed": s, "initial": 0.45 if s == 0 else 0.52}
                            for v, t, s in itertools.product(prose.ABLATION_NAMES, prose.INVERTED, (0, 1))])
    course = pd.DataFrame([{"task": t, "variant": v, "seed": 1, "first": gate(v, t, 1) * 0.99, "last": gate(v, t, 1),
                            "crossings": 0, "settled": 0} for v in (STEP2, STEP3, SIGMOID) for t in prose.INVERTED])
    return runs, initial, course


def inverted(runs, initial, course) -> dict:
    return prose.inverted_table4(runs, mla_readings.initial_lean(mla_readings.direction_table(runs), initial), course)


def test_table4_inverted_on_hand_made_runs():
    values = inverted(*hand_table4())
    assert values["inv_seeds"] == "seeds 0, 1" and values["inv_onestep_all"] == "both seeds"
    assert values["inv_onestep_15"] == pytest.approx(0.2)
    assert (values["inv_step3_back"], values["inv_step3_forth"]) == ("seed 1", "seed 0")
    assert values["inv_step3_back_gate"] == pytest.approx(0.003)
    assert values["inv_step3_forth_gate"] == pytest.approx(0.998)
    assert (values["inv_step3_back_15"], values["inv_step3_back_100"]) == ("40.0", "91.0")
    assert (values["inv_step3_forth_100"], values["inv_step3_forth_15"]) == ("90.0", "30.0")
    assert values["inv_paper_step3"] == "40.3 / 0 / 0" and values["inv_paper_step3_rev"] == "0"
    assert (values["inv_sig_back"], values["inv_sig_back_15"]) == ("seed 1", "40.0")
    assert (values["inv_sig_solved"], values["inv_sig_solved_100"]) == ("seed 0", "90.0")
    assert (values["inv_sig_rev_forward"], values["inv_sig_rev_forward_15"]) == ("seed 1", "40.0")
    assert (values["inv_sig_rev_back"], values["inv_sig_rev_back_100"]) == ("seed 0", "90.0")
    assert (values["inv_right"], values["inv_wrong"], values["inv_right_min"]) == (4, 4, 90.0)
    assert (values["inv_sig_same"], values["inv_sig_wrong_both"]) == ("no seeds", "seed 1")
    assert values["inv_initial"] == "0.450-0.520"
    assert (values["inv_lean_back"], values["inv_lean_forth"]) == ("seed 0", "seed 1")
    # −Step 3 reads against its lean on both tasks in both seeds; −Sigmoid only on Inv ReCopy (seed 0 reads it
    # forward from a reversed lean, seed 1 reversed from a forward lean)
    assert (values["inv_crossed"], values["inv_free"]) == (6, 8)
    assert values["inv_crossed_runs"] == "−Step 3's seeds 0 and 1 on both tasks, −Sigmoid's seeds 0 and 1 on Inv ReCopy"
    assert (values["inv_course_seeds"], values["inv_course"]) == ("seed 1", 6)
    assert values["inv_step2_15"] == "80.0-90.0" and values["inv_paper_step2"] == "95.5 and 96.2"
    assert values["inv_step2_beyond"] == pytest.approx(0.1)


def test_table4_inverted_fails_when_a_sentence_stops_holding():
    runs, initial, course = hand_table4()
    onestep_gate = (runs.variant == "onestep") & (runs.metric == "direction_gate") & (runs.task == "inv_recopy")
    with pytest.raises(ProseCheckFailed, match="our OneStep"):  # OneStep reads Inv ReCopy the wrong way
        inverted(runs.assign(value=runs.value.where(~onestep_gate, 0.001)), initial, course)
    with pytest.raises(ProseCheckFailed, match="never crosses 0.5 again"):
        inverted(runs, initial, course.assign(crossings=[0, 0, 1, 0, 0, 0]))
    with pytest.raises(ProseCheckFailed, match="share one initialisation"):
        inverted(runs, initial.assign(initial=initial.initial + 0.001 * (initial.variant == STEP3)), course)


def test_the_table4_inverted_paragraph_holds_on_the_stored_runs():
    runs = mla_readings.with_unablated("mla-ablations", stored("mla-ablations"), stored("mla-main"))
    inverted = runs[runs.task.isin(prose.INVERTED) & runs.variant.isin(prose.ABLATION_NAMES)]
    configs = [c for name in ("mla-ablations", "mla-main") for c in EXPERIMENTS[name].configs_for("full")
               if (c.model.attention, c.task) in set(zip(inverted.variant, inverted.task, strict=True))]
    lean = mla_readings.initial_lean(mla_readings.direction_table(inverted), mla.initial_gates(configs, examples=500))
    course = mla_readings.gate_course(collect_history(EXPERIMENTS["mla-ablations"], configs, store()))
    values = prose.inverted_table4(runs, lean, course)
    assert values["inv_seeds"] == "seeds 0-4" and values["inv_onestep_all"] == "all five seeds"
    assert (values["inv_step3_back"], values["inv_step3_forth"]) == ("seeds 0-2 and 4", "seed 3")
    assert (values["inv_sig_back"], values["inv_sig_solved"], values["inv_sig_rev_back"]) == (
        "seeds 0-2", "seeds 3 and 4", "seed 2")
    assert (values["inv_sig_same"], values["inv_sig_wrong_both"]) == ("seeds 2-4", "seeds 0 and 1")
    assert (values["inv_right"], values["inv_wrong"], values["inv_crossed"], values["inv_free"]) == (8, 12, 8, 20)
    assert (values["inv_lean_back"], values["inv_lean_forth"]) == ("seeds 0-3", "seed 4")
    assert (values["inv_course_seeds"], values["inv_course"]) == ("seeds 3 and 4", 12)
    assert values["inv_crossed_runs"] == ("−Step 3's seeds 3 and 4 on both tasks, −Sigmoid's seed 3 on both tasks, "
                                          "−Sigmoid's seeds 0 and 1 on Inv Reverse ReCopy")


def hand_dedupe():
    """OneStep: seeds 0-2 at 4-6% at 15 (iid 93-95); MonoAttn: seed 1 fails at 15, seeds 0 and 2 reach 90 / 80 at
    100."""
    records = []
    for s in range(3):
        records += [("onestep", s, "iid", "accuracy", 93.0 + s), ("onestep", s, "15", "accuracy", 4.0 + s),
                    ("onestep", s, "100", "accuracy", 0.0), ("onestep", s, "train", "best_dev", 38.0 + s)]
        failed = s == 1
        records += [("mono", s, "iid", "accuracy", 94.0 if failed else 99.0),
                    ("mono", s, "15", "accuracy", 3.0 if failed else 98.0),
                    ("mono", s, "100", "accuracy", 0.0 if failed else 90.0 - 5 * s),
                    ("mono", s, "train", "best_dev", 39.0 if failed else 99.0)]
    return rows(records, task="dedupe")


def test_dedupe_on_hand_made_runs():
    values = prose.dedupe(hand_dedupe(), stalled_seed=1, measured_seed=2)
    assert values == {
        "dedupe_paper_onestep_15": 51.0, "dedupe_onestep_seeds": "all three of our seeds", "dedupe_onestep_15":
            "4.0-6.0", "dedupe_onestep_iid": "93.0-95.0", "dedupe_paper_onestep_iid": 94.1, "dedupe_measured": "seed 2",
        "dedupe_mono_seeds": 3, "dedupe_stalled": "seed 1", "dedupe_stalled_dev": 39.0, "dedupe_onestep_dev":
            "38.0-40.0", "dedupe_stalled_iid": 94.0, "dedupe_stalled_15": 3.0, "dedupe_mono_100": 80.0,
        "dedupe_others": "seed 0", "dedupe_others_100": "90.0", "dedupe_paper_mono_100": 75.0}
    with pytest.raises(ProseCheckFailed, match="One of MonoAttn's seeds"):  # seed 1 is the one that fails, not 0
        prose.dedupe(hand_dedupe(), stalled_seed=0, measured_seed=2)
    with pytest.raises(ProseCheckFailed, match="reaches only"):  # seed 0 (90 at 100) is above seed 2 (80)
        prose.dedupe(hand_dedupe(), stalled_seed=1, measured_seed=0)


def test_the_dedupe_paragraphs_hold_on_the_stored_runs():
    values = prose.dedupe(stored("mla-extra"))
    assert (values["dedupe_stalled"], values["dedupe_measured"], values["dedupe_others"]) == (
        "seed 2", "seed 4", "seeds 0, 1 and 3")
    assert values["dedupe_onestep_seeds"] == "all five of our seeds"
    assert values["dedupe_paper_onestep_15"] == paper.TABLE6["onestep"]["dedupe"][1]


def entry(seed: int, tie: bool, revision: bool, best: int, commit: str, date: str):
    train = {"epochs": 100, **({"tie": True} if tie else {})}
    model = {"attention": "onestep", **({"revision": 2} if revision else {})}
    metrics = pd.DataFrame({"length": ["train"], "metric": ["best_epoch"], "value": [float(best)]})
    return ({"task": "copy", "seed": seed, "train": train, "model": model}, metrics,
            {"profile": "full", "git_commit": commit + "0" * 33, "date": date})


def test_earlier_protocols_are_counted_per_generation():
    entries = [entry(0, False, False, 3, "bbbbbbb", "2026-01-02"), entry(0, False, False, 12, "aaaaaaa", "2026-01-01"),
               entry(0, False, False, 7, "aaaaaaa", "2026-01-01"), entry(0, True, False, 99, "ccccccc", "2026-01-03"),
               entry(1, True, True, 99, "ddddddd", "2026-01-04")]
    assert prose.earlier_protocols(entries) == {
        "earlier_first": 3, "earlier_seed": "seed-0", "earlier_early": 2, "earlier_epochs": 8, "earlier_next": 1}


def test_earlier_protocols_on_the_stored_runs():
    values = prose.earlier_protocols(e for name in ("mla-main", "mla-ablations") for e in store().entries(name))
    assert (values["earlier_first"], values["earlier_early"], values["earlier_next"]) == (28, 25, 15)


def test_live_fit_reads_the_live_runs():
    live = rows([("content", 0, "iid", "accuracy", 48.4), ("onestep", 0, "iid", "accuracy", 99.0)], task="copy")
    inv = rows([(v, 0, n, "accuracy", x) for v, fit, far in (("mono", 95.0, 12.5), ("onestep", 60.0, 0.0))
                for n, x in (("iid", fit), ("100", far))], task="inv_recopy")
    assert prose_live.live_fit(pd.concat([live, inv])) == {
        "fit_content": "48% of Copy",
        "fit_inverted": "on Inv ReCopy it fits 1 of the 2 mechanisms in distribution and the best reaches 12.5% at "
                        "length 100"}
    assert prose_live.live_fit(live.iloc[:0]) == {"fit_content": "nothing measured",
                                             "fit_inverted": "Inv ReCopy is not run at this profile"}


def test_the_seed_check_counts_seeds():
    stored = rows([(v, s, "15", "accuracy", 1.0) for v, seeds in (("mono", range(5)), ("bi_rope", range(3)))
                   for s in seeds], task="copy")
    live = rows([(v, s, "100", "accuracy", x) for v, xs in (("mono", (95.0, 20.0, 90.0)), ("onestep", (99.0, 99.0,
                                                                                                     99.0)))
                 for s, x in enumerate(xs)], task="copy")
    assert prose_live.seed_check(live, stored) == {"seeds_stored": "three to five", "seeds_live": "three",
                                                   "seeds_far": "mono: 2 of 3, onestep: 3 of 3"}
    assert prose_live.seed_check(live.iloc[:0].assign(seed=[]), stored[stored.variant == "mono"])["seeds_far"] == (
        "no run reached length 100")


def test_mono_stall_names_the_stalled_seeds():
    diag = pd.DataFrame({"iid accuracy": [99.0, 40.0, 30.0], "focus after the first step": [0.1, 0.7, 0.4],
                         "mean largest weight": [0.9, 0.2, 0.25]}, index=pd.Index([0, 1, 2], name="seed"))
    assert prose_live.mono_stall(diag)["stall_text"] == (
        "1 of 2 stalled seeds overshoot past the middle of the input at the first step (focus > 0.5); their mean "
        "largest weight is 0.20–0.25, against 0.90–0.90 for the working seeds.")
    assert prose_live.mono_stall(diag.iloc[:1])["stall_text"] == (
        "No seed stalled at this budget: all 1 reach at least 90% iid; their first step lands at 0.10–0.10 and their "
        "mean largest weight is 0.90–0.90.")


def test_recopy_targets_are_longer_than_copys():
    ratio = prose_tasks.recopy_targets()["fit_recopy_ratio"]
    assert prose_tasks.recopy_targets(("copy",))["fit_recopy_ratio"] == 1.0
    assert 2 < ratio < 4  # each digit written 1, 3 or 5 times: 3 on average, minus the shared <eos>


def test_scan_gates_count_the_runs_that_split_by_construction():
    gates = pd.DataFrame({"all": [0.5, 0.5, 0.9], "and": [0.95, 0.5, float("nan")], "after": [0.05, 0.5, float("nan")]})
    kinds = pd.Series({"jump": "single", "walk and run": "and", "run after walk": "after", "look": "single"})
    assert prose.scan_gates(gates, kinds) == {"gates_commands": "4",
                                              "gates_kinds": '2 single ones, 1 "and" commands and 1 "after" commands',
                                              "gates_single": "jump, look", "gates_split": 1, "gates_recorded": 2}
    with pytest.raises(ProseCheckFailed):
        prose.scan_gates(gates[["all"]], kinds)


def test_the_protocol_and_the_scan_split_are_the_packages():
    assert prose_tasks.protocol() == {"protocol_train": "10,000", "protocol_lookup": "9,556", "protocol_epochs": 100,
                                "protocol_test": "2,000", "protocol_seeds": 5, "protocol_variant_seeds": 3}
    from lengthgen.tasks import TASKS

    split = prose_tasks.scan_split(TASKS["scan"]())
    assert (split["split_shortest"], split["split_longest"], split["split_train"]) == (24, 48, 22)
    assert split["split_test"] == f"{TASKS['scan']().splits['test'].size:,}"
    assert split["split_dev_share"] == pytest.approx(10, abs=0.05)  # the dev set: a tenth of train + dev


def test_variant_savings_prices_the_seeds_left_out():
    stored = pd.DataFrame({"task": list(mla.PROBING) * 2, "key": [f"{i}" for i in range(16)],
                           "wall_seconds": [1800.0] * 8 + [3600.0] * 8})  # median 2,700 s per task
    # 8 tasks x 12 variants x 2 seeds left out x 0.75 h
    assert prose.variant_savings(stored) == {"protocol_saved_hours": 8 * 12 * 2 * 0.75}


def test_mono_gates_give_b_and_the_sigmoid_branch():
    assert prose_live.mono_gates({"copy": 20.0, "reverse_copy": 0.0}) == {
        "gate_b": "copy: b = 20.000000, 1 − s = 2.1e-09, reverse_copy: b = 0.000000, 1 − s = 5.0e-01"}
    assert prose_live.mono_gates({}) == {"gate_b": "no MonoAttn model"}


def test_lookup_dev_is_half_training_lengths_half_the_first_test_length():
    from lengthgen.tasks import TASKS

    assert prose_tasks.lookup_dev(TASKS["lookup"]()) == {"dev_size": "1,000", "dev_held_out": 500,
                                                         "dev_held_share": 50.0, "dev_longer": 500,
                                                         "dev_longer_split": "7"}


def test_dedupe_runs_count_the_source_runs():
    class Task:  # every split: two inputs, "4 7 7 7" (runs of 1 and 3) and "5 5 5 5 5 2" (5 and 1)
        train_split, dev_split, splits = "train", "dev", {"train": None, "dev": None, "100": None}

        def examples(self, split, n=None):
            return [(("4", "7", "7", "7"), ("4", "7")), (("5",) * 5 + ("2",), ("5", "2"))][:n]

    assert prose_tasks.dedupe_runs(Task(), inputs=2) == {"dedupe_run_mean": "2.5", "dedupe_one_share": 50.0,
                                                   "dedupe_one_per_input": 1.0}


def test_machines_count_the_torch_versions_and_check_the_seed_order():
    runs = pd.DataFrame({"key": list("abcdef"), "seed": [0, 1, 2, 3, 1, 0],
                         "torch_version": ["2.13.0+cpu"] * 4 + ["2.11.0+cu130", "2.13.0+cpu"],
                         "date": ["2026-01-01", "2026-01-02", "2026-01-02", "2026-01-05", "2026-01-03", "2026-01-01"],
                         "grid": ["g"] * 5 + ["h"]})
    assert prose.machines(runs) == {"machines_main": 5, "machines_runs": 6, "machines_main_torch": "2.13",
                                    "machines_other": "seed-1", "machines_other_torch": "2.11"}
    with pytest.raises(ProseCheckFailed, match="came first"):  # seed 3 run before seed 1's last
        prose.machines(runs.assign(date=runs.date.where(runs.seed != 3, "2026-01-02")))


def test_machines_on_the_stored_runs():
    runs = pd.concat([stored(name).assign(grid=name) for name in ("mla-main", "mla-ablations", "mla-extra",
                                                                   "mla-scan")])
    values = prose.machines(runs)
    assert values["machines_other"] == "seed-1 and seed-2" and values["machines_main"] > values["machines_runs"] / 2


def test_quick_others_are_half_the_table2_budget():
    assert prose_tasks.quick_others() == {"others_share": "half"}  # 1,000 of the quick profile's 2,000 examples
