"""How each stored grid of the sparsity chapter differs from the paper's set-up, and so what its verdict is about: the
paper's mechanism at a smaller scale (only the model, its training budget and which cells run differ), or that and a
change of ours (lengths, largest position id, corpus, ...). Ours is read from the profiles, the paper's from `paper`
(Appendix E's tables for the synthetic experiments, Appendix F for language); the cells we run (bounds K, jumps,
depths, models) are listed as ours alone where the paper's values are lost from our copy of it, and sparse parity's
bounds against the authors' summary in our spec."""

import pandas as pd

from lengthgen.display import and_list, markdown_table, model_size
from lengthgen.papers.sparsity import paper
from lengthgen.papers.sparsity.experiments import (
    ASSIGNMENT_PROFILES,
    PARITY_PROFILES,
    SCRATCHPAD_PROFILES,
    DecoderSizes,
    scratchpad_configs,
)
from lengthgen.papers.sparsity.language import LANGUAGE_PROFILES, LanguageSizes
from lengthgen.papers.sparsity.prose import TOKENS_PER_PAIR, int_range, model_text
from lengthgen.tasks.corpus import SOURCES, WINDOWS
from lengthgen.tasks.sparsity import ScratchpadParity

SCALE = "the paper's mechanism at a smaller scale"  # what a verdict is about when nothing but the scale differs
FIGURES = {"sparsity-parity": "Figs. 1, 7", "sparsity-scratchpad": "Figs. 2, 8", "sparsity-assignment": "Fig. 3",
           "sparsity-language": "Table 1, Figs. 4-6"}
SYNTHETIC = {"sparsity-parity": PARITY_PROFILES, "sparsity-scratchpad": SCRATCHPAD_PROFILES,
             "sparsity-assignment": ASSIGNMENT_PROFILES}
# Our choices where our copy of the paper is silent or has lost the detail, per grid: counted as changes of ours.
CHOICES = {"sparsity-scratchpad": "Fig. 8's ablations at j = 1 (our copy of the paper does not say which j)",
           "sparsity-assignment": "no separator ending each step (the paper names a third separator token whose "
                                  "symbol our copy of it lost); a scratchpad variable takes the id of the step that "
                                  "assigns it (the paper's \"the position assigned to it in the first part\" leaves "
                                  "two occurrences to choose from)"}
FORMATS = {"paper": "the paper's format", "ours": "our format"}  # variable assignment's formats as the table names them
UNITS = {"sparsity-parity": lambda n: TOKENS_PER_PAIR * n,  # pairs -> tokens, the paper's unit
         "sparsity-scratchpad": lambda n: ScratchpadParity(jump=1).combined(n),  # scratchpad tokens -> combined
         "sparsity-assignment": lambda n: n}  # tokens both


def _differ(pairs) -> list[str]:
    """"name ours (the paper's theirs)" for each (name, ours, theirs) whose two values differ."""
    return [f"{name} {ours} (the paper's {theirs})" for name, ours, theirs in pairs if ours != theirs]


def decoder_setup(ours: DecoderSizes, theirs: paper.SyntheticSetup, unit) -> dict[str, str]:
    """How a synthetic grid's sizes differ from the paper's (`unit` turns our lengths into the paper's unit):
    `sizes` (model, steps, batch, warm-up, and the largest position id, the size of the id table: each grid's covers
    its test lengths, so it is a size, not a change of the mechanism; the paper's learning rate is lost from our copy
    of it, so ours is not compared), `runs` (the cells we run and our seeds against the paper's runs), `changed`
    (training and longest test lengths; "" when none)."""
    model = model_size(ours.layers, ours.width) + "".join(f", {model_size(layers, width)} for j = {j}"
                                                    for j, layers, width in ours.jump_models)
    sizes = _differ([("model", model, model_size(theirs.layers, theirs.width)),
                     ("steps", f"{ours.steps:,}", f"{theirs.steps:,}"), ("batch", ours.batch, theirs.batch),
                     ("warm-up", ours.warmup, theirs.warmup),
                     ("largest position id", ours.max_positions, theirs.max_id)])
    cells = [f"{name} {int_range(values) if name != 'models' else and_list(values)}"
             for name, values in (("bounds K", ours.bounds), ("sparsities k", ours.test_ks), ("jumps", ours.jumps),
                                  ("depths", ours.depths), ("models", ours.variants)) if values]
    runs = [*cells, *_differ([("seeds", len(ours.seeds), theirs.runs)])]
    lo, hi = (unit(n) for n in ours.train_lengths)
    changed = _differ([("training lengths", f"{lo}-{hi}", "{}-{}".format(*theirs.train)),
                       ("longest test", unit(max(ours.eval_lengths)), theirs.longest_test)])
    return {"sizes": "; ".join(sizes), "runs": "; ".join(runs), "changed": "; ".join(changed)}


def language_setup(ours: LanguageSizes, parameters: int) -> dict[str, str]:
    """How the language grid differs from the paper's (App. F): a model of `parameters` (the paper's 1.3 B) and, as
    changes, the corpus (the paper's C4) and the tokenizer (word types, the paper's Llama-2 subwords) where the
    contexts are the paper's."""
    changed = _differ([("corpus", SOURCES[ours.source], paper.LANGUAGE_CORPUS),
                       ("tokenizer", f"words, {ours.vocab:,} types",
                        "{}, {:,} types".format(*paper.LANGUAGE_TOKENIZER)),
                       ("contexts", f"{ours.short} and {ours.long}", "{} and {}".format(*paper.LANGUAGE_CONTEXTS))])
    pose = ours.pose_split()[1]
    return {"sizes": f"model {parameters / 1e6:.2g} M parameters (the paper's "
                       f"{paper.LANGUAGE_PARAMETERS / 1e9:.2g} B); steps with PoSE {pose:,} (the paper's "
                       f"{paper.LANGUAGE_POSE_STEPS:,})",
            "runs": f"seeds {len(ours.seeds)}", "changed": "; ".join(changed)}


def jump_lengths(profile: str) -> str:
    """The combined training lengths of the scratchpad grid's larger jumps at `profile`, which differ from j = 1's
    (whole steps of j + 1 tokens inside them, `experiments.scratchpad_runs`): "j = 2 trains on combined lengths 12-39
    (whole steps inside j = 1's 10-40)"."""
    runs = {run.task.jump: run for run in scratchpad_configs(profile, (0,)) if run.model.ppc}
    combined = {j: (run.task.combined(run.train.min_length), run.task.combined(run.train.max_length))
                for j, run in runs.items()}
    others = [f"j = {j} on {lo}-{hi}" for j, (lo, hi) in combined.items() if (lo, hi) != combined[1]]
    return (f"jumps train on the combined lengths whose whole steps of j + 1 tokens fit inside j = 1's "
            f"{combined[1][0]}-{combined[1][1]}: {and_list(others)}") if others else ""


def parity_bounds(profile: str) -> str:
    """Sparse parity's training bounds at `profile` against the paper's (`paper.PARITY_BOUNDS`), where they differ: a
    change of ours, since the bounds set how sparse the trained task is; "" where they are the paper's."""
    ours, (lo, hi) = PARITY_PROFILES[profile].bounds, paper.PARITY_BOUNDS
    if (min(ours), max(ours)) == (lo, hi):
        return ""
    return (f"bounds K = {int_range(ours)} (the paper's {lo}-{hi}, by the authors' summary in our spec; lost from our "
            "copy of it)")


def setups(read_at: dict[str, str], language_parameters: int) -> pd.DataFrame:
    """One row per grid of the scorecard (read at its profile in `read_at`): its figures, which sizes differ from the
    paper's, which cells run, what is changed, and what its verdicts are about (SCALE, with a change of ours if
    any)."""
    rows = {name: decoder_setup(profiles[read_at[name]], paper.SETUPS[name], UNITS[name])
            for name, profiles in SYNTHETIC.items()}
    derived = {"sparsity-scratchpad": jump_lengths(read_at["sparsity-scratchpad"]),  # read from the configs
               "sparsity-parity": parity_bounds(read_at["sparsity-parity"])}
    for name in CHOICES.keys() | derived.keys():
        rows[name]["changed"] = "; ".join(filter(None, (rows[name]["changed"], CHOICES.get(name), derived.get(name))))
    rows["sparsity-language"] = language_setup(LANGUAGE_PROFILES[read_at["sparsity-language"]], language_parameters)
    return pd.DataFrame([{"figure": FIGURES[name], "grid": f"{name} ({read_at[name]})", **row,
                          "the verdicts are about": f"{SCALE}, with a change of ours" if row["changed"] else SCALE}
                         for name, row in rows.items()])


def setup_sentence(table: pd.DataFrame) -> dict:
    """The glued sentences under `setups`'s table (`setup_about`): which figures are judged at a smaller scale alone,
    which with a change of ours as well, and the changes."""
    scale = and_list(table[table["the verdicts are about"] == SCALE].figure)
    changed = table[table["the verdicts are about"] != SCALE]
    what = ("its format, positions, training and test lengths, with a smaller model, fewer steps, a smaller batch or "
            "warm-up, or another size of id table")
    text = (f"The verdicts of {scale} are about the paper's mechanism at a smaller scale: {what}." if scale else
            f"No verdict here is about the paper's mechanism at a smaller scale alone ({what}).")
    if len(changed):
        changes = "; ".join(f"{r.figure}: {r.changed}" for r in changed.itertuples())
        whose = f"Those of {and_list(changed.figure)} are" if scale else "Every grid's are"
        text += f" {whose} about that and a change of ours as well: {changes}."
    return {"setup_about": text}


PROFILE_ORDER = ("quick", "cpu", "regime", "full")  # the sizes table's profiles, smallest first


def sizes_table() -> str:
    """The Methods page's table of every grid's sizes at each profile (PROFILE_ORDER; `Paper.methods`), read from the
    profiles: model, training, the cells it holds, lengths (the paper's units for parity and the scratchpad) and the
    declared seeds; a profile a grid lacks is left out."""
    def model(p: DecoderSizes) -> str:
        return f"{model_text(p)}, {p.heads} heads"

    def training(p: DecoderSizes) -> str:
        return f"{p.steps:,} steps of {p.batch}, AdamW {p.lr:.0e}".replace("e-0", "e-") + f", {p.warmup} warm-up"

    def parity(p: DecoderSizes, profile: str) -> tuple[str, ...]:
        lo, hi = (UNITS["sparsity-parity"](n) for n in p.train_lengths)
        return (model(p), training(p), f"K = {int_range(p.bounds)}, tested at k = {int_range(p.test_ks)}",
                f"{lo}-{hi} / to {UNITS['sparsity-parity'](max(p.eval_lengths))} tokens")

    def scratchpad(p: DecoderSizes, profile: str) -> tuple[str, ...]:
        larger = "".join(f" (j = {j} PPC: {model(p.at(layers, width))})" for j, layers, width in p.jump_models)
        lo, hi = (UNITS["sparsity-scratchpad"](n) for n in p.train_lengths)
        jumps = jump_lengths(profile)
        held = (f"{and_list(p.variants)} alone" if p.variants else
                f"jump{'s' * (len(p.jumps) > 1)} {int_range(p.jumps)} and both ablations")
        return (model(p) + larger, training(p), held, f"combined {lo}-{hi} / to "
                f"{UNITS['sparsity-scratchpad'](max(p.eval_lengths))}" + (f" ({jumps})" if jumps else ""))

    def assignment(p: DecoderSizes, profile: str) -> tuple[str, ...]:
        unit = "chains" if p.format == "ours" else "tokens"
        return (model(p), training(p), f"{and_list(p.variants) + ' alone' if p.variants else 'all four models'}; "
                f"{FORMATS.get(p.format, p.format)}; depth{'s' * (len(p.depths) > 1)} {int_range(p.depths)}; "
                f"{p.variables} variables; "
                f"{p.positions} positions", f"{p.train_lengths[0]}-{p.train_lengths[1]} / to {max(p.eval_lengths)} "
                f"{unit}")

    def language(p: LanguageSizes, profile: str) -> tuple[str, ...]:
        pose = p.pose_split()[1]
        return (f"{model_text(p)}, {p.vocab:,} word types", f"{p.steps:,} steps of {p.tokens:,} tokens, AdamW "
                f"{p.lr:.0e}".replace("e-0", "e-"), f"contexts {p.short} (PoSE for the last {pose:,} steps) and "
                f"{p.long}", f"{SOURCES[p.source]}: {WINDOWS[p.windows]}")

    grids = (("sparse parity", PARITY_PROFILES, parity), ("parity with a scratchpad", SCRATCHPAD_PROFILES, scratchpad),
             ("variable assignment", ASSIGNMENT_PROFILES, assignment), ("language", LANGUAGE_PROFILES, language))
    rows = [(grid, f"`{profile}`", *cells(profiles[profile], profile), int_range(profiles[profile].seeds))
            for grid, profiles, cells in grids for profile in PROFILE_ORDER if profile in profiles]
    return markdown_table(pd.DataFrame(rows, columns=["grid", "profile", "model", "training", "cells", "lengths",
                                                      "seeds"])) + "\n"
