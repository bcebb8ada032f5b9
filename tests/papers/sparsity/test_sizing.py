"""The sparsity sizing study: every mechanism at every candidate size with its course, and the table read from it."""

from dataclasses import replace

import pandas as pd
import pytest

from lengthgen.analysis.sizing import sizing_markdown, sizing_table
from lengthgen.metrics import COURSE, FINAL_TRAIN_LOSS
from lengthgen.papers.sparsity.experiments import (
    ASSIGNMENT_PROFILES,
    SCRATCHPAD_PROFILES,
    run_decoder,
    scratchpad_configs,
    variant,
)
from lengthgen.papers.sparsity.sizing import (
    ASSIGNMENT_CONTROL,
    CONTROL,
    CONTROL_STEPS,
    FORMAT_CONTROL,
    LANGUAGE_CONTROL,
    SIZING_EXPERIMENTS,
    SIZING_PROFILES,
    SIZING_SEEDS,
    sized_labels,
    sizing_methods,
    sizing_section,
)
from lengthgen.results.store import ResultStore

EXPERIMENTS = {e.name: e for e in (*SIZING_EXPERIMENTS, CONTROL, FORMAT_CONTROL, LANGUAGE_CONTROL,
                                   ASSIGNMENT_CONTROL)}


def test_every_mechanism_at_each_size_that_holds_it_on_sizing_seeds_with_its_course():
    scratch = EXPERIMENTS["sparsity-sizing-scratchpad"].configs_for("cpu")
    assign = EXPERIMENTS["sparsity-sizing-assignment"].configs_for("cpu")
    declared = {s for p in (SCRATCHPAD_PROFILES, ASSIGNMENT_PROFILES) for sizes in p.values() for s in sizes.seeds}
    assert not {c.seed for c in scratch + assign} & declared and {c.seed for c in scratch} <= set(SIZING_SEEDS)
    assert all(c.course == SIZING_PROFILES["cpu"].course > 0 and c.stop_fitted for c in scratch + assign)

    def sized(configs):
        return [(sized_labels(c)["variant"], getattr(c.task, "depth", 0), c.train.steps) for c in configs]

    first = [f"{size} {v}" for size in ("2x64", "4x128") for v in
             ("j=1 PPC", "j=2 PPC", "j=3 PPC", "j=1 absolute+shift", "j=1 RoPE+PoSE")]
    assert sized(scratch) == [(v, 0, 10_000) for v in [*first, "4x256 j=3 PPC"]]  # j = 3 only at the larger size
    assert scratch[-1].model.heads == 16
    baselines = [(f"2x64 {v}", d, 20_000) for d in (2, 3) for v in ("PPC", "no coupling", "no scratchpad", "RoPE+PoSE")]
    longer = [(f"4x128 {v}", 2, 50_000) for v in ("PPC", "no coupling", "no scratchpad", "RoPE+PoSE")]
    assert sized(assign) == [*baselines, ("4x128 PPC", 2, 20_000), *longer]  # the baselines where PPC fits
    assert {sized_labels(c)["train"] for c in assign} == {"20-60"}
    ppc = [c for c in assign if c.model.ppc]
    assert {(c.task.format, c.task.variables, c.model.positional, c.train.positions) for c in ppc} == {
        ("paper", 200, "learned", "offset")}  # the paper's format, vocabulary and ids
    assert (ppc[0].train.min_length, ppc[0].train.max_length, max(ppc[0].eval_lengths)) == (20, 60, 200)
    assert ppc[-2].model == ppc[-1].model and ppc[-2].train == replace(ppc[-1].train, steps=20_000)


def course(variant, seed, values, depth=2, parts=True, budget=None):
    """Sizing rows of one run by hand: its course at steps 100, 200, 300 (with a PPC model's parts), its loss."""
    rows = [{"task": "t", "variant": variant, "depth": depth, "seed": seed, "metric": COURSE, "step": step,
             "length": 60, "value": v} for step, v in zip((100, 200, 300), values, strict=True)]
    if parts:
        rows += [{**rows[-1], "metric": f"{COURSE} {part}", "value": v}
                 for part, v in (("tokens", 96.0), ("ids", 98.0), ("oracle", 99.0))]
    rows += [{"task": "t", "variant": variant, "depth": depth, "seed": seed, "metric": FINAL_TRAIN_LOSS,
              "step": float("nan"), "length": 60, "value": 0.1 * (seed + 1)}]
    return [row | {"budget": budget, "train": "20-60"} for row in rows] if budget else rows


def test_the_sizing_table_by_hand():
    runs = pd.DataFrame(course("PPC", 0, [50, 92, 95]) + course("PPC", 1, [91, 85, 97])  # both >= 90 from 300
                        + course("plain", 0, [10, 20, 40], parts=False))
    table = sizing_table(runs).set_index("variant")
    assert table.loc["PPC", "fits at step"] == 300 and table.loc["PPC", "last"] == 96.0 and table.loc["PPC", "fits"]
    assert table.loc["PPC", "tokens"] == 96.0 and table.loc["PPC", "final loss"] == pytest.approx(0.15)
    assert table.loc["PPC", "seeds"] == 2 and table.loc["PPC", "depth"] == 2
    assert pd.isna(table.loc["plain", "fits at step"]) and not table.loc["plain", "fits"]
    assert pd.isna(table.loc["plain", "ids"])
    text = sizing_markdown(runs, "")
    assert "| t | PPC | 2 | 2 | 300 | 96.0 | 96.0 | 98.0 | 99.0 | 0.150 | True |" in text
    assert "| t | plain | 2 | 1 | – | 40.0 | – | – | – | 0.100 | False |" in text
    longer = pd.DataFrame(course("plain", 0, [10, 20, 40], parts=False)).assign(budget=20_000)
    budgets = pd.concat([runs.assign(budget=10_000), longer.assign(value=longer.value * 2)])
    by_budget = sizing_table(budgets).set_index(["variant", "budget"])["last"]  # a longer budget is its own row
    assert by_budget[("plain", 10_000)] == 40.0 and by_budget[("plain", 20_000)] == 80.0
    assert "| t | plain | 2 | 20,000 | 1 | – | 80.0 |" in sizing_markdown(budgets, "")


def test_the_methods_section_names_the_first_size_that_fits_each_mechanism():
    runs = pd.DataFrame(course("2x64 PPC", 0, [10, 20, 30], budget=10) + course("4x128 PPC", 0, [50, 92, 95], budget=10)
                        + course("4x128 PPC", 0, [95, 96, 97], budget=50)  # fits too, but after a size that fits
                        + course("2x64 plain", 0, [10, 20, 40], parts=False, budget=10)
                        + course("4x128 plain", 0, [10, 20, 40], parts=False, budget=50))
    text = sizing_section(runs)
    assert "- t, PPC, depth 2: fits at 4x128 (step 200 of 10, trained on 20-60)\n" in text
    assert "- t, plain, depth 2: fits at none of 2x64 (10 steps on 20-60), 4x128 (50 steps on 20-60)\n" in text
    assert "variable assignment: 2x64, 4x128 (PPC, depth 2), 4x128 (depth 2, 50,000 steps)" in text
    assert "scratchpad: 2x64, 4x128, 4x256 (j=3 PPC)" in text  # the sizes of the cpu profile, in the order tried
    assert sizing_section(pd.DataFrame()).endswith("No sizing run is stored yet.\n")


def test_a_smoke_sizing_run_reads_its_course():
    cfg = EXPERIMENTS["sparsity-sizing-assignment"].configs_for("smoke")[0]
    metrics = run_decoder(cfg).metrics
    assert metrics[metrics.metric == COURSE].step.tolist() == [10, 20]


def test_the_scratchpad_control_is_the_grid_runs_of_j_1_and_2_on_the_papers_steps_and_sizing_seeds():
    control = EXPERIMENTS["sparsity-control-scratchpad"].configs_for("regime")
    grid = {(variant(run), run.seed): run for run in scratchpad_configs("regime", None)
            if variant(run) in ("j=1 PPC", "j=2 PPC")}
    assert [(variant(run), run.seed) for run in control] == [(v, s) for s in SIZING_SEEDS for v in ("j=1 PPC",
                                                                                                      "j=2 PPC")]
    assert not set(SIZING_SEEDS) & {seed for _, seed in grid}
    for run in control:
        mine = grid[(variant(run), 0)]
        assert run.train.steps == CONTROL_STEPS == 5 * mine.train.steps
        assert replace(run, seed=0, train=replace(run.train, steps=mine.train.steps)) == mine  # nothing else
        assert not run.stop_fitted and not run.course  # trained to the end, tested as the grid


def test_the_format_control_is_the_regime_baseline_with_each_step_ended_on_a_sizing_seed():
    from lengthgen.papers.sparsity.experiments import assignment_configs

    run, = EXPERIMENTS["sparsity-control-format"].configs_for("regime")
    baseline = next(r for r in assignment_configs("cpu", None) if variant(r) == "no coupling")  # the variant's build
    assert variant(run) == "no coupling" and run.task.format == "delimited" and run.seed == SIZING_SEEDS[0]
    ppc = next(r for r in assignment_configs("regime", None) if r.seed == 0)  # the grid's size and budget
    assert (run.model.layers, run.model.width, run.train.steps) == (ppc.model.layers, ppc.model.width, 50_000)
    assert run.model.positional == "learned" and not run.model.ppc and run.train.positions == "offset"
    assert not run.task.coupled and baseline.task.coupled is False
    assert run.task == replace(ppc.task, coupled=False, format="delimited")  # only the format and the coupling
    assert (run.course, run.stop_fitted) == (SIZING_PROFILES["cpu"].course, True)  # read as the sizing study's


def test_the_methods_section_reads_the_format_control_after_the_study(tmp_path):
    text = sizing_methods(ResultStore(tmp_path))
    study, control = text.split("**The format control, as stored**")
    assert "No sizing run is stored yet." in study and control.endswith("No sizing run is stored yet.\n")


def test_the_language_control_is_the_grid_pair_with_the_short_model_on_the_papers_pose_steps():
    from lengthgen.papers.sparsity.language import language_configs

    control = EXPERIMENTS["sparsity-control-language"].configs_for("regime")
    grid = language_configs("regime", (0,))[0]
    assert [run.seed for run in control] == list(SIZING_SEEDS)
    run = control[0]
    pose = [step for step in range(run.short.steps) if step >= run.short.pose_from * run.short.steps]
    grid_pose = [step for step in range(grid.short.steps) if step >= grid.short.pose_from * grid.short.steps]
    assert len(pose) == 15_000 and len(grid_pose) == 3_000 and pose[0] == grid_pose[0] == 7_000  # same plain start
    assert run.long == grid.long and run.short.warmup == run.short.steps // 20  # the long model is the grid's
    assert replace(run, seed=0, short=grid.short) == grid  # nothing else differs


def test_the_assignment_control_is_the_grids_ppc_on_twice_its_steps_and_the_sizing_seeds():
    from lengthgen.papers.sparsity.experiments import assignment_configs

    control = EXPERIMENTS["sparsity-control-assignment"].configs_for("regime")
    grid, = assignment_configs("regime", (0,))  # the regime grid holds PPC alone
    assert [run.seed for run in control] == list(SIZING_SEEDS)
    run = control[0]
    assert run.train.steps == 2 * grid.train.steps == 100_000
    assert replace(run, seed=0, train=replace(run.train, steps=grid.train.steps)) == grid  # warm-up too: the grid's


def test_a_grid_s_cost_sums_each_run_once_per_depth():
    from lengthgen.papers.sparsity.sizing import grid_cost

    runs = pd.DataFrame({"depth": [2, 2, 2, 3], "key": ["a", "a", "b", "c"],  # run a has two metric rows
                         "wall_seconds": [3600.0, 3600.0, 5400.0, 720.0]})
    assert grid_cost(runs, "variable assignment") == (
        "\nThe `regime` variable assignment grid, as stored: 2 runs at depth 2, 2.5 CPU-hours; 1 run at depth 3, "
        "0.2 CPU-hours (one thread each).\n")
    assert grid_cost(pd.DataFrame(), "variable assignment") == ""
