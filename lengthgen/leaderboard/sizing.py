"""The leaderboard's sizing: the study that sets the grid's model (`leaderboard-sizing`), the budget control that sizes
the grid's other mechanisms where the study's budget left room (`leaderboard-control-budget`; the two set the budget per
task), the NoPE depth control (`leaderboard-control-nope`), and the Methods section they generate (`METHODS`)."""

from dataclasses import replace
from functools import partial

import numpy as np
import pandas as pd

from lengthgen.analysis.sizing import sizing_markdown, sizing_table
from lengthgen.analysis.verdicts import TRAINED
from lengthgen.display import and_list, markdown_table, model_size
from lengthgen.leaderboard.grid import (
    LEADERBOARD,
    LEADERBOARD_PROFILES,
    MECHANISMS,
    TASK_LENGTHS,
    LeaderboardRun,
    LeaderboardSizes,
    build_run,
    leaderboard_labels,
    profile_runs,
    run_leaderboard,
    run_steps,
    runs_on,
)
from lengthgen.leaderboard.headlines import HEADLINE_PROFILES, HEADLINES, LEADERBOARD_HEADLINES
from lengthgen.metrics import COURSE
from lengthgen.results.experiment import Experiment
from lengthgen.results.store import ResultStore
from lengthgen.results.sweep import stored_runs

# The sizing study of the grid (`leaderboard-sizing`): on every task, RoPE and NoPE at the size of the quick slice, on
# the sequence-to-sequence ones the encoder-decoder (ABC's first stage: where it fits, ABC's calibration reads a model
# that fits) and on the arithmetic ones the scaffold (its own model: a 2,000-step sanity run left Addition at 16%), each
# trained for up to 10,000 steps with its course read every 500 at the longest training length
# and stopped at its first point that fits (`analysis.sizing.sizing_table`): the steps each task needs at this size, or
# that it does not fit in them. A sizing seed, outside the declared ones.
SIZING_PROFILES = {
    "smoke": replace(LEADERBOARD_PROFILES["smoke"], seeds=(100,), course=2, stop_fitted=True),
    "cpu": LeaderboardSizes(tasks=tuple(TASK_LENGTHS), mechanisms=("rope", "nope", "encdec", "scaffold"),
                            width=64, heads=4, layers=2, steps=10_000, batch=64, lr=1e-3, samples=100, seeds=(100,),
                            max_positions=1280, course=500, stop_fitted=True),
}


def profile_configs(profiles: dict[str, LeaderboardSizes], profile: str,
                    seeds: tuple[int, ...] | None) -> list[LeaderboardRun]:
    """The runs of one of `profiles` (`profile_runs`)."""
    return profile_runs(profiles[profile], seeds)


def study_experiment(name: str, description: str, profiles: dict[str, LeaderboardSizes],
                     labels=leaderboard_labels) -> Experiment:
    """An experiment of the board's runs at `profiles` (the study's and its controls')."""
    return Experiment(name=name, description=description, configs=partial(profile_configs, profiles),
                      run=run_leaderboard, labels=labels, build=build_run, profiles=tuple(profiles), steps=run_steps)


LEADERBOARD_SIZING = study_experiment("leaderboard-sizing", "sizing of the leaderboard's grid: RoPE and NoPE on every "
                                      "task, the encoder-decoder on the sequence-to-sequence ones, the scaffold on the "
                                      "arithmetic ones, with their course of training, stopped where they fit; a "
                                      "sizing seed", SIZING_PROFILES)


# The NoPE depth control (`leaderboard-control-nope`): at the grid's 2 layers the sizing study's NoPE fits none of the
# copy family within 10,000 steps, while RoPE fits each. A decoder without positions must find them from the causal
# mask, which may take more layers than one that is given them: NoPE at 4 layers, otherwise the study's run, on Copy,
# Reverse Copy and ReCopy, on the sizing seed. Where it fits, the grid's NoPE cells on those tasks measure its depth.
CONTROL_PROFILES = {
    "smoke": replace(SIZING_PROFILES["smoke"], tasks=("copy",), mechanisms=("nope",), layers=2),
    "cpu": replace(SIZING_PROFILES["cpu"], tasks=("copy", "reverse_copy", "recopy"), mechanisms=("nope",), layers=4),
}


def depth_labels(cfg: LeaderboardRun) -> dict:
    """A run's labels with its depth in its variant ("nope, 4 layers")."""
    return leaderboard_labels(cfg) | {"variant": f"{cfg.mechanism}, {cfg.model.layers} layers"}


LEADERBOARD_CONTROL_NOPE = study_experiment("leaderboard-control-nope", "the NoPE depth control: NoPE at 4 layers "
                                            "on the copy tasks its 2 layers did not fit, with its course of training, "
                                            "stopped where it fits; a sizing seed", CONTROL_PROFILES, depth_labels)


def depth_control_words(study: pd.DataFrame, control: pd.DataFrame) -> str:
    """The NoPE depth control in a sentence, on the sizing seed: on each of its tasks, where NoPE's course first fits
    at the study's depth and at the control's (`sizing_table`), or how far it got in the steps it had, beside the steps
    the grid trains the task; then what that says of the grid's NoPE cells (deeper, it fits within the grid's steps on
    every such task: there they measure its depth; on some: on those; on none: not its depth alone); "not stored yet."
    without runs of both."""
    if study.empty or control.empty:
        return "not stored yet."
    budgets = dict(LEADERBOARD_PROFILES["cpu"].task_steps)

    def fit(row) -> str:
        if row.fits:
            return f"fits at step {row['fits at step']:,.0f}"
        return f"does not fit within {SIZING_PROFILES['cpu'].steps:,} steps ({row['last']:.0f}% at the end)"

    sized, deeper = sizing_table(study).set_index(["task", "variant"]), sizing_table(control)
    deeper = deeper[[(t, "nope") in sized.index for t in deeper.task]].set_index("task")
    parts = [f"on {task}, NoPE at {SIZING_PROFILES['cpu'].layers} layers {fit(sized.loc[(task, 'nope')])}, at "
             f"{CONTROL_PROFILES['cpu'].layers} {fit(row)} (the grid trains {task} {budgets[task]:,} steps)"
             for task, row in deeper.iterrows()]
    unfit = [t for t in deeper.index if not sized.loc[(t, "nope")].fits]
    rescued = [t for t in unfit if deeper.loc[t].fits and deeper.loc[t, "fits at step"] <= budgets[t]]
    deep, shallow = CONTROL_PROFILES["cpu"].layers, SIZING_PROFILES["cpu"].layers
    if not rescued:
        verdict = (f"within the grid's steps, {deep} layers fit none of the tasks that {shallow} did not, so depth "
                   "alone is not what the grid's NoPE cells lack there")
    elif len(rescued) == len(unfit):
        verdict = (f"within the grid's steps, {deep} layers fit every task that {shallow} did not, so there the grid's "
                   "NoPE cells measure its depth")
    else:
        verdict = (f"within the grid's steps, {deep} layers fit {and_list(rescued)} of the {len(unfit)} tasks that "
                   f"{shallow} did not, so on {'it' if len(rescued) == 1 else 'those'} the grid's NoPE cells measure "
                   "its depth")
    return "; ".join(parts) + f": {verdict} (one seed)."


# The budget control (`leaderboard-control-budget`): the study sizes RoPE, NoPE, the encoder-decoder and the scaffold,
# so a mechanism that learns more slowly can miss the budgets they set. Every other mechanism of the grid but ABC (whose
# first stage is the study's encoder-decoder), on each grid task whose budget from the study is under the study's
# steps (where a slower fit could raise it), each as the study's runs (its course, its 10,000 steps, stopped where it
# fits) on the sizing seed: where one fits only past the grid's budget, its grid cells there are held back by it.
BUDGET_PROFILES = {
    "smoke": replace(SIZING_PROFILES["smoke"], tasks=("copy",), mechanisms=("fire",)),
    "cpu": replace(SIZING_PROFILES["cpu"], tasks=("copy", "reverse_copy", "successor", "posretrieve", "recopy",
                                                  "scratchpad_parity"),
                   mechanisms=("sinusoidal", "learned", "alibi", "fire", "randomized", "rope+ln", "nope+ln",
                               "coupling", "abacus+fire", "ppc", "gru+content", "gru+locattn")),
}


LEADERBOARD_CONTROL_BUDGET = study_experiment("leaderboard-control-budget", "the budget control: every grid "
                                              "mechanism the study did not size (ABC aside) on the tasks whose budget "
                                              "is under the study's steps, with their course of training, stopped "
                                              "where they fit; a sizing seed", BUDGET_PROFILES)


def budget_control_words(control: pd.DataFrame, budgets: dict[str, int]) -> str:
    """The budget control in a sentence, on the sizing seed, beside the steps the grid trains each task (`budgets`):
    the mechanism-task pairs whose course first fits (`sizing_table`) only past the grid's budget (there the budget
    holds the grid's cells back), how many fit within it, and those that fit in none of the study's steps; "not stored
    yet." without runs."""
    if control.empty:
        return "not stored yet."
    cap = BUDGET_PROFILES["cpu"].steps
    table = sizing_table(control)
    past = table[table.fits & (table["fits at step"] > table.task.map(budgets))]
    unfit = table[~table.fits]
    said = [f"of its {len(table)} mechanism-task pairs, {len(table) - len(past) - len(unfit)} fit within the grid's "
            "budget"]
    if len(past):
        said.append("fit only past it, which holds their grid cells back: " + and_list(
            f"{r['variant']} on {r['task']} (at step {r['fits at step']:,.0f}; the grid trains {budgets[r['task']]:,})"
            for r in past.to_dict("records")))
    if len(unfit):
        said.append(f"fit in none of the {cap:,} steps: " + and_list(
            f"{r['variant']} on {r['task']} ({r['last']:.0f}% at the end)" for r in unfit.to_dict("records")))
    return "; ".join(said) + " (one seed)."


BUDGET_MARGIN = 2  # the grid trains a task this many times the steps its slowest sized mechanism needed on the
# sizing seed (another seed may need more), rounded up to 1,000 steps and capped at the study's budget (`task_budgets`)


def slowest_fit(runs: pd.DataFrame) -> pd.Series:
    """Per task of the sizing study's runs (`sizing_table`), the first fitting step of its slowest mechanism that fit
    it (NaN where none fit)."""
    return sizing_table(runs).groupby("task", sort=False)["fits at step"].max()


def study_pace(runs: pd.DataFrame) -> pd.Series:
    """Per task of the sizing study's runs, milliseconds of wall time per training step: each run's wall_seconds over
    the last step its course read (where it stopped), its course's readings included; the median over the task's
    runs, slowest first."""
    course = runs[runs.metric == COURSE]
    per_run = course.groupby(["task", "variant", "seed"], sort=False).agg(wall=("wall_seconds", "first"),
                                                                         steps=("step", "max"))
    pace = (1000 * per_run.wall / per_run.steps).groupby("task", sort=False).median()
    return pace.sort_values(ascending=False)


def task_budgets(runs: pd.DataFrame, cap: int) -> pd.Series:
    """The grid's training steps per task from the sizing study's runs (`sizing_table`): BUDGET_MARGIN x the first
    fitting step of the slowest mechanism that fit the task, rounded up to 1,000, at most `cap`; `cap` where none fit
    (those cells will be not trained, and shown so)."""
    slowest = slowest_fit(runs)
    return (np.ceil(BUDGET_MARGIN * slowest / 1000) * 1000).clip(upper=cap).fillna(cap).astype(int)


def left_out(runs: pd.DataFrame, grid: LeaderboardSizes) -> pd.DataFrame:
    """Why each task the sizing study has runs of is not in `grid` (task; "decoder fits": whether RoPE or NoPE fits
    it within the study's steps; reason; and "fit by": the study's other mechanisms that fit it, with their steps, ""
    for none), read from the study's runs (`sizing_table`): the decoder fits it with neither, or it fits and was left
    out by choice."""
    table = sizing_table(runs).set_index(["task", "variant"])
    cap, rows = SIZING_PROFILES["cpu"].steps, []
    for task in dict.fromkeys(runs.task):
        if task in grid.tasks:
            continue
        decoder, others = table.loc[task].reindex(["rope", "nope"]), table.loc[task].drop(["rope", "nope"],
                                                                                            errors="ignore")
        fit_by = and_list(f"{m} at step {step:,.0f}" for m, step in others["fits at step"].dropna().items())
        fits = bool(decoder.fits.eq(True).any())
        if fits:
            first = decoder["fits at step"].dropna()
            reason = (f"fits ({first.index[0]} at step {first.iloc[0]:,.0f}); left out by choice, not by a rule (the "
                      "grid keeps a few tasks of each paper's kind)")
        else:
            last = ", ".join(f"{v} {p:.0f}%" for v, p in decoder["last"].dropna().items())
            reason = (f"the decoder fits it with neither RoPE nor NoPE within {cap:,} steps (last: {last})"
                      + (f"; fit by the study's {fit_by}" if fit_by else "; no mechanism the study sized fits it"))
        rows.append({"task": task, "decoder fits": fits, "reason": reason, "fit by": fit_by})
    return pd.DataFrame(rows, columns=["task", "decoder fits", "reason", "fit by"])


def selection_words(runs: pd.DataFrame, grid: LeaderboardSizes) -> str:
    """What choosing the grid's tasks by the decoder's fit leaves off the board, from the sizing study's runs
    (`left_out`), in a sentence: the tasks the decoder fits with neither RoPE nor NoPE that another mechanism fits."""
    out = left_out(runs, grid)
    unfit = out[~out["decoder fits"]]
    if unfit.empty:
        return "No task of the sizing study is left out for the decoder not fitting it."
    fitted = unfit[unfit["fit by"] != ""]
    where = "; ".join(f"{task}: {by}" for task, by in zip(fitted.task, fitted["fit by"], strict=True))
    return (f"The grid takes a task only where the decoder fits it with RoPE or NoPE at the grid's size; the sizing "
            f"study leaves out {len(unfit)} where it does not ({and_list(unfit.task)}), and on {len(fitted)} of them "
            f"another mechanism it sized fits" + (f" ({where})" if where else "") + ". So the board compares "
            "mechanisms on tasks the plain decoder can learn, and cannot show what a mechanism gains by fitting a "
            "task it cannot.")


def idle_on(mechanism: str, grid: LeaderboardSizes) -> bool:
    """Whether a mechanism runs on none of a grid's tasks (`runs_on`)."""
    return not any(runs_on(mechanism, t) for t in grid.tasks)


def sizing_methods(store: ResultStore) -> str:
    """The sizing study's section of the Methods page, from a results store (`analysis.sizing.sizing_markdown`), its
    controls' tables, and the budget per task that the grid takes from the study and the budget control
    (`task_budgets`)."""
    runs, cap = stored_runs(LEADERBOARD_SIZING, "cpu", store), SIZING_PROFILES["cpu"].steps
    text = sizing_markdown(runs, "**The leaderboard's sizing study, as stored** (`leaderboard-sizing`: per task and "
                           f"mechanism, the first step of the course at >= {TRAINED:.0f}% at the longest training "
                           f"length, where the run stops; \"–\": not within its {cap:,} steps). ")
    if runs.empty:
        return text
    budget = stored_runs(LEADERBOARD_CONTROL_BUDGET, "cpu", store)
    sized = pd.concat([runs, budget], ignore_index=True)  # every mechanism sized on a task counts for its budget
    budgets, grid = task_budgets(sized, cap), LEADERBOARD_PROFILES["cpu"]
    slowest = slowest_fit(sized).dropna()
    short = ", ".join(f"{task} ({cap / step:.2f}x its slowest fit, step {step:,.0f})" for task, step in slowest.items()
                      if task in grid.tasks and BUDGET_MARGIN * step > cap)
    outside = "; ".join(f"{row.task}: {row.reason}" for row in left_out(runs, grid).itertuples())
    idle = "; ".join(f"{name} (runs only on {', '.join(t for t in TASK_LENGTHS if runs_on(name, t))})"
                     for name in MECHANISMS if idle_on(name, grid))
    pace, quick = study_pace(runs), LEADERBOARD_PROFILES["quick"]
    fits = sizing_table(runs).set_index(["task", "variant"])["fits at step"]

    def fit(task, mechanism):
        step = fits.get((task, mechanism), float("nan"))
        return f"{mechanism} {'not within its steps' if step != step else f'at step {step:,.0f}'}"

    live = "; ".join(f"{task}: {fit(task, 'rope')}, {fit(task, 'nope')}" for task in quick.tasks)
    fitted = {m: [t for t in dict.fromkeys(runs.task) if fits.get((t, m), float("nan")) >= 0] for m in ("rope", "nope")}
    nope = f" ({and_list(fitted['nope'])})" if fitted["nope"] else ""
    text += (f"\nThe study's pace, wall time per training step (its course's readings included, one thread, with other "
             f"runs beside it, so a rough guide), a task's median run: from {pace.iloc[-1]:.0f} ms ({pace.index[-1]}) "
             f"to {pace.iloc[0]:.0f} ms ({pace.index[0]}). The live slice (`quick`) trains {quick.steps:,} steps at "
             f"the study's size; in the study the decoder fits {live}. Of the study's {runs.task.nunique()} tasks, "
             f"RoPE fits {len(fitted['rope'])} within its steps, NoPE {len(fitted['nope'])}{nope}.\n")
    control = stored_runs(LEADERBOARD_CONTROL_NOPE, "cpu", store)
    if not control.empty:
        text += "\n" + sizing_markdown(control, "**The NoPE depth control, as stored** (`leaderboard-control-nope`: "
                                       "NoPE at 4 layers, otherwise as the study's runs). ")
    if not budget.empty:
        text += "\n" + sizing_markdown(budget, "**The budget control, as stored** (`leaderboard-control-budget`: "
                                       "as the study's runs). ")
    return text + (f"\nThe grid's budget per task ({BUDGET_MARGIN}x the slowest fitting mechanism's step in the study "
                   f"and the budget control, rounded up to 1,000, at most {cap:,}): "
                   + ", ".join(f"{task} {steps:,}" for task, steps in budgets.items()) + ".\n\n"
                   f"The stored grid (`cpu`) trains {', '.join(grid.tasks)} at these budgets"
                   + (f"; the cap leaves less than {BUDGET_MARGIN}x the slowest fit on {short}" if short else "")
                   + f". Left out: {outside}. "
                   + (f"So these mechanisms have no cell in it: {idle}. " if idle else "")
                   + "Registered but not in its profile: "
                   f"{', '.join(m for m in MECHANISMS if m not in grid.mechanisms and not idle_on(m, grid))} "
                   "(`lengthgen run leaderboard --profile cpu --variant NAME` trains one's row).\n")


def sizes_methods(_store: ResultStore | None = None) -> str:
    """The Methods page's table of the leaderboard's runs, read from their profiles (not the store): per experiment
    and profile, the model, training, test answers per length (with the largest standard error of a length's exact
    match they allow, at 50%), the seeds and the number of runs; then each one's tasks and mechanisms."""
    headlines = HEADLINE_PROFILES["cpu"]
    runs = [("the live slice", LEADERBOARD, "quick", LEADERBOARD_PROFILES["quick"], None),
            ("the sizing study", LEADERBOARD_SIZING, "cpu", SIZING_PROFILES["cpu"], None),
            ("the NoPE depth control", LEADERBOARD_CONTROL_NOPE, "cpu", CONTROL_PROFILES["cpu"], None),
            ("the budget control", LEADERBOARD_CONTROL_BUDGET, "cpu", BUDGET_PROFILES["cpu"], None),
            ("the grid", LEADERBOARD, "cpu", LEADERBOARD_PROFILES["cpu"], None),
            ("the headlines", LEADERBOARD_HEADLINES, "cpu", headlines,
             and_list(model_size(h.layers, headlines.width) for h in HEADLINES.values()))]
    rows, lists = [], []
    for what, experiment, profile, sizes, layers in runs:
        configs = experiment.configs_for(profile)
        steps = sorted({c.train.steps for c in configs})
        budget = f"{steps[0]:,} steps" if len(steps) == 1 else f"{steps[0]:,}-{steps[-1]:,} steps by task"
        if sizes.course:
            budget = f"up to {budget}, read every {sizes.course:,}" + (", stopped where it fits" if sizes.stop_fitted
                                                                      else "")
        rows.append({"runs": what, "model": f"{layers or model_size(sizes.layers, sizes.width)}, {sizes.heads} heads",
                     "training": f"{budget}, batch {sizes.batch}, AdamW {sizes.lr:g}",
                     "test answers per length": f"{sizes.samples} (standard error <= {50 / sizes.samples ** 0.5:.1f})",
                     "seeds": ", ".join(map(str, sizes.seeds)), "runs stored when complete": f"{len(configs)}"})
        tasks = dict.fromkeys(experiment.labels(c)["task"] for c in configs)
        lists.append(f"- {what} (`{experiment.name}`, `{profile}`): {', '.join(tasks)}; "
                     f"{', '.join(dict.fromkeys(c.mechanism for c in configs))}")
    return ("**The leaderboard's runs and their sizes** (read from the profiles: `LEADERBOARD_PROFILES`, "
            "`SIZING_PROFILES`, `CONTROL_PROFILES`, `BUDGET_PROFILES`, `HEADLINE_PROFILES`):\n\n"
            + markdown_table(pd.DataFrame(rows)).rstrip("\n") + "\n\nTheir tasks and mechanisms:\n\n"
            + "\n".join(lists) + "\n")


METHODS = (("leaderboard-sizes.md", sizes_methods), ("leaderboard-sizing.md", sizing_methods))  # the Methods page's
# generated sections (`book`)
