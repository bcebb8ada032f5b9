"""The course of training read by a sizing study (`evaluate.course_reader` rows, metric COURSE with its step): at which
step each model fits its training lengths, or that it does not within the budget."""

import pandas as pd

from lengthgen.analysis.verdicts import TRAINED
from lengthgen.display import markdown_table
from lengthgen.metrics import COURSE, FINAL_TRAIN_LOSS


def sizing_table(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per (task, variant, depth: 0 where the task has none, and where the runs are labelled with them,
    budget: training steps, and train: training lengths) of stored sizing runs: seeds, the first step at which the
    course reaches TRAINED at every seed (NaN: not within the budget), the course's last point and, for PPC models,
    its tokens, ids and oracle parts (mean over seeds), the final training loss, and whether the last point fits
    (>= TRAINED)."""
    keys = ["task", "variant", "depth", *(key for key in ("budget", "train") if key in runs)]
    runs = runs.assign(depth=runs["depth"].fillna(0).astype(int) if "depth" in runs else 0)
    losses = runs[runs.metric == FINAL_TRAIN_LOSS].groupby(keys).value.mean()
    course = runs[runs.metric.str.startswith(COURSE)]
    rows = []
    for key, group in course.groupby(keys, sort=False):
        whole = group[group.metric == COURSE]
        by_step = whole.groupby("step").value.min()  # the worst seed at each point
        reached = by_step[by_step >= TRAINED]
        last = group[group.step == group.step.max()].groupby("metric").value.mean()
        rows.append({**dict(zip(keys, key, strict=True)), "seeds": whole.seed.nunique(),
                     "fits at step": reached.index.min() if len(reached) else float("nan"), "last": last[COURSE],
                     **{part: last.get(f"{COURSE} {part}", float("nan")) for part in ("tokens", "ids", "oracle")},
                     "final loss": losses.get(key, float("nan")), "fits": bool(last[COURSE] >= TRAINED)})
    return pd.DataFrame(rows)


def sizing_markdown(runs: pd.DataFrame, head: str) -> str:
    """`head`, then the stored runs' `sizing_table` as Markdown ("–" where a value is missing), or a line saying that
    none is stored."""
    if runs.empty:
        return head + "No sizing run is stored yet.\n"
    table = sizing_table(runs)
    shown = table.assign(**{c: table[c].map(lambda v: "–" if v != v else f"{v:.1f}")
                            for c in ("last", "tokens", "ids", "oracle")},
                         **{c: table[c].map(lambda v: "–" if v != v else f"{v:,.0f}")
                            for c in ("fits at step", "budget") if c in table},
                         **{"final loss": table["final loss"].map("{:.3f}".format)})
    return head + "\n\n" + markdown_table(shown) + "\n"
