"""The numbers and data-dependent phrases of the vanishing-variance chapter's prose, read from the frames the
notebook already has: each function serves one paragraph and returns a dict of named values (glued by
`display.glue_values`), binding with `display.holds` the sentences whose truth depends on the data but which are not
numbers. Values are plain Python numbers and strings (myst-nb formats a glued number from its repr)."""

import pandas as pd

from lengthgen.display import and_list, holds
from lengthgen.papers.vv import paper

REPRODUCED = "reproduced"
DIFFERENCE = "not reproduced (we find a difference)"  # ours significant where the paper's p is not
HIGHER, LOWER = "not reproduced (ours higher)", "not reproduced (ours lower)"  # a gain outside our 95% interval
DIFF, P = "ours b-a", "ours p"


def signed(x: float, digits: int = 1) -> str:
    """A difference as the chapter prints it: "+2.6", "−1.03" (the typographic minus)."""
    return f"{x:+.{digits}f}".replace("-", "−")


def lengths_text(lengths) -> str:
    """Set sizes as the prose writes them: "16, 32 and 1,024"."""
    return and_list(f"{int(n):,}" for n in lengths)


def count_of(k: int, n: int) -> str:
    """"all 11", "none of the 22", "7 of the 22": how many of n."""
    return f"all {n}" if k == n else "none of the " + str(n) if k == 0 else f"{k} of the {n}"


def pairs_text(stored: int, declared: int) -> str:
    """"all 100 declared" or "60 of the 100 declared" (seed pairs)."""
    return f"all {declared} declared" if stored == declared else f"{stored} of the {declared} declared"


def why(verdict: str) -> str:
    """A verdict's parenthesis: "not reproduced (we find a difference)" → "we find a difference"."""
    return verdict.partition("(")[2].rstrip(")") or verdict


def by_n(table: pd.DataFrame) -> pd.DataFrame:
    """A `paper.paired_table` indexed by N, its p-values (printed as text) as floats."""
    table = table.set_index("N")
    return table.assign(**{P: table[P].astype(float), "paper p": table["paper p"].astype(float)})


def beyond(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of an N-indexed table beyond the training lengths."""
    return table[table.index > paper.TRAIN_MAX]


def _first(table: pd.DataFrame) -> int:
    return int(table.index.min())


def full_argmax(table: pd.DataFrame, adaptive: pd.DataFrame, declared: int, short_steps: int,
                full_steps: int) -> dict:
    """"What the 100,000-step runs say": Table 1's argmax comparison at the paper's budget (`table`, and `adaptive`
    with the adaptive softmax; `paper.paired_table`s), on how many of the `declared` seed pairs, against the
    `short_steps` budget of the stored cpu grid."""
    t, a = by_n(table), by_n(adaptive)
    far, t16, a16 = beyond(t), t.loc[_first(t)], a.loc[_first(a)]
    times = far[DIFF] / far["paper b-a"]
    holds(bool((far[DIFF] > 0).all() and (far[P] < 0.05).all()),
          "+LN beats the baseline at every N beyond training, significantly in every cell")
    holds(bool((far.verdict == REPRODUCED).all() and (beyond(a).verdict == REPRODUCED).all()),
          "every cell of Table 1's argmax comparison beyond training is reproduced (also with adaptive θ)")
    holds(bool(times.min() > 1), "our differences are larger than the paper's")
    drop = {who: t.loc[_first(t), f"{who} a"] - t.loc[2048, f"{who} a"] for who in ("ours", "paper")}
    holds(bool(drop["ours"] > drop["paper"]), "our baseline falls faster")
    holds(bool(t16[P] < 0.05 <= t16["paper p"] and a16[P] < 0.05 <= a16["paper p"]),
          "at N = 16 the 100 pairs resolve +LN's lead where the paper's p is not significant")
    values = {"pairs": pairs_text(int(t.seeds.max()), declared), "n_pairs": int(t.seeds.max()),
              "p_min": float(far[P].min()),
              "p_max": float(far[P].max()), "times_min": float(times.min()), "times_max": float(times.max()),
              "paper_diffs": " / ".join(signed(t.loc[n, "paper b-a"]) for n in (256, 2048, 16384)),
              "base_2048": float(t.loc[2048, "ours a"]), "paper_base_2048": float(t.loc[2048, "paper a"]),
              "d16": signed(t16[DIFF], 2), "p16": float(t16[P]), "paper_p16": float(t16["paper p"]),
              "verdict16": why(t16.verdict), "short_steps": short_steps, "times_budget": full_steps // short_steps,
              "a_p_max": float(beyond(a)[P].max()), "a_d16": signed(a16[DIFF], 2), "a_p16": float(a16[P]),
              "a_paper_p16": float(a16["paper p"]), "a_verdict16": why(a16.verdict)}
    for n in (256, 2048, 16384):
        values[f"d{n}"], values[f"a_d{n}"] = signed(t.loc[n, DIFF]), signed(a.loc[n, DIFF])
    return {f"full1_{k}": v for k, v in values.items()}


def _odd_cells(t: pd.DataFrame) -> pd.DataFrame:
    """The cells of an N-indexed `paired_table` that are not reproduced; each must be 'we find a difference'."""
    odd = t[t.verdict != REPRODUCED]
    holds(bool((odd.verdict == DIFFERENCE).all()),
          "the cells not reproduced are those where our 100 pairs find a difference the paper's p does not")
    return odd


def full_dictionary(table: pd.DataFrame, adaptive: pd.DataFrame, declared: int) -> dict:
    """"Dictionary lookup at the paper's 10,000": Table 2 at the paper's budget (`table`, and `adaptive` with the
    adaptive softmax; `paper.paired_table`s), on how many of the `declared` seed pairs."""
    t, a = by_n(table), by_n(adaptive)
    for rows in (t, a):
        holds(bool((rows[DIFF] > 0).all() and (rows[P] < 0.05).all()),
              "+LN beats the baseline significantly at every N (both softmaxes)")
    holds(bool(beyond(a)[DIFF].mean() > beyond(t)[DIFF].mean()), "with the adaptive softmax the gains are larger")
    holds(bool(t.loc[16384, "ours a"] > t.loc[16384, "paper a"]), "our baselines sit far above the paper's at long N")
    odd, a_odd = _odd_cells(t), _odd_cells(a)
    values = {"pairs": pairs_text(int(t.seeds.max()), declared), "d_min": signed(t[DIFF].min(), 2),
              "d_max": signed(t[DIFF].max(), 2), "p16": float(t.loc[16, P]), "p_max": float(beyond(t)[P].max()),
              "reproduced": int((t.verdict == REPRODUCED).sum()), "odd_n": lengths_text(odd.index),
              "odd_paper_p": and_list(f"{p:g}" for p in odd["paper p"]),
              "odd_d": and_list(signed(d, 2) for d in odd[DIFF]), "a_d16384": signed(a.loc[16384, DIFF], 2),
              "a_reproduced": int((a.verdict == REPRODUCED).sum()), "a_odd_n": lengths_text(a_odd.index),
              "a_odd_paper_p": and_list(f"{p:g}" for p in a_odd["paper p"]),
              "base_16384": float(t.loc[16384, "ours a"]), "paper_base_16384": float(t.loc[16384, "paper a"])}
    return {f"full2_{k}": v for k, v in values.items()}


def _gain(gains: pd.DataFrame, variant: str, n: int) -> pd.Series:
    return gains.set_index(["variant", "N"]).loc[(variant, n)]


def full_table6(table: pd.DataFrame, gains: pd.DataFrame, declared: int) -> dict:
    """"Table 6 at the same budget": +LN against +std on dictionary at the paper's budget (`table`, a
    `paper.paired_table`) and each gain over the baseline (`gains`, `paper.gains`), on how many of the `declared`
    seed pairs."""
    t = by_n(table)
    holds(bool((t["paper p"] >= 0.05).all()), "the paper finds no significant difference at any N")
    holds(bool((t[P] >= 0.05).all()), "ours: no significant difference at any N either")
    ok = gains[gains.verdict == REPRODUCED]
    both = ok.groupby("N").variant.nunique().reindex(sorted(gains.N.unique()), fill_value=0) == gains.variant.nunique()
    from_n = None  # the smallest N from which every gain of both variants is reproduced
    for n in reversed(both.index):
        if not both[n]:
            break
        from_n = int(n)
    holds(from_n is not None, "both variants' gains are reproduced at the longest N")
    others = [f"{v}'s at N = {lengths_text(sorted(ok.N[(ok.variant == v) & (ok.N < from_n)]))}"
              for v in ("+LN", "+std") if ((ok.variant == v) & (ok.N < from_n)).any()]  # reproduced below from_n
    small = gains[gains.N <= 512]
    holds(bool((small.ours > small.paper).mean() > 0.5), "up to N = 512 our gains are mostly larger than the paper's")
    holds(_gain(gains, "+LN", 1024).verdict == LOWER, "+LN's gain at N = 1,024 is smaller than the paper's")
    values = {"paper_p_min": float(t["paper p"].min()), "paper_p_max": float(t["paper p"].max()),
              "pairs": pairs_text(int(t.seeds.max()), declared), "d_min": signed(t[DIFF].min(), 2),
              "d_max": signed(t[DIFF].max(), 2), "p_min": float(t[P].min()), "p_max": float(t[P].max()),
              "cells": count_of(int(t.verdict.str.startswith(REPRODUCED).sum()), len(t)),
              "gains_ok": int(len(ok)), "gains": int(len(gains)), "from_n": f"{from_n:,}",
              "others": "; below it also " + and_list(others) if others else ""}
    for n, at in ((from_n, "from"), (128, "128"), (1024, "1024")):
        for variant, key in (("+std", "std"), ("+LN", "ln")):
            row = _gain(gains, variant, n)
            values |= {f"{key}{at}": float(row.ours), f"{key}{at}_ci": float(row.ci95),
                       f"{key}{at}_paper": float(row.paper)}
    return {f"full6_{k}": v for k, v in values.items()}


def _verdicts(widened: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """A `paper.widening` table's verdicts on the interim seeds and on all of them."""
    first, last = (c for c in widened.columns if c.startswith("verdict, "))
    return widened[first], widened[last]


def _kept(runs: pd.DataFrame, interim: tuple[int, ...], names: tuple[str, ...]) -> bool:
    """Whether no significant difference on the `interim` seeds changed sign or lost its significance on all of
    `runs`' seeds, in each of the comparisons `names` (COMPARISONS' titles up to their colons)."""
    for name in names:
        before, after = (by_n(paper.compare(rows, paper.comparison(name))[1])
                         for rows in (runs[runs.seed.isin(interim)], runs))
        kept = before[P] < 0.05
        if not ((after[P][kept] < 0.05).all() and ((after[DIFF] * before[DIFF])[kept] > 0).all()):
            return False
    return True


def _widened(runs: pd.DataFrame, interim: tuple[int, ...], task: str, names: tuple[str, ...]) -> pd.DataFrame:
    """`paper.widening` on `task`, binding the sentences every task's paragraph states about it."""
    widened = paper.widening(runs, interim, task)
    first = _verdicts(widened)[0]
    holds(_kept(runs[runs.task == task], interim, names),
          f"{task}: no significant difference changed sign or lost its significance")
    was = first[widened.changed]
    holds(bool((was.str.startswith(REPRODUCED) | was.str.startswith("inconclusive")).all()),
          f"{task}: the verdicts that changed were agreements or inconclusive on the interim pairs")
    return widened


def _gain_cells(cells: pd.DataFrame) -> str:
    """Changed gain cells of a `paper.widening` table as "+std's at N = 16 and 32 and +LN's at N = 32"."""
    variant = cells.comparison.str.extract(r", ([^,]*)'s gain$")[0]
    return and_list(f"{v}'s at N = {lengths_text(sorted(cells.N[variant == v]))}"
                    for v in ("+std", "+LN") if (variant == v).any())


def added_dictionary(runs: pd.DataFrame, interim: tuple[int, ...]) -> dict:
    """"What the 80 added pairs changed" on dictionary lookup: every cell judged on the `interim` seeds and on all
    of `runs`' (the compared runs at the paper's budget)."""
    names = ("Table 2, dictionary", "Table 2, dictionary, adaptive θ", "Table 6, dictionary")
    widened = _widened(runs, interim, "dictionary", names)
    last = _verdicts(widened)[1]
    first_rows = runs[(runs.task == "dictionary") & runs.seed.isin(interim)]
    narrower = (paper.against_std(first_rows, "Table 6, dictionary")[2].ci95.to_numpy()
                / paper.against_std(runs, "Table 6, dictionary")[2].ci95.to_numpy())
    plain, adaptive = (by_n(paper.compare(runs, paper.comparison(n))[1]).loc[16] for n in names[:2])
    interim16 = [by_n(paper.compare(first_rows, paper.comparison(n))[1]).loc[16] for n in names[:2]]
    holds(plain.verdict == DIFFERENCE == adaptive.verdict and all(r[P] >= 0.05 for r in interim16),
          "at N = 16 +LN's lead is now significant (both softmaxes; it was not on the interim pairs)")
    left = widened[widened.changed & widened.comparison.str.endswith("'s gain")]
    higher, lower = left[last[left.index] == HIGHER], left[last[left.index] == LOWER]
    holds(len(higher) + len(lower) == len(left), "the gains that changed now lie outside our intervals")
    outside = ", ".join(part for part in (higher.pipe(_gain_cells) + " larger than the paper's" if len(higher) else "",
                                          lower.pipe(_gain_cells) + " smaller" if len(lower) else "") if part)
    values = {"changed": int(widened.changed.sum()), "cells": len(widened), "narrower_min": float(narrower.min()),
              "narrower_max": float(narrower.max()), "d16": signed(plain[DIFF], 2), "p16": float(plain[P]),
              "a_p16": float(adaptive[P]), "paper_p16": float(plain["paper p"]),
              "a_paper_p16": float(adaptive["paper p"]), "verdict16": why(plain.verdict), "gains_left": len(left),
              "outside": outside, "first_pairs": len(interim),
              "added": int(len(set(runs.seed[runs.task == "dictionary"]))) - len(interim)}
    return {f"added2_{k}": v for k, v in values.items()}


def _share(table: pd.DataFrame, who: str) -> pd.Series:
    """Of +LN's gain over the baseline (column b of a Table 3 `paired_table`), the share +std's gain (a) recovers."""
    return table[f"{who} a"] / table[f"{who} b"]


def added_argmax(runs: pd.DataFrame, interim: tuple[int, ...]) -> dict:
    """"*Argmax*" after the 80 added pairs: every argmax cell judged on the `interim` seeds and on all of `runs`'."""
    names = ("Table 1, argmax", "Table 1, argmax, adaptive θ", "Table 3, argmax")
    widened = _widened(runs, interim, "argmax", names)
    first_rows = runs[(runs.task == "argmax") & runs.seed.isin(interim)]
    (t1, a1, t3), (f1, _, f3) = ([by_n(paper.compare(rows, paper.comparison(n))[1]) for n in names]
                                 for rows in (runs, first_rows))
    holds(bool(f1.loc[16, P] >= 0.05 > t1.loc[16, P] and t1.loc[16, "paper p"] >= 0.05),
          "at N = 16 +LN's lead, not significant on the interim pairs, is now, where the paper's is not")
    turned = f3[(f3.verdict.str.startswith("inconclusive")) & (t3.verdict == REPRODUCED)]
    holds(bool((t3.verdict == REPRODUCED).all() and (t3[DIFF] > 0).all()), "+LN beats +std at every N")
    gains, first_gains = (paper.against_std(rows, "Table 3, argmax")[2] for rows in (runs, first_rows))
    holds(bool((gains.verdict == HIGHER).all()), "every gain over the baseline now lies above the paper's")
    covered = (first_gains.verdict == REPRODUCED).to_numpy()
    wider = first_gains.ci95.to_numpy()[covered] / gains.ci95.to_numpy()[covered]
    values = {"changed": int(widened.changed.sum()), "cells": len(widened), "first_d16": signed(f1.loc[16, DIFF], 2),
              "first_p16": float(f1.loc[16, P]), "p16": float(t1.loc[16, P]), "a_p16": float(a1.loc[16, P]),
              "verdict16": why(t1.loc[16].verdict), "turned_n": lengths_text(turned.index),
              "turned_p_min": float(turned[P].min()), "turned_p_max": float(turned[P].max()),
              "covered": int(covered.sum()), "wider_min": float(wider.min()), "wider_max": float(wider.max()),
              "first_share": float(_share(f3, "ours")[2048]), "paper_share": float(_share(t3, "paper")[2048]),
              "share": float(_share(t3, "ours")[2048]), "first_pairs": len(interim), "n_pairs": int(t1.seeds.max())}
    return {f"added1_{k}": v for k, v in values.items()}


def full_table3(table: pd.DataFrame, gains: pd.DataFrame, table1: pd.DataFrame, std_runs: pd.DataFrame,
                declared: int) -> dict:
    """"Table 3 is the same comparison": +LN against +std on argmax at the paper's budget (`table`, a
    `paper.paired_table`; `gains`, `paper.gains`) beside Table 1's comparison (`table1`), the +std runs' wall times
    (`std_runs`), on how many of the `declared` seed pairs."""
    t, t1 = by_n(table), by_n(table1)
    paper_diff = t["paper b"] - t["paper a"]
    holds(bool((paper_diff > 0).all() and (t["paper p"] < 0.05).all()), "the paper finds +LN ahead at every N")
    holds(bool((t[DIFF] > 0).all() and (t[P] < 0.05).all()), "ours: +LN is ahead at every N, significantly")
    times, times1 = (beyond(x)[DIFF] / beyond(x)["paper b-a"] for x in (t, t1))
    holds(bool((times < times1).all()), "our differences are closer to the paper's than Table 1's")
    holds(bool((beyond(t)["ours a"] > beyond(t)["paper a"]).all()), "+std gains more than in the paper too")
    share, paper_share = _share(t, "ours"), _share(t, "paper")
    holds(bool((share.loc[64:] > paper_share.loc[64:]).all()), "the learned scale and shift are worth less in ours")
    holds(bool((gains.verdict == HIGHER).all()), "every gain is larger than the paper's")
    drop, paper_drop = (t1[f"{who} a"].iloc[0] - t1[f"{who} a"].iloc[-1] for who in ("ours", "paper"))
    holds(bool(drop > paper_drop), "our baseline falls faster than the paper's")
    walls = std_runs.drop_duplicates("seed").wall_seconds
    values = {"wall_min": float(walls.min()), "wall_max": float(walls.max()), "paper_p_min": float(t["paper p"].min()),
              "paper_p_max": float(t["paper p"].max()), "paper_d_max": float(paper_diff.max()),
              "paper_d_max_n": f"{int(paper_diff.idxmax()):,}", "pairs": pairs_text(int(t.seeds.max()), declared),
              "d_min": signed(t[DIFF].min(), 2), "d_max": signed(t[DIFF].max(), 2), "p_min": float(t[P].min()),
              "p_max": float(t[P].max()), "cells": count_of(int((t.verdict == REPRODUCED).sum()), len(t)),
              "times_min": float(times.min()), "times_max": float(times.max()),
              "times1_min": float(times1.min()), "times1_max": float(times1.max()),
              "std2048": float(t.loc[2048, "ours a"]), "ln2048": float(t.loc[2048, "ours b"]),
              "paper_std2048": float(t.loc[2048, "paper a"]), "paper_ln2048": float(t.loc[2048, "paper b"]),
              "share2048": float(share[2048]), "paper_share2048": float(paper_share[2048]),
              "share_min": float(share.loc[64:].min()), "share_max": float(share.loc[64:].max()),
              "paper_share_min": float(paper_share.loc[64:].min()),
              "paper_share_max": float(paper_share.loc[64:].max()),
              "rest2048": float(1 - share[2048]), "paper_rest2048": float(1 - paper_share[2048]),
              "gains_ok": count_of(int((gains.verdict == REPRODUCED).sum()), len(gains))}
    for variant, key in (("+std", "std"), ("+LN", "ln")):
        row = _gain(gains, variant, 2048)
        values |= {f"gain_{key}2048": float(row.ours), f"gain_{key}2048_ci": float(row.ci95)}
    return {f"full3_{k}": v for k, v in values.items()}


def grid_values(compared: dict[str, int], declared: int, interim: int) -> dict:
    """"At the paper's budget": how many seed pairs each task's tables test (`compared`, task -> pairs) of the
    `declared` ones, the `interim` ones tested until a task's grid was complete, and the paper's seeds."""
    holds(all(n == declared for n in compared.values()), "both grids are complete: every table tests all pairs")
    return {"grids_pairs": declared, "grids_added": declared - interim, "grids_paper_seeds": paper.SEEDS}


def widening_heading(task: str, widened: pd.DataFrame | None, pairs: int) -> str:
    """The heading of a task's `paper.widening` table: how many of its cells changed verdict; where its grid is not
    complete yet (`widened` None), on how many pairs its tables rest until it is and how to list the runs it lacks."""
    if widened is None:
        return (f"**{task}**: on the first {pairs} pairs until its grid is complete (`lengthgen results vv-retrieval "
                f"--profile full --task {task}` lists the runs it lacks).")
    return f"**{task}**: {widened.changed.sum()} of {len(widened)} cells changed verdict:"
