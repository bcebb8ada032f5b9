"""How each stored grid of the sparsity chapter differs from the paper's set-up, and so what its verdict is about: the
paper's mechanism at a smaller scale (only the model, its training budget and which cells run differ), or a change of
ours (anything else: lengths, ids, positions, format, variables, corpus). Read from the profiles, the paper's being
each synthetic experiment's `full` profile (Appendix E's settings) and, for the language study, `paper`'s numbers."""

import pandas as pd

from lengthgen.display import and_list
from lengthgen.papers.sparsity import paper
from lengthgen.papers.sparsity.experiments import (
    ASSIGNMENT_PROFILES,
    PARITY_PROFILES,
    SCRATCHPAD_PROFILES,
    DecoderSizes,
)
from lengthgen.papers.sparsity.language import LANGUAGE_PROFILES, LanguageSizes
from lengthgen.papers.sparsity.prose import int_range
from lengthgen.tasks.corpus import SOURCES
from lengthgen.train.loop import LanguageTrainConfig

SCALE = "the paper's mechanism at a smaller scale"  # what a verdict is about when nothing but the scale differs
FIGURES = {"sparsity-parity": "Figs. 1, 7", "sparsity-scratchpad": "Figs. 2, 8", "sparsity-assignment": "Fig. 3",
           "sparsity-language": "Table 1, Figs. 4-6"}
SYNTHETIC = {"sparsity-parity": PARITY_PROFILES, "sparsity-scratchpad": SCRATCHPAD_PROFILES,
             "sparsity-assignment": ASSIGNMENT_PROFILES}


def _differ(pairs) -> list[str]:
    """"name ours (paper's)" for each (name, ours, paper's) whose two values differ."""
    return [f"{name} {ours} (the paper's {theirs})" for name, ours, theirs in pairs if ours != theirs]


def _values(values) -> str:
    return int_range(values) if all(isinstance(v, int) for v in values) and values else and_list(values) or "all"


def decoder_setup(ours: DecoderSizes, theirs: DecoderSizes) -> dict[str, str]:
    """How a synthetic grid's sizes differ from the paper's: `smaller` (model, steps, batch; the paper's learning
    rate is lost from our copy of it, so ours is not compared),
    `runs` (which bounds K, sparsities k, jumps, depths, models and how many seeds), `changed` (anything else: training
    and longest test lengths, id table, positions, format, variables; "" when none of them)."""
    model = f"{ours.layers}x{ours.width}" + "".join(f", {layers}x{width} for j = {j}"
                                                    for j, layers, width in ours.jump_models)
    smaller = _differ([("model", model, f"{theirs.layers}x{theirs.width}"),
                       ("steps", f"{ours.steps:,}", f"{theirs.steps:,}"), ("batch", ours.batch, theirs.batch)])
    runs = _differ([("bounds K", _values(ours.bounds), _values(theirs.bounds)),
                    ("sparsities k", _values(ours.test_ks), _values(theirs.test_ks)),
                    ("jumps", _values(ours.jumps), _values(theirs.jumps)),
                    ("depths", _values(ours.depths), _values(theirs.depths)),
                    ("models", _values(ours.variants), _values(theirs.variants)),
                    ("seeds", len(ours.seeds), len(theirs.seeds))])
    changed = _differ([("training lengths", "{}-{}".format(*ours.train_lengths),
                        "{}-{}".format(*theirs.train_lengths)),
                       ("longest test", max(ours.eval_lengths), max(theirs.eval_lengths)),
                       ("id table", ours.max_positions, theirs.max_positions),
                       ("positions", ours.positions or "-", theirs.positions or "-"),
                       ("format", ours.format, theirs.format), ("variables", ours.variables, theirs.variables)])
    return {"smaller": "; ".join(smaller), "runs": "; ".join(runs), "changed": "; ".join(changed)}


def language_setup(ours: LanguageSizes, parameters: int) -> dict[str, str]:
    """How the language grid differs from the paper's (App. F): a model of `parameters` (the paper's 1.3 B) and, as a
    change, the corpus (the paper's C4) where the contexts are the paper's."""
    changed = _differ([("corpus", SOURCES[ours.source], paper.LANGUAGE_CORPUS),
                       ("contexts", f"{ours.short} and {ours.long}", "{} and {}".format(*paper.LANGUAGE_CONTEXTS))])
    pose = round((1 - LanguageTrainConfig.pose_from) * ours.steps)
    return {"smaller": f"model {parameters / 1e6:.2g} M parameters (the paper's "
                       f"{paper.LANGUAGE_PARAMETERS / 1e9:.2g} B); steps with PoSE {pose:,} (the paper's "
                       f"{paper.LANGUAGE_POSE_STEPS:,})",
            "runs": f"seeds {len(ours.seeds)}", "changed": "; ".join(changed)}


def setups(read_at: dict[str, str], language_parameters: int) -> pd.DataFrame:
    """One row per grid of the scorecard (read at its profile in `read_at`): its figures, what is smaller than the
    paper's, which cells run, what is changed, and what its verdicts are about (SCALE, or the change)."""
    rows = {name: decoder_setup(profiles[read_at[name]], profiles["full"]) for name, profiles in SYNTHETIC.items()}
    rows["sparsity-language"] = language_setup(LANGUAGE_PROFILES[read_at["sparsity-language"]], language_parameters)
    return pd.DataFrame([{"figure": FIGURES[name], "grid": f"{name} ({read_at[name]})", **row,
                          "the verdicts are about": f"a change of ours: {row['changed']}" if row["changed"] else SCALE}
                         for name, row in rows.items()])


def setup_sentence(table: pd.DataFrame) -> dict:
    """The glued sentence under `setups`'s table: which figures are judged at a smaller scale, which on a change, and
    the changes."""
    scale = table[table["the verdicts are about"] == SCALE]
    changed = table[table["the verdicts are about"] != SCALE]
    return {"setup_scale": and_list(scale.figure) or "none", "setup_changed": and_list(changed.figure) or "none",
            "setup_changes": "; ".join(changed.changed) or "none"}
