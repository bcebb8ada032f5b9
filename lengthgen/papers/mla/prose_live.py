"""The live run's numbers and phrases in the monotonic-attention chapter's prose (see `prose`): generated from the
live run's readings at whatever profile the chapter executes, so none is bound with `holds`."""

import math

import pandas as pd

from lengthgen.analysis.verdicts import TRAINED
from lengthgen.display import and_list, word
from lengthgen.metrics import ACCURACY
from lengthgen.papers.mla import paper as paper_data
from lengthgen.papers.mla.prose import TASK_NAMES


def live_fit(live: pd.DataFrame, mechanism: str = "content", tasks=("copy", "reverse_copy"),
             inverted: str = "inv_recopy") -> dict:
    """The live run's fit, for "Read the last columns": `mechanism`'s median iid accuracy on `tasks` (those run), and
    on `inverted` how many mechanisms fit it in distribution and the best accuracy at its longest split."""
    acc = live[live.metric == ACCURACY]
    iid = acc[acc.split == "iid"].groupby(["task", "variant"]).value.median()
    run, name = [t for t in tasks if (t, mechanism) in iid.index], TASK_NAMES.get(inverted, inverted)
    content = and_list(f"{iid[t, mechanism]:.0f}% of {t.replace('_', ' ').title()}" for t in run) or "nothing measured"
    if inverted in iid.index.get_level_values("task"):
        fits, longest = iid[inverted], acc[(acc.task == inverted) & (acc.split == paper_data.COPY_SPLITS[-1])]
        far = longest.groupby("variant").value.median()
        inv = (f"on {name} it fits {len(fits[fits >= TRAINED])} of the {len(fits)} mechanisms in distribution and "
               f"the best reaches {far.max():.1f}% at length {paper_data.COPY_SPLITS[-1]}")
    else:
        inv = f"{name} is not run at this profile"
    return {"fit_content": content, "fit_inverted": inv}

def seed_check(seed_runs: pd.DataFrame, stored: pd.DataFrame) -> dict:
    """Section 7: `seed_runs`, the live seed check's accuracy rows; `stored`, every stored probing-task run. How many
    seeds the stored cells have (fewest to most), how many seeds the live check trains, and per mechanism how many of
    them reach >= 90% at length 100."""
    per_cell = stored.groupby(["task", "variant"]).seed.nunique()
    far = seed_runs[seed_runs.split == paper_data.COPY_SPLITS[-1]]
    solved = ", ".join(f"{m}: {int((g.value >= TRAINED).sum())} of {len(g)}" for m, g in far.groupby("variant"))
    fewest, most = (word(int(n)) for n in (per_cell.min(), per_cell.max()))
    return {"seeds_stored": fewest if fewest == most else f"{fewest} to {most}",
            "seeds_live": word(seed_runs.seed.nunique()), "seeds_far": solved or "no run reached length 100"}

def mono_stall(diag: pd.DataFrame, focus: str = "focus after the first step",
               sharp: str = "mean largest weight") -> dict:
    """Section 7's MonoAttn seeds (`attention.first_step_focus` per seed, indexed by seed): the sentence on the seeds
    that stalled (iid accuracy below 90%), whether their first step overshot past the middle of the input, and how
    sharp their attention stays, beside the working seeds."""
    def value_range(df: pd.DataFrame, column: str) -> str:
        return f"{df[column].min():.2f}–{df[column].max():.2f}"

    stalled, fine = diag[diag["iid accuracy"] < TRAINED], diag[diag["iid accuracy"] >= TRAINED]
    if stalled.empty:
        text = (f"No seed stalled at this budget: all {len(diag)} reach at least {TRAINED:.0f}% iid; their first step "
                f"lands at {value_range(diag, focus)} and their mean largest weight is {value_range(diag, sharp)}.")
    else:
        text = (f"{int((stalled[focus] > 0.5).sum())} of {len(stalled)} stalled seeds overshoot past the middle of the "
                f"input at the first step (focus > 0.5); their mean largest weight is {value_range(stalled, sharp)}"
                + (f", against {value_range(fine, sharp)} for the working seeds." if len(fine) else "."))
    return {"stall_text": text}


def mono_gates(gates: dict[str, float]) -> dict:
    """The live MonoAttn models' gate parameter b per task (`attention.mono_gate`), with 1 − s = 1 − σ(b) in float64:
    how far the step's sigmoid branch is from switched off."""
    text = ", ".join(f"{t}: b = {b:.6f}, 1 − s = {1 / (1 + math.exp(b)):.1e}" for t, b in gates.items())
    return {"gate_b": text or "no MonoAttn model"}
