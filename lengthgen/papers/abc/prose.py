"""The numbers and verdict words of the attention-bias-calibration chapter's prose, read from its frames: one function
per paragraph, returning the values that the paragraph shows with `{glue:text}` (`display.glue_values`), each name
with the paragraph's prefix. Sentences about the stored runs that are not numbers are bound with `display.holds`
(the build fails when the runs stop supporting them); sentences about the live run are generated, since the
chapter runs at every profile.

Frames: `curves` is `experiments.arithmetic_reading`'s "curves" (task, model, seed, length, value: exact match in %;
ABC models by stage, e.g. "ABC (code, NoPE)"), `claims` its "claims" (`readings.model_claims`), `runs` tidy stored
runs (for the final training loss)."""

import pandas as pd

from lengthgen.analysis.calibration import CODE_CROSS, CODE_SELF, PAPER
from lengthgen.analysis.compare import reach
from lengthgen.analysis.verdicts import FAILED, NOT_TRAINED, TOLERANCE, TRAINED
from lengthgen.display import and_list, holds, span, word
from lengthgen.metrics import ACCURACY
from lengthgen.papers.abc.experiments import TABLE1_TASKS, ArithmeticSizes
from lengthgen.papers.abc.factor_readings import EFFECT
from lengthgen.papers.abc.paper import LISTOPS_TASKS, TABLE_3, UNITS, title
from lengthgen.papers.abc.phrases import (
    ABC_NOPE,
    ABC_POSITIONS,
    by_seed,
    claim,
    collapse_from,
    count_phrase,
    describe,
    fit_collapse,
    fits,
    loss_of,
    loss_span,
    loss_text,
    losses,
    median_curve,
    num,
    paper_class,
    paper_values,
    seed_list,
    seeds_phrase,
    times,
    values,
    versus_paper,
)
from lengthgen.papers.abc.readings import COLLAPSE_FROM, TRAINED_DIGITS, curve_class, ours_only
from lengthgen.tasks import TASKS
from lengthgen.tasks.arithmetic import INTERPOLATION_RANGE

RULE_WORDS = {"ABC (paper)": "by the paper's rule", "ABC (code)": "by the code's rule",
              "ABC (paper, NoPE)": "by the paper's rule", "ABC (code, NoPE)": "by the code's rule"}
FACTOR_RULE_WORDS = {"paper": "the paper's rule", "code": "our rule", "public": "the public code's rule"}
MAX_TRAINING_DIGITS = len(str(2**20))  # the interpolation numbers, 0 .. 2^20, have at most this many digits


def rules() -> dict[str, str]:
    """The rules' bars, as the rules paragraph states them."""
    return {"rule_tol": num(TOLERANCE), "rule_bar": num(TRAINED), "rule_fail": num(FAILED),
            "rule_iid": str(TRAINED_DIGITS), "rule_far": str(COLLAPSE_FROM)}


def live_successor(live: dict[str, pd.DataFrame], profile: str) -> dict[str, str]:
    """Section 3's paragraph on the live Successor run: each Table 1 model's curve in words beside the paper's, ABC
    with and without positions, and what they say together (generated: the live run's profile may be any)."""
    curves, claims, task = live["curves"], live["claims"], "successor"
    present = set(curves[curves.task == task].model)
    out = {"live_profile": profile, "live_seeds": seed_list(sorted(set(curves.seed)))}
    for model in ("vanilla", "RoPE", "ALiBi"):
        key = f"live_{model.lower()}"
        out[key] = describe(median_curve(curves, task, model)) if model in present else "is not run at this profile"
        tested = model in present and TRAINED_DIGITS in set(median_curve(curves, task, model).length)
        out[key + "_vs"] = versus_paper(claims, task, model) if tested else "so it says nothing beside the paper"
    out["live_paper_alibi6"] = num(paper_values(task, "ALiBi")[0])
    out["live_abc_pos"] = _rules_in_words(curves, task, [m for m in ABC_POSITIONS if m in present])
    out["live_abc_nope"] = _rules_in_words(curves, task, [m for m in ABC_NOPE if m in present])
    pos = [curve_class(median_curve(curves, task, m), "value") for m in ABC_POSITIONS if m in present]
    nope = [curve_class(median_curve(curves, task, m), "value") for m in ABC_NOPE if m in present]
    if pos and "extrapolates" in pos:
        out["live_lesson"] = ("So ABC with the trained model's sinusoids extrapolates here by at least one rule, "
                              "which is the paper's claim as it states it.")
    elif pos and "partly" in pos:
        out["live_lesson"] = ("So ABC with the trained model's sinusoids carries part of the way beyond the training "
                              "numbers here, the paper's claim in part; section 7 reads the stored runs.")
    elif pos and nope and all(c == "collapses" for c in pos) and all(c == "extrapolates" for c in nope):
        out["live_lesson"] = ("So here ABC holds only without positions, a variant of ours; with the sinusoids, as "
                              "the paper states it, it collapses. Section 7's factor study measures which of our "
                              "set-up's differences from the paper's decides this.")
    else:
        out["live_lesson"] = ("At this profile no ABC model with the sinusoids extrapolates; section 7 reads the "
                              "stored runs.")
    return out


def _rules_in_words(curves: pd.DataFrame, task: str, models: list[str]) -> str:
    """ABC models of both rules in words, each rule's curve by `describe` ("is not run at this profile": none)."""
    if not models:
        return "is not run at this profile"
    return "; ".join(f"{RULE_WORDS[m]} {describe(median_curve(curves, task, m))}" for m in models)


def live_attention(mass: pd.DataFrame) -> dict[str, str]:
    """Section 4's sentence on the anti-diagonal weight of the live Successor models' last layer at their longest
    length (`readings.anti_diagonal_mass` rows: task, model, length, inside, beyond)."""
    rows = mass[mass.task == "successor"]
    last = rows[rows.length == rows.length.max()].set_index("model")

    def weight(model: str, where: str) -> str:
        value = last[where].get(model, float("nan"))
        return "–" if value != value else f"{value:.2f}"

    abc = [m for m in last.index if m.startswith("ABC") and "NoPE" not in m]
    return {"attn_length": str(int(rows.length.max())), "attn_vanilla_inside": weight("vanilla", "inside"),
            "attn_vanilla_beyond": weight("vanilla", "beyond"),
            "attn_abc": "; ".join(f"{m}: {weight(m, 'inside')} inside, {weight(m, 'beyond')} beyond" for m in abc)
            or "no ABC model with positions at this profile"}


def live_bias(bias: pd.DataFrame) -> dict[str, str]:
    """Section 5's sentence on what each live ABC bias does alone (`readings.bias_readings` rows), by rule: the weight
    its softmax puts on the anti-diagonal, and the source tokens it leaves open per step."""
    out = {"bias_length": str(int(bias.length.max())) if len(bias) else "–"}
    for rule in ("paper", "code"):
        at = bias[bias.model.str.endswith(f"ABC ({rule})")]
        out[f"bias_{rule}_line"] = f"{at['bias on line'].mean():.2f}" if len(at) else "–"
        out[f"bias_{rule}_keys"] = f"{at['open keys, cross'].mean():.1f}" if len(at) else "–"
    return out


def third_direction(counts: pd.DataFrame) -> dict[str, str]:
    """Section 5's sentence on the direction our cross-attention leaves out (`experiments.third_directions` rows),
    by rule: the range over heads (and tasks) of the cells it would change, of a head's cells at that length."""
    out = {"third_length": span(counts.length, "{:.0f}"), "third_of": span(counts["of"], "{:,.0f}")}
    for rule in ("paper", "code"):
        out[f"third_{rule}"] = span(counts[counts.rule == rule].cells, "{:.0f}")
    return out


def complete(curves: pd.DataFrame, seeds) -> bool:
    """Whether every (task, model) of `curves` has every one of `seeds`."""
    have = curves.groupby(["task", "model"]).seed.agg(lambda s: set(s.astype(int)))
    return all(set(seeds) <= got for got in have)


def stored_successor(curves: pd.DataFrame, claims: pd.DataFrame, seeds, steps: int, quick_steps: int) -> dict:
    """Section 7's Successor paragraph on the stored runs (`seeds`: the grid's declared seeds; `steps`: its
    training steps, `quick_steps` the live `quick` profile's)."""
    task, cls = "successor", {m: claim(claims, "successor", m) for m in (
        "vanilla", "ALiBi", "RoPE", *ABC_POSITIONS, *ABC_NOPE, "w=1, sinusoidal", "w=1, T=3", "w=1, NoPE")}
    holds(complete(curves, seeds), "every cell of both grids, three seeds")
    median = {m: dict(zip(c.length, c.value, strict=True)) for m in cls for c in [median_curve(curves, task, m)]}
    vanilla, pair = fit_collapse(curves, task, "vanilla"), fit_collapse(curves, task, ["ALiBi", "RoPE"])
    holds(vanilla["seeds"] == sorted(seeds), "The vanilla model is 100% at 6 digits and 0% from 8")
    holds(all(cls[m].ours == "collapses" for m in ABC_POSITIONS), "ABC with the sinusoids collapses by both rules")
    holds(all(cls[m].verdict == "reproduced" for m in ABC_NOPE) and all(cls[m].verdict != "reproduced"
                                                                         for m in ABC_POSITIONS),
          "the paper's claim (ABC with the sinusoids) is not reproduced; only our variant without positions holds")
    holds(cls["w=1, T=3"].ours == "extrapolates", "The scaffold with cyclic positions holds 100% to 24")
    holds(cls["w=1, sinusoidal"].ours == "collapses", "with the sinusoids it collapses like the vanilla model")
    holds(cls["w=1, NoPE"].ours == "does not interpolate", "without positions it does not fit")
    holds(cls["RoPE"].verdict == "reproduced", "RoPE as in the paper")
    holds(paper_class(task, "ALiBi") == "does not interpolate" and cls["ALiBi"].ours != "does not interpolate",
          "ALiBi, which the paper finds unable to interpolate, fits here")
    return {"succ_seeds": word(len(seeds)), "succ_steps": f"{steps:,}",
            "succ_budget": times(steps, quick_steps),
            "succ_van6": vanilla["at6"], "succ_van_far": vanilla["far"], "succ_van_from": str(vanilla["from"]),
            "succ_abc_p8": num(median["ABC (paper)"][8]), "succ_abc_c8": num(median["ABC (code)"][8]),
            "succ_abc_far": span((v for m in ABC_POSITIONS for n, v in median[m].items() if n >= COLLAPSE_FROM), num),
            "succ_nope": span((v for m in ABC_NOPE for v in median[m].values()), num),
            "succ_longest": str(max(median["vanilla"])),
            "succ_t3": span(values(curves, task, "w=1, T=3"), num),
            "succ_paper_sin": span(paper_values(task, "w=1, sinusoidal"), num),
            "succ_nope6": num(median["w=1, NoPE"][TRAINED_DIGITS]),
            "succ_paper_nope": span(paper_values(task, "w=1, NoPE"), num),
            "succ_ar6": pair["at6"], "succ_ar_from": str(pair["from"]),
            "succ_ar_seeds": seeds_phrase(pair["seeds"], pair["all"]),
            "succ_paper_alibi6": num(paper_values(task, "ALiBi")[0])}


def _fitting(curves: pd.DataFrame, task: str, model: str) -> tuple[list[int], list[int]]:
    """(seeds where a model fits its training numbers, seeds where it does not)."""
    seeds = by_seed(curves, task, model)
    return [s for s, c in seeds.items() if fits(c)], [s for s, c in seeds.items() if not fits(c)]


def stored_addition(curves: pd.DataFrame, claims: pd.DataFrame, runs: pd.DataFrame, seeds, steps: int,
                    retrain: int, successor_steps: int) -> dict:
    """Section 7's Addition paragraph: which seeds fit, how the models that fit collapse, seed by seed, the ABC models
    of the seeds whose vanilla model fits, and Table 3's scaffolds. `runs`: the stored tidy runs (their losses)."""
    task, at6, loss = "addition", (lambda n: n == TRAINED_DIGITS), losses(runs)
    holds(complete(curves[curves.task == task], seeds), "every cell has its three seeds")
    fit, unfit = _fitting(curves, task, "vanilla")
    holds(bool(fit) and bool(unfit), "The vanilla model fits its training numbers in some seeds, not in others")
    vanilla = fit_collapse(curves, task, "vanilla")
    holds(vanilla["seeds"] == fit and paper_class(task, "vanilla") == "collapses",
          "[the vanilla model] collapses beyond, as in the paper")
    alibi = fit_collapse(curves, task, "ALiBi")
    rope_fit, rope_unfit = _fitting(curves, task, "RoPE")
    plateau = [round(v, 2) for v in loss_of(loss, task, "RoPE", rope_unfit) + loss_of(loss, task, "vanilla", unfit)]
    holds(bool(rope_unfit) and len(set(plateau)) == 1, "seed 2 stays on the same plateau as the vanilla model's seed 1")
    abc = [*ABC_POSITIONS, *ABC_NOPE]
    per_seed = {m: by_seed(curves, task, m) for m in abc}
    best_model, best_seed = max(((m, s) for m in abc for s in per_seed[m]), key=lambda ms: reach(pd.DataFrame(
        {"length": list(per_seed[ms[0]][ms[1]]), "value": list(per_seed[ms[0]][ms[1]].values())})))
    best = per_seed[best_model][best_seed]
    held = sorted(n for n in best if n > TRAINED_DIGITS and all(best[k] >= TRAINED for k in best if k <= n))
    others = [per_seed[m][best_seed] for m in abc if m != best_model]
    holds(best_model == "ABC (code, NoPE)" and bool(held) and curve_class(pd.DataFrame(
        {"length": list(best), "v": list(best.values())}), "v") == "partly",
          "one extrapolates, and only partly: the code's rule without positions")
    holds(all(collapse_from(c) == min(n for n in c if n > TRAINED_DIGITS) for c in others),
          "the paper's rule without positions, and both rules with the sinusoids, collapse from 8 digits")
    abc_fit = {s for m in abc for s, c in per_seed[m].items() if fits(c)}
    abc_unfit = [s for s in fit if s not in abc_fit]  # seeds whose vanilla model fits and no ABC model does
    holds(bool(abc_unfit), "Seed 2's ABC models do not fit 6 digits")
    sin = fit_collapse(curves, task, "w=1, sinusoidal")
    t3_nope = ("w=1, T=3", "w=1, NoPE")
    holds(all(claim(claims, task, m).verdict == NOT_TRAINED for m in t3_nope),
          "Table 3's Addition rows with T = 3 and without positions are \"not trained\"")
    return {
        "add_steps": f"{steps:,}", "add_ratio": times(steps, successor_steps),
        "add_seeds": word(len(seeds)), "add_van_fit_seeds": seeds_phrase(fit, seeds),
        "add_van_fit6": vanilla["at6"], "add_van_fit_loss": loss_text(max(loss_of(loss, task, "vanilla", fit))),
        "add_van_far": vanilla["far"], "add_van_from": str(vanilla["from"]),
        "add_van_unfit_seeds": seeds_phrase(unfit, seeds),
        "add_van_unfit6": span((c[TRAINED_DIGITS] for s, c in by_seed(curves, task, "vanilla").items()
                                if s in unfit), num),
        "add_van_unfit_loss": loss_span(loss_of(loss, task, "vanilla", unfit)),
        "add_alibi_seeds": seeds_phrase(alibi["seeds"], seeds), "add_alibi6": alibi["at6"],
        "add_alibi_far": alibi["far"], "add_alibi_from": str(alibi["from"]),
        "add_rope_fit_seeds": seeds_phrase(rope_fit, seeds), "add_rope_unfit": seed_list(rope_unfit),
        "add_rope_unfit6": span((c[TRAINED_DIGITS] for s, c in by_seed(curves, task, "RoPE").items()
                                if s in rope_unfit), num),
        "add_rope_unfit_loss": loss_span(loss_of(loss, task, "RoPE", rope_unfit)),
        "add_best_seed": seed_list([best_seed]), "add_abc_n": word(len(abc)),
        "add_best_held": " / ".join(num(best[n]) for n in held), "add_best_held_at": " / ".join(map(str, held)),
        "add_best_fades": ", ".join(f"{num(best[n])}% at {n}" for n in sorted(best) if n > max(held)),
        "add_paper_abc": span(paper_values(task, "ABC"), num),
        "add_others": span((v for c in others for n, v in c.items() if n > TRAINED_DIGITS), num),
        "add_abc_unfit_seeds": seeds_phrase(abc_unfit, seeds), "add_retrain": f"{retrain:,}",
        "add_abc_unfit6": span((per_seed[m][s][TRAINED_DIGITS] for m in abc for s in abc_unfit), num),
        "add_abc_novan6": span((per_seed[m][s][TRAINED_DIGITS] for m in abc for s in unfit), num),
        "add_sin_seeds": seeds_phrase(sin["seeds"], seeds), "add_sin6": sin["at6"], "add_sin_far": sin["far"],
        "add_sin_from": str(sin["from"]),
        "add_t3_6": span(values(curves, task, "w=1, T=3", at6), num),
        "add_t3_loss": loss_span(loss_of(loss, task, "w=1, T=3")),
        "add_nope6": span(values(curves, task, "w=1, NoPE", at6), num),
        "add_nope_loss": loss_span(loss_of(loss, task, "w=1, NoPE")),
        "add_t3nope_fit": seeds_phrase({s for m in t3_nope for s in _fitting(curves, task, m)[0]}, seeds),
        "add_paper_t3nope": span((v for m in t3_nope for v in paper_values(task, m)), num)}


def six_item_share() -> float:
    """The share (%) of ListOps' training lists that have 6 items: its training pool's 6-digit numbers (training
    draws from the pool uniformly)."""
    pool = TASKS["listops_sum"]().pool("train")
    return 100.0 * float(((pool >= 10**5) & (pool < 10**6)).float().mean())


def balanced_intro(share: float) -> dict[str, str]:
    """The ListOps-mix subsection's opening: the share of 6-item lists in the stock training mix (`six_item_share`)."""
    return {"mix_six": f"{share:.0f}"}


def stored_others(curves: pd.DataFrame, claims: pd.DataFrame, balanced: pd.DataFrame, seeds, steps: int,
                  share: float) -> dict:
    """Section 7's paragraph on N x 1, Parity and ListOps, and the stored `abc-balanced` runs (`balanced`: their
    tidy runs) beside them; `share`: the stock mix's share of 6-item lists (`six_item_share`)."""
    n1, at6, beyond = "times_digit", (lambda n: n == TRAINED_DIGITS), (lambda n: n > TRAINED_DIGITS)
    plain, abc = ("vanilla", "ALiBi", "RoPE"), (*ABC_POSITIONS, *ABC_NOPE)
    far_medians = [r.value for m in plain for r in median_curve(curves, n1, m).itertuples()
                   if r.length >= COLLAPSE_FROM]
    holds(complete(curves[curves.task.isin([n1, "parity", "listops_sum", "listops_max", "listops_min"])], seeds),
          "(3,000 steps, three seeds each)")
    holds(all(fits(c) for m in plain for c in by_seed(curves, n1, m).values())
          and max(far_medians) < min(values(curves, n1, plain, at6)),
          "N x 1's vanilla model, ALiBi and RoPE fit and fall beyond")
    holds(claim(claims, n1, "vanilla").ours == "collapses" and claim(claims, n1, "vanilla").verdict == "reproduced",
          "the vanilla model collapses, as the paper's")
    holds(not any(fits(c) for m in abc for c in by_seed(curves, n1, m).values()),
          "none of its ABC models fits its training numbers")
    t3 = {s for s, c in by_seed(curves, n1, "w=1, T=3").items() if min(c.values()) >= TRAINED}
    holds(claim(claims, n1, "w=1, T=3").verdict == "reproduced", "The scaffold with cyclic positions holds ..., as in "
                                                                  "the paper")
    sin_far = max(v for n, v in dict(median_curve(curves, n1, "w=1, sinusoidal").values).items() if n >= COLLAPSE_FROM)
    holds(claim(claims, n1, "w=1, sinusoidal").ours == "partly" and FAILED < sin_far <= FAILED + TOLERANCE,
          "[its median from 10 digits] is just above our collapse bar, hence \"partly\"")
    holds(claim(claims, n1, "w=1, NoPE").ours == "does not interpolate", "without positions it does not fit")
    paper_sin = dict(zip((6, 10, 15, 20, 50), paper_values(n1, "w=1, sinusoidal"), strict=True))
    parity = by_seed(curves, "parity", "w=1, T=3")
    longest = max(next(iter(parity.values())))
    kept = min(reach(pd.DataFrame({"length": list(c), "value": list(c.values())})) for c in parity.values())
    sin_median = median_curve(curves, "parity", "w=1, sinusoidal")
    sin_reach = reach(sin_median)
    after = min(n for n in sin_median.length if n > sin_reach)
    holds(sin_reach <= len(bin(2**20)) - 2, "With the sinusoids Parity holds ..., inside its training numbers")
    holds(claim(claims, "parity", "w=1, NoPE").ours == "does not interpolate", "[Parity] without positions it does "
                                                                               "not fit")
    maxmin = [values(curves, t, "w=1, T=3") for t in ("listops_max", "listops_min")]
    mm_seeds = [s for s in seeds if all(min(by_seed(curves, t, "w=1, T=3")[s].values()) >= TRAINED
                                        for t in ("listops_max", "listops_min"))]
    holds(all(claim(claims, t, "w=1, T=3").verdict == "reproduced" for t in ("listops_max", "listops_min")),
          "MAX and MIN hold ..., as the paper says")
    lsum = curves[(curves.task == "listops_sum") & (curves.length > TRAINED_DIGITS)]
    in_phase, off_phase = lsum[lsum.length % 3 == 0], lsum[lsum.length % 3 != 0]
    holds(in_phase.value.min() > off_phase.value.max(), "SUM mod 10 is ... uneven beyond, in step with the length "
                                                        "modulo the period T = 3")
    bal = balanced[(balanced.metric == ACCURACY) & (balanced.length > 0)]
    bal_seeds = [s for s, g in bal.groupby("seed") if g.value.min() >= TRAINED]
    holds(complete(bal.assign(model="balanced"), seeds) and len(bal_seeds) == len(seeds),
          "the same config scores ... at every length from 3 to 24 items in all three seeds")
    return {
        "oth_steps": f"{steps:,}", "oth_seeds": word(len(seeds)),
        "oth_n1_6": span(values(curves, n1, plain, at6), num), "oth_n1_far": num(max(far_medians)),
        "oth_n1_from": COLLAPSE_FROM,
        "oth_n1_abc6": span(values(curves, n1, abc, at6), num),
        "oth_n1_t3": span(values(curves, n1, "w=1, T=3"), num), "oth_n1_t3_seeds": seeds_phrase(t3, seeds),
        "oth_n1_sin_far": span(values(curves, n1, "w=1, sinusoidal", beyond), num),
        "oth_paper_sin10": num(paper_sin[10]), "oth_paper_sin_after": num(max(v for n, v in paper_sin.items()
                                                                              if n > 10)),
        "oth_n1_sin_max": num(sin_far), "oth_n1_nope6": span(values(curves, n1, "w=1, NoPE", at6), num),
        "oth_par_t3": span((v for c in parity.values() for n, v in c.items() if n <= kept), num),
        "oth_par_reach": str(kept),
        "oth_par_t3_seeds": seeds_phrase(list(parity), seeds), "oth_par_longest": str(longest),
        "oth_par_last": f"{seed_list(parity)} score {and_list(num(parity[s][longest]) for s in sorted(parity))}",
        "oth_par_sin_reach": str(sin_reach), "oth_par_sin_after": span(values(curves, "parity", "w=1, sinusoidal",
                                                                              lambda n: n == after), num),
        "oth_par_sin_at": str(after), "oth_par_nope": span(values(curves, "parity", "w=1, NoPE"), num),
        "oth_mm": span((v for vs in maxmin for v in vs), num), "oth_mm_seeds": seeds_phrase(mm_seeds, seeds),
        "oth_sum6": span(values(curves, "listops_sum", "w=1, T=3", at6), num),
        "oth_sum_in": span(in_phase.value, num), "oth_sum_in_at": and_list(sorted(set(in_phase.length))),
        "oth_sum_off": span(off_phase.value, num), "oth_sum_off_at": and_list(sorted(set(off_phase.length))),
        "oth_six": f"{share:.0f}", "oth_bal": span(bal.value, num), "oth_bal_from": str(bal.length.min()),
        "oth_bal_to": str(bal.length.max()), "oth_bal_seeds": seeds_phrase(bal_seeds, seeds)}


def not_yet(curves: pd.DataFrame, seeds, steps: int, regime_done: bool, attention_tasks=()) -> str:
    """Section 9 as a Markdown list: Addition in the first grids (how many vanilla seeds fit at their budget, and that
    no scaffold with T = 3 or without positions does), the regime grids while they are incomplete, Figs. 2, 8, 9 on
    Addition unless `attention_tasks` (the tasks whose stored runs judge them) has it, the paper's third direction in
    cross-attention, the paper's scale."""
    fit, _ = _fitting(curves, "addition", "vanilla")
    holds(not any(_fitting(curves, "addition", m)[0] for m in ("w=1, T=3", "w=1, NoPE")),
          "no scaffold with T = 3 or without positions [fits Addition]")
    items = [f"**A budget at which Addition fits in the first grids**: {steps:,} steps fit "
             f"{count_phrase(len(fit), len(seeds))} vanilla seeds and no scaffold with T = 3 or without positions, so "
             "those grids' Addition rows say little about length; a larger budget would be a new grid."]
    if not regime_done:
        items.append("**The grids in the factor study's regime, complete**: the `regime` profile (`lengthgen run "
                     "abc-table1 --profile regime`, likewise `abc-scaffolding`); section 7 shows the runs stored so "
                     "far. Until every cell has its seeds, section 8 judges the first grids, whose model is the factor "
                     "study's baseline.")
    if "addition" not in attention_tasks:
        items.append("**Figs. 2, 8, 9 on Addition**: its stored runs read the attention on one operand's digit only, "
                     "where the paper's heads split the operands; rerunning Table 1's Addition runs reads both.")
    items.append("**The paper's third direction in cross-attention** (its diagonal, section 2): the stored grids "
                 "leave it out; adding it is a new grid.")
    items.append("**The paper's scale**: 6 decoder layers of width 128 and tests to 50 digits are the `full` profile, "
                  "for a GPU.")
    return "\n".join(f"- {item}" for item in items)


def regime_status(done: bool) -> dict[str, str]:
    """Section 7's sentence on the regime grids: complete, or a preview that section 8 does not judge yet."""
    return {"regime_status": "Every cell has its seeds: section 8 judges the paper against these grids." if done else
            "Until every cell has its seeds they are a preview: section 8 judges the paper against the first grids, "
            "and against these once both are complete."}


def task_sizes(quick: ArithmeticSizes) -> dict[str, str]:
    """Section 1's test sizes: the examples per length of the `quick` profile, and the share of the interpolation
    numbers (0 .. INTERPOLATION_RANGE) with 5, 6 and 7 digits."""
    share = {d: 100 * (min(INTERPOLATION_RANGE, 10**d - 1) - 10 ** (d - 1) + 1) / (INTERPOLATION_RANGE + 1)
             for d in (5, 6, 7)}
    return {"tasks_quick_samples": f"{quick.samples:,}"} | {f"tasks_share{d}": f"{s:.1f}" for d, s in share.items()}


def calibration_rules() -> dict[str, str]:
    """Section 2's two rules for the lines ABC keeps (`analysis.calibration.PAPER`, `CODE_CROSS`, `CODE_SELF`)."""
    code = (CODE_CROSS, CODE_SELF)
    holds(PAPER.reduce == "mean" and PAPER.subtract_max and not PAPER.nonzero_only and PAPER.rows is None,
          "The paper's: the mean of each line, kept above the mean + 2 sd, then shifted so the strongest is 0")
    holds(all(r.reduce == "sum" and r.nonzero_only and not r.subtract_max and r.rows == CODE_CROSS.rows for r in code),
          "The code's: line sums, kept above ... of the distinct non-zero sums, from the first six rows only")
    return {"calib_paper_sd": f"{PAPER.sigmas:g}", "calib_cross_sd": f"{CODE_CROSS.sigmas:g}",
            "calib_self_sd": f"{CODE_SELF.sigmas:g}", "calib_rows": word(CODE_CROSS.rows)}


def stored_setup(cpu: ArithmeticSizes) -> dict[str, str]:
    """Section 7's opening: the `cpu` profile's budgets, Parity's padding and tests, the test examples per length."""
    steps, retrain = cpu.budget("successor")
    add_steps, add_retrain = cpu.budget("addition")
    parity = cpu.for_task("parity")
    return {"setup_seeds": word(len(cpu.seeds)), "setup_steps": f"{steps:,}",
            "setup_retrain": f"{retrain:,}", "setup_add_steps": f"{add_steps:,}",
            "setup_add_retrain": f"{add_retrain:,}",
            "setup_par_width": str(parity.operand_width), "setup_par_longest": str(max(parity.eval_lengths)),
            "setup_par_train_bits": str(len(bin(2**20)) - 2), "setup_samples": f"{cpu.samples:,}"}


def factor_study(effects: pd.DataFrame, table: pd.DataFrame) -> dict[str, str]:
    """The factor study's paragraph (`factor_readings`): the factors that help and hurt by its paired rule, how many
    seeds judge them, what choosing each course's best checkpoint at the longest length would have added, and where
    the baseline's ABC models go wrong first (the place, and how often with a 0)."""
    helps, hurts = (and_list(effects.factor[effects.verdict == v]) or "none" for v in ("helps", "hurts"))
    base = table[table.factor == "baseline"]
    longest = max(int(c) for c in table.columns if c.isdigit())
    gain = table[f"best at {longest}"] - table[str(longest)]
    worst = table.loc[gain.idxmax()] if len(table) else None
    return {"fs_points": f"{EFFECT:g}", "fs_helps": helps, "fs_hurts": hurts, "fs_seeds": span(effects.seeds, "{:.0f}"),
            "fs_longest": str(longest), "fs_gain": num(gain.max()) if worst is not None else "–",
            "fs_gain_where": f"{worst.factor}, {FACTOR_RULE_WORDS[worst.rule]}" if worst is not None else "–",
            "fs_unjudged": and_list(effects.factor[~effects.verdict.isin(["helps", "hurts", "no clear effect"])])
            or "none", "fs_base_at": span(base["first wrong at"], num),
            "fs_base_zero": span(base["first wrong 0"], num), "fs_train_digits": str(MAX_TRAINING_DIGITS)}


def _regime_head(task: str, have, seeds) -> str:
    """A regime paragraph's opening: the task and the seeds its reading stands on, "a preview" until all are in."""
    return (f"**{title(task)}** ({seed_list(have)} of the declared {word(len(seeds))}"
            f"{'' if set(seeds) <= set(have) else '; a preview'}):")


def regime_table1(curves: pd.DataFrame, claims: pd.DataFrame, fit: pd.DataFrame, seeds) -> str:
    """Section 7's reading of the regime's Table 1 as far as it is stored, a paragraph per task with a stored vanilla
    model: which seeds it stands on, then each model's curve (median over those seeds) with its verdict against the
    paper, the headline (ABC with the sinusoids by the paper's rule) first, the code's rule and our variant without
    positions apart, and
    what `fit` (`readings.abc_fit`) says of the ABC models that do not fit (`unfit_abc`). Generated, not bound: the
    regime's grids land run by run."""
    paragraphs = []
    for task in [t for t in TABLE1_TASKS if not curves[(curves.task == t) & (curves.model == "vanilla")].empty]:
        have, present = sorted(by_seed(curves, task, "vanilla")), set(curves[curves.task == task].model)

        def said(model: str, task=task) -> str:
            return f"{describe(median_curve(curves, task, model))}, {versus_paper(claims, task, model)}"

        text = [f"{_regime_head(task, have, seeds)} the vanilla model {said('vanilla')}."]
        if set(ABC_POSITIONS) <= present:
            text.append(f"ABC with the sinusoids by the paper's rule, the paper's headline and the one the verdict "
                        f"is about: it {said('ABC (paper)')}. By the code's rule (the public code's thresholds on our "
                        f"lines, a hybrid of ours) it {said('ABC (code)')}.")
        if set(ABC_NOPE) <= present:
            text.append(f"The same biases on a model without positions (ours, beyond the paper): by the code's rule it "
                        f"{describe(median_curve(curves, task, 'ABC (code, NoPE)'))}; by the paper's rule it "
                        f"{describe(median_curve(curves, task, 'ABC (paper, NoPE)'))}.")
        text += [f"{model} {said(model)}." for model in ("ALiBi", "RoPE") if model in present]
        paragraphs.append(" ".join(text + [unfit_abc(fit, task)]).strip())
    return "\n\n".join(paragraphs)


TWIN = dict(zip(ABC_POSITIONS, ABC_NOPE, strict=True))  # the same biases, without positions
TWIN |= {nope: sin for sin, nope in TWIN.items()}


def unfit_abc(fit: pd.DataFrame, task: str) -> str:
    """What the stored readings say of each of a task's ABC models that does not fit its training numbers
    (`readings.abc_fit`, medians over seeds): its score and training loss, the weight its bias alone puts on the
    anti-diagonal, the keys it leaves open, the weight the retrained model puts there, and the same biases on the
    model with (or without) positions beside it; weights that no stored run read right are left out, and said so
    once. "" when every ABC model fits."""
    rows = fit[fit.task == task].set_index("model")
    said, unread = [], False
    for model, row in rows[rows["at 6 digits"] < TRAINED].iterrows():
        twin = rows.loc[TWIN[model]] if TWIN[model] in rows.index else None
        where, other = (("without positions", "with the sinusoids") if ours_only(model)
                        else ("with the sinusoids", "without positions"))
        bias, attention = row["bias on line"], row["attention on line"]
        weights = [bias, attention] + ([] if twin is None else [twin["attention on line"]])
        unread |= any(w != w for w in weights)  # NaN: no stored run read the line right
        on_line = "" if bias != bias else f"puts {bias:.2f} of the cross-attention on the anti-diagonal and "
        text = (f"The ABC model {RULE_WORDS[model]} {where} does not fit ({num(row['at 6 digits'])}% at "
                f"{TRAINED_DIGITS} digits, training loss {loss_text(row['training loss'])}, medians over seeds): its "
                f"bias alone {on_line}leaves {row['open keys']:.1f} source keys open per step")
        if attention == attention:
            text += f", and the retrained model's last layer puts {attention:.2f} there"
        if twin is not None:
            weight = twin["attention on line"]
            text += (f" ({other}: {'' if weight != weight else f'{weight:.2f}, and '}{num(twin['at 6 digits'])}% at "
                     f"{TRAINED_DIGITS} digits)")
        said.append(text + ".")
    if unread:
        said.append("The weights on the line of these runs are not recorded: they read one operand's digit only.")
    return " ".join(said)


TABLE3_TASKS = (*dict.fromkeys(task for task, _, _ in TABLE_3), *LISTOPS_TASKS)  # the paper's order, then Appendix C
SCAFFOLD_WORDS = {"w=1, T=3": "with cyclic positions (T = 3)", "w=1, sinusoidal": "with the sinusoids",
                  "w=1, NoPE": "without positions (its source between markers, its window one digit back)"}


def regime_table3(curves: pd.DataFrame, claims: pd.DataFrame, seeds) -> str:
    """Section 7's reading of the regime's Table 3 and Appendix C as far as they are stored, a paragraph per task:
    the w = 1 scaffold with each positional scheme stored, its curve (median over the seeds the task's reading stands
    on) and its verdict beside the paper. ListOps, whose reach follows the list's length modulo T, is read as the
    lengths it holds and what it scores at the others. Generated, as `regime_table1`."""
    paragraphs = []
    for task in [t for t in TABLE3_TASKS if t in set(curves.task)]:
        models = [m for m in SCAFFOLD_WORDS if not curves[(curves.task == task) & (curves.model == m)].empty]
        if not models:
            continue
        have = sorted(set.intersection(*(set(by_seed(curves, task, m)) for m in models)))

        def said(model: str, task=task) -> str:
            curve = median_curve(curves, task, model)
            at = dict(zip(curve.length.astype(int), curve.value, strict=True))
            held = [n for n, v in at.items() if v >= TRAINED]
            if task in LISTOPS_TASKS and 0 < len(held) < len(at):
                return (f"holds {span((at[n] for n in held), num)}% at {and_list(held)} items and "
                        f"{span((v for n, v in at.items() if n not in held), num)}% at the other lengths tested")
            return describe(curve, UNITS.get(task, "digits"))

        text = [f"the scaffold {SCAFFOLD_WORDS[m]} {said(m)}, {versus_paper(claims, task, m)}" for m in models]
        paragraphs.append(f"{_regime_head(task, have, seeds)} {'; '.join(text)}.")
    return "\n\n".join(paragraphs)



def sinusoid_control(runs: pd.DataFrame) -> str:
    """Section 7's sentence on the control runs of ALiBi and RoPE without the sinusoids (`experiments.
    without_sinusoids`; tidy rows, variant "alibi" or "rope"): each one's median exact match at TRAINED_DIGITS digits
    per task, with its seeds, beside the paper's ALiBi on those tasks. Empty without runs."""
    at = runs[(runs.metric == ACCURACY) & (runs.length == TRAINED_DIGITS) & (runs.stage == "trained")]
    if at.empty:
        return ""
    parts = []
    for (variant, task), g in at.groupby(["variant", "task"], sort=False):
        seeds = g.seed.nunique()
        parts.append(f"{'ALiBi' if variant == 'alibi' else 'RoPE'} on {task} {num(g.value.median())}% "
                     f"({word(seeds)} seed{'s' if seeds > 1 else ''})")
    tasks = list(dict.fromkeys(at.task))
    paper = {m: and_list(f"{num(paper_values(task, m)[0])}% on {task}" for task in tasks) for m in ("ALiBi", "RoPE")}
    return (f"Without the sinusoids (control runs outside the grid) the same models score {and_list(parts)} at "
            f"{TRAINED_DIGITS} digits. The paper's ALiBi scores {paper['ALiBi']}, as ours does without them, and its "
            f"RoPE {paper['RoPE']}, as ours does with them: the control matches the paper's ALiBi without telling how "
            "the paper built it (the public code adds the sinusoids to every model).")
