"""The sparsity chapter's claims read seed by seed, on the committed runs."""

import pandas as pd

from lengthgen.analysis.verdicts import verdict_class
from lengthgen.book import ROOT
from lengthgen.papers import EXPERIMENTS
from lengthgen.papers.sparsity.experiments import QUICK_SEEDS, SCRATCHPAD_PROFILES, parity_reading
from lengthgen.papers.sparsity.language import LANGUAGE_PROFILES
from lengthgen.papers.sparsity.readings import judged
from lengthgen.papers.sparsity.rows import (
    live_seed_check,
    parity_side_by_side,
    provenance,
    quick_methods,
    read_runs,
    scale,
    scorecard_rows,
    seed_splits,
    seed_table,
    stored_seed_check,
)
from lengthgen.results.store import ResultStore
from lengthgen.results.sweep import collect


def test_the_seed_table_reads_each_seed_alone():
    parity = read_runs("parity", ResultStore(ROOT / "results"))  # the cpu grid, seeds 0-2
    one = parity[parity.seed == 1]
    twin, fits = seed_table({"parity": pd.concat([one, one.assign(seed=5)])}, {"parity": "cpu"})
    assert len(twin) and (twin["seed 1"] == twin["seed 5"]).all() and set(twin["same on every seed"]) == {"yes"}
    assert fits.index.tolist() == [("parity", f"K={k}") for k in (1, 2, 3, 4)]  # the models, not the k rows
    assert (fits["seed 1"] == fits["seed 5"]).all() and set(twin.grid) == {"parity"}
    assert seed_table({"parity": one}, {"parity": "cpu"})[0].empty  # one seed: nothing to compare
    table, fits = stored_seed_check({"parity": parity})
    table = table.set_index("part")
    for seed in (0, 1, 2):
        t1 = parity_reading(parity[parity.seed == seed], "cpu")[1].set_index("variant")
        assert table.loc["parity (variant K=2)", f"seed {seed}"] == verdict_class(t1.loc["K=2", "verdict"])
    differ = table[[f"seed {s}" for s in (0, 1, 2)]].nunique(axis=1) > 1
    assert (table["same on every seed"] == differ.map({True: "no", False: "yes"})).all()
    k4 = parity[(parity.seed == 2) & (parity.variant == "K=4") & (parity.length == 25)
                & parity.metric.isin([f"accuracy k={k}" for k in (1, 2, 3, 4)])]
    assert fits.loc[("parity", "K=4"), "seed 2"] == round(k4.value.min(), 1) < 100  # the worst trained k, 25 pairs


def test_two_parity_grids_are_read_side_by_side_on_the_means_and_seed_by_seed():
    store = ResultStore(ROOT / "results")
    cpu, regime = (judged(read_runs("parity", store, profile)) for profile in ("cpu", "regime"))
    itself = parity_side_by_side({"a": (cpu, "cpu"), "b": (cpu, "cpu")})
    assert set(itself.same) == {"yes"} and (itself["a, by seed"] == itself["b, by seed"]).all()
    table = parity_side_by_side({"cpu grid": (cpu, "cpu"), "regime grid": (regime, "regime")})
    for seed in (0, 1, 2):
        t1 = parity_reading(cpu[cpu.seed == seed], "cpu")[1].set_index("variant")
        assert table.loc["K=2 (T1)", "cpu grid, by seed"].split(" / ")[seed] == verdict_class(t1.loc["K=2", "verdict"])
    assert table.loc["K=4 (T1)", "regime grid"] == parity_reading(regime, "regime")[1].verdict.iloc[3]


def test_a_grid_and_its_seeded_control_are_counted_each_against_its_own_runs():
    runs = read_runs("scratchpad", ResultStore(ROOT / "results"))  # the grid's runs and the jump control's
    grid, control = (EXPERIMENTS[name] for name in ("sparsity-scratchpad", "sparsity-control-jumps"))
    text = provenance("scratchpad", runs)
    for e in (grid, control):
        declared = len(e.configs_for("regime"))
        assert f"**{e.name}**: {declared} of {declared} regime-profile runs stored" in text
    assert "control" not in provenance("scratchpad", runs[runs.experiment == grid.name])
    assert provenance("parity", pd.DataFrame()).startswith("No stored `sparsity-parity` runs yet")


def test_a_grid_is_read_on_the_seeds_all_its_cells_have_and_a_seed_it_lacks_reads_a_dash():
    store = ResultStore(ROOT / "results")
    parity = read_runs("parity", store)
    half = parity[(parity.seed < 2) | (parity.variant == "K=1")]  # seed 2 of K=1 alone: not a complete seed
    table, fits = seed_table({"parity": half, "other": parity.iloc[:0], "none": pd.DataFrame()},
                             {"parity": "cpu", "other": "cpu", "none": "cpu"})  # nothing stored: no columns
    assert [c for c in table if c.startswith("seed ")] == ["seed 0", "seed 1"] == list(fits.columns)
    both, _ = seed_table({"parity": half, "p2": parity.assign(seed=parity.seed + 1)}, {"parity": "cpu", "p2": "cpu"})
    assert [c for c in both if c.startswith("seed ")] == ["seed 0", "seed 1", "seed 2", "seed 3"]
    assert set(both[both.grid == "parity"]["seed 3"]) == {"–"}


def test_the_live_seed_check_reads_the_stored_quick_seeds_beside_the_live_one():
    store = ResultStore(ROOT / "results")
    first, second = QUICK_SEEDS
    stored = collect(EXPERIMENTS["sparsity-parity"], EXPERIMENTS["sparsity-parity"].configs_for("quick", (first,)),
                     store)
    table, _ = live_seed_check({"parity": stored.assign(seed=0)}, store, "quick")  # a stored seed's runs, as if live
    assert [c for c in table.columns if c.startswith("seed ")] == ["seed 0", f"seed {first}", f"seed {second}"]
    assert (table["seed 0"] == table[f"seed {first}"]).all() and "parity (variant K=1)" in set(table.part)
    assert live_seed_check({"parity": stored.assign(seed=0)}, store, "cpu")[0].empty  # no seed check at cpu


def test_each_scorecard_row_names_its_seeds_and_scale():
    assert scale(SCRATCHPAD_PROFILES["regime"], "regime") == "regime: 4x128 (j=3: 4x256), 10,000 steps"
    assert scale(LANGUAGE_PROFILES["regime"], "regime") == "regime: 2x64, 10,000 steps"
    rows = scorecard_rows(ResultStore(ROOT / "results"), "regime")  # every stored grid: three seeds each
    parity = rows[rows.cell.str.startswith("parity")]
    assert len(parity) and (rows.seeds == 3).all() and (parity.reason == "regime: 4x128, 4,000 steps").all()
    assert (rows[rows.cell.str.startswith("language")].reason == "regime: 2x64, 10,000 steps").all()
    assert scorecard_rows(ResultStore(ROOT / "results"), "cpu").reason.str.startswith("cpu: ").all()  # read as live


def test_a_scorecard_verdict_read_on_the_mean_says_when_its_seeds_split():
    rows = scorecard_rows(ResultStore(ROOT / "results"), "regime").set_index("cell").verdict
    assert "seeds split" not in rows["parity (variant K=1)"]  # one class on every seed
    split = rows["parity k (variant K=4, k <= K)"]  # the committed grid: the fall reaches the bar on two seeds of three
    assert split.split(" (seeds split: ")[1].count("seed ") == 3 and "seed 1 reproduced" in split
    assert "seed 0 inconclusive" in split and verdict_class(split) == "not reproduced"  # on the mean: falls 9.4
    assert seed_splits({"parity": read_runs("parity", ResultStore(ROOT / "results"))}, "regime")[
        ("Figs. 1, 7 (larger k)", "parity k (variant K=4, k <= K)")] == split[split.index(" (seeds split"):]


def test_the_quick_methods_section_reads_the_seed_check_runs_and_the_ablations_cost():
    text = quick_methods(ResultStore(ROOT / "results"))  # the committed quick runs on QUICK_SEEDS
    rows = [line.split(" | ") for line in text.splitlines() if line.startswith("| K=") or line.startswith("| j=")]
    assert sorted((r[0].strip("| "), int(r[2])) for r in rows) == sorted(
        (model, seed) for model in ("K=1", "j=1 PPC") for seed in QUICK_SEEDS)
    assert all(float(r[4].strip(" |")) >= 90 for r in rows)  # every quick model fits on the check's seeds
    assert "| K=1 | 2x64, 2,000 steps |" in text and "| j=1 PPC | 2x64, 4,000 steps |" in text
    assert "A Fig. 8 ablation on the stored grid (`regime`) takes " in text and "(median of 6 runs)" in text
