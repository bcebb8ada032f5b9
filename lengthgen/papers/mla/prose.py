"""The numbers and data-dependent phrases of the monotonic-attention chapter's prose, one function per paragraph.

Each function takes frames the chapter already has (stored runs, the live run's readings, the paper's tables) and
returns a dict of named values that the notebook glues (`lengthgen.display.glue_values`) and its Markdown shows with
{glue:text}`name` roles: numbers as Python floats and ints (formatted in the prose), phrases as strings generated from
the data ("seeds 0-2 and 4", "all five seeds"). A sentence whose truth depends on the data but that is not a number
is bound with `holds`, so the build fails when the data stop supporting it. Names carry their paragraph's prefix.
"""

import math

import pandas as pd

from lengthgen.analysis import compare
from lengthgen.analysis.verdicts import TRAINED, band
from lengthgen.display import and_list, holds, span, word
from lengthgen.metrics import ACCURACY, BEST_DEV, BEST_EPOCH
from lengthgen.papers.mla import paper as paper_data
from lengthgen.papers.mla.experiments import FULL_VARIANTS, PROBING, PROFILE_SIZES, VARIANTS
from lengthgen.papers.mla.phrases import (
    CORE_NAMES,
    all_of,
    paper_numbers,
    scan_name,
    seeds_and,
)
from lengthgen.papers.mla.readings import GENERATIONS, direction_table, generation, reads_forward
from lengthgen.seeding import seeds_text

UNMIXED = ("onestep", "mono", "rmono", "locattn", "locattn_s")  # each has a "mix_" variant on SCAN (content mixed in)
SCAN_BAND = (15, 19)  # the band of test accuracy (%) the SCAN paragraph counts our means in
ABLATION_NAMES = {"onestep": "OneStep", "onestep_no_step2": "−Step 2", "onestep_no_step3": "−Step 3",
                  "onestep_no_sigmoid": "−Sigmoid"}
INVERTED = ("inv_recopy", "inv_reverse_recopy")
TASK_NAMES = {"inv_recopy": "Inv ReCopy", "inv_reverse_recopy": "Inv Reverse ReCopy"}


def key_numbers(table: dict = paper_data.TABLE2) -> dict:
    """The introduction's key numbers of the paper's Table 2: OneStepAttn's solved tasks at the longest length, MonoAttn
    on the four ReCopy tasks there, Content beyond the shortest test length."""
    onestep_far = [v[-1] for v in table["onestep"].values()]
    recopy = [v[-1] for t, v in table["mono"].items() if "recopy" in t]
    content_beyond = [x for v in table["content"].values() for x in v[1:]]
    holds(len(recopy) == 4, "MonoAttn ... on the four ReCopy tasks")
    holds(max(content_beyond) == 0, "Content 0% on every task at its two longer test lengths")
    return {"key_paper_runs": paper_data.MEDIAN_RUNS, "key_onestep": max(onestep_far),
            "key_onestep_solved": onestep_far.count(max(onestep_far)),
            "key_tasks": len(onestep_far), "key_mono_recopy": f"{min(recopy):g}–{max(recopy):g}",
            "key_content": max(content_beyond)}


def code_configs(table2: dict = paper_data.TABLE2, table7: dict = paper_data.TABLE7) -> dict:
    """Section 2's quotation of the paper on Copy: Mix OneStepAttn (Table 7) against OneStepAttn (Table 2)."""
    return {"code_mix_onestep_copy": paper_numbers(table7["mix_onestep"]["copy"]),
            "code_onestep_copy": paper_numbers(table2["onestep"]["copy"])}


def _below_clause(n: int) -> str:
    """"two are not, both below the paper", "one is not, below the paper", "three are not, all below the paper"."""
    every = "" if n == 1 else "both " if n == 2 else "all "
    return f"{word(n)} {'is' if n == 1 else 'are'} not, {every}below the paper"


def scan_table(runs: pd.DataFrame, side: pd.DataFrame, unmixed: tuple[str, ...] = UNMIXED) -> dict:
    """"What the SCAN table says": `runs`, SCAN's stored runs; `side`, their `scan_side`; `unmixed`, the mechanisms
    whose Mix variant ("mix_" + name: content attention mixed in) the paragraph sets beside them."""
    common, seeds = compare.on_common_seeds(runs)
    dev = common[(common.metric == BEST_DEV) & (common.split == "train")].value
    declared = PROFILE_SIZES["full"].seeds
    reproduced = side[side.verdict.str.startswith("reproduced")]
    failed = side.drop(reproduced.index)
    near = reproduced[reproduced.p < 0.1]
    below, above = near[near.ours < near["paper mean"]], near[near.ours > near["paper mean"]]
    tighter, mixing = side[side["std"] < side["paper std"]], side[side.index.str.startswith("mix_")]
    between = side[side.ours.between(*SCAN_BAND)]
    top, bottom = side.ours.idxmax(), side.ours.idxmin()
    top_runs = common[(common.variant == top) & (common.split == "test")
                      & (common.metric == ACCURACY)].value
    changes = {name: side.ours["mix_" + name] - side.ours[name] for name in unmixed}
    holds(sorted(seeds) == sorted(declared), "(seeds ..., all declared; ...)")
    holds(len(dev) == common.key.nunique(), "each of their runs reached at least ... on the dev commands")
    holds(len(failed) > 0 and (failed.ours < failed["paper mean"]).all(), "... are not, all below the paper")
    holds("mix_onestep" in failed.index and abs(side.ours["onestep"] - side["paper mean"]["mix_onestep"])
          >= abs(side.ours["mix_onestep"] - side["paper mean"]["mix_onestep"]),
          "The public code ran Mix OneStep unmixed, which is our OneStep row: ..., no nearer.")
    holds(len(seeds) == paper_data.SCAN_RUNS, "five seeds on each side")
    holds(len(below) > 0 and len(above) > 0, "... more rows sit below the paper at p ..., and ... above it")
    holds(mixing.index.isin(tighter.index).all(), "our std is the smaller in ..., all Mix ones among them")
    others = side.drop(mixing.index)
    holds(side["paper mean"].idxmax() in mixing.index and mixing["paper mean"].mean() > others["paper mean"].mean(),
          "The paper's means spread ..., with the Mix variants on top")
    holds(bottom == side["paper mean"].idxmin(), "... at the bottom ... as in the paper")
    holds(compare.ranking(side, paper="paper mean")["verdict"] != "reproduced", "the ranking is not reproduced")
    return {
        "scan_seeds": seeds_text(seeds), "scan_declared": len(declared), "scan_runs": len(dev),
        "scan_dev_min": math.floor(dev.min() * 10) / 10, "scan_dev_full": int((dev == 100).sum()),
        "scan_reproduced": len(reproduced), "scan_rows": len(side), "scan_failed": _below_clause(len(failed)),
        "scan_failed_rows": and_list(f"{scan_name(v)} (ours {r.ours:.1f}% against the paper's {r['paper mean']:.1f}%, "
                                     f"p = {r.p:.3f})" for v, r in failed.iterrows()),
        "scan_onestep": float(side.ours["onestep"]), "scan_seeds_word": word(len(seeds)),
        "scan_paper_std_max": float(side["paper std"].max()), "scan_below": word(len(below)),
        "scan_below_rows": ", ".join(map(scan_name, below.index)),
        "scan_below_p": span(below.p, "{:.2f}").replace("-", " to "),
        "scan_above": and_list(f"{scan_name(v)} above it at p = {r.p:.2f}" for v, r in above.iterrows()),
        "scan_tighter": len(tighter), "scan_mixing": len(mixing),
        "scan_paper_min": float(side["paper mean"].min()),
        "scan_paper_min_name": scan_name(side["paper mean"].idxmin()),
        "scan_paper_max": float(side["paper mean"].max()),
        "scan_paper_max_name": scan_name(side["paper mean"].idxmax()),
        "scan_between": len(between), "scan_band_low": SCAN_BAND[0], "scan_band_high": SCAN_BAND[1],
        "scan_top_name": scan_name(top), "scan_top": float(side.ours[top]),
        "scan_top_seeds": f"{top_runs.min():.1f} to {top_runs.max():.1f}%",
        "scan_bottom_name": scan_name(bottom), "scan_bottom": float(side.ours[bottom]),
        "scan_ranking": compare.ranking(side, paper="paper mean")["verdict"],
        "scan_mix_bound": math.ceil(max(abs(c) for c in changes.values())),
        "scan_mix_changes": ", ".join(f"{CORE_NAMES[n]} {side.ours[n]:.1f} → {side.ours['mix_' + n]:.1f}"
                                      for n in unmixed)}


def inverted_table4(runs: pd.DataFrame, lean: pd.DataFrame, course: pd.DataFrame) -> dict:
    """"Table 4 on the inverted tasks": `runs`, Table 4's stored runs with their unablated OneStep row
    (`with_unablated`); `lean`, `initial_lean` of the stored runs (their untrained gates); `course`, `gate_course` of
    the stored histories. Only OneStep's and its ablations' runs on Inv ReCopy and Inv Reverse ReCopy are read."""
    step2, step3, sigmoid = "onestep_no_step2", "onestep_no_step3", "onestep_no_sigmoid"
    runs = runs[runs.task.isin(INVERTED) & runs.variant.isin(ABLATION_NAMES)]
    gates = direction_table(runs).set_index(["variant", "task", "seed"]).sort_index()
    acc = runs[runs.metric == ACCURACY].pivot_table(index=["variant", "task", "seed"], columns="split", values="value")
    table = paper_data.paper_table(paper_data.TABLE4).set_index(["variant", "task", "split"]).paper
    needs_forward = gates.index.get_level_values("task").map(reads_forward)
    forward = ((gates.reads == "right way") == needs_forward).unstack("task")[list(INVERTED)]  # reads forward?
    seeds = {v: sorted(g.index.get_level_values("seed").unique()) for v, g in gates.groupby("variant")}
    back3, forth3 = (list(forward.loc[step3].index[forward.loc[step3].inv_recopy == way]) for way in (False, True))
    sig = forward.loc[sigmoid]
    sig_solved, sig_back = (list(sig.index[sig.inv_recopy == way]) for way in (True, False))
    sig_same = list(sig.index[sig.inv_recopy == sig.inv_reverse_recopy])
    sig_wrong_both = list(sig.index[~sig.inv_recopy & sig.inv_reverse_recopy])
    sig_rev_forward, sig_rev_back = (list(sig.index[sig.inv_reverse_recopy == way]) for way in (True, False))
    free = gates.loc[[step3, sigmoid]]
    right, wrong = free.index[free.reads == "right way"], free.index[free.reads == "wrong way"]
    lean = lean.set_index(["variant", "task", "seed"]).reindex(gates.index)
    initial = lean.initial
    free_lean = lean.loc[[step3, sigmoid]]
    crossed = free_lean.index[(free_lean.leans == "needed way") != (free_lean.reads == "right way")]
    seed_lean = initial.groupby("seed").agg(["min", "max"])
    if len(course):
        course = course[course.variant.isin([step2, step3, sigmoid]) & course.task.isin(INVERTED)]
    course_seeds = sorted(course.seed.unique()) if len(course) else []

    def at(variant, task, which, split):
        return acc.loc[(variant, task, which), split]

    beyond = ["30", "100"]
    holds(all(s == seeds["onestep"] for s in seeds.values()) and len(seeds) == len(ABLATION_NAMES),
          "(seeds ... of OneStep and of each of its three ablations: the stored runs and their gates)")
    holds((gates.reads != "undecided").all(), "each run reads its task one way or the other")
    holds((gates.loc[["onestep", step2]].reads == "right way").all(),
          "our OneStep ... reads both tasks the right way; OneStep and −Step 2 read both tasks the right way")
    holds((forward.loc[step3].inv_recopy == forward.loc[step3].inv_reverse_recopy).all(),
          "−Step 3 reads both tasks the same way in every seed (so it solves exactly one of them)")
    holds((acc.loc[wrong, beyond] == 0).all(axis=None), "0 beyond; failed beyond 15 in each that read it the wrong way")
    holds(initial.notna().all() and (initial - 0.5).abs().max() < 0.1,
          "The untrained gates of all these runs lie near 0.5")
    holds((initial.groupby(["task", "seed"]).nunique() == 1).all(), "OneStep and its ablations share one "
                                                                     "initialisation per seed")
    holds(((seed_lean["max"] < 0.5) | (seed_lean["min"] > 0.5)).all(), "slightly reversed in seeds ... and slightly "
                                                                        "forward in seeds ...")
    holds(set(lean.leans[lean.index.get_level_values("variant").isin(["onestep", step2])]) == {"needed way",
                                                                                               "other way"},
          "OneStep and −Step 2 read both tasks the right way, whichever side their gates started on")
    ablated = {(v, t, s) for v in (step2, step3, sigmoid) for t in INVERTED for s in course_seeds}
    holds(len(course) > 0 and set(zip(course.variant, course.task, course.seed, strict=True)) == ablated
          and (course.crossings == 0).all() and (course.settled == 0).all(),
          "The ablation runs of seeds ... (each of the three ablations on both tasks) record their gate after every "
          "epoch: each is on its final side after its first epoch ... and never crosses 0.5 again")
    holds((table.loc[step2, list(INVERTED), beyond] == 0).all(), "−Step 2 ... at 30 and 100 (the paper: 0)")
    holds((table.loc[step3, "inv_reverse_recopy", "100"] == 0), "−Step 3 on Inv Reverse ReCopy at 100 (the paper: 0)")
    holds(min(paper_data.TABLE2["mono"][t][-1] for t in INVERTED) >= TRAINED,
          "as the paper's MonoAttn, whose ReLU step is free too, does on both inverted tasks")
    return {
        "inv_seeds": seeds_text(seeds["onestep"]),
        "inv_onestep_all": all_of(len(seeds["onestep"]), "seeds"),
        "inv_onestep_15": float(acc.loc["onestep", "15"].max()),
        "inv_step3_back": seeds_and(back3),
        "inv_step3_back_gate": float(gates.gate.loc[(step3, slice(None), back3)].max()),
        "inv_step3_back_15": span(at(step3, "inv_recopy", back3, "15")),
        "inv_paper_step3": paper_numbers(table[step3, "inv_recopy", n] for n in paper_data.COPY_SPLITS),
        "inv_step3_back_100": span(at(step3, "inv_reverse_recopy", back3, "100")),
        "inv_paper_step3_rev": paper_numbers([table[step3, "inv_reverse_recopy", "100"]]),
        "inv_step3_forth": seeds_and(forth3),
        "inv_step3_forth_gate": float(gates.gate.loc[(step3, slice(None), forth3)].min()),
        "inv_step3_forth_100": span(at(step3, "inv_recopy", forth3, "100")),
        "inv_step3_forth_15": span(at(step3, "inv_reverse_recopy", forth3, "15")),
        "inv_sig_back": seeds_and(sig_back), "inv_sig_back_15": span(at(sigmoid, "inv_recopy", sig_back, "15")),
        "inv_sig_solved": seeds_and(sig_solved),
        "inv_sig_solved_100": span(at(sigmoid, "inv_recopy", sig_solved, "100")),
        "inv_sig_rev_forward": seeds_and(sig_rev_forward),
        "inv_sig_rev_forward_15": span(at(sigmoid, "inv_reverse_recopy", sig_rev_forward, "15")),
        "inv_sig_rev_back": seeds_and(sig_rev_back),
        "inv_sig_rev_back_100": span(at(sigmoid, "inv_reverse_recopy", sig_rev_back, "100")),
        "inv_right_min": float(acc.loc[right, "100"].min()), "inv_right": len(right), "inv_wrong": len(wrong),
        "inv_sig_same": seeds_and(sig_same), "inv_sig_wrong_both": seeds_and(sig_wrong_both),
        "inv_initial": f"{initial.min():.3f}-{initial.max():.3f}",
        "inv_lean_back": seeds_and(seed_lean.index[seed_lean["max"] < 0.5]),
        "inv_lean_forth": seeds_and(seed_lean.index[seed_lean["min"] > 0.5]),
        "inv_crossed": len(crossed), "inv_free": len(free), "inv_crossed_runs": _crossed_runs(crossed),
        "inv_course_seeds": seeds_and(course_seeds), "inv_course": len(course),
        "inv_course_forth": float(course[course["last"] >= 0.5]["first"].min()),
        "inv_course_back": float(course[course["last"] < 0.5]["first"].max()),
        "inv_step2_15": span(acc.loc[step2, "15"]),
        "inv_paper_step2": " and ".join(f"{table[step2, t, '15']:g}" for t in INVERTED),
        "inv_step2_beyond": float(acc.loc[step2, beyond].max(axis=None))}


def _crossed_runs(crossed: pd.Index) -> str:
    """The runs that end against their untrained gate's lean, grouped: "−Step 3's seeds 3 and 4 on both tasks,
    −Sigmoid's seeds 0 and 1 on Inv Reverse ReCopy"."""
    tasks = pd.Series(list(crossed.get_level_values("task")), index=pd.MultiIndex.from_arrays(
        [crossed.get_level_values("variant"), crossed.get_level_values("seed")]))
    parts = {}
    for (variant, seed), group in tasks.groupby(level=[0, 1], sort=False):
        where = "both tasks" if set(group) == set(INVERTED) else and_list(TASK_NAMES[t] for t in group)
        parts.setdefault((variant, where), []).append(seed)
    order = list(ABLATION_NAMES)
    return ", ".join(f"{ABLATION_NAMES[v]}'s {seeds_and(s)} on {where}"
                     for (v, where), s in sorted(parts.items(), key=lambda p: (p[0][1] != "both tasks",
                                                                               order.index(p[0][0]))))


def dedupe(runs: pd.DataFrame, stalled_seed: int = 2, measured_seed: int = 4) -> dict:
    """"Table 6's DeDupe": `runs`, Table 6's stored runs. `measured_seed`: the seed whose OneStep and MonoAttn
    checkpoints the paragraph's attention readings were measured on; `stalled_seed`: the MonoAttn seed that ends where
    OneStep does (bound: it is the only MonoAttn seed that fails at 15)."""
    rows = runs[(runs.task == "dedupe") & runs.metric.isin([ACCURACY, BEST_DEV])]
    acc = rows[rows.metric == ACCURACY].pivot_table(index=["variant", "seed"], columns="split", values="value")
    best = rows[rows.metric == BEST_DEV].set_index(["variant", "seed"]).value
    table = paper_data.paper_table(paper_data.TABLE6).set_index(["variant", "task", "split"]).paper
    onestep, mono = acc.loc["onestep"], acc.loc["mono"]
    failing = list(mono.index[mono["15"].map(band) == "failed"])
    others = mono.drop([stalled_seed, measured_seed]).index
    holds(failing == [stalled_seed], "One of MonoAttn's seeds ends where every OneStep run ends: seed ...")
    holds((onestep["15"].map(band) == "failed").all() and (onestep["iid"] >= TRAINED).all(),
          "all of our OneStep seeds score ... at 15, with the paper's fit in distribution")
    holds(measured_seed in onestep.index and measured_seed in mono.index, "seed ...'s OneStep and MonoAttn runs")
    holds((best["mono"].drop(stalled_seed) > best["onestep"].max()).all(),
          "its best dev score ... (OneStep's ...): the other MonoAttn seeds score far above OneStep's")
    holds(mono.loc[measured_seed, "100"] < mono.loc[others, "100"].min(),
          "Why MonoAttn's seed ... reaches only ...% at 100 (the other seeds: ...)")
    return {
        "dedupe_paper_onestep_15": table["onestep", "dedupe", "15"], "dedupe_onestep_seeds": all_of(
            len(onestep), "of our seeds"), "dedupe_onestep_15": span(onestep["15"]),
        "dedupe_onestep_iid": span(onestep["iid"]), "dedupe_paper_onestep_iid": table["onestep", "dedupe", "iid"],
        "dedupe_measured": f"seed {measured_seed}", "dedupe_mono_seeds": len(mono),
        "dedupe_stalled": f"seed {stalled_seed}", "dedupe_stalled_dev": float(best["mono", stalled_seed]),
        "dedupe_onestep_dev": span(best["onestep"]), "dedupe_stalled_iid": float(mono.loc[stalled_seed, "iid"]),
        "dedupe_stalled_15": float(mono.loc[stalled_seed, "15"]),
        "dedupe_mono_100": float(mono.loc[measured_seed, "100"]), "dedupe_others": seeds_and(others),
        "dedupe_others_100": span(mono.loc[others, "100"]), "dedupe_paper_mono_100": table["mono", "dedupe", "100"]}


EARLY_EPOCHS = 8  # the earlier protocols' paragraph counts first-best runs whose best epoch fell this early


def earlier_protocols(entries) -> dict:
    """"Earlier protocols": `entries`, the stored (config, metrics, meta) of Tables 2 and 4 (`ResultStore.entries`).
    How many full-profile runs each earlier protocol (`generation`) holds, their seed, and how many first-best runs
    kept an epoch within the first EARLY_EPOCHS."""
    rows = [{"generation": generation(cfg), "seed": cfg["seed"], "date": meta.get("date", ""),
             "best": metrics[metrics.metric == BEST_EPOCH].value.iloc[0]}
            for cfg, metrics, meta in entries if meta.get("profile") == "full"]
    runs = pd.DataFrame(rows, columns=["generation", "seed", "date", "best"]).sort_values("date")
    first, second = (runs[runs.generation == g] for g in GENERATIONS[:2])
    holds(first.seed.nunique() == 1 and second.seed.nunique() == 1, "Our first ... seed-... runs; the next ...")
    return {"earlier_first": len(first), "earlier_seed": f"seed-{first.seed.iloc[0]}",
            "earlier_early": int((first.best < EARLY_EPOCHS).sum()), "earlier_epochs": EARLY_EPOCHS,
            "earlier_next": len(second)}


def scan_gates(gates: pd.DataFrame, kinds: pd.Series) -> dict:
    """"Which way do the direction-mixing mechanisms read SCAN?": `gates`, `gate_by_construction` of SCAN's stored
    runs; `kinds`, `scan_constructions` of its test commands. How many runs that record the gate by construction
    read "and" commands forward (mean gate >= 0.9) and "after" commands reversed (<= 0.1)."""
    recorded = gates.dropna(subset=["and", "after"]) if "after" in gates else gates.iloc[:0]
    holds(not recorded.empty, "... of the ... runs that record it read \"and\" commands forward")
    split = recorded[(recorded["and"] >= 0.9) & (recorded["after"] <= 0.1)]
    return {"gates_commands": f"{len(kinds):,}",
            "gates_kinds": and_list(f"{n:,} single ones" if k == "single" else f'{n:,} "{k}" commands'
                                    for k, n in kinds.value_counts().items()),
            "gates_single": ", ".join(kinds.index[kinds == "single"]),
            "gates_split": len(split), "gates_recorded": len(recorded)}






def variant_savings(stored: pd.DataFrame) -> dict:
    """What declaring 3 seeds for Table 7's variants (not the full profile's 5) saved: the runs left out, at the
    median wall time of the stored probing-task runs of each task (`stored`: the chapter's stored probing grids), in
    CPU-thread hours."""
    wall = stored.drop_duplicates("key").groupby("task").wall_seconds.median()
    left_out = len(PROFILE_SIZES["full"].seeds) - len(FULL_VARIANTS.seeds)
    return {"protocol_saved_hours": float(wall.reindex(PROBING).sum() * len(VARIANTS) * left_out / 3600)}




def machines(runs: pd.DataFrame, first: int = 3) -> dict:
    """Section 5's provenance sentence: `runs`, every stored run of the chapter's grids (columns key, seed,
    torch_version, date and `grid`, the experiment's name). How many runs used the most common torch version, the
    seeds run under any other; bound: in every grid the first `first` seeds were all run before any later one."""
    one = runs.drop_duplicates("key").assign(torch=lambda d: d.torch_version.str.extract(r"^(\d+\.\d+)")[0])
    counts = one.torch.value_counts()
    other = one[one.torch != counts.index[0]]
    holds(counts.iloc[0] > len(one) / 2, "Most runs were made on ... torch ...")
    holds(len(counts) <= 2, "...; some ... runs on a lent ... machine's CPU (..., torch ...)")
    dates = one.assign(early=one.seed < first).groupby(["grid", "early"]).date.agg(["min", "max"])
    holds(all(dates.loc[(g, True), "max"] < dates.loc[(g, False), "min"] for g in one.grid.unique()
              if (g, False) in dates.index), f"seeds 0-{first - 1} came first in every grid")
    return {"machines_main": int(counts.iloc[0]), "machines_runs": len(one), "machines_main_torch": counts.index[0],
            "machines_other": " and ".join(f"seed-{s}" for s in sorted(other.seed.unique())),
            "machines_other_torch": counts.index[1] if len(counts) > 1 else "none"}
