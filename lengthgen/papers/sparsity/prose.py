"""The numbers and data-dependent phrases of the sparsity chapter's prose, read from what the notebook already has
(the profiles' sizes, the stored runs and their readings, the paper's numbers in `paper`): each function serves one
paragraph and returns {glue name: value} for `display.glue_values`, binding with `display.holds` the sentences about
the stored runs whose truth depends on the data but which are not numbers. Values are plain Python numbers and
strings (myst-nb formats a glued number from its repr)."""

from dataclasses import replace

import pandas as pd

from lengthgen.analysis.claims import NOT_JUDGED, SAME
from lengthgen.analysis.compare import reach
from lengthgen.analysis.sizing import sizing_table
from lengthgen.analysis.verdicts import TRAINED
from lengthgen.display import and_list, holds, model_size, span, word
from lengthgen.metrics import ACCURACY, LOOKUP
from lengthgen.papers.sparsity import paper
from lengthgen.papers.sparsity.experiments import (
    ASSIGNMENT_PROFILES,
    SCRATCHPAD_PROFILES,
    DecoderSizes,
    assignment_reading,
    assignment_runs,
    scratchpad_reading,
    scratchpad_runs,
    variant,
)
from lengthgen.papers.sparsity.readings import (
    DROP,
    FALLS_RHO,
    FLOOR,
    REACH,
    VERSUS,
    bound,
    by_k,
    fit_and_reach,
    jump_claim,
    lookup_table,
    ppc_diagnosis,
    ppc_parts,
    with_combined_length,
)
from lengthgen.papers.sparsity.rows import GRIDS, SEED_CHECK
from lengthgen.tasks.sparsity import ScratchpadParity, VariableAssignment

TOKENS_PER_PAIR = 2  # a sparse-parity pair is a key and a bit
PARITY, ASSIGN = paper.SETUPS["sparsity-parity"], paper.SETUPS["sparsity-assignment"]
FIT = "in distribution"  # a column of `readings.fit_and_reach`, as REACH


def int_range(values) -> str:
    """Integers as the prose lists them: "1-4" when there are three or more consecutive ones, else "2 and 3"."""
    v = sorted({int(x) for x in values})
    return f"{v[0]}-{v[-1]}" if len(v) > 2 and v == list(range(v[0], v[-1] + 1)) else and_list(v)


def percent(value: float) -> str:
    """An accuracy as the prose writes it: one decimal, none when it reads whole ("96.5%", "100%")."""
    return f"{value:.1f}".removesuffix(".0") + "%"


def percent_span(values) -> str:
    """"99.7-100%", or "100%" when both ends read the same."""
    lo, hi = percent(min(values))[:-1], percent(max(values))[:-1]
    return f"{lo}%" if lo == hi else f"{lo}-{hi}%"


def count_of_seeds(count: int, of: int) -> str:
    """In how many of `of` seeds something holds: "in all three seeds", "in two of three seeds", "in none of the
    three seeds" ("in both seeds", "in its one seed")."""
    if count == of:
        return "in its one seed" if of == 1 else "in both seeds" if of == 2 else f"in all {word(of)} seeds"
    return f"in none of the {word(of)} seeds" if count == 0 else f"in {word(count)} of {word(of)} seeds"


def every_depth(n: int) -> str:
    """"both depths" (two), "every depth" (more), "its one depth"."""
    return "its one depth" if n == 1 else "both depths" if n == 2 else "every depth"


def depths_text(depths) -> str:
    """"depth 3", "depths 2 and 3"."""
    depths = sorted(depths)
    return f"depth{'s' if len(depths) > 1 else ''} {and_list(depths)}"


def by_depth(values: pd.Series) -> str:
    """Accuracies by depth (a Series indexed by depth): "66.8% (depth 2) and 78% (depth 3)"."""
    return and_list(f"{percent(v)} (depth {d})" for d, v in values.sort_index().items())


def fits_phrase(fit: pd.Series, chains: int) -> str:
    """How a variant fits its training lengths (`fit`: in-distribution accuracy by depth, trained at >= TRAINED):
    "fits 3 chains at both depths (100% and 100%)", "fits 3 chains at depth 3 (100%) but not at depth 2 (67.4%)",
    "fits 3 chains at neither depth (31.6% at depth 2 and 29.3% at depth 3)"."""
    fit = fit.sort_index()
    yes, no = fit[fit >= TRAINED], fit[fit < TRAINED]
    values = and_list(percent(v) for v in fit)
    if no.empty:
        return f"fits {chains} chains at {every_depth(len(fit))} ({values})"
    if yes.empty:
        where = "neither depth" if len(fit) == 2 else "no depth" if len(fit) > 2 else "its one depth"
        values = and_list(f"{percent(v)} at depth {d}" for d, v in fit.items()) if len(fit) > 1 else values
        return f"{'does not fit' if len(fit) == 1 else 'fits'} {chains} chains at {where} ({values})"
    return (f"fits {chains} chains at {depths_text(yes.index)} ({and_list(percent(v) for v in yes)}) but not at "
            f"{depths_text(no.index)} ({and_list(percent(v) for v in no)})")


def round_to(x: float, digits: int = 2) -> float:
    """`x` rounded to `digits` significant digits (3611.1 -> 3600.0)."""
    return float(f"{x:.{digits}g}")


def minutes(runs: pd.DataFrame, fmt: str = "{:.0f}") -> str:
    """The span of the runs' wall-clock minutes (one value per stored run, its `key`)."""
    return span(runs.groupby("key").wall_seconds.first() / 60, fmt)


# Section 3 and 4: the live runs' sizes (they follow the profile) beside the paper's.

def parity_setup(sizes: DecoderSizes) -> dict:
    """Section 3's first paragraph: the training lengths (pairs, and tokens beside the paper's) and how far the
    tests go, as a multiple of the longest training length."""
    lo, hi = sizes.train_lengths
    return {"parity_train": f"{lo}-{hi}", "parity_tokens": f"{TOKENS_PER_PAIR * lo}-{TOKENS_PER_PAIR * hi}",
            "parity_paper_tokens": "{}-{}".format(*paper.SETUPS["sparsity-parity"].train),
            "parity_reach": max(sizes.eval_lengths) / hi}


def t1_rule(stored: DecoderSizes) -> dict:
    """The T1 rule: the bar of a trained model and of a solved k, how far the paper finds k = 1 solved, the least
    fall that counts (from k = 1 to k = K within a bound, and beyond K), and the rank correlation with k at or below
    which accuracy falls as k grows; the paper's training bounds; and the largest training bound of the stored grid
    (`stored`, its sizes)."""
    return {"t1_bar": TRAINED, "t1_paper_reach": PARITY.longest_test / PARITY.train[1],
            "t1_drop": DROP, "t1_rho": FALLS_RHO, "t1_our_bound": max(stored.bounds),
            "t1_paper_bounds": "{} to {}".format(*paper.PARITY_BOUNDS)}


def scratchpad_setup(sizes: DecoderSizes, stored: DecoderSizes) -> dict:
    """Section 4's first paragraph: which of the grid's models (a coupled one per jump, and the two ablations at
    j = 1) the live profile (`sizes`) trains, and where the stored grid (`stored`, its sizes) judges the others; the
    jumps, and the combined training lengths of j = 1, and whether they are the paper's."""
    ours = tuple(ScratchpadParity(jump=1).combined(n) for n in sizes.train_lengths)
    theirs = paper.SETUPS["sparsity-scratchpad"].train
    held = [variant(run) for run in scratchpad_runs(sizes, sizes.seeds[:1])]
    every = [variant(run) for run in scratchpad_runs(replace(sizes, variants=()), sizes.seeds[:1])]
    alone = (f"This profile trains {and_list(held)} alone: the others need several times its steps to fit their "
             "training lengths, where they fit at its size at all (Methods' sizing study), past a chapter's minutes; "
             f"the stored grid judges them (section 6: {model_text(stored)}, {stored.steps:,} steps).")
    return {"scratch_held": f"This profile trains all {word(len(every))}." if held == every else alone,
            "scratch_jumps": int_range(sizes.jumps),
            "scratch_train": "{}-{}".format(*ours),
            "scratch_vs_paper": "as in the paper" if ours == theirs else "the paper's: {}-{}".format(*theirs)}


def t2_rule() -> dict:
    """The T2 rule: the bar of a trained model and of a length it still solves, the multiple of its training length
    the coupled model must reach to generalize at all, and the paper's reach on variable assignment."""
    return {"t2_bar": TRAINED, "t2_floor": FLOOR, "t2_paper_reach": paper.ASSIGNMENT_REACH}


# Section 6: the stored runs.

def stored_hours(walls: dict[str, dict[str, float]]) -> dict:
    """Section 6: the CPU-thread hours of every stored run of the chapter's experiments (`walls`: experiment name ->
    wall seconds by key, `scorecard.stored_walls`; every profile and seed), in all, in its grids (`rows.GRIDS`) and in
    the sizing study and the controls."""
    hours = {name: sum(by_key.values()) / 3600 for name, by_key in walls.items()}
    grids = sum(h for name, h in hours.items() if name in GRIDS)
    return {"stored_hours": f"{sum(hours.values()):.1f}", "stored_hours_grids": f"{grids:.1f}",
            "stored_hours_rest": f"{sum(hours.values()) - grids:.1f}"}


def model_text(sizes: DecoderSizes) -> str:
    """A decoder's size as the prose names it: "4 layers of width 128"."""
    return f"{sizes.layers} layer{'s' * (sizes.layers != 1)} of width {sizes.width}"


def stored_setup(parity: DecoderSizes, scratch: DecoderSizes) -> dict:
    """Section 6's first paragraph: the stored parity grid's model, steps, bounds K and test sparsities; the
    scratchpad grid's model (and a jump's larger one), steps and jumps; the seeds."""
    larger = [f"{model_text(scratch.at(layers, width))} for j = {j} PPC" for j, layers, width in scratch.jump_models]
    return {"stored_parity_model": model_text(parity), "stored_parity_steps": parity.steps,
            "stored_bounds": int_range(parity.bounds), "stored_ks": int_range(parity.test_ks),
            "stored_scratch_model": model_text(scratch),
            "stored_scratch_larger": f" ({and_list(larger)})" if larger else "",
            "stored_scratch_steps": scratch.steps, "stored_jumps": int_range(scratch.jumps),
            "stored_scratch_caveat": jump_caveat(scratch), "stored_seeds": word(len(parity.seeds))}


def stored_parity_fit(t1: pd.DataFrame) -> dict:
    """How well the stored sparse-parity models fit (the T1 table's worst k in distribution, per bound K); that every
    bound fits is bound."""
    fit = t1["in distribution (worst k)"]
    holds(bool((fit >= TRAINED).all()), "Sparse parity runs at ...; every bound fits ... Every bound fits, so the "
                                        "scorecard reads the `regime` grid")
    return {"stored_parity_fit": percent_span(fit)}


def parity_beside(table: pd.DataFrame, sizes: DecoderSizes) -> dict:
    """Section 6: the stored sparse-parity grid at another model size (`sizes`: the cpu grid's) beside the grid the
    scorecard reads, values `pr_model`, `pr_steps` and `pr_beside`: how many of the claim rows of
    `readings.side_by_side`'s `table` read as on the scorecard's grid, and of those that differ, how many on every
    seed; or that none is stored yet (no rows)."""
    size = {"pr_model": model_text(sizes), "pr_steps": f"{sizes.steps:,}"}
    if table.empty:
        return size | {"pr_beside": "none of its runs is stored yet"}
    same, apart = int((table.same == "yes").sum()), int((table.same == "no").sum())
    text = f"{word(same)} of its {word(len(table))} claim rows read{'s' * (same == 1)} as on the scorecard's grid"
    differ = len(table) - same
    if differ:
        text += (f"; of the {word(differ)} that differ on the means, {word(apart)} differ{'s' * (apart == 1)} on "
                 "every seed (no seed of one grid reads as any seed of the other)")
    return size | {"pr_beside": text}


def as_grid(runs: pd.DataFrame) -> pd.DataFrame:
    """A control's runs labelled as its grid labels them: "2x64 K=3" (`sizing.sized_labels`) as "K=3", the size
    being the grid's."""
    return runs.assign(variant=runs.variant.str.split(" ", n=1).str[1])


def longest_trained(runs: pd.DataFrame) -> int:
    """A control's longest training length, read from its runs' training range ("20-60" -> 60)."""
    return int(runs.train.iloc[0].split("-")[1])


def past_every(control: list[float], grid: list[float]) -> bool:
    """How a control counts as moving a reading: every control seed's value above every grid seed's (the grid's seeds
    already differ among themselves, so a control above their mean alone could be one seed's draw)."""
    return bool(grid) and min(control) > max(grid)


def parity_control(runs: pd.DataFrame, grid: pd.DataFrame, grid_steps: int, name: str = "pp") -> dict:
    """The sentence of a control of sparse parity (`sizing.PARITY_CONTROL`: the budget; `sizing.PARITY_SIZE_CONTROL`:
    the model size), values `<name>_control`, `<name>_moves` and `<name>_budget` (its steps against the grid's: "four
    times the steps"): per bound K, how far every k <= K stays >= TRAINED (T1's statement) on each sizing seed and on
    each seed of the grid (`grid`: the stored cpu grid's runs, the grid whose bounds the controls train, on
    `grid_steps`), and whether the control moves it: past every grid seed on every control seed ("moves it for K=3
    only"; against the grid's mean a single seed of its wide spread could seem to); or that it is not stored yet."""
    if runs.empty:
        return {f"{name}_control": "not stored yet", f"{name}_moves": "cannot say yet",
                f"{name}_budget": "the control's steps"}
    size = runs.variant.iloc[0].split(" ", 1)[0]  # "4x128 K=3" (`sizing.sized_labels`)
    runs = as_grid(runs)
    steps, seeds = int(runs.budget.iloc[0]), sorted(runs.seed.unique())
    times = steps / grid_steps
    ratio = word(int(times)) if times.is_integer() else f"{times:g}"
    budget = "the same steps" if times == 1 else f"{ratio} times the steps"
    trained = longest_trained(runs)

    def reaches(frame: pd.DataFrame) -> list[tuple[int, float]]:  # per seed of a bound's runs: the reach of its worst
        out = []  # k <= K, and that worst k's accuracy at the longest training length (below TRAINED: it does not fit)
        for seed in sorted(frame.seed.unique()):
            table = by_k(frame[frame.seed == seed])
            ks = table[table.k <= bound(table.variant.iloc[0])]
            out.append((min(reach(ks[ks.k == k]) for k in ks.k.unique()),
                        float(ks[ks.length == trained].value.min())))
        return out

    def said(reached: tuple[int, float]) -> str:
        return str(reached[0]) if reached[1] >= TRAINED else f"none (it does not fit: {reached[1]:.0f}% at {trained})"

    parts, moved = [], []
    for label, group in runs.groupby("variant", sort=True):
        ours, theirs = reaches(group), reaches(grid[grid.variant == label])
        parts.append(f"{label}: {' and '.join(map(said, ours))} (the cpu grid's seeds: {', '.join(map(said, theirs))})")
        if all(iid >= TRAINED for _, iid in ours) and past_every([r for r, _ in ours], [r for r, _ in theirs]):
            moved.append(label)
    return {f"{name}_control": f"at {size} on {steps:,} steps (sizing seed{'s' * (len(seeds) > 1)} {and_list(seeds)}), "
                               f"every k ≤ K stays ≥ "
                               f"{TRAINED:g}% up to these lengths (in pairs, one per seed): {'; '.join(parts)}",
            f"{name}_moves": f"moves it for {and_list(moved)} only" if moved and len(moved) < len(parts) else
                             "moves it for every bound" if moved else "moves it for no bound",
            f"{name}_budget": budget}


def jump_caveat(scratch: DecoderSizes) -> str:
    """The sentence on Fig. 2 across model sizes, where a jump runs on a larger model (`DecoderSizes.jump_models`)."""
    if not scratch.jump_models:
        return ""
    return (" A jump that fits only on a larger model runs there (late in its budget: the sizing table in Methods), "
            "so Fig. 2 compares it with the smaller jumps across model sizes: one that reaches as far cannot count "
            "against the claim (inconclusive), and one that falls short speaks for it only if the larger model "
            "generalizes no worse. The jump control (Methods) trains the next smaller jump on that model, on the "
            "grid's seeds; once it holds all of them, the larger jump is read against it by the rule for equal sizes, "
            "and its verdict says \"on one model\".")


def left_out_phrase(sizes: DecoderSizes) -> str:
    """The sentence on the models of the paper's four that a grid leaves out (`DecoderSizes.variants`), or ""."""
    held = {variant(run) for run in assignment_runs(sizes, sizes.seeds[:1])}
    out = [v for v in map(variant, assignment_runs(replace(sizes, variants=()), sizes.seeds[:1])) if v not in held]
    if not out:
        return ""
    one = len(out) == 1
    return (f" The grid leaves out {and_list(out)}: {'it does' if one else 'they do'} not fit the training lengths at "
            f"this size in the sizing study (Methods), so {'its' if one else 'their'} cells would say nothing about "
            "longer ones.")


def assignment_setup(sizes: DecoderSizes, name: str) -> dict:
    """A variable-assignment grid's paragraph, its values named `<name>_...`: the format and its unit of length
    (chains in ours, tokens in the paper's), the model, depths, variables, training and test lengths (and the
    paper's tokens), steps, seeds, the length the rule judges at, the id table's size beside the paper's largest id,
    and the models of the paper's four that the grid leaves out (`left_out_phrase`)."""
    lo, hi = sizes.train_lengths
    return {f"{name}_model": model_text(sizes), f"{name}_depths": and_list(sizes.depths),
            f"{name}_variables": sizes.variables, f"{name}_unit": VariableAssignment(format=sizes.format).unit,
            f"{name}_train": f"{lo}-{hi}", f"{name}_longest": max(sizes.eval_lengths),
            f"{name}_ratio": max(sizes.eval_lengths) / hi,
            f"{name}_paper_tokens": f"{ASSIGN.train[1]} to {ASSIGN.longest_test}",
            f"{name}_steps": sizes.steps, f"{name}_batch": sizes.batch, f"{name}_seeds": word(len(sizes.seeds)),
            f"{name}_judged": hi, f"{name}_ids": sizes.max_positions, f"{name}_paper_ids": ASSIGN.max_id,
            f"{name}_left_out": left_out_phrase(sizes)}


def stored_assignment(curves: pd.DataFrame, claim: pd.DataFrame, trained_length: int) -> dict:
    """"What the stored runs say" of variable assignment: the verdict, RoPE + PoSE's accuracies, PPC's fit and its
    fall beyond the training lengths, and how the two ablations fit; the sentences about them are bound.

    Args:
        curves: `assignment_reading`'s curves (depth, variant, seed, length, value).
        claim: `assignment_reading`'s T2 table (variant, depth, in distribution, stays >= 90% up to, verdict).
        trained_length: the longest training length, in chains.
    """
    mean = curves.groupby(["variant", "depth", "length"]).value.mean()
    claim = claim.set_index(["variant", "depth"])
    longest = int(curves.length.max())
    beyond = int(curves.length[curves.length > trained_length].min())
    ppc = claim.loc["PPC"]
    reproduced = ppc.verdict.str.startswith("reproduced")
    verdict = ("reproduces" if reproduced.all() else "does not reproduce" if not reproduced.any() else
               f"reproduces at {depths_text(ppc.index[reproduced])} only")
    holds(not reproduced.all(), "Fig. 3 ... in our format; RoPE + PoSE, the paper's failing baseline, holds ...")
    pose, pose_reach = mean.loc["RoPE+PoSE"], claim.loc["RoPE+PoSE", REACH]
    holds(bool((pose_reach == longest).all()), f"RoPE + PoSE, the paper's failing baseline, holds ... to {longest} "
                                               "chains ... at every depth")
    fit, ppc_mean = ppc[FIT], mean.loc["PPC"]
    at_beyond, at_longest = ppc_mean.xs(beyond, level="length"), ppc_mean.xs(longest, level="length")
    holds(bool((fit >= TRAINED).all()), "PPC fits its training lengths")
    holds(bool((at_beyond < fit).all() and (at_longest <= at_beyond).all()),
          f"PPC ... falls to ... at {beyond} chains and to ... at {longest}")
    coupling, scratchpad = claim.loc["no coupling", FIT], claim.loc["no scratchpad", FIT]
    holds(bool((scratchpad < coupling).all()), "without a scratchpad it fits its training lengths less than without "
                                               "coupling: in our format the scratchpad is what lets a model fit")
    return {"fig3_seeds": span(curves.groupby(["variant", "depth"]).seed.nunique(), "{:d}"),
            "fig3_verdict": verdict, "fig3_pose": percent_span(pose.to_numpy()), "fig3_longest": longest,
            "fig3_ratio": longest / trained_length, "fig3_depths": every_depth(len(ppc)),
            "fig3_ppc_fit": by_depth(fit), "fig3_judged": trained_length, "fig3_beyond": beyond,
            "fig3_ppc_beyond": by_depth(at_beyond), "fig3_ppc_longest": by_depth(at_longest),
            "fig3_coupling": fits_phrase(coupling, trained_length),
            "fig3_scratchpad": fits_phrase(scratchpad, trained_length)}


def count_of(n: int, noun: str) -> str:
    """"one seed", "three seeds", "one model"."""
    return f"{word(n)} {noun}{'s' * (n != 1)}"


def reach_phrase(row) -> str:
    """One model's fit and reach (a row of `readings.fit_and_reach`'s columns, with its label in `variant` and, where
    given, its stored seeds in `seeds` and its accuracy `beyond` at the first length past its reach, `beyond_at`,
    from `past_reach`): "j=1 PPC fits them (100% in distribution; three seeds) and stays ≥ 90% to 40 (75.7% at 60)",
    "no coupling does not fit them (1.6% in distribution; one seed)"."""
    seeds = f"; {count_of(row.seeds, 'seed')}" if "seeds" in row else ""
    fit = f"({percent(row[FIT])} in distribution{seeds})"
    if not row[FIT] >= TRAINED:
        return f"{row.variant} does not fit them {fit}"
    beyond = f" ({percent(row.beyond)} at {row.beyond_at})" if "beyond" in row and row.beyond == row.beyond else ""
    return f"{row.variant} fits them {fit} and stays ≥ {TRAINED:g}% to {row[REACH]}{beyond}"


def where_phrase(d) -> str:
    """Where a PPC model goes wrong, from a row `d` of `readings.ppc_diagnosis` (its label in `panel`)."""
    if d.fails == "not trained":
        return f"{d.panel} does not fit its training lengths, so nothing is located"
    if d.fails == "nothing":
        return f"{d.panel} holds to the longest length tested ({d.longest})"
    if d.fails == "the id head":
        return (f"{d.panel}'s id head fails first: its ids stay right to {d.ids}, its tokens to {d.tokens}, and fed "
                f"the true ids its tokens hold to {d.oracle}")
    if d.fails == "both":
        return (f"{d.panel}'s ids and tokens both stay right to {d.ids}, and fed the true ids its tokens hold no "
                f"further ({d.oracle}): its tokens go wrong with the right ids too, as its id head does, at the same "
                "length")
    ids = "then go wrong too" if d.ids < d.longest else "the longest length tested"
    return (f"{d.panel}'s answers stay right to {d.answer}, and fed the true ids its tokens hold no further "
            f"({d.oracle}): its tokens fail first, even with the right ids; its ids stay right to {d.ids}, {ids}")


def lookup_phrase(panel: str, lookup: pd.DataFrame, trained_length: int) -> str:
    """How a PPC model's lookup head spreads its attention (`readings.lookup_table` of one panel, by length): its
    weight on the keys the id points to at the longest length up to `trained_length` and at the longest tested."""
    at = lookup[LOOKUP]
    trained = at[at.index <= trained_length]
    trained = trained if len(trained) else at.iloc[:1]  # no length within training tested: the shortest
    seeds = int(lookup.seeds.min())
    return (f"{panel}'s lookup head puts {trained.iloc[-1]:.2f} of its attention on the keys its id points to at "
            f"{trained.index[-1]} and {at.iloc[-1]:.2f} at {at.index[-1]} ({count_of(seeds, 'seed')})")


def verdict_word(verdict: str) -> str:
    """The head of a verdict ("partly: the coupled model ..." -> "partly")."""
    return verdict.split(":")[0]


def stored_coupling(models: pd.DataFrame, diagnosis: pd.DataFrame, lookup: pd.DataFrame, verdicts: dict[str, str],
                    trained_length: int, name: str) -> dict:
    """"What the stored runs say" of a T2 grid so far, values named `<name>_...`: each stored model's fit and reach
    (`reach_phrase`), where each PPC model goes wrong (`where_phrase`) and how its lookup head's attention spreads
    (`lookup_phrase`), and the head of each verdict; "none yet" for what is not stored.

    Args:
        models: one row per model (variant, in distribution, stays >= 90% up to), e.g. `readings.coupling_claim`'s.
        diagnosis: `readings.ppc_diagnosis` of the grid's PPC models.
        lookup: `readings.lookup_table` of the grid's PPC models.
        verdicts: {what is judged ("Fig. 8 against j=1 RoPE+PoSE"): its verdict}.
        trained_length: the longest training length, in the unit of the models' lengths.
    """
    def each(phrases) -> str:
        return "; ".join(phrases) or "none yet"

    lookups = [lookup_phrase(panel, g.droplevel(0), trained_length) for panel, g in lookup.groupby(level=0)]
    return {f"{name}_trained": trained_length, f"{name}_lookup": each(lookups),
            f"{name}_models": each(reach_phrase(r) for _, r in models.iterrows()),
            f"{name}_where": each(where_phrase(d) for d in diagnosis.itertuples()),
            f"{name}_verdicts": and_list(f"{what}: {verdict_word(v)}" for what, v in verdicts.items()) or "none yet"}


def past_reach(curves: pd.DataFrame, reaches: pd.Series) -> pd.DataFrame:
    """Per variant of accuracy curves (variant, length, value; the mean over seeds), its accuracy at the first length
    past its reach (`reaches`: by variant): columns variant, beyond, beyond_at (none where no length is past it)."""
    mean = curves.groupby(["variant", "length"]).value.mean().reset_index()
    past = mean[mean.length > mean.variant.map(reaches)].sort_values("length").groupby("variant").first()
    return past.reset_index().rename(columns={"value": "beyond", "length": "beyond_at"})


def described(models: pd.DataFrame, accuracy: pd.DataFrame) -> pd.DataFrame:
    """`models` (variant, in distribution, reach) with what `reach_phrase` adds: each one's stored seeds and its
    accuracy past its reach (`past_reach`), from exact-match rows (variant, seed, length, value) labelled as the
    models are."""
    models = models.assign(seeds=models.variant.map(accuracy.groupby("variant").seed.nunique()))
    return models.merge(past_reach(accuracy, models.set_index("variant")[REACH]), on="variant", how="left")


def stored_scratchpad(runs: pd.DataFrame, profile: str) -> dict:
    """`stored_coupling` of the stored scratchpad grid at `profile` (values `sp_...`), on combined lengths: every
    jump's PPC model (Fig. 2's table), a jump control's model where the runs hold it (j - 1 at a larger jump's size,
    `rows.SEEDED_CONTROLS`), then j = 1's ablations (Fig. 8's, each judged against PPC by its own verdict)."""
    trained = ScratchpadParity(jump=1).combined(SCRATCHPAD_PROFILES[profile].train_lengths[1])
    if runs.empty:
        return stored_coupling(pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), {}, trained, "sp")
    curves, t2, jumps = scratchpad_reading(runs, profile)
    columns = ["variant", FIT, REACH]
    ablations = t2[t2[VERSUS] != ""]
    peers = curves[~curves.variant.isin([*t2.variant, *jumps.variant])]  # a jump control's model ("4x256 j=2 PPC")
    controls = fit_and_reach(peers, trained)[columns] if len(peers) else pd.DataFrame(columns=columns)
    models = described(pd.concat([jumps[columns], controls, ablations[columns]], ignore_index=True),
                       with_combined_length(runs[runs.metric == ACCURACY]))
    verdicts = {**{f"Fig. 2 for {r.variant}": r.verdict for r in jumps.iloc[1:].itertuples()},
                **{f"Fig. 8 against {r.variant}": r[VERSUS] for _, r in ablations.iterrows()}}
    combined = with_combined_length(runs)
    return stored_coupling(models, ppc_diagnosis(ppc_parts(combined, "variant"), trained),
                           lookup_table(combined, "variant"), verdicts, trained, "sp")


def by_seed(runs: pd.DataFrame, trained: int) -> tuple[str, pd.Series]:
    """A control's runs (labelled as their grid's, `as_grid`, lengths in the grid's unit) seed by seed: "on 50,000
    steps (sizing seeds 100 and 101): on seed 100, <each model's `reach_phrase`>; on seed 101, ...", and the first
    model's `fit_and_reach` row on the first seed. A mean over seeds would hide a seed that moves and one that does
    not."""
    steps, seeds = int(runs.budget.iloc[0]), sorted(runs.seed.unique())
    rows = {seed: fit_and_reach(runs[runs.seed == seed], trained).sort_values("variant") for seed in seeds}

    def phrase(seed: int) -> str:
        return and_list(reach_phrase(row) for _, row in rows[seed].iterrows())

    if len(seeds) == 1:
        return f"on {steps:,} steps (sizing seed {seeds[0]}), {phrase(seeds[0])}", rows[seeds[0]].iloc[0]
    each = "; ".join(f"on seed {seed}, {phrase(seed)}" for seed in seeds)
    return f"on {steps:,} steps (sizing seeds {and_list(seeds)}): {each}", rows[seeds[0]].iloc[0]


def scratchpad_control(runs: pd.DataFrame, jumps: tuple[int, ...] = ()) -> dict:
    """The control's sentence (`sizing.CONTROL`: j = 1 and 2 PPC of the scratchpad grid on the paper's steps, the
    sizing seeds; `jumps`, the control's declared jumps), value `sp_control`: how each stored jump fits and how far
    it reaches, seed by seed (`by_seed`), Fig. 2's rule (`jump_claim`) on each seed that holds both jumps, the first
    jump's lookup head's attention, and the declared jumps not stored yet; or that it is not stored yet."""
    if runs.empty:
        return {"sp_control": "not stored yet"}
    runs = as_grid(runs)
    missing = [f"j = {j}" for j in jumps if f"j={j} PPC" not in set(runs.variant)]
    pending = f"; {and_list(missing)} not stored yet" if missing else ""
    combined = with_combined_length(runs)
    trained = ScratchpadParity(jump=1).combined(longest_trained(runs))
    text, first = by_seed(combined, trained)
    accuracy = combined[combined.metric == ACCURACY]
    pairs = [f"on seed {seed}, {jump_claim(group, trained).verdict.iloc[1]}"
             for seed, group in accuracy.groupby("seed") if group.variant.nunique() > 1]
    rule = f"; Fig. 2's rule on this budget, seed by seed: {'; '.join(pairs)}" if pairs else ""
    lookup = lookup_table(combined[combined.variant == first.variant], "variant")
    spread = "" if lookup.empty else "; " + lookup_phrase(first.variant, lookup.droplevel(0), trained)
    return {"sp_control": text + rule + spread + pending}


def smaller_ppc(small: pd.DataFrame, large: pd.DataFrame, sizes: DecoderSizes) -> dict:
    """j = 1 PPC of the scratchpad grid at a smaller model and budget (`small`: the cpu grid's runs; `sizes`: its
    sizes) beside the grid the scorecard reads (`large`), value `sp_small`: how far each holds (combined lengths, the
    mean over each grid's seeds), and whether the larger model holds it further; or that it is not stored."""
    label = "j=1 PPC"
    if small.empty or not (small.variant == label).any():
        return {"sp_small": "is not stored at a smaller size"}
    trained = ScratchpadParity(jump=1).combined(sizes.train_lengths[1])
    row, here = (fit_and_reach(with_combined_length(runs[runs.variant == label]), trained).iloc[0]
                 for runs in (small, large))
    than = ("further" if here[REACH] > row[REACH] else "as far" if here[REACH] == row[REACH] else "less far")
    return {"sp_small": f"{reach_phrase(row)} at {model_text(sizes)} on {sizes.steps:,} steps, against "
                        f"{here[REACH]} here: the larger model on more steps holds it {than}"}


def assignment_control(runs: pd.DataFrame, grid: pd.DataFrame) -> dict:
    """The assignment control's sentence (`sizing.ASSIGNMENT_CONTROL`: PPC of the regime assignment grid on twice its
    steps, the sizing seeds), value `pa_steps`: how it fits and how far it reaches, seed by seed (`by_seed`), then
    the control's rule against the grid (`grid`: its runs on the seeds every cell has): where PPC fits and holds
    further than every grid seed on every control seed (`past_every`), the budget limits its reach at this size; and
    whether it reaches Fig. 3's bar (FLOOR times its training length); or that it is not stored yet."""
    if runs.empty:
        return {"pa_steps": "not stored yet"}
    runs, trained = as_grid(runs), longest_trained(runs)
    text = by_seed(runs, trained)[0]
    label = runs.variant.iloc[0]

    def reaches(frame: pd.DataFrame) -> list[tuple[int, bool]]:  # per seed of the control's model: reach, fits
        frame = frame[frame.variant == label]
        rows = (fit_and_reach(frame[frame.seed == seed], trained).iloc[0] for seed in sorted(frame.seed.unique()))
        return [(int(row[REACH]), bool(row.trained)) for row in rows]

    ours, theirs = reaches(runs), reaches(grid) if not grid.empty else []
    if not theirs:
        return {"pa_steps": f"{text}; the grid's {label} is not stored, so it cannot say what the budget changes"}
    seen = f"(the grid's seeds: {', '.join(str(r) for r, _ in theirs)})"
    bar = FLOOR * trained
    above, of = [r >= bar for r, _ in ours], f"Fig. 3's bar of {FLOOR:g}x its training length ({bar:g})"
    reached = (f"it reaches {of} on every seed" if all(above) else f"it reaches {of} on some seeds only"
               if any(above) else f"it stays under {of} on every seed")
    if all(fits for _, fits in ours) and past_every([r for r, _ in ours], [r for r, _ in theirs]):
        return {"pa_steps": f"{text}. It holds further than every grid seed on every control seed {seen}: the budget "
                            f"limits PPC's reach at this size; {reached}"}
    return {"pa_steps": f"{text}. It does not hold further than every grid seed on every control seed {seen}: the "
                        "added steps do not move PPC's reach past the grid's spread, so size and mechanism stay "
                        f"unseparated; {reached}"}


def stored_assignment_regime(runs: pd.DataFrame, profile: str) -> dict:
    """`stored_coupling` of the stored paper-format assignment grid at `profile` (values `pa_...`), on tokens: every
    model at every depth (labelled with its depth where there are several), Fig. 3's verdict per depth."""
    trained = ASSIGNMENT_PROFILES[profile].train_lengths[1]
    if runs.empty:
        return stored_coupling(pd.DataFrame(), pd.DataFrame(), pd.DataFrame(), {}, trained, "pa")
    claim = assignment_reading(runs, profile)[1]
    several = claim.depth.nunique() > 1

    def label(variant, depth) -> str:
        return f"{variant} (depth {depth})" if several else variant

    accuracy = runs[runs.metric == ACCURACY]
    accuracy = accuracy.assign(variant=[label(r.variant, r.depth) for r in accuracy.itertuples()])
    models = described(claim.assign(variant=[label(r.variant, r.depth) for r in claim.itertuples()]), accuracy)
    diagnosis = ppc_diagnosis(ppc_parts(runs, "depth"), trained)
    diagnosis = diagnosis.assign(panel=[label("PPC", d) for d in diagnosis.panel])
    verdicts = {f"Fig. 3 at depth {r.depth}": r.verdict for r in claim.itertuples() if r.variant == "PPC"}
    lookup = lookup_table(runs, "depth").rename(index=lambda d: label("PPC", d), level=0)
    return stored_coupling(models, diagnosis, lookup, verdicts, trained, "pa")


def format_control(runs: pd.DataFrame) -> dict:
    """The format control's sentence (`sizing.FORMAT_CONTROL`: no coupling in the delimited format at the assignment
    grid's size and budget, one run on a sizing seed), value `pa_control`: whether it fits its training lengths, and
    what one run can say of why the baselines are out of the grid; or that it is not stored yet."""
    if runs.empty:
        return {"pa_control": "not stored yet"}
    row = sizing_table(runs).iloc[0]
    seeds = f"one run, sizing seed {and_list(sorted(runs.seed.unique()))}"
    last = f"{row['last']:.1f}% at {row['train'].split('-')[1]} tokens"
    if row.fits:
        return {"pa_control": f"with each step ended by a separator (and so fewer chains per length), no coupling fits "
                              f"its training lengths at step {row['fits at step']:,.0f} of {row.budget:,} ({seeds}; "
                              f"{last}), at the size and budget where it did not fit unmarked: the missing separator "
                              "may be what keeps the baselines out of the grid"}
    return {"pa_control": f"with each step ended by a separator, no coupling still does not fit its training lengths "
                          f"in {row.budget:,} steps ({seeds}; {last}, final training loss {row['final loss']:.2f}): "
                          "marking the steps alone does not make it fit at this size and budget, which leaves size, "
                          "budget and format unseparated"}


# Section 8.

GRID_NAMES = {"parity": "sparse parity", "scratchpad": "parity with a scratchpad", "assignment": "variable assignment",
              "language": "language"}  # the grids of `rows.seed_table`, as the prose names them
ONE_SEED = ", so this page's verdicts of those are one seed's"  # of the live parts that change with the seed


def kept(table: pd.DataFrame, changed: str = "") -> str:
    """"1 of the 4 claim parts judged on every seed keep one verdict class; the other 3 change with the seed
    <changed>; 2 are not judged on any seed (no model of theirs fits)" of a `rows.seed_table` check."""
    judged = table[table[SAME] != NOT_JUDGED]
    same = int((judged[SAME] == "yes").sum())
    text = (f"{same} of the {len(judged)} claim parts judged on every seed keep one verdict class" if same else
            f"none of the {len(judged)} claim parts judged on every seed keeps one verdict class")
    if 0 < same < len(judged):
        text += f"; the other {len(judged) - same} change with the seed{changed}"
    elif not same and len(judged):
        text += f": all change with the seed{changed}"
    if len(judged) < len(table):
        n = len(table) - len(judged)
        text += f"; {n} {'is' if n == 1 else 'are'} not judged on any seed (no model of theirs fits)"
    return text


def seed_words(seeds: list) -> str:
    """"seed 2", "seeds 0 and 1"."""
    return f"seed{'s' if len(seeds) > 1 else ''} {and_list(seeds)}"


def unsteady_fits(fits: pd.DataFrame) -> str:
    """"; j=1 PPC fits its training lengths on seeds 0 and 1, not on seed 2" for each model of a `rows.seed_table` fit
    table that fits (>= TRAINED) on some of its seeds and not on others; "" when none."""
    phrases = []
    for (_, model), row in fits.iterrows():
        values = {column.removeprefix("seed "): v for column, v in row.items() if v != "–"}
        fit = [seed for seed, v in values.items() if v >= TRAINED]
        if 0 < len(fit) < len(values):
            phrases.append(f"{model} fits its training lengths on {seed_words(fit)}, not on "
                           f"{seed_words([seed for seed in values if seed not in fit])}")
    return "".join(f"; {phrase}" for phrase in phrases)


def seed_check(live: tuple[pd.DataFrame, pd.DataFrame], stored: tuple[pd.DataFrame, pd.DataFrame],
               profile: str) -> dict:
    """Section 8: whether the verdicts hold seed by seed (`rows.seed_table`: the check and the fit of each model),
    the live runs' beside the stored runs of their sizes on seeds the live runs do not use (`rows.live_seed_check`),
    or why there is no such check; and the stored grids' each seed alone, where their verdicts read the mean."""
    (check, fits), (stored_check, stored_fits) = live, stored
    seeds = [c.removeprefix("seed ") for c in check.columns if c.startswith("seed ")]
    if profile not in SEED_CHECK:
        text = f"The live seed check reads the {and_list(SEED_CHECK)} profile only; this page ran at {profile}."
    elif check.empty:
        text = (f"No two seeds of every live grid's cells are stored yet (lengthgen run sparsity-parity --profile "
                f"{profile} --seeds {','.join(map(str, SEED_CHECK[profile]))}, and likewise sparsity-scratchpad).")
    else:
        text = (f"On seeds {and_list(seeds)} (the first the live runs', the others stored at the same sizes), "
                f"{kept(check, ONE_SEED)}{unsteady_fits(fits)}.")
    if stored_check.empty:
        return {"seed_check": text, "seed_check_stored": "no grid has two complete seeds yet"}
    grids = and_list([GRID_NAMES[name] for name in dict.fromkeys(stored_check.grid)])
    return {"seed_check": text, "seed_check_stored": f"those of {grids} (the grids with two or more complete seeds): "
                                                     f"{kept(stored_check)}{unsteady_fits(stored_fits)}"}


# Section 9.

def not_yet(sizing_runs: pd.DataFrame, beyond_runs: pd.DataFrame, profile: str = "regime",
            beyond: str = "full") -> dict:
    """Section 9: what the sizing run that found the profile's variable-assignment PPC cost (its model and budget;
    CPU-hours, `sizing_runs`: the stored runs of `sparsity-sizing-assignment`), how many variants a depth has, what
    the larger profile adds (depths, model) and how many of its runs are stored (`beyond_runs`: the stored runs of
    `sparsity-assignment` at `beyond`)."""
    p, larger = ASSIGNMENT_PROFILES[profile], ASSIGNMENT_PROFILES[beyond]
    declared = len(assignment_runs(larger, larger.seeds))
    stored = beyond_runs.key.nunique() if len(beyond_runs) else 0
    ppc = f"{model_size(p.layers, p.width)} PPC"
    found = sizing_runs[(sizing_runs.variant == ppc) & (sizing_runs.budget == p.steps)]
    return {"notyet_model": model_text(p), "notyet_steps": p.steps,
            "notyet_hours": span(found.groupby("key").wall_seconds.first() / 3600, "{:.1f}"),
            "notyet_variants": count_of(len(assignment_runs(p, p.seeds[:1])) // len(p.depths), "model"),
            "notyet_depths": and_list(sorted(set(larger.depths) - set(p.depths))),
            "notyet_larger": model_text(larger), "notyet_paper_params": paper.LANGUAGE_PARAMETERS / 1e9,
            "notyet_stored": f"{stored} of its {declared} runs stored"}
