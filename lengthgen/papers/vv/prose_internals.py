"""The prose numbers of the chapter's sections on what the models compute (Figs. 2-4): the stored pairs at the
paper's budget, the stored trajectory along training, and the live pairs of section 6, as `prose` gives those of
the retrieval tables: one function per paragraph, a dict of named values each. Live readings get generated phrases,
never `holds`: the chapter also runs at the smoke profile, on tiny models."""

import pandas as pd

from lengthgen.analysis.variance import FIG_HOLDS, pair_table
from lengthgen.display import and_list, holds, span
from lengthgen.metrics import ACCURACY, COMPONENT_VAR, GLOBAL_VAR
from lengthgen.papers.vv.prose import pairs_text


def holds_in(k: int, n: int) -> str:
    """In how many of n pairs a claim holds: "all 5", "none", "2 of 5"."""
    return f"all {n}" if k == n else "none" if k == 0 else f"{k} of {n}"


def spread_shares(tidy: pd.DataFrame, length: int) -> pd.DataFrame:
    """Per seed (rows) and variant (columns): the spread across sets over the global variance at `length`, the part of
    the global variance that varies from set to set (the rest is the profile every set shares)."""
    at = tidy[tidy.length == length].pivot_table(index="seed", columns=["variant", "metric"], values="value")
    return pd.DataFrame({norm: at[norm, COMPONENT_VAR] / at[norm, GLOBAL_VAR] for norm in ("baseline", "ln")})


def stored_figures(pairs: pd.DataFrame, internals: pd.DataFrame, retrieval: pd.DataFrame, declared: int) -> dict:
    """"What the stored pairs say": Figs. 2-4 on the stored vv-internals pairs (`pairs`, `variance.pair_table` of
    `internals`, the runs' readings), the same runs' accuracies beside the vv-retrieval runs of the same configs
    (`retrieval`), how many of the `declared` pairs are stored."""
    short, far = int(internals.length.min()), int(internals.length.max())
    key = ["variant", "seed", "length"]
    acc = internals[internals.metric == ACCURACY].set_index(key).value
    same = retrieval[(retrieval.task == "argmax") & (retrieval.metric == ACCURACY)].set_index(key).value
    holds(bool((acc == same.reindex(acc.index)).all()),
          "each run's accuracies equal the stored vv-retrieval run of the same config to the last digit")
    at_far = acc.xs(far, level="length").unstack("variant")
    holds(bool((at_far.ln > at_far.baseline).all()), "+LN is the more accurate model at the longest N in every pair")
    holds(bool((pairs["ln variance ratio"] < pairs["baseline variance ratio"]).all()),
          "the gain comes with a global variance that LN lets fall further")
    holds(0 < pairs.fig4.sum() < len(pairs), "attention neither sharper nor flatter under +LN")
    first, last = spread_shares(internals, short), spread_shares(internals, far)
    holds(bool(first.ln.min() > first.baseline.max()), "under +LN the shared profile is small at this budget")
    holds(bool(last.baseline.max() < 0.5), "the baseline's global variance is mostly a profile every set shares")
    n = len(pairs)
    values = {"pairs": pairs_text(n, declared), "fig2": holds_in(int(pairs.fig2.sum()), n),
              "fig3": holds_in(int(pairs.fig3.sum()), n), "fig4": holds_in(int(pairs.fig4.sum()), n),
              "base_spread": span(pairs["baseline spread ratio"], "{:.3f}"),
              "ln_spread": span(pairs["ln spread ratio"], "{:.3f}"),
              "ln_var": span(pairs["ln variance ratio"], "{:.2f}"),
              "base_var": span(pairs["baseline variance ratio"], "{:.2f}"),
              "ln_var_mean": float(pairs["ln variance ratio"].mean()),
              "base_var_mean": float(pairs["baseline variance ratio"].mean()),
              "base_weight": float(pairs["baseline max weight"].mean()),
              "ln_weight": float(pairs["ln max weight"].mean()),
              "weight_gap": float(abs(pairs["ln max weight"].mean() - pairs["baseline max weight"].mean())),
              "ln_acc": span(at_far.ln, "{:.1f}"), "base_acc": span(at_far.baseline, "{:.1f}"),
              "ln_share": span(first.ln, "{:.2f}"), "base_share": span(first.baseline, "{:.2f}"),
              "ln_share_far": span(last.ln, "{:.2f}"), "base_share_far": span(last.baseline, "{:.2f}")}
    return {f"figs_{k}": v for k, v in values.items()}


def trajectory_story(table: pd.DataFrame, tidy: pd.DataFrame, declared: int, chance: float) -> dict:
    """"What the trajectory says" (and the accuracy its introduction quotes): `variance.trajectory`'s table (one row
    per number of steps, the paper's budget last) and, for Fig. 4's medians and the accuracy at the longest N, its
    readings `tidy`; how many of the `declared` pairs each budget holds; `chance`: the task's chance accuracy (%)."""
    short, far = int(tidy.length.min()), int(tidy.length.max())
    fig2, fig3, fig4 = FIG_HOLDS
    acc = [c for c in table.columns if c.startswith("ln accuracy")][0].removeprefix("ln ")
    full = table.pairs
    steady = table[table[fig3] == full]  # the budgets where Fig. 3 holds in every pair
    holds(len(steady) > 0 and list(steady.index) == list(table.index[:len(steady)]) and len(steady) < len(table) - 1,
          "Fig. 3 holds in every pair through the first budgets, and not from the next one on")
    later = table.drop(steady.index)
    turn, last = later.iloc[0], later.iloc[-1]
    holds(bool((steady[f"ln {acc}"] < steady[f"baseline {acc}"]).all()),
          "at the budgets where Fig. 3 holds +LN is the less accurate model (medians)")
    holds(bool((later[f"ln {acc}"] > later[f"baseline {acc}"]).all() and (later[fig3] < later.pairs).all()),
          "from the turn on +LN is the more accurate and Fig. 3 no longer holds in every pair")
    holds(bool((table[fig2] == full).all()), "Fig. 2 holds in every pair at every budget")
    holds(bool((steady[fig4] == 0).all()), "Fig. 4 fails where Fig. 3 holds: +LN's largest weight is the smaller")
    weights = pd.DataFrame({steps: pair_table(at, (short, far))[["ln max weight", "baseline max weight"]].median()
                            for steps, at in tidy.groupby("steps")}).T
    points = tidy[tidy.steps == later.index[0]]
    turn_share, turn_var = spread_shares(points, short).ln, pair_table(points, (short, far))["ln variance ratio"]

    def medians(rows, norm):
        return and_list(f"{v:.2f}" for v in rows[f"{norm} global-variance ratio"])

    def versus(rows, column, digits):
        return ", ".join(f"{a:.{digits}f} vs {b:.{digits}f}" for a, b in zip(rows[f"ln {column}"],
                                                                           rows[f"baseline {column}"], strict=True))
    short_acc = tidy[(tidy.metric == ACCURACY) & (tidy.length == far) & tidy.steps.isin(steady.index)].value
    values = {"short_acc": float(short_acc.max()), "chance": float(chance),
              "pairs": pairs_text(int(full.min()), declared), "budgets": and_list(f"{s:,}" for s in table.index[:-1]),
              "full": f"{table.index[-1]:,}", "steady_to": f"{steady.index[-1]:,}",
              "ln_share": span(steady["ln spread share"], "{:.2f}"),
              "base_share": span(steady["baseline spread share"], "{:.2f}"),
              "ln_var": medians(steady, "ln"), "base_var": medians(steady, "baseline"),
              "accs": versus(steady, acc, 1), "more": and_list(int(v) for v in steady["ln more accurate"]),
              "turn": f"{later.index[0]:,}", "turn_share": span(turn_share, "{:.2f}"),
              "turn_share_median": float(turn["ln spread share"]),
              "turn_var": span(turn_var, "{:.2f}"), "turn_var_median": float(turn["ln global-variance ratio"]),
              "turn_base_var": float(turn["baseline global-variance ratio"]), "turn_fig3": int(turn[fig3]),
              "turn_more": int(turn["ln more accurate"]), "turn_ln_acc": float(turn[f"ln {acc}"]),
              "turn_base_acc": float(turn[f"baseline {acc}"]), "n": int(full.min()),
              "last_share": float(last["ln spread share"]), "last_var": float(last["ln global-variance ratio"]),
              "last_fig3": "no pair" if last[fig3] == 0 else f"{int(last[fig3])} of {int(last.pairs)} pairs",
              "last_more": "every pair" if last["ln more accurate"] == last.pairs else
              f"{int(last['ln more accurate'])} of {int(last.pairs)} pairs",
              "last_ln_acc": float(last[f"ln {acc}"]), "last_base_acc": float(last[f"baseline {acc}"]),
              "steady_weights": versus(weights.loc[steady.index], "max weight", 3),
              "later_weights": versus(weights.loc[later.index], "max weight", 3).replace(", ", ", then ", 1),
              "later_fig4": and_list(int(v) for v in later[fig4])}
    return {f"traj_{k}": v for k, v in values.items()}
