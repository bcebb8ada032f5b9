"""Phrases of the monotonic-attention chapter's prose, built from data: counts as words, seed lists, ranges, the
mechanisms' names (the counts and lists themselves: `display.word`, `display.and_list`, `display.span`)."""

from lengthgen.display import word
from lengthgen.seeding import seeds_text

# SCAN's mechanisms as the prose names them; a variant adds "Mix " for "mix_" and "-PR" for "_pr".
CORE_NAMES = {"content": "Content", "relative": "Relative", "bi_relative": "Bi-Relative", "bi_rope": "Bi-RoPE",
              "onestep": "OneStep", "mono": "Mono", "rmono": "RMono", "locattn": "LocAttn", "locattn_s": "LocAttn-S"}


def all_of(n: int, noun: str) -> str:
    """"both seeds", "all five seeds", "the one seed" (`noun` plural)."""
    return f"the one {noun.removesuffix('s')}" if n == 1 else f"both {noun}" if n == 2 else f"all {word(n)} {noun}"


def seeds_and(seeds) -> str:
    """`seeds_text` as a sentence writes it: "seeds 0-2 and 4", "seeds 0, 1 and 3", "seed 3"."""
    head, _, last = seeds_text(seeds).rpartition(", ")
    return f"{head} and {last}" if head else last


def scan_name(variant: str) -> str:
    """A SCAN variant as the prose names it: "mix_locattn_s_pr" → "Mix LocAttn-S-PR"."""
    core = variant.removeprefix("mix_").removesuffix("_pr")
    return "Mix " * variant.startswith("mix_") + CORE_NAMES[core] + "-PR" * variant.endswith("_pr")


def paper_numbers(values) -> str:
    """Paper cells as the prose quotes them: "40.3 / 0 / 0" (whole numbers without a decimal)."""
    return " / ".join(f"{v:g}" for v in values)


def generation_change(runs_both, moved: int, cells: int) -> str:
    """What one change of generation did (`readings.generation_changes`): how many runs were made under both and how
    many of their test cells changed band."""
    if runs_both.empty:
        return "No run has been made under both yet."
    return f"{len(runs_both)} runs under both; {moved} of {cells} test cells change band (solved / partial / failed)."


def kept_history(history) -> str:
    """How many stored runs keep a per-epoch history (`history`: their epochs, columns task, variant, seed), and how
    many of seed 0 the figure above draws."""
    runs = history.groupby(["task", "variant", "seed"]).ngroups
    drawn = history[history.seed == 0].groupby(["task", "variant"]).ngroups
    return (f"{runs} stored runs keep a history ({drawn} of seed 0 drawn above; those stored before it was recorded "
            "have none).")
