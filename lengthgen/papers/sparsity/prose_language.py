"""Section 7 of the sparsity chapter in words: the natural-language study's set-up, rules, stored runs and its
control, each a dict of glue values read from the runs (`prose` holds the other sections')."""

import math

import pandas as pd

from lengthgen.analysis.language import (
    LEVEL,
    MARGIN,
    SHARE,
    far_context_sparsity,
    influence_points,
    lower_bound,
    window_gains,
)
from lengthgen.display import and_list, holds, span, word
from lengthgen.metrics import PERPLEXITY
from lengthgen.papers.sparsity import paper
from lengthgen.papers.sparsity.language import CLAIM_K, LanguageSizes, build_language_models
from lengthgen.papers.sparsity.prose import count_of_seeds, minutes, past_every, round_to
from lengthgen.tasks.corpus import SOURCES, WINDOWS


def model_parameters(sizes: LanguageSizes) -> int:
    """Parameters of one model of a language profile's pair (builds it; reads the corpus's vocabulary)."""
    return sum(p.numel() for p in build_language_models(sizes.run(0))[1]["short"].parameters())


def orders_phrase(ratios) -> str:
    """Between which orders of magnitude the ratios lie: "three to four" (3,600 and 6,100), "two to four"."""
    lo, hi = (math.floor(math.log10(r)) for r in (min(ratios), max(ratios)))
    return f"{word(lo)} to {word(hi + 1)}"


def language_setup(sizes: LanguageSizes, summary: dict, parameters: int, python: str) -> dict:
    """Section 7's first two paragraphs: the paper's models beside ours (size, tokens, how many times fewer), the
    corpus as this interpreter reads it, and the influence study's windows.

    Args:
        sizes: the stored runs' profile (`LANGUAGE_PROFILES` at the profile the chapter reads them, `rows.READ_AT`).
        summary: `Corpus.summary()` of the profile's corpus.
        parameters: `model_parameters(sizes)`.
        python: the interpreter's version ("3.11"), which fixes the corpus.
    """
    documents, words = summary["documents"], summary["train tokens"] + summary["test tokens"]
    cfg = sizes.run(0)
    tokens = sizes.steps * sizes.tokens
    fewer = (round_to(paper.LANGUAGE_PARAMETERS / parameters), round_to(paper.LANGUAGE_TOKENS / tokens))
    short, long = paper.LANGUAGE_CONTEXTS
    return {"lang_paper_params": paper.LANGUAGE_PARAMETERS / 1e9, "lang_paper_tokens": paper.LANGUAGE_TOKENS / 1e9,
            "lang_paper_short": short, "lang_paper_long": long, "lang_paper_pose": paper.LANGUAGE_POSE_SHARE,
            "lang_orders": orders_phrase(fewer), "lang_corpus": SOURCES[cfg.corpus.source],
            "lang_windows_rule": WINDOWS[cfg.corpus.windows], "lang_python": python, "lang_documents": documents,
            "lang_document_tokens": words / documents,
            "lang_characters": summary["characters"] / 1e6, "lang_train_tokens": summary["train tokens"] / 1e3,
            "lang_test_tokens": summary["test tokens"] / 1e3, "lang_vocab": summary["vocabulary"],
            "lang_unknown": summary["unknown (test)"], "lang_width": cfg.model.width, "lang_layers": cfg.model.layers,
            "lang_heads": cfg.model.heads, "lang_parameters": parameters / 1e6, "lang_fewer_parameters": fewer[0],
            "lang_steps": sizes.steps, "lang_step_tokens": sizes.tokens, "lang_tokens": tokens / 1e6,
            "lang_fewer_tokens": fewer[1], "lang_passes": tokens / summary["train tokens"],
            "lang_windows": sizes.examples, "lang_long": sizes.long, "lang_context": sizes.long - 1,
            "lang_recent": cfg.recent, "lang_short": sizes.short}


def language_rules(runs: pd.DataFrame) -> dict:
    """Section 7's rules: the k, share, margin and confidence level the few-tokens claim is judged by, and the stored
    runs' wall-clock minutes (why there is no live size)."""
    return {"langrule_k": CLAIM_K, "langrule_share": SHARE, "langrule_margin": MARGIN, "langrule_level": LEVEL,
            "langrule_minutes": minutes(runs)}


def few_phrase(verdict: str) -> str:
    """The few-tokens verdict (`analysis.language.few_tokens_verdict`) as the prose says it."""
    if verdict.startswith("inconclusive: "):
        return "is not judged: " + verdict.removeprefix("inconclusive: ")
    return "holds" if verdict == "reproduced" else "fails"


def own_gains(points: pd.DataFrame, lm: str) -> pd.Series:
    """The far gain of each window for model `lm` scored with its own choice (`window_gains` of its influence
    points, `analysis.language.influence_points` at one k)."""
    return window_gains(points[(points.lm == lm) & (points.chooser == lm)])


def far_effect(gain: pd.Series) -> str:
    """What the far context does on average, from the far gains (nats) of the windows: "helps" or "hurts" where the
    one-sided bound at LEVEL of the mean clears zero on that side (the rule's `lower_bound`; a mean off zero by noise
    is neither), else "neither helps nor hurts beyond noise"."""
    if lower_bound(gain) > 0:
        return "helps"
    return "hurts" if lower_bound(-gain) > 0 else "neither helps nor hurts beyond noise"


def stored_language(runs: pd.DataFrame, table_1: pd.DataFrame, summary: pd.DataFrame, claims: pd.DataFrame,
                    points: pd.DataFrame, sizes: LanguageSizes) -> dict:
    """"What the stored runs say" of the language study: Table 1's verdict, medians and in how many seeds the PoSE model
    is lower at the long length; the PoSE steps beside the paper's; the few-tokens verdict; what the far context does on
    average for each model (helps or hurts only where its one-sided bound at LEVEL says so), and the shares its own
    choice, the controls and the other model's choice recover; the sentence about the other model's choice (below its
    own, above random tokens) is bound.

    Args:
        runs: the stored runs; table_1, summary, claims, points: `language_reading` of them.
        sizes: their profile.
    """
    cfg = sizes.run(0)
    short, long = cfg.name("short"), cfg.name("long")
    k = min(CLAIM_K, max(cfg.ks))
    at = {lm: table_1.loc[lm, [f"ppl at {sizes.short}", f"ppl at {sizes.long}"]].astype(float).tolist()
          for lm in (short, long)}
    ppl = runs[(runs.metric == PERPLEXITY) & (runs.lm == short)].pivot_table(index="seed", columns="length",
                                                                           values="value")
    lower = int((ppl[sizes.long] < ppl[sizes.short]).sum())
    table_verdict, uses_verdict, few_verdict = (claims[claims.claim.str.contains(text, regex=False)].verdict.iloc[0]
                                                for text in ("perplexity", "Table 1's reading", "far tokens"))
    at_k = summary.loc[k]
    own = {lm: at_k.loc[(lm, lm)] for lm in (short, long)}
    cross = at_k[at_k.index.get_level_values("lm") != at_k.index.get_level_values("chooser")]
    holds(bool(cross["share recovered"].max() < min(o["share recovered"] for o in own.values())),
          "scored with the other model's choice, the share falls: what leave-one-out finds is partly particular to "
          "the model that chose it")
    holds(bool(cross["share recovered"].min() > max(o["share random"] for o in own.values())),
          "scored with the other model's choice, the share stays above what random far tokens recover: the two "
          "models partly agree on which far tokens matter")

    def far(lm: str) -> dict:  # what the far context does for a model, and what its controls recover
        gain = own_gains(points[points.k == k], lm)
        return {"effect": far_effect(gain), "mean": float(gain.mean()),
                "helps": float((gain > 0).mean()), "other": float(own[lm]["share other"]),
                "random": float(own[lm]["share random"])}

    mine, theirs = far(short), far(long)
    return {"langres_seeds": int(ppl.index.nunique()),
            "langres_table_verdict": "reproduces" if table_verdict == "reproduced" else "does not reproduce",
            "langres_short_at_short": at[short][0], "langres_short_at_long": at[short][1],
            "langres_lower_seeds": count_of_seeds(lower, int(ppl.index.nunique())),
            "langres_long_at_short": at[long][0], "langres_long_at_long": at[long][1],
            "langres_pose_steps": sizes.pose_split()[1],
            "langres_steps": cfg.short.steps, "langres_paper_params": paper.LANGUAGE_PARAMETERS / 1e9,
            "langres_paper_pose_steps": paper.LANGUAGE_POSE_STEPS,
            "langres_uses": "holds" if uses_verdict == "reproduced" else "does not hold",
            "langres_few_verdict": few_phrase(few_verdict), "langres_k": k,
            "langres_far_effect": mine["effect"], "langres_far_mean": mine["mean"], "langres_far_helps": mine["helps"],
            "langres_share": float(own[short]["share recovered"]), "langres_r": float(own[short]["pearson r"]),
            "langres_other": mine["other"], "langres_random": mine["random"],
            "langres_long_effect": theirs["effect"], "langres_long_mean": theirs["mean"],
            "langres_long_reading": (
                "it does, so the PoSE model's training window is what the row measures" if theirs["effect"] == "helps"
                else "it does not either, so the row measures what this corpus offers beyond the short window at this "
                     "scale more than the PoSE model's training window"),
            "langres_long_other": theirs["other"], "langres_long_random": theirs["random"],
            "langres_cross_share": span(cross["share recovered"], "{:.0%}"),
            "langres_cross_r": span(cross["pearson r"], "{:.2f}")}


def language_control(control: pd.DataFrame, grid: pd.DataFrame, sizes: LanguageSizes) -> dict:
    """The language control's sentences (`sizing.LANGUAGE_CONTROL`: the grid's short model on the paper's PoSE steps,
    the sizing seeds; `sizes`, the control's sizes, whose `steps` are the grid's), values `lc_control` and `lc_moves`:
    what the far context does for the PoSE model seed by seed (`far_effect`, mean far gain at the claim's k) beside the
    grid's seeds (`grid`, its stored runs), and its steps in all against the grid's; on the control's seeds what the k
    tokens of its own choice, of the choice for the token before and at random recover (shares of the far gain, as the
    few-tokens rule reads them, shown, not judged: the control's seeds are not the grid's); whether the PoSE steps move
    the far effect to "helps" (on every control seed and not on every grid seed), or short of that toward it (every
    control seed's mean far gain above every grid seed's, as the parity controls count a move); or that the control is
    not stored yet."""
    if control.empty:
        return {"lc_control": "the control is not stored yet", "lc_moves": "is not read yet"}
    k, short = min(CLAIM_K, max(sizes.ks)), sizes.run(0).name("short")

    def effects(runs: pd.DataFrame) -> dict[int, tuple[str, float]]:  # seed -> (far effect, mean far gain)
        out = {}
        for seed in sorted(runs.seed.unique()):
            gain = own_gains(influence_points(runs[runs.seed == seed], k), short)
            out[seed] = far_effect(gain), float(gain.mean())
        return out

    ours, theirs = effects(control), effects(grid)
    own = far_context_sparsity(influence_points(control, k)).loc[(short, short)]
    plain, pose = sizes.pose_split()
    each = "; ".join(f"on seed {seed} the far context {effect} ({mean:+.3f} nats)"
                     for seed, (effect, mean) in ours.items())
    grids = ", ".join(f"{mean:+.3f}" for _, mean in theirs.values())
    total = plain + pose  # the grid's short model trains `sizes.steps` in all: the control trains longer too
    text = (f"on {pose:,} PoSE steps after the grid's first {plain:,} ({total:,} steps in all, "
            f"{total / sizes.steps:.1f}x the grid's {sizes.steps:,}, so more training as well as more PoSE; sizing seed"
            f"{'s' * (len(ours) > 1)} {and_list(ours)}), {each} (the grid's seeds: {grids} nats); on the control's "
            f"seeds the {k} far tokens of the model's own choice recover {own['share recovered']:.0%} of the far gain "
            f"on the windows where the far context helps, {k} chosen on the token before {own['share other']:.0%} "
            f"and {k} at random {own['share random']:.0%}")
    helps = [effect == "helps" for effect, _ in ours.values()]
    already = all(effect == "helps" for effect, _ in theirs.values())
    toward = past_every([mean for _, mean in ours.values()], [mean for _, mean in theirs.values()])
    none = "gives no PoSE model whose far context helps on its sizing seeds"
    return {"lc_control": text,
            "lc_moves": "is not needed: the grid's PoSE model's far context helps already" if all(helps) and already
                        else "gives a PoSE model whose far context helps, on every seed" if all(helps) else
                        "gives a PoSE model whose far context helps on some seeds only" if any(helps) else
                        f"{none}, but moves its far effect toward helping (every control seed's mean far gain above "
                        "every grid seed's)" if toward else f"{none}, nor moves its far effect past every grid seed"}
