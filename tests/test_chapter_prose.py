"""Hand-written paragraphs of the chapters that quote stored results quote them as the committed results stand: a
commit of new runs that moves a quoted number fails here until the paragraph is rewritten with it."""

import json
from pathlib import Path

from lengthgen.experiments import EXPERIMENTS
from lengthgen.experiments import monotonic as mla
from lengthgen.results.store import ResultStore
from lengthgen.seeding import seeds_text

ROOT = Path(__file__).parent.parent
# SCAN's unmixed mechanisms and their names in the chapter's prose; each has a direction-mixing "mix_" variant.
MIXED = {"onestep": "OneStep", "mono": "Mono", "rmono": "RMono", "locattn": "LocAttn", "locattn_s": "LocAttn-S"}


def markdown_cell(chapter: str, start: str) -> str:
    """The one Markdown cell of a chapter's notebook that starts with `start`, its lines joined by single spaces."""
    cells = json.loads((ROOT / "notebooks" / f"{chapter}.ipynb").read_text())["cells"]
    (text,) = ["".join(c["source"]) for c in cells
               if c["cell_type"] == "markdown" and "".join(c["source"]).startswith(start)]
    return " ".join(text.split())


def test_the_scan_paragraph_quotes_the_stored_scan_runs():
    runs = mla.stored(EXPERIMENTS["mla-scan"], ResultStore(ROOT / "results"))
    side = mla.scan_side(runs)
    ours = {name: f"{value:.1f}" for name, value in side.ours.items()}
    text = markdown_cell("monotonic-attention", "**What the SCAN table says**")
    between = side[(side.ours >= 15) & (side.ours <= 19)]
    near = side.loc[["mix_locattn_s", "mix_mono_pr", "mix_rmono", "mix_rmono_pr"], "p"]
    relative = runs[(runs.variant == "relative") & (runs.length == "test") & (runs.metric == "accuracy")].value
    quotes = [f"({seeds_text(runs.seed)} of the {len(mla.PROFILE_SIZES['full'].seeds)} declared, all "
              f"{runs.key.nunique()} runs committed",
              f"{side.verdict.str.startswith('reproduced').sum()} of the {len(side)} rows are *reproduced",
              f"(ours {ours['mix_onestep']}% against the paper's {side.loc['mix_onestep', 'paper mean']:.1f}%, "
              f"p = {side.loc['mix_onestep', 'p']:.2f})",
              f"which is our OneStep row (section 2: `mix_onestep_code` is OneStep): {ours['onestep']}%",
              f"sit below the paper at p = {near.min():.2f} to {near.max():.2f}",
              f"ours put {len(between)} of the {len(side)} mechanisms between 15% and 19%",
              f"Relative on top ({ours['relative']}%, its seeds {relative.min():.1f} to {relative.max():.1f}%)",
              f"Bi-Relative at the bottom ({ours['bi_relative']}%)",
              *(f"{label} {ours[name]} → {ours['mix_' + name]}" for name, label in MIXED.items())]
    assert [q for q in quotes if q not in text] == []
    assert side.ours.idxmax() == "relative" and side.ours.idxmin() == "bi_relative"
    assert (near < 0.1).all() and (side.loc[near.index, "ours"] < side.loc[near.index, "paper mean"]).all()
    assert max(abs(side.ours[name] - side.ours["mix_" + name]) for name in MIXED) <= 2  # "no ... more than 2 points"
