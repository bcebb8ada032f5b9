"""The sparsity chapter's prose values: each paragraph's function on a small hand-made frame with hand-computed
values, the sentences bound by `holds` failing when the data contradict them, and holding on the committed runs;
every value the chapter's prose names is one a function returns."""

import re
from dataclasses import replace

import pandas as pd
import pytest

from lengthgen.analysis.claims import NOT_JUDGED
from lengthgen.book import CHAPTERS, ROOT
from lengthgen.display import ProseCheckFailed
from lengthgen.papers import EXPERIMENTS
from lengthgen.papers.sparsity import prose, prose_language, setups
from lengthgen.papers.sparsity.experiments import (
    ASSIGNMENT_PROFILES,
    PARITY_PROFILES,
    QUICK_SEEDS,
    SCRATCHPAD_PROFILES,
    DecoderSizes,
    assignment_reading,
    parity_reading,
)
from lengthgen.papers.sparsity.language import LANGUAGE_PROFILES, language_reading
from lengthgen.papers.sparsity.readings import assignment_claim
from lengthgen.papers.sparsity.rows import READ_AT, read_runs
from lengthgen.results.store import ResultStore
from lengthgen.results.sweep import stored_runs


def test_phrases():
    assert [prose.percent(v) for v in (96.5, 100.0, 66.84, 0.0, 99.96)] == ["96.5%", "100%", "66.8%", "0%", "100%"]
    assert prose.percent_span([99.7, 100.0, 99.8]) == "99.7-100%" and prose.percent_span([100.0, 99.99]) == "100%"
    assert [prose.int_range(v) for v in ((1, 2, 3, 4), (2, 3), (1, 2, 4), (1,))] == ["1-4", "2 and 3", "1, 2 and 4",
                                                                                    "1"]
    assert [prose.count_of_seeds(c, n) for c, n in ((3, 3), (2, 3), (0, 3), (2, 2), (1, 1))] == [
        "in all three seeds", "in two of three seeds", "in none of the three seeds", "in both seeds",
        "in its one seed"]
    assert prose_language.orders_phrase([3611.1, 6103.5]) == "three to four"
    assert prose_language.orders_phrase([150.0, 4.9e6]) == "two to seven"
    assert prose.round_to(3611.1) == 3600.0 and prose.round_to(6103.5) == 6100.0


def test_fits_phrase():
    fit = pd.Series({3: 100.0, 2: 67.4})
    assert prose.fits_phrase(fit, 3) == "fits 3 chains at depth 3 (100%) but not at depth 2 (67.4%)"
    assert prose.fits_phrase(pd.Series({2: 31.6, 3: 29.3}), 3) == (
        "fits 3 chains at neither depth (31.6% at depth 2 and 29.3% at depth 3)")
    assert prose.fits_phrase(pd.Series({2: 95.0, 3: 90.0}), 4) == "fits 4 chains at both depths (95% and 90%)"
    assert prose.by_depth(pd.Series({3: 78.0, 2: 66.8})) == "66.8% (depth 2) and 78% (depth 3)"


def test_live_setups_follow_the_profile():
    sizes = DecoderSizes(width=16, heads=2, layers=1, steps=20, batch=8, lr=1e-3, warmup=5, train_lengths=(3, 5),
                         eval_lengths=(3, 5, 20), samples=16, max_positions=64, seeds=(0,), jumps=(1,))
    assert prose.parity_setup(sizes) == {"parity_train": "3-5", "parity_tokens": "6-10",
                                         "parity_paper_tokens": "20-50", "parity_reach": 4.0}
    regime = SCRATCHPAD_PROFILES["regime"]
    assert prose.scratchpad_setup(sizes, regime) == {"scratch_held": "This profile trains all three.",
                                                     "scratch_jumps": "1", "scratch_train": "6-10",
                                                     "scratch_vs_paper": "the paper's: 10-40"}
    same = replace(sizes, train_lengths=(5, 20), eval_lengths=(5, 60), jumps=(1, 2, 3), max_positions=210)
    setup = prose.scratchpad_setup(same, regime)
    assert (setup["scratch_held"], setup["scratch_jumps"], setup["scratch_vs_paper"]) == (
        "This profile trains all five.", "1-3", "as in the paper")
    alone = prose.scratchpad_setup(replace(same, variants=("j=1 PPC",)), regime)["scratch_held"]
    assert alone.startswith("This profile trains j=1 PPC alone: ") and "4 layers of width 128, 10,000 steps" in alone
    assert prose.t1_rule(PARITY_PROFILES["cpu"]) == {"t1_bar": 90.0, "t1_paper_reach": 10.0, "t1_drop": 10.0,
                                                     "t1_rho": -0.8, "t1_our_bound": 4,  # cpu's bounds 1-4
                                                     "t1_paper_bounds": "4 to 12"}
    assert prose.t2_rule() == {"t2_bar": 90.0, "t2_floor": 2.0, "t2_paper_reach": 3}


def test_stored_setups_read_the_profile():
    assert prose.stored_setup(PARITY_PROFILES["smoke"], SCRATCHPAD_PROFILES["regime"]) == {
        "stored_parity_model": "1 layer of width 16", "stored_parity_steps": 20, "stored_bounds": "1 and 2",
        "stored_ks": "1 and 2", "stored_scratch_model": "4 layers of width 128",
        "stored_scratch_larger": " (4 layers of width 256 for j = 3 PPC)",
        "stored_scratch_steps": 10_000, "stored_jumps": "1-3", "stored_scratch_caveat": prose.jump_caveat(
            SCRATCHPAD_PROFILES["regime"]), "stored_seeds": "one"}
    assert prose.jump_caveat(SCRATCHPAD_PROFILES["regime"]).startswith(" A jump that fits only on a larger model")
    smoke = prose.stored_setup(PARITY_PROFILES["smoke"], SCRATCHPAD_PROFILES["smoke"])
    assert smoke["stored_scratch_larger"] == smoke["stored_scratch_caveat"] == ""
    fit = pd.DataFrame({"in distribution (worst k)": [100.0, 98.2]})
    assert prose.stored_parity_fit(fit) == {"stored_parity_fit": "98.2-100%"}
    with pytest.raises(ProseCheckFailed, match="every bound fits"):
        prose.stored_parity_fit(fit.assign(**{"in distribution (worst k)": [100.0, 80.0]}))
    assert prose.assignment_setup(ASSIGNMENT_PROFILES["smoke"], "a") == {
        "a_model": "1 layer of width 16", "a_depths": "2", "a_variables": 200, "a_unit": "chains", "a_train": "1-2",
        "a_longest": 3, "a_ratio": 1.5, "a_paper_tokens": "60 to 200", "a_steps": 20, "a_batch": 8, "a_seeds": "one",
        "a_judged": 2, "a_ids": 64, "a_paper_ids": 230, "a_left_out": ""}
    regime = prose.assignment_setup(ASSIGNMENT_PROFILES["regime"], "b")
    assert (regime["b_unit"], regime["b_train"], regime["b_longest"], regime["b_model"]) == (
        "tokens", "20-60", 200, "4 layers of width 128")
    assert regime["b_left_out"].startswith(" The grid leaves out no coupling, no scratchpad and RoPE+PoSE: they do "
                                           "not fit the training lengths")


def _assignment_curves(pose_at_longest: float = 100.0) -> pd.DataFrame:
    """Two depths, two seeds, chains 1-4 and 6 (trained on 1-3): RoPE + PoSE holds, PPC fits and falls, no
    coupling fits depth 3 only, no scratchpad fits neither."""
    means = {  # (variant, depth): accuracy at chains 1, 2, 3, 4, 6 (both seeds the same +- 1)
        ("PPC", 2): [100, 100, 96, 60, 2], ("PPC", 3): [100, 100, 100, 80, 1],
        ("no coupling", 2): [100, 80, 70, 30, 0], ("no coupling", 3): [100, 100, 99, 90, 5],
        ("no scratchpad", 2): [100, 50, 30, 20, 0], ("no scratchpad", 3): [100, 40, 28, 10, 0],
        ("RoPE+PoSE", 2): [100, 100, 100, 99, pose_at_longest], ("RoPE+PoSE", 3): [100, 100, 100, 100, 99.5],
    }
    rows = [{"variant": v, "depth": d, "seed": seed, "length": n, "metric": "accuracy",
             "value": min(100.0, a + (1 if seed else -1) * (a not in (0, 100)))}
            for (v, d), accuracy in means.items() for seed in (0, 1)
            for n, a in zip((1, 2, 3, 4, 6), accuracy, strict=True)]
    return pd.DataFrame(rows)


def test_stored_assignment_on_a_hand_made_grid():
    curves = _assignment_curves()
    values = prose.stored_assignment(curves, assignment_claim(curves, 3), 3)
    assert values == {
        "fig3_seeds": "2", "fig3_verdict": "does not reproduce", "fig3_pose": "99-100%", "fig3_longest": 6,
        "fig3_ratio": 2.0, "fig3_depths": "both depths", "fig3_ppc_fit": "96% (depth 2) and 100% (depth 3)",
        "fig3_judged": 3, "fig3_beyond": 4, "fig3_ppc_beyond": "60% (depth 2) and 80% (depth 3)",
        "fig3_ppc_longest": "2% (depth 2) and 1% (depth 3)",
        "fig3_coupling": "fits 3 chains at depth 3 (99%) but not at depth 2 (70%)",
        "fig3_scratchpad": "fits 3 chains at neither depth (30% at depth 2 and 28% at depth 3)"}


def test_stored_assignment_refuses_a_baseline_that_falls():
    curves = _assignment_curves(pose_at_longest=40.0)  # RoPE + PoSE no longer holds to the longest length
    with pytest.raises(ProseCheckFailed, match="RoPE \\+ PoSE"):
        prose.stored_assignment(curves, assignment_claim(curves, 3), 3)


SHORT, LONG = "context 16 + PoSE", "context 32"  # the smoke profile's pair
FAR_GAIN = [1.0, 2.0, -1.0, -4.0]  # recent - full, per window
OWN = [2.0, 4.0, -2.0, -8.0]  # recent - recent+2 with the model's own choice: twice the far gain (r = 1, share 2)
CROSS = [1.0, 0.0, 0.0, 1.0]  # with the other's choice: r = -2 / sqrt(21) = -0.44, share (1 + 0) / (1 + 2) = 0.33
RANDOM = [0.1, 0.1, 0.0, 0.0]  # the controls with the model's own far gain: random far tokens, share 0.2 / 3 ...
OTHER = [0.5, 0.5, 0.0, 0.0]  # ... and tokens chosen on the token before, share 1 / 3


def test_stored_coupling_phrases_by_hand():
    models = pd.DataFrame([{"variant": "PPC", "in distribution": 100.0, "stays >= 90% up to": 90, "seeds": 2},
                           {"variant": "no coupling", "in distribution": 1.6, "stays >= 90% up to": 0, "seeds": 1}])
    curves = pd.DataFrame({"variant": ["PPC"] * 4 + ["no coupling"] * 2, "length": [60, 90, 120, 120, 60, 90],
                           "value": [100.0, 95.0, 40.0, 60.0, 1.6, 0.0]})
    models = models.merge(prose.past_reach(curves, models.set_index("variant")["stays >= 90% up to"]), on="variant",
                          how="left")
    assert models.beyond.tolist()[0] == 50.0 and models.beyond_at.tolist()[0] == 120  # the mean of two seeds
    diagnosis = pd.DataFrame([{"panel": "PPC", "answer": 90, "tokens": 90, "ids": 150, "oracle": 90, "longest": 200,
                               "fails": "the tokens"}])
    lookup = pd.DataFrame({"panel": "PPC", "length": [20, 60, 200], "lookup mass": [0.7, 0.857, 0.539],
                           "seeds": [2, 2, 1]}).set_index(["panel", "length"])
    out = prose.stored_coupling(models, diagnosis, lookup, {"Fig. 3 at depth 2": "partly: ahead, short"}, 60, "x")
    assert out == {"x_trained": 60,
                   "x_lookup": "PPC's lookup head puts 0.86 of its attention on the keys its id points to at 60 and "
                               "0.54 at 200 (one seed)",
                   "x_models": "PPC fits them (100% in distribution; two seeds) and stays ≥ 90% to 90 (50% at 120); "
                               "no coupling does not fit them (1.6% in distribution; one seed)",
                   "x_where": "PPC's answers stay right to 90, and fed the true ids its tokens hold no further "
                              "(90): its tokens fail first, even with the right ids; its ids stay right to 150, then "
                              "go wrong too",
                   "x_verdicts": "Fig. 3 at depth 2: partly"}
    both = diagnosis.assign(ids=90, fails="both").iloc[0]
    assert prose.where_phrase(both) == ("PPC's ids and tokens both stay right to 90, and fed the true ids its tokens "
                                        "hold no further (90): its tokens go wrong with the right ids too, as its id "
                                        "head does, at the same length")
    assert prose.where_phrase(diagnosis.assign(ids=200).iloc[0]).endswith(  # the ids hold to the end
        "its ids stay right to 200, the longest length tested")
    head = diagnosis.assign(oracle=200, fails="the id head").iloc[0]
    assert prose.where_phrase(head) == ("PPC's id head fails first: its ids stay right to 150, its tokens to 90, and "
                                        "fed the true ids its tokens hold to 200")
    empty = prose.stored_scratchpad(pd.DataFrame(), "regime")
    assert empty["sp_models"] == empty["sp_where"] == empty["sp_lookup"] == empty["sp_verdicts"] == "none yet"


def test_the_stored_scratchpad_names_the_jump_control_s_model_among_the_models():
    runs = read_runs("scratchpad", ResultStore(ROOT / "results"))  # the committed grid, its jump control on 3 seeds
    models = prose.stored_scratchpad(runs, "regime")["sp_models"]
    order = [models.index(name) for name in ("j=3 PPC fits", "4x256 j=2 PPC fits", "j=1 absolute+shift")]
    assert order == sorted(order)  # after the jumps it stands in for, before the ablations
    assert "4x256 j=2 PPC" not in prose.stored_scratchpad(runs[runs.variant != "4x256 j=2 PPC"], "regime")["sp_models"]


def test_stored_hours_sum_every_run_and_split_grids_from_the_rest():
    walls = {"sparsity-parity": {"a": 3600.0, "b": 1800.0}, "sparsity-language": {"c": 3600.0},
             "sparsity-control-jumps": {"d": 7200.0}, "sparsity-sizing-assignment": {}}
    assert prose.stored_hours(walls) == {"stored_hours": "4.5", "stored_hours_grids": "2.5", "stored_hours_rest": "2.0"}


def assignment_rows(label: str, budget: int, curves: dict[int, tuple[float, ...]]) -> pd.DataFrame:
    """Variable-assignment rows (lengths 60, 80, 120, 200; trained on 20-60 tokens), one curve per seed."""
    return pd.DataFrame([{"variant": label, "seed": seed, "budget": budget, "train": "20-60", "metric": "accuracy",
                          "length": n, "value": value} for seed, values in curves.items()
                         for n, value in zip((60, 80, 120, 200), values, strict=True)])


def test_the_assignment_control_sentence_reads_ppc_seed_by_seed_against_the_grids_seeds():
    grid = assignment_rows("PPC", 50_000, {0: (100, 40, 0, 0), 1: (99, 30, 0, 0), 2: (100, 20, 0, 0)})
    control = assignment_rows("4x128 PPC", 100_000, {100: (100, 95, 95, 40), 101: (98, 50, 0, 0)})
    assert prose.assignment_control(control, grid) == {"pa_steps": (
        "on 100,000 steps (sizing seeds 100 and 101): on seed 100, PPC fits them (100% in distribution) and stays "
        "≥ 90% to 120; on seed 101, PPC fits them (98% in distribution) and stays ≥ 90% to 60. It does not hold "
        "further than every grid seed on every control seed (the grid's seeds: 60, 60, 60): the added steps do not "
        "move PPC's reach past the grid's spread, so size and mechanism stay unseparated; it reaches Fig. 3's bar of "
        "2x its training length (120) on some seeds only")}
    moved = "It holds further than every grid seed on every control seed (the grid's seeds: 60, 60, 60): the budget " \
            "limits PPC's reach at this size; "
    bar = "Fig. 3's bar of 2x its training length (120)"
    for curves, reached in (({100: (100, 95, 95, 40), 101: (98, 92, 92, 0)}, f"it reaches {bar} on every seed"),
                            ({100: (100, 95, 95, 40), 101: (98, 92, 0, 0)}, f"it reaches {bar} on some seeds only"),
                            ({100: (100, 95, 40, 40), 101: (98, 92, 0, 0)}, f"it stays under {bar} on every seed")):
        assert prose.assignment_control(assignment_rows("4x128 PPC", 100_000, curves), grid)["pa_steps"].endswith(
            moved + reached)
    unfit = assignment_rows("4x128 PPC", 100_000, {100: (100, 95, 95, 40), 101: (80, 92, 92, 0)})
    assert "It does not hold further" in prose.assignment_control(unfit, grid)["pa_steps"]  # seed 101 does not fit
    assert prose.assignment_control(control, pd.DataFrame())["pa_steps"].endswith(
        "; the grid's PPC is not stored, so it cannot say what the budget changes")
    assert prose.assignment_control(control, grid.assign(variant="no coupling"))["pa_steps"].endswith(
        "; the grid's PPC is not stored, so it cannot say what the budget changes")
    assert prose.assignment_control(pd.DataFrame(), grid) == {"pa_steps": "not stored yet"}


def test_the_control_sentence_reads_the_run_at_its_own_size():
    run = EXPERIMENTS["sparsity-control-scratchpad"].configs_for("regime")[0]
    rows = pd.DataFrame([{"variant": "4x128 j=1 PPC", "seed": 100, "budget": run.train.steps, "train": "5-20",
                          "metric": metric, "length": n, "value": value}
                         for n, acc, mass in ((20, 100.0, 0.99), (40, 95.0, 0.97), (100, 20.0, 0.8))
                         for metric, value in (("accuracy", acc), ("lookup mass", mass))])
    assert prose.scratchpad_control(rows) == {"sp_control": (
        "on 50,000 steps (sizing seed 100), j=1 PPC fits them (100% in distribution) and stays ≥ 90% to 80; j=1 "
        "PPC's lookup head puts 0.99 of its attention on the keys its id points to at 40 and 0.80 at 200 (one seed)")}
    assert prose.scratchpad_control(pd.DataFrame()) == {"sp_control": "not stored yet"}
    other = rows.assign(seed=101, value=rows.value.where((rows.metric != "accuracy") | (rows.length != 40), 50.0))
    assert prose.scratchpad_control(pd.concat([rows, other]))["sp_control"].startswith(
        "on 50,000 steps (sizing seeds 100 and 101): on seed 100, j=1 PPC fits them (100% in distribution) and stays "
        "≥ 90% to 80; on seed 101, j=1 PPC fits them (100% in distribution) and stays ≥ 90% to 40")  # not their mean
    j2 = pd.DataFrame([{"variant": "4x128 j=2 PPC", "seed": 100, "budget": run.train.steps, "train": "5-20",
                        "metric": "accuracy", "length": n, "value": acc}  # combined 39, 78, 198
                       for n, acc in ((13, 100.0), (26, 60.0), (66, 0.0))])
    assert prose.scratchpad_control(pd.concat([rows, j2]))["sp_control"].startswith(
        "on 50,000 steps (sizing seed 100), j=1 PPC fits them (100% in distribution) and stays ≥ 90% to 80 and j=2 "
        "PPC fits them (100% in distribution) and stays ≥ 90% to 39; Fig. 2's rule on this budget, seed by seed: on "
        "seed 100, reproduced: j=2 against j=1, >= 90% up to 39 against 80; j=1 PPC's lookup head")  # each jump
    j2_far = j2.assign(seed=101, value=[100.0, 95.0, 0.0])  # holds to 78 where seed 101's j = 1 holds to 40
    both = prose.scratchpad_control(pd.concat([rows, other, j2, j2_far]))["sp_control"]
    assert ("seed by seed: on seed 100, reproduced: j=2 against j=1, >= 90% up to 39 against 80; on seed 101, not "
            "reproduced: j=2 against j=1, >= 90% up to 78 against 40; j=1 PPC's") in both
    one = prose.scratchpad_control(pd.concat([rows, other, j2]))["sp_control"]  # seed 101 lacks j = 2: no pair there
    assert one.count("j=2 against j=1") == 1 and "on seed 100, reproduced: j=2" in one
    assert prose.scratchpad_control(rows, (1, 2))["sp_control"].endswith("(one seed); j = 2 not stored yet")
    assert not prose.scratchpad_control(pd.concat([rows, j2]), (1, 2))["sp_control"].endswith("not stored yet")


def test_j1_ppc_at_a_smaller_size_is_read_beside_the_scorecards_grid():
    def rows(reaches_60: bool) -> pd.DataFrame:  # scratchpad lengths 10, 20, 30: combined 20, 40, 60
        return pd.DataFrame([{"variant": "j=1 PPC", "seed": 0, "metric": "accuracy", "length": n, "value": v}
                             for n, v in ((10, 100.0), (20, 99.0), (30, 95.0 if reaches_60 else 50.0))])

    sizes = SCRATCHPAD_PROFILES["cpu"]  # trained to 20, combined 40
    assert prose.smaller_ppc(rows(True), rows(False), sizes) == {"sp_small": (
        "j=1 PPC fits them (99% in distribution) and stays ≥ 90% to 60 at 2 layers of width 64 on 4,000 steps, "
        "against 40 here: the larger model on more steps holds it less far")}
    assert prose.smaller_ppc(rows(False), rows(True), sizes)["sp_small"].endswith("holds it further")
    assert prose.smaller_ppc(rows(True), rows(True), sizes)["sp_small"].endswith("holds it as far")
    assert prose.smaller_ppc(pd.DataFrame(), rows(True), sizes) == {"sp_small": "is not stored at a smaller size"}


def test_the_other_parity_grid_is_counted_row_by_row_beside_the_scorecards():
    table = pd.DataFrame({"same": ["yes", "no", "no (seeds overlap)", "no"]},
                         index=pd.Index(["K=1 (T1)", "K=3 (T1)", "K=3, k <= K", "K=3, k > K"], name="claim row"))
    sizes = PARITY_PROFILES["cpu"]
    assert prose.parity_beside(table, sizes) == {
        "pr_model": "2 layers of width 64", "pr_steps": "4,000",
        "pr_beside": "one of its four claim rows reads as on the scorecard's grid; of the three that differ on the "
                     "means, two differ on every seed (no seed of one grid reads as any seed of the other)"}
    assert prose.parity_beside(table.assign(same="yes"), sizes)["pr_beside"] == (
        "four of its four claim rows read as on the scorecard's grid")
    assert prose.parity_beside(pd.DataFrame(), sizes)["pr_beside"] == "none of its runs is stored yet"


def test_the_parity_control_sentence_reads_every_k_up_to_k_per_seed_beside_the_grid():
    def rows(variant, seed, k1, k2=None, **labels):  # k = 1 and 2 at 25, 100, 250 pairs; k = 3 at chance
        return [{"variant": variant, "seed": seed, "metric": f"accuracy k={k}", "length": n, "value": value, **labels}
                for k, values in ((1, k1), (2, k2 or k1), (3, (60.0, 50.0, 50.0)))
                for n, value in zip((25, 100, 250), values, strict=True)]

    control = pd.DataFrame(rows("2x64 K=2", 100, (100.0, 99.0, 95.0), budget=16_000, train="10-25")
                           + rows("2x64 K=2", 101, (100.0, 97.0, 60.0), budget=16_000, train="10-25"))
    grid = pd.DataFrame(rows("K=2", 0, (100.0, 70.0, 60.0)) + rows("K=2", 1, (100.0, 92.0, 60.0)))
    assert prose.parity_control(control, grid, 4000) == {  # seed 101 reaches 100 as the grid's seed 1: not moved
        "pp_control": "at 2x64 on 16,000 steps (sizing seeds 100 and 101), every k ≤ K stays ≥ 90% up to these "
                      "lengths (in pairs, one per seed): "
                      "K=2: 250 and 100 (the cpu grid's seeds: 25, 100)", "pp_moves": "moves it for no bound",
        "pp_budget": "four times the steps"}
    worse_k2 = pd.DataFrame(rows("2x64 K=2", 100, (100.0, 99.0, 95.0), (100.0, 50.0, 50.0), budget=16_000,
                                 train="10-25"))
    assert prose.parity_control(worse_k2, grid, 4000)["pp_control"].endswith(  # k = 2 holds to 25: the bound's reach
        "K=2: 25 (the cpu grid's seeds: 25, 100)")
    further = pd.concat([control.assign(value=control.value.where(control.seed == 100, 95.0)),  # both seeds to 250
                         control.assign(variant="2x64 K=1")])
    assert prose.parity_control(further, pd.concat([grid, grid.assign(variant="K=1")]), 4000)["pp_moves"] == (
        "moves it for K=2 only")
    assert prose.parity_control(pd.DataFrame(), grid, 4000) == {
        "pp_control": "not stored yet", "pp_moves": "cannot say yet", "pp_budget": "the control's steps"}
    assert prose.parity_control(control.assign(budget=6000), grid, 4000)["pp_budget"] == "1.5 times the steps"
    larger = prose.parity_control(control.assign(variant="4x128 K=2", budget=4000), grid, 4000, "ps")
    assert larger["ps_control"].startswith("at 4x128 on 4,000 steps (sizing seeds 100 and 101)")
    assert larger["ps_moves"] == "moves it for no bound"
    assert larger["ps_budget"] == "the same steps"
    unfit = pd.DataFrame(rows("4x128 K=2", 100, (100.0, 99.0, 95.0), (85.0, 99.0, 95.0), budget=4000, train="10-25"))
    assert prose.parity_control(unfit, grid, 4000, "ps") == {  # k = 2 at 85% in distribution: no reach to compare
        "ps_control": "at 4x128 on 4,000 steps (sizing seed 100), every k ≤ K stays ≥ 90% up to these "
                      "lengths (in pairs, one per seed): K=2: none "
                      "(it does not fit: 85% at 25) (the cpu grid's seeds: 25, 100)",
        "ps_moves": "moves it for no bound", "ps_budget": "the same steps"}


def _language_runs(short_ppl=((40.0, 42.0), (50.0, 49.0))) -> pd.DataFrame:
    """Two seeds of the smoke pair: perplexity (at 16, at 32) per seed, and four influence windows per pair."""
    long_ppl = ((60.0, 55.0), (62.0, 57.0))
    rows = [{"seed": seed, "lm": lm, "length": n, "metric": "perplexity", "value": v}
            for lm, ppl in ((SHORT, short_ppl), (LONG, long_ppl)) for seed, pair in enumerate(ppl)
            for n, v in zip((16, 32), pair, strict=True)]
    for seed in (0, 1):
        for lm in (SHORT, LONG):
            for chooser in (SHORT, LONG):
                recovered = OWN if lm == chooser else CROSS
                for example, (gain, got) in enumerate(zip(FAR_GAIN, recovered, strict=True)):
                    base = {"seed": seed, "lm": lm, "chooser": chooser, "example": example, "length": 32}
                    rows += [base | {"metric": m, "value": v} for m, v in (
                        ("nll recent", 10.0), ("nll full", 10.0 - gain), ("nll recent+1", 10.0),
                        ("nll recent+2", 10.0 - got))]
                    if lm == chooser:
                        rows += [base | {"metric": f"nll recent+2 {name}", "value": 10.0 - control[example]}
                                 for name, control in (("random", RANDOM), ("other", OTHER))]
    return pd.DataFrame(rows)


def test_stored_language_on_hand_made_runs():
    runs = _language_runs()
    table_1, summary, claims, points = language_reading(runs, "smoke")
    values = prose_language.stored_language(runs, table_1, summary, claims, points, LANGUAGE_PROFILES["smoke"])
    assert values == pytest.approx({
        "langres_seeds": 2, "langres_table_verdict": "does not reproduce",
        "langres_short_at_short": 45.0, "langres_short_at_long": 45.5, "langres_lower_seeds": "in one of two seeds",
        "langres_long_at_short": 61.0, "langres_long_at_long": 56.0, "langres_pose_steps": 6, "langres_steps": 20,
        "langres_paper_params": 1.3, "langres_paper_pose_steps": 15_000,
        "langres_uses": "does not hold",
        "langres_few_verdict": "is not judged: the far context does not help on average (-0.500 nats, 95% lower "
                               "bound -3.613)",
        "langres_k": 2, "langres_far_effect": "neither helps nor hurts beyond noise", "langres_far_mean": -0.5,
        "langres_far_helps": 0.5,
        "langres_share": 2.0, "langres_r": 1.0, "langres_other": 1 / 3, "langres_random": 0.2 / 3,
        "langres_long_effect": "neither helps nor hurts beyond noise", "langres_long_mean": -0.5,
        "langres_long_reading": "it does not either, so the row measures what this corpus offers beyond the short "
                                "window at this scale more than the PoSE model's training window",
        "langres_long_other": 1 / 3,
        "langres_long_random": 0.2 / 3, "langres_cross_share": "33%", "langres_cross_r": "-0.44"})


def test_the_far_context_helps_or_hurts_only_beyond_its_bound():
    assert prose_language.far_effect(pd.Series([0.10, 0.12, 0.08, 0.11])) == "helps"
    assert prose_language.far_effect(pd.Series([-0.10, -0.12, -0.08, -0.11])) == "hurts"
    noisy = pd.Series([0.016, -0.2, 0.25, 0.01])  # mean > 0, not beyond noise
    assert prose_language.far_effect(noisy) == "neither helps nor hurts beyond noise"


def test_the_language_control_reads_the_far_effect_seed_by_seed_beside_the_grid():
    grid = _language_runs()  # far gains 1, 2, -1, -4: mean -0.5, neither helps nor hurts beyond noise
    sizes = replace(LANGUAGE_PROFILES["smoke"], pose_steps=10)  # 14 plain steps (70% of 20), then 10 of PoSE
    same = prose_language.language_control(grid.assign(seed=grid.seed + 100), grid, sizes)
    assert same["lc_control"] == (
        "on 10 PoSE steps after the grid's first 14 (24 steps in all, 1.2x the grid's 20, so more training as well as "
        "more PoSE; sizing seeds 100 and 101), on seed 100 the far context neither "
        "helps nor hurts beyond noise (-0.500 nats); on seed 101 the far context neither helps nor hurts beyond noise "
        "(-0.500 nats) (the grid's seeds: -0.500, -0.500 nats); on the control's seeds the 2 far tokens of the model's "
        "own choice recover 200% of the far gain on the windows where the far context helps, 2 chosen on the token "
        "before 33% and 2 at random 7%")
    assert same["lc_moves"] == "gives no PoSE model whose far context helps on its sizing seeds, nor moves its far " \
                               "effect past every grid seed"  # the same far gains: no move
    full = grid.metric == "nll full"
    closer = grid.assign(seed=grid.seed + 100, value=grid.value.where(~full, grid.value - 0.4))  # gains +0.4 each
    assert prose_language.language_control(closer, grid, sizes)["lc_moves"] == (
        "gives no PoSE model whose far context helps on its sizing seeds, but moves its far effect toward helping "
        "(every control seed's mean far gain above every grid seed's)")
    full = grid.metric == "nll full"  # far gains 5.0, 5.1, 5.2, 5.3 on every seed: the far context helps
    helping = grid.assign(seed=grid.seed + 100, value=grid.value.where(~full, 5.0 - 0.1 * grid.example))
    assert prose_language.language_control(helping, grid, sizes)["lc_moves"] == (
        "gives a PoSE model whose far context helps, on every seed")
    one = helping[helping.seed == 100]
    assert prose_language.language_control(one, grid, sizes)["lc_control"].startswith(
        "on 10 PoSE steps after the grid's first 14 (24 steps in all, 1.2x the grid's 20, so more training as well as "
        "more PoSE; sizing seed 100), on seed 100 the far context helps (+5.150 nats)")
    assert prose_language.language_control(helping, helping, sizes)["lc_moves"] == (
        "is not needed: the grid's PoSE model's far context helps already")
    mixed = pd.concat([helping[helping.seed == 100], grid[grid.seed == 1].assign(seed=101)])
    assert prose_language.language_control(mixed, grid, sizes)["lc_moves"].endswith("helps on some seeds only")
    assert prose_language.language_control(pd.DataFrame(), grid, sizes) == {
        "lc_control": "the control is not stored yet", "lc_moves": "is not read yet"}


def test_stored_language_refuses_a_cross_choice_no_better_than_random_tokens():
    runs = _language_runs()
    cross = (runs.lm != runs.chooser) & (runs.metric == "nll recent+2")  # the other's choice now recovers nothing
    runs.loc[cross, "value"] = 10.0
    with pytest.raises(ProseCheckFailed, match="partly agree on which far tokens matter"):
        prose_language.stored_language(runs, *language_reading(runs, "smoke"), LANGUAGE_PROFILES["smoke"])


def test_stored_language_refuses_a_cross_choice_that_recovers_as_much():
    runs = _language_runs()
    cross = (runs.lm != runs.chooser) & (runs.metric == "nll recent+2")  # the other's choice now recovers twice
    runs.loc[cross, "value"] = 10.0 - 2 * runs.loc[cross].example.map(dict(enumerate(FAR_GAIN)))
    with pytest.raises(ProseCheckFailed, match="the share falls"):
        prose_language.stored_language(runs, *language_reading(runs, "smoke"), LANGUAGE_PROFILES["smoke"])


def test_language_setup_and_rules():
    summary = {"documents": 1234, "characters": 2_500_000, "train tokens": 2560, "test tokens": 410,
               "vocabulary": 512, "unknown (test)": 0.05}
    values = prose_language.language_setup(LANGUAGE_PROFILES["smoke"], summary, 130_000, "3.11.9")
    assert values == pytest.approx({
        "lang_paper_params": 1.3, "lang_paper_tokens": 25.0, "lang_paper_short": 64, "lang_paper_long": 128,
        "lang_paper_pose": 0.3, "lang_orders": "four to seven", "lang_python": "3.11.9", "lang_documents": 1234,
        "lang_characters": 2.5, "lang_train_tokens": 2.56, "lang_test_tokens": 0.41, "lang_vocab": 512,
        "lang_unknown": 0.05, "lang_width": 16, "lang_layers": 1, "lang_heads": 4, "lang_parameters": 0.13,
        "lang_fewer_parameters": 10_000.0, "lang_steps": 20, "lang_step_tokens": 256, "lang_tokens": 0.00512,
        "lang_fewer_tokens": 4.9e6, "lang_passes": 2.0, "lang_windows": 4, "lang_long": 32, "lang_context": 31,
        "lang_recent": 16, "lang_short": 16, "lang_document_tokens": 2970 / 1234,
        "lang_corpus": "Python's own documentation (its help topics and the standard library's docstrings)",
        "lang_windows_rule": "windows run across the boundaries between documents"})
    regime = prose_language.language_setup(LANGUAGE_PROFILES["regime"], summary, 130_000, "3.11.9")
    assert (regime["lang_corpus"], regime["lang_windows_rule"]) == (
        "the Python standard library's own source files",
        "every window lies inside one document, so that its far tokens come from the same file")
    runs = pd.DataFrame({"key": ["a", "a", "b"], "wall_seconds": [660.0, 660.0, 899.0]})
    assert prose_language.language_rules(runs) == {"langrule_k": 4, "langrule_share": 0.5, "langrule_margin": 0.1,
                                          "langrule_level": 0.95,
                                          "langrule_minutes": "11-15"}


def test_not_yet():
    runs = pd.DataFrame({"variant": ["1x16 PPC", "1x16 PPC", "1x16 PPC", "1x16 PPC", "2x32 PPC"],
                         "budget": [20, 20, 20, 10, 20], "key": ["a", "a", "b", "c", "d"],
                         "wall_seconds": [3600.0, 3600.0, 5400.0, 1.0, 1.0]})  # c: another budget, d: another size
    assert prose.not_yet(runs, pd.DataFrame({"key": ["x", "x", "y"]}), "smoke", "regime") == {
        "notyet_model": "1 layer of width 16", "notyet_steps": 20, "notyet_hours": "1.0-1.5",
        "notyet_variants": "four models", "notyet_depths": "", "notyet_larger": "4 layers of width 128",
        "notyet_paper_params": 1.3, "notyet_stored": "2 of its 3 runs stored"}  # regime: PPC at depth 2, 3 seeds
    none = prose.not_yet(runs.assign(variant=runs.variant.str.replace("1x16", "4x128")), pd.DataFrame())
    assert none["notyet_variants"] == "one model"  # the regime grid holds PPC alone
    assert none["notyet_stored"] == "0 of its 48 runs stored"  # full: four models x depths 2-5 x 3 seeds


def test_the_format_control_sentence_says_what_one_run_can_of_why_the_baselines_are_out():
    from tests.papers.sparsity.test_sizing import course

    fits = pd.DataFrame(course("4x128 no coupling", 100, [50, 92, 95], parts=False, budget=50_000))
    assert prose.format_control(fits) == {"pa_control": (
        "with each step ended by a separator (and so fewer chains per length), no coupling fits its training lengths "
        "at step 200 of 50,000 (one run, sizing seed 100; 95.0% at 60 tokens), at the size and budget where it did "
        "not fit unmarked: the missing separator may be what keeps the baselines out of the grid")}
    fails = pd.DataFrame(course("4x128 no coupling", 100, [5, 8, 7.5], parts=False, budget=50_000))
    fails.loc[fails.step.isna(), "value"] = 3.93  # its final training loss
    assert prose.format_control(fails) == {"pa_control": (
        "with each step ended by a separator, no coupling still does not fit its training lengths in 50,000 steps "
        "(one run, sizing seed 100; 7.5% at 60 tokens, final training loss 3.93): marking the steps alone does not "
        "make it fit at this size and budget, which leaves size, budget and format unseparated")}
    assert prose.format_control(pd.DataFrame()) == {"pa_control": "not stored yet"}


def test_seed_check_counts_the_judged_parts_that_keep_one_verdict_class():
    check = pd.DataFrame({"grid": ["parity", "scratchpad", "scratchpad"], "where": ["Fig. 1", "Fig. 8", "Fig. 8"],
                          "part": ["parity (variant K=2)", "scratchpad (a)", "scratchpad (b)"],
                          "seed 0": ["partly", "not trained", "reproduced"],
                          "seed 3": ["reproduced", "not trained", "reproduced"],
                          "same on every seed": ["no", NOT_JUDGED, "yes"]})
    fits = pd.DataFrame({"seed 0": [100.0, 95.0, 0.0], "seed 3": [100.0, 40.0, "–"]},
                        index=pd.MultiIndex.from_tuples([("parity", "K=2"), ("scratchpad", "j=1 PPC"),
                                                         ("scratchpad", "ablation")], names=["grid", "variant"]))
    assert prose.seed_check((check, fits), (check.iloc[2:], fits.iloc[:1]), "quick") == {
        "seed_check": "On seeds 0 and 3 (the first the live runs', the others stored at the same sizes), 1 of the 2 "
                      "claim parts judged on every seed keep one verdict class; the other 1 change with the seed, so "
                      "this page's verdicts of those are one seed's; 1 is not judged on any seed (no model of theirs "
                      "fits); j=1 PPC fits its training lengths on seed 0, not on seed 3.",
        "seed_check_stored": "those of parity with a scratchpad (the grids with two or more complete seeds): 1 of the "
                             "1 claim parts judged on every seed keep one verdict class"}
    assert prose.seed_check((check.iloc[:1], fits.iloc[:1]), (check, fits), "quick")["seed_check"].endswith(
        "none of the 1 claim parts judged on every seed keeps one verdict class: all change with the seed, so this "
        "page's verdicts of those are one seed's.")
    empty = pd.DataFrame()
    none = prose.seed_check((empty, empty), (empty, empty), "quick")
    assert f"--profile quick --seeds {','.join(map(str, QUICK_SEEDS))}," in none["seed_check"]  # how to store them
    assert none["seed_check_stored"] == "no grid has two complete seeds yet"
    assert prose.seed_check((check, fits), (empty, empty), "smoke")["seed_check"].endswith("this page ran at smoke.")


@pytest.fixture(scope="module")
def committed() -> dict:
    store = ResultStore(ROOT / "results")
    return {"ours": read_runs("assignment", store, "cpu"), "language": read_runs("language", store),
            "parity": read_runs("parity", store), "scratchpad": read_runs("scratchpad", store),
            "assignment": read_runs("assignment", store),
            "control": stored_runs(EXPERIMENTS["sparsity-control-scratchpad"], "regime", store),
            "sizing": stored_runs(EXPERIMENTS["sparsity-sizing-assignment"], "cpu", store)}


def test_the_bound_sentences_hold_on_the_committed_runs(committed):
    """Every value of the chapter's prose comes from one function (names unique), and the sentences bound by
    `holds` hold on the committed stored runs."""
    curves, claim = assignment_reading(committed["ours"], "cpu")
    language = committed["language"]
    sizes, parity_sizes = LANGUAGE_PROFILES[READ_AT["sparsity-language"]], PARITY_PROFILES[READ_AT["sparsity-parity"]]
    summary = {"documents": 1, "characters": 1, "train tokens": 1, "test tokens": 1, "vocabulary": 1,
               "unknown (test)": 0.0}
    parts = [prose.parity_setup(PARITY_PROFILES["smoke"]), prose.t1_rule(parity_sizes),
             prose.scratchpad_setup(SCRATCHPAD_PROFILES["smoke"], SCRATCHPAD_PROFILES["regime"]), prose.t2_rule(),
             prose.stored_setup(parity_sizes, SCRATCHPAD_PROFILES["regime"]),
             prose.stored_parity_fit(parity_reading(committed["parity"], READ_AT["sparsity-parity"])[1]),
             prose.assignment_setup(ASSIGNMENT_PROFILES["regime"], "assign"),
             prose.assignment_setup(ASSIGNMENT_PROFILES["cpu"], "ours"),
             prose.stored_assignment(curves, claim, ASSIGNMENT_PROFILES["cpu"].train_lengths[1]),
             prose_language.language_setup(sizes, summary, 1, "3.11"), prose_language.language_rules(language),
             prose_language.stored_language(language, *language_reading(language, READ_AT["sparsity-language"]), sizes),
             prose.not_yet(committed["sizing"], pd.DataFrame()),
             prose.stored_scratchpad(committed["scratchpad"], "regime"),
             prose.stored_assignment_regime(committed["assignment"], "regime"),
             setups.setup_sentence(setups.setups(READ_AT, 1)), prose.scratchpad_control(committed["control"]),
             prose.seed_check((pd.DataFrame(),) * 2, (pd.DataFrame(),) * 2, "quick"),
             prose.format_control(pd.DataFrame()), prose.parity_control(pd.DataFrame(), pd.DataFrame(), 1),
             prose.parity_control(pd.DataFrame(), pd.DataFrame(), 1, "ps"),
             prose.assignment_control(pd.DataFrame(), pd.DataFrame()),
             prose_language.language_control(pd.DataFrame(), language, sizes), prose.stored_hours({}),
             prose.parity_beside(pd.DataFrame(), PARITY_PROFILES["regime"]),
             prose.smaller_ppc(pd.DataFrame(), pd.DataFrame(), SCRATCHPAD_PROFILES["cpu"])]
    names = [name for part in parts for name in part]
    assert len(names) == len(set(names))
    used = set(re.findall(r"\{glue:text\}`([^`:]+)", (ROOT / CHAPTERS["sparsity"]).read_text()))
    assert used and used <= set(names)
    assert all(isinstance(v, int | float | str) and type(v).__module__ == "builtins" for p in parts for v in p.values())
