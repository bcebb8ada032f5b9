"""The leaderboard's sizing: the study's runs and the budgets it sets, the tasks it leaves out, the NoPE depth control
and its sentence, the study's pace."""

from dataclasses import replace

import pandas as pd

from lengthgen.leaderboard.grid import LEADERBOARD_PROFILES, TASK_LENGTHS
from lengthgen.leaderboard.sizing import study_pace
from lengthgen.metrics import COURSE
from lengthgen.papers import EXPERIMENTS


def test_the_sizing_study_runs_rope_nope_abcs_first_stage_and_the_scaffold_on_a_sizing_seed():
    import lengthgen.leaderboard.grid as grid

    configs = EXPERIMENTS["leaderboard-sizing"].configs_for("cpu")
    assert {(c.task, c.mechanism) for c in configs} == {(t, m) for t in TASK_LENGTHS for m in ("rope", "nope")} | {
        (t, m) for t in TASK_LENGTHS for m in ("encdec", "scaffold") if grid.runs_on(m, t)}
    assert len(configs) == 2 * 24 + 21 + 7  # the scaffold on the seven arithmetic tasks
    assert {c.seed for c in configs} == {100} and not {100} & set(LEADERBOARD_PROFILES["quick"].seeds)
    assert all(c.course == 500 and c.stop_fitted and c.train.steps == 10_000 for c in configs)
    assert all(not c.course for c in EXPERIMENTS["leaderboard"].configs_for("quick"))


def test_the_grid_budget_of_a_task_is_twice_its_slowest_fitting_mechanisms_step():
    from lengthgen.leaderboard.sizing import BUDGET_MARGIN, task_budgets

    def course(task, variant, values):  # exact match at the longest training length every 500 steps
        return [{"task": task, "variant": variant, "seed": 100, "length": 10, "metric": COURSE, "step": 500 * (i + 1),
                 "value": v} for i, v in enumerate(values)]

    runs = pd.DataFrame(course("addition", "rope", [50, 80, 95]) + course("addition", "nope", [10, 20, 40, 60, 85, 91])
                        + course("addition", "encdec", [10] * 20)  # never fits: not what sets the budget
                        + course("copy", "rope", [99]) + course("copy", "nope", [50, 60, 70, 80, 92])
                        + course("parity", "rope", [50] * 20) + course("long", "rope", [0] * 11 + [90]))
    budgets = task_budgets(runs, cap=10_000)
    assert BUDGET_MARGIN == 2 and budgets.to_dict() == {
        "addition": 6_000,  # nope first fits at 3,000
        "copy": 5_000,  # 2 x 2,500
        "parity": 10_000,  # none fits: the cap, its cells not trained
        "long": 10_000}  # 2 x 6,000 capped


def test_the_stored_grid_trains_each_task_for_the_budget_its_stored_sizing_study_sets():
    from lengthgen.book import ROOT
    from lengthgen.leaderboard.sizing import SIZING_PROFILES, task_budgets
    from lengthgen.results.store import ResultStore
    from lengthgen.results.sweep import stored_runs

    grid = LEADERBOARD_PROFILES["cpu"]
    study = stored_runs(EXPERIMENTS["leaderboard-sizing"], "cpu", ResultStore(ROOT / "results"))
    sized = study[study.task.isin(grid.tasks)]
    assert set(sized.task) == set(grid.tasks)  # every task of the grid was sized, with every mechanism of the study
    assert {(t, m) for t, m in zip(sized.task, sized.variant, strict=True)} == {
        (c.task, c.mechanism) for c in EXPERIMENTS["leaderboard-sizing"].configs_for("cpu") if c.task in grid.tasks}
    control = stored_runs(EXPERIMENTS["leaderboard-control-budget"], "cpu", ResultStore(ROOT / "results"))
    assert len(control.key.unique()) == len(EXPERIMENTS["leaderboard-control-budget"].configs_for("cpu"))  # complete
    both = pd.concat([sized, control], ignore_index=True)  # the study's mechanisms and the control's set the budget
    assert dict(grid.task_steps) == task_budgets(both, SIZING_PROFILES["cpu"].steps).to_dict()
    from lengthgen.leaderboard.sizing import sizing_methods  # where the cap leaves less than twice the slowest fit
    assert "reverse_recopy (1.18x its slowest fit, step 8,500)" in sizing_methods(ResultStore(ROOT / "results"))
    shape = SIZING_PROFILES["cpu"]
    assert (grid.width, grid.heads, grid.layers, grid.batch, grid.lr) == (shape.width, shape.heads, shape.layers,
                                                                          shape.batch, shape.lr)
    assert len(grid.tasks) >= 8 and len(grid.mechanisms) >= 12 and len(grid.seeds) == 3
    assert not set(grid.seeds) & set(shape.seeds)  # declared seeds, not the sizing seed
    assert {"fire", "randomized", "abacus+fire", "coupling", "gru+locattn", "rope+ln", "abc"} <= set(grid.mechanisms)


def test_a_task_is_left_out_of_the_grid_for_not_fitting_the_decoder_or_for_cost_and_says_what_else_fits_it():
    from lengthgen.leaderboard.sizing import left_out, selection_words

    def course(task, variant, values):
        return [{"task": task, "variant": variant, "seed": 100, "length": 10, "metric": COURSE, "step": 500 * (i + 1),
                 "value": v} for i, v in enumerate(values)]

    runs = pd.DataFrame(course("copy", "rope", [99]) + course("dedupe", "rope", [50, 92])
                        + course("dedupe", "nope", [10] * 20) + course("addition", "rope", [0] * 19 + [3])
                        + course("addition", "nope", [1] * 20) + course("addition", "scaffold", [95])
                        + course("parity", "rope", [0] * 20) + course("parity", "encdec", [0] * 20))
    grid = replace(LEADERBOARD_PROFILES["quick"], tasks=("copy",))
    unfit = "the decoder fits it with neither RoPE nor NoPE within 10,000 steps "
    assert left_out(runs, grid).to_dict("records") == [
        {"task": "dedupe", "decoder fits": True, "reason": "fits (rope at step 1,000); left out by choice, not by a "
                                                           "rule (the grid keeps a few tasks of each paper's kind)",
         "fit by": ""},
        {"task": "addition", "decoder fits": False,
         "reason": unfit + "(last: rope 3%, nope 1%); fit by the study's scaffold at step 500",
         "fit by": "scaffold at step 500"},  # the scaffold fitting it is not the decoder
        {"task": "parity", "decoder fits": False,
         "reason": unfit + "(last: rope 0%); no mechanism the study sized fits it", "fit by": ""}]
    assert selection_words(runs, grid) == (
        "The grid takes a task only where the decoder fits it with RoPE or NoPE at the grid's size; the sizing study "
        "leaves out 2 where it does not (addition and parity), and on 1 of them another mechanism it sized fits "
        "(addition: scaffold at step 500). So the board compares mechanisms on tasks the plain decoder can learn, and "
        "cannot show what a mechanism gains by fitting a task it cannot.")
    assert selection_words(runs[runs.task != "addition"].pipe(lambda r: r[r.task != "parity"]), grid).startswith(
        "No task of the sizing study is left out")


def test_the_nope_depth_control_is_the_sizing_run_of_nope_on_the_copy_tasks_at_twice_the_depth():
    study = {(c.task, c.mechanism): c for c in EXPERIMENTS["leaderboard-sizing"].configs_for("cpu")}
    control = EXPERIMENTS["leaderboard-control-nope"].configs_for("cpu")
    assert [(c.task, c.mechanism, c.seed) for c in control] == [
        (t, "nope", 100) for t in ("copy", "reverse_copy", "recopy")]
    for cfg in control:
        sized = study[(cfg.task, "nope")]
        assert (cfg.model.layers, sized.model.layers) == (4, 2)
        assert replace(cfg, model=replace(cfg.model, layers=2)) == sized  # nothing else differs
    assert EXPERIMENTS["leaderboard-control-nope"].labels(control[0])["variant"] == "nope, 4 layers"


def test_the_depth_control_says_where_more_layers_make_nope_fit():
    from lengthgen.leaderboard.sizing import depth_control_words

    def course(task, variant, values):
        return [{"task": task, "variant": variant, "seed": 100, "length": 10, "metric": COURSE, "step": 500 * (i + 1),
                 "value": v} for i, v in enumerate(values)]

    study = pd.DataFrame(course("copy", "nope", [50] * 19 + [84]) + course("recopy", "nope", [0] * 20)
                         + course("copy", "rope", [95]))
    deeper = pd.DataFrame(course("copy", "nope, 4 layers", [60, 91]) + course("recopy", "nope, 4 layers", [3] * 20))
    assert depth_control_words(study, deeper) == (
        "on copy, NoPE at 2 layers does not fit within 10,000 steps (84% at the end), at 4 fits at step 1,000 (the "
        "grid trains copy 10,000 steps); on recopy, NoPE at 2 layers does not fit within 10,000 steps (0% at the "
        "end), at 4 does not fit within 10,000 steps (3% at the end) (the grid trains recopy 10,000 steps): within the "
        "grid's steps, 4 layers fit copy of the 2 tasks that 2 did not, so on it the grid's NoPE cells measure its "
        "depth (one seed).")
    late = pd.DataFrame(course("copy", "nope, 4 layers", [60] * 20))  # never within the grid's 10,000 steps
    assert depth_control_words(study, late).endswith(": within the grid's steps, 4 layers fit none of the tasks that "
                                                     "2 did not, so depth alone is not what the grid's NoPE cells "
                                                     "lack there (one seed).")
    assert depth_control_words(study, deeper.iloc[:0]) == "not stored yet."


def test_the_study_pace_is_wall_time_per_step_of_where_each_run_stopped_a_tasks_median_run_slowest_first():
    def run(task, variant, wall, stopped):  # course rows every 500 steps up to where the run stopped
        return [{"task": task, "variant": variant, "seed": 100, "metric": COURSE, "step": step, "value": 50.0,
                 "wall_seconds": wall} for step in range(500, stopped + 1, 500)]
    rows = pd.DataFrame(run("copy", "rope", 10.0, 500) + run("copy", "nope", 30.0, 1000) + run("copy", "encdec", 99.0,
                        1500) + run("successor", "rope", 40.0, 500))
    pace = study_pace(rows)
    assert pace.to_dict() == {"successor": 80.0, "copy": 30.0}  # copy: 20, 30, 66 ms a step; successor: 40 s / 500
    assert list(pace.index) == ["successor", "copy"]


def test_the_budget_control_says_which_mechanisms_fit_only_past_the_grids_budget():
    from lengthgen.leaderboard.sizing import budget_control_words

    def course(task, variant, values):
        return [{"task": task, "variant": variant, "seed": 100, "length": 10, "metric": COURSE, "step": 500 * (i + 1),
                 "value": v} for i, v in enumerate(values)]

    control = pd.DataFrame(course("copy", "coupling", [50] * 9 + [92])  # fits at 5,000: past copy's 3,000
                           + course("copy", "fire", [60, 91])  # at 1,000: within it
                           + course("reverse_copy", "randomized", [20] * 20))  # never within 10,000
    assert budget_control_words(control, {"copy": 3_000, "reverse_copy": 4_000}) == (
        "of its 3 mechanism-task pairs, 1 fit within the grid's budget; fit only past it, which holds their grid cells "
        "back: coupling on copy (at step 5,000; the grid trains 3,000); fit in none of the 10,000 steps: randomized on "
        "reverse_copy (20% at the end) (one seed).")
    assert budget_control_words(control.iloc[:0], {}) == "not stored yet."


def test_the_budget_control_sizes_every_other_mechanism_on_the_tasks_whose_budget_is_under_the_cap():
    from lengthgen.book import ROOT
    from lengthgen.leaderboard.sizing import SIZING_PROFILES, task_budgets
    from lengthgen.results.store import ResultStore
    from lengthgen.results.sweep import stored_runs

    study = stored_runs(EXPERIMENTS["leaderboard-sizing"], "cpu", ResultStore(ROOT / "results"))
    grid, cap = LEADERBOARD_PROFILES["cpu"], SIZING_PROFILES["cpu"].steps
    budgets = task_budgets(study[study.task.isin(grid.tasks)], cap)
    sized = EXPERIMENTS["leaderboard-sizing"].configs_for("cpu")
    control = EXPERIMENTS["leaderboard-control-budget"].configs_for("cpu")
    assert {c.task for c in control} == {t for t, steps in budgets.items() if steps < cap}
    assert {c.mechanism for c in control} == set(grid.mechanisms) - {c.mechanism for c in sized} - {"abc"}
    assert all((c.seed, c.course, c.stop_fitted, c.train.steps, c.model.width, c.model.layers) == (
        sized[0].seed, sized[0].course, sized[0].stop_fitted, cap, sized[0].model.width, sized[0].model.layers)
        for c in control)


def test_the_methods_sizes_table_reads_each_profile():
    from lengthgen.leaderboard.sizing import CONTROL_PROFILES, sizes_methods

    rows = {line.split(" | ")[0].strip("| "): line.split(" | ") for line in sizes_methods().splitlines()
            if line.startswith("| the ")}
    grid, control = LEADERBOARD_PROFILES["cpu"], CONTROL_PROFILES["cpu"]
    assert rows["the grid"][1] == f"{grid.layers}x{grid.width}, {grid.heads} heads"
    low, high = min(dict(grid.task_steps).values()), max(dict(grid.task_steps).values())
    assert rows["the grid"][2].startswith(f"{low:,}-{high:,} steps by task, batch {grid.batch}")
    assert rows["the grid"][3] == "500 (standard error <= 2.2)" and rows["the grid"][4] == "0, 1, 2"  # 50 / sqrt(500)
    assert rows["the NoPE depth control"][1].startswith(f"{control.layers}x") and control.layers != grid.layers
    assert rows["the headlines"][1].startswith("1x64 and 2x64")  # each headline's own depth
    assert rows["the grid"][5] == f"{len(EXPERIMENTS['leaderboard'].configs_for('cpu'))} |" == "414 |"  # runs_on cells
    listed = next(line for line in sizes_methods().splitlines() if line.startswith("- the grid (`leaderboard`, `cpu`)"))
    tasks, mechanisms = listed.split(": ", 1)[1].split("; ")
    assert tasks.split(", ") == list(grid.tasks) and sorted(mechanisms.split(", ")) == sorted(grid.mechanisms)
