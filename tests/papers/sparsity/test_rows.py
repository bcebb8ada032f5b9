"""The sparsity chapter's claims read seed by seed, on the committed runs."""

import pandas as pd

from lengthgen.analysis.verdicts import verdict_class
from lengthgen.book import ROOT
from lengthgen.papers import EXPERIMENTS
from lengthgen.papers.sparsity.experiments import parity_reading
from lengthgen.papers.sparsity.rows import live_seed_check, read_runs, seed_table, stored_seed_check
from lengthgen.results.store import ResultStore
from lengthgen.results.sweep import collect


def test_the_seed_table_reads_each_seed_alone():
    parity = read_runs("parity", ResultStore(ROOT / "results"))  # the cpu grid, seeds 0-2
    one = parity[parity.seed == 1]
    twin = seed_table({"parity": pd.concat([one, one.assign(seed=5)])}, {"parity": "cpu"})
    assert len(twin) and (twin["seed 1"] == twin["seed 5"]).all() and set(twin["same on every seed"]) == {"yes"}
    assert seed_table({"parity": one}, {"parity": "cpu"}).empty  # one seed: nothing to compare
    table = stored_seed_check({"parity": parity}).set_index("part")
    for seed in (0, 1, 2):
        t1 = parity_reading(parity[parity.seed == seed], "cpu")[1].set_index("variant")
        assert table.loc["parity (variant K=2)", f"seed {seed}"] == verdict_class(t1.loc["K=2", "verdict"])
    differ = table[[f"seed {s}" for s in (0, 1, 2)]].nunique(axis=1) > 1
    assert (table["same on every seed"] == differ.map({True: "no", False: "yes"})).all()


def test_the_live_seed_check_reads_the_stored_quick_seeds_beside_the_live_one():
    store = ResultStore(ROOT / "results")
    stored = collect(EXPERIMENTS["sparsity-parity"], EXPERIMENTS["sparsity-parity"].configs_for("quick", (1,)), store)
    table = live_seed_check({"parity": stored.assign(seed=0)}, store, "quick")  # seed 1's runs, as if live
    assert [c for c in table.columns if c.startswith("seed ")] == ["seed 0", "seed 1", "seed 2"]
    assert (table["seed 0"] == table["seed 1"]).all() and "parity (variant K=2)" in set(table.part)
    assert live_seed_check({"parity": stored.assign(seed=0)}, store, "cpu").empty  # no seed check at cpu
