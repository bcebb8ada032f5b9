"""The prose of the chapter's live sections (Prop. 1, Fig. 1 on MiniLM, the live pairs of section 6, the sharpness
check, the cost of long sets), generated from this build's readings: each function serves one paragraph and returns
a dict of named values and phrases. Nothing here is bound with `holds`: the chapter also runs at the smoke profile,
on tiny models and few sets, where a reading may come out either way; the phrases say which way it came out."""

import pandas as pd

from lengthgen.analysis.verdicts import exponent_verdict

TEXT = "text"  # Fig. 1's strategy of windows of real text (`pretrained.STRATEGIES`)
FIXED, RANDOM = "fixed last token", "random last token"  # the chapter's two queries


def prop1(slopes: pd.Series, gap: float, variance: pd.Series) -> dict:
    """Section 1: the per-component log-log slopes (N ≥ 16) of Prop. 1's variance, the largest difference between
    the centred and uncentred variances (`gap`) beside the largest variance (`variance`: all of them)."""
    exact = exponent_verdict(slopes, -1.0) == "reproduced"
    coincide = abs(gap) <= 1e-9 * float(variance.abs().max())  # equal up to rounding
    return {"p1_slope_min": float(slopes.min()), "p1_slope_max": float(slopes.max()), "p1_gap": float(abs(gap)),
            "p1_falls": "The variance falls like 1/N, as Proposition 1 says" if exact else
            "The variance does not fall like 1/N in every component here, as Proposition 1 would have it",
            "p1_curves": "The two curves coincide" if coincide else "The two curves differ beyond rounding"}


def fig1(slopes: pd.Series) -> dict:
    """Section 2 ("What we see"): the log-log slopes of std against N (`slopes`, indexed by strategy, query and
    component) read for the paper's Fig. 1, as phrases: does every strategy decay, more slowly than N^-0.5, more
    steeply with a fixed last token, and is real text the slowest."""
    medians = slopes.groupby(level=["strategy", "query"]).median().unstack("query")
    steeper = int((medians[FIXED] < medians[RANDOM]).sum())
    slowest = all(medians[q].idxmax() == TEXT for q in medians.columns)
    return {"fig1_components": int(slopes.index.get_level_values("component").nunique()),
            "fig1_decays": "decays for every strategy, as in the paper's Fig. 1" if (medians < 0).all(axis=None)
            else "does not decay for every strategy, unlike the paper's Fig. 1",
            "fig1_rate": "more slowly than N^-0.5" if (medians > -0.5).all(axis=None) else
            "not always more slowly than N^-0.5",
            "fig1_fixing": "fixing it makes the decay steeper" if steeper == len(medians) else
            f"fixing it makes the decay steeper for {steeper} of the {len(medians)} strategies",
            "fig1_text": ("Real text decays slowest: its tokens are not independent, and attention follows syntax "
                          "rather than spreading evenly") if slowest else
            ("Real text is not the slowest to decay in this build, though its tokens are not independent and "
             "attention follows syntax rather than spreading evenly")}


def live_fig3(far_stats: pd.DataFrame, far: int) -> dict:
    """Section 6, Fig. 3 on the seed-0 pair: each variant's global variance at N = `far` over its value at N = 16
    (`far_stats`: `variance.global_table`'s rows at `far`, indexed by variant)."""
    base, ln = float(far_stats.global_var["baseline"]), float(far_stats.global_var["ln"])
    steadier = abs(1 - ln) < abs(1 - base)
    return {"live3_far": f"{far:,}", "live3_base": base, "live3_ln": ln,
            "live3_says": "LN keeps it steadier, as the paper's Fig. 3 says" if steadier else
            "LN does not keep it steadier here, unlike the paper's Fig. 3"}


def live_split(share: pd.Series) -> dict:
    """Section 6, the split of the seed-0 pair's global variance at the longest N: the residue's share per variant."""
    return {"split_base": float(share["baseline"]), "split_ln": float(share["ln"])}


def live_fig4(max_weight: pd.DataFrame) -> dict:
    """Section 6, Fig. 4 on the seed-0 pair: the mean largest attention weight per variant (columns baseline, ln) by
    N (column N, ascending)."""
    last, first = max_weight.iloc[-1], max_weight.iloc[0]
    falls = bool((max_weight.baseline.diff().dropna() < 0).all() and (max_weight.ln.diff().dropna() < 0).all())
    return {"live4_far": f"{int(last.N):,}", "live4_base": float(last.baseline), "live4_ln": float(last.ln),
            "live4_says": "LN disperses less, as the paper's Fig. 4 says" if last.ln > last.baseline else
            "here LN disperses *more* than the baseline, unlike the paper's Fig. 4",
            "live4_falls": "As N grows it falls toward 0 for both models" if falls else
            "In this build it does not fall at every step of N for both models, though it must tend to 0",
            "live4_short": "is lower than the baseline's already at the training length, so it has less sharpness to "
                           "lose" if first.ln < first.baseline else "is not lower than the baseline's at the training "
                           "length in this build; where it is, +LN has less sharpness to lose"}


def live_pairs(pairs: pd.DataFrame, claims: pd.DataFrame, sets: int, far: int, steps: int) -> dict:
    """Section 6, Figs. 2-4 on every live seed pair (`pairs`, `variance.pair_readings`; `claims`, their
    `claims.figure_claims`; models trained for `steps`), read on `sets` sets per N at N = 16 and `far`."""
    verdict = dict(zip(claims.figure, claims.verdict, strict=True))
    n = len(pairs)
    fig3 = int(pairs.fig3.sum())
    return {"pairs_n": n, "pairs_sets": sets, "pairs_steps": steps, "pairs_far": f"{far:,}",
            "pairs_fig2": int(pairs.fig2.sum()),
            "pairs_fig3": fig3, "pairs_fig4": int(pairs.fig4.sum()), "pairs_v2": verdict["Fig. 2"],
            "pairs_v3": verdict["Fig. 3"], "pairs_v4": verdict["Fig. 4"],
            "pairs_hold3": "hold Fig. 3" if fig3 == n else "do not hold Fig. 3" if fig3 == 0 else
            f"hold Fig. 3 in {fig3} of {n}"}


def sharpness(table: pd.DataFrame) -> dict:
    """The mechanism check: per (N, seed) the mean largest weight of each variant (columns baseline, ln)."""
    return {"sharp_softer": int((table.ln < table.baseline).sum()), "sharp_cells": len(table)}


def far_cost(timing: pd.DataFrame, target_s: float) -> dict:
    """Section 9: the projected seconds per 1,000 sets at the largest N timed (`timing` rows: variant, N, ...,
    "projected s per 1,000 sets"), the slower variant's, against the `target_s` budget."""
    far = timing[timing.N == timing.N.max()]
    cost = float(far["projected s per 1,000 sets"].max())
    return {"cost_n": f"{int(far.N.iloc[0]):,}", "cost_s": cost, "cost_target": target_s,
            "cost_verdict": "far above" if cost > 10 * target_s else "above" if cost > target_s else "within"}
