"""The prose numbers of the chapter's stored cpu-budget sections (section 7's 20-seed grid, section 8's factor
study), as `prose` gives those of the paper's budget: one function per paragraph, a dict of named values each."""

import re

import pandas as pd

from lengthgen.display import holds
from lengthgen.papers.vv import paper
from lengthgen.papers.vv.prose import DIFF, REPRODUCED, P, beyond, by_n, count_of, lengths_text, signed


def _table(comparisons: dict[str, pd.DataFrame], name: str) -> pd.DataFrame:
    """The N-indexed `paired_table` of the comparison named `name` among `comparisons` (COMPARISONS' title -> table)."""
    (table,) = [t for title, t in comparisons.items() if title.split(":")[0] == name]
    return by_n(table)


def gains_by_task(stored: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Task -> the `paper.gains` table of its "+LN vs +std" comparison (Table 3 or 6) on the runs `stored`."""
    return {task: paper.against_std(stored, name)[2] for task, name in (("argmax", "Table 3, argmax"),
                                                                        ("dictionary", "Table 6, dictionary"))}


def stored_cpu(comparisons: dict[str, pd.DataFrame], gains: dict[str, pd.DataFrame]) -> dict:
    """"What the stored runs say" (section 7): each COMPARISONS table on the stored cpu runs (`comparisons`, title ->
    `paired_table`) and the gains over the baseline judged on their own (`gains_by_task`)."""
    t1, t3 = _table(comparisons, "Table 1, argmax"), _table(comparisons, "Table 3, argmax")
    t2, a2 = _table(comparisons, "Table 2, dictionary"), _table(comparisons, "Table 2, dictionary, adaptive θ")
    t6 = _table(comparisons, "Table 6, dictionary")
    holds(bool((t1[DIFF] < 0).all()), "argmax: +LN is worse than the baseline at every N")
    holds(bool((t3["ours a"] < 0).all()), "+std falls below the baseline at every N as well")
    holds(bool((t3[P] >= 0.05).all()), "LN − std is not significant at any N")
    holds(not (beyond(t1).verdict == REPRODUCED).any() and not (beyond(t3).verdict == REPRODUCED).any(),
          "the paper's Table 1 and Table 3 rows are not reproduced in this setting")
    better, worse = t2[(t2[P] < 0.05) & (t2[DIFF] > 0)], t2[(t2[P] < 0.05) & (t2[DIFF] < 0)]
    up_to, from_n = int(better.index.max()), int(worse.index.min())
    holds(list(better.index) == [n for n in t2.index if n <= up_to] and
          list(worse.index) == [n for n in t2.index if n >= from_n],
          "dictionary: +LN significantly better up to one N and significantly worse from a longer one on")
    holds(bool((a2[DIFF] > 0).all() and (a2[P] < 0.05).all()), "adaptive θ: +LN significantly better at every N")
    holds(bool((t6[P] >= 0.05).all() and (t6["paper p"] >= 0.05).all()), "Table 6: no significant difference")
    mid = a2.loc[512:4096, DIFF]
    values = {"pairs": int(t1.seeds.max()), "sig_n": lengths_text(t1.index[t1[P] < 0.05]),
              "d_min": signed(t1[DIFF].min()), "d_min_n": f"{int(t1[DIFF].idxmin()):,}",
              "std_max": signed(t3["ours a"].max()), "std_min": signed(t3["ours a"].min()),
              "better_to": f"{up_to:,}", "worse_from": f"{from_n:,}", "a_mid_min": signed(mid.min()),
              "a_mid_max": signed(mid.max()),
              **{f"gains_{task}": count_of(int((g.verdict == REPRODUCED).sum()), len(g)) for task, g in gains.items()},
              "base256": float(t1.loc[256, "ours a"]), "paper_base256": float(t1.loc[256, "paper a"]),
              "paper_seeds": paper.SEEDS}
    return {f"cpu_{k}": v for k, v in values.items()}


SETTING = re.compile(r"train N<=(?P<train>\d+), item MLP (?P<depth>\d+) layers, (?P<steps>\d+) steps")


def setting_words(setting: str) -> str:
    """A `vv-factors` setting in words: "train N<=64, item MLP 1 layers, 1000 steps" → "after training on N ≤ 64
    with a 1-layer item MLP for 1,000 steps"."""
    m = SETTING.fullmatch(setting)
    return f"after training on N ≤ {m['train']} with a {m['depth']}-layer item MLP for {int(m['steps']):,} steps"


def factor_study(by_setting: pd.DataFrame, curriculum: pd.DataFrame) -> dict:
    """"What the factor study says" (section 8): +LN − baseline per (setting, N) (`stats.paired_comparison` by
    setting and length) and the argmax curriculum runs (`curriculum`, variants without their "+curriculum")."""
    sig = by_setting[by_setting.p_value < 0.05]
    better, worse = sig[sig["diff"] > 0], sig[sig["diff"] < 0]
    holds(len(better) == 1, "+LN is significantly better in one (setting, N) cell")
    holds(bool((by_setting["diff"] < 0).mean() > 0.5), "most differences are negative")
    (one,) = better.itertuples()
    levels = by_setting.setting.str.extract(SETTING.pattern)
    for factor in levels.columns:  # the sign does not depend on any factor: negative on average at each level
        holds(bool((by_setting.groupby(levels[factor].to_numpy())["diff"].mean() < 0).all()),
              f"the sign of the argmax result does not depend on the factor {factor}")
    (args,) = [a for a in paper.CURRICULUM_COMPARISONS.values() if a["task"] == "argmax"]  # Table 4
    table4 = by_n(paper.compare(curriculum, args)[1])
    holds(bool((table4[DIFF] < 0).mean() > 0.5), "with the curriculum to 256 +LN is again behind at most lengths")
    values = {"pairs": int(by_setting.n.max()), "cells": len(by_setting), "better": len(better),
              "one_d": signed(one.diff), "one_n": f"{int(one.length):,}", "one_setting": setting_words(one.setting),
              "one_p": float(one.p_value), "chance": 0.05 * len(by_setting), "worse": len(worse)}
    return {f"factors_{k}": v for k, v in values.items()}
