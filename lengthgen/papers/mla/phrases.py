"""Phrases of the monotonic-attention chapter's prose, built from data: counts as words, seed lists, ranges, the
mechanisms' names."""



from lengthgen.seeding import seeds_text

WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
# SCAN's mechanisms as the prose names them; a variant adds "Mix " for "mix_" and "-PR" for "_pr".
CORE_NAMES = {"content": "Content", "relative": "Relative", "bi_relative": "Bi-Relative", "bi_rope": "Bi-RoPE",
              "onestep": "OneStep", "mono": "Mono", "rmono": "RMono", "locattn": "LocAttn", "locattn_s": "LocAttn-S"}


def word(n: int) -> str:
    """A count as the prose spells it: "two", ..., "twelve"; digits from 13 on."""
    return WORDS[n] if 0 <= n < len(WORDS) else str(n)


def all_of(n: int, noun: str) -> str:
    """"both seeds", "all five seeds", "the one seed" (`noun` plural)."""
    return f"the one {noun.removesuffix('s')}" if n == 1 else f"both {noun}" if n == 2 else f"all {word(n)} {noun}"


def seeds_and(seeds) -> str:
    """`seeds_text` as a sentence writes it: "seeds 0-2 and 4", "seeds 0, 1 and 3", "seed 3"."""
    head, _, last = seeds_text(seeds).rpartition(", ")
    return f"{head} and {last}" if head else last


def and_list(items) -> str:
    """"a", "a and b", "a, b and c"."""
    items = list(items)
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def span(values, digits: int = 1) -> str:
    """The range of some values as the prose writes it: "33.6-55.0", or one value "89.5" when they are all equal."""
    lo, hi = (f"{v:.{digits}f}" for v in (min(values), max(values)))
    return lo if lo == hi else f"{lo}-{hi}"


def scan_name(variant: str) -> str:
    """A SCAN variant as the prose names it: "mix_locattn_s_pr" → "Mix LocAttn-S-PR"."""
    core = variant.removeprefix("mix_").removesuffix("_pr")
    return "Mix " * variant.startswith("mix_") + CORE_NAMES[core] + "-PR" * variant.endswith("_pr")


def paper_numbers(values) -> str:
    """Paper cells as the prose quotes them: "40.3 / 0 / 0" (whole numbers without a decimal)."""
    return " / ".join(f"{v:g}" for v in values)
