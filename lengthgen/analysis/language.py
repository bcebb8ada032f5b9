"""The natural-language study of the sparsity chapter (the paper's Section 5.3): perplexity by context length, and
how few far-away tokens a language model needs to recover what its whole context gives it.

For a test window of `context` tokens followed by the token to predict, three losses of that token:
(a) with the whole context, (b) with only the `recent` tokens before it, and (c) with those plus the k far tokens
(further back than `recent`) that matter most, chosen by leave-one-out: the far tokens whose removal alone raises
the loss of (a) most. A token is removed by leaving it out of the sequence while every other token keeps its
position id, so it is masked out of every attention and nothing else moves. If the model's use of far context is
sparse, (b) - (c) is close to (b) - (a) already for small k.
"""

import math

import pandas as pd
import torch
import torch.nn.functional as F
from tqdm.auto import tqdm

from lengthgen.analysis.stats import t_half_width

CHUNK = 256  # sequences per forward pass


@torch.no_grad()
def _last_nll(model, tokens: torch.Tensor, ids: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """NLL (N,) of targets (N,) after sequences (N, T) at ids (N, T), in chunks of CHUNK sequences."""
    out = [F.cross_entropy(model.logits(tokens[i:i + CHUNK], ids[i:i + CHUNK], last=True), targets[i:i + CHUNK],
                           reduction="none") for i in range(0, len(tokens), CHUNK)]
    return torch.cat(out)


@torch.no_grad()
def perplexity(model, windows: torch.Tensor) -> float:
    """exp of the mean NLL of every token but the first of each window (W, length) (e.g. `Corpus.tiles`), each
    read on its own at ids 0..length-1."""
    length = windows.shape[1]
    ids = torch.arange(length).expand(CHUNK, length)
    total = 0.0
    for i in range(0, len(windows), CHUNK):
        chunk = windows[i:i + CHUNK]
        logits = model.logits(chunk[:, :-1], ids[: len(chunk), :-1])
        total += float(F.cross_entropy(logits.transpose(1, 2), chunk[:, 1:], reduction="sum"))
    return math.exp(total / (windows.shape[0] * (length - 1)))


@torch.no_grad()
def leave_one_out(model, window: torch.Tensor, recent: int) -> torch.Tensor:
    """NLL (F,) of the window's last token when each of its F = len(window) - 1 - recent far tokens is left out."""
    context, target = window[:-1], window[-1]
    far = len(context) - recent
    keep = ~torch.eye(far, len(context), dtype=torch.bool)  # row j: every position but far token j
    ids = torch.arange(len(context)).expand(far, -1)[keep].view(far, -1)
    return _last_nll(model, context.expand(far, -1)[keep].view(far, -1), ids, target.expand(far))


def _farthest(order: torch.Tensor, k: int) -> torch.Tensor:
    """The first k positions of each row of `order` (N, F), in sequence order."""
    return order[:, :k].sort(dim=1).values


@torch.no_grad()
def influence(model, batch: torch.Tensor, recent: int, ks: tuple[int, ...], chooser=None,
              controls: torch.Generator | None = None, progress: bool = False) -> pd.DataFrame:
    """Losses (a), (b) and (c) for k in `ks` of the last token of each window (N, C + 1), with the far tokens chosen
    by `chooser`'s leave-one-out (default: the model's own; the paper's Fig. 6 also crosses two models).

    With `controls` (a generator), (c) twice more, with far tokens chosen without looking at the scored token: "random",
    k far tokens drawn at random; "other", the k tokens that the chooser's leave-one-out ranks first for the token
    before it (its context one token shorter; every token far for it is far for the last one too). Selection on the
    scored token's own loss favours (c) by construction; tokens chosen on another token are not, so what they recover
    beyond random ones is far context the model uses sparsely.

    Returns:
        one row per window: example, full (a), recent (b), and "recent+k" (c) for each k (and "recent+k random",
        "recent+k other" with `controls`).
    """
    chooser = model if chooser is None else chooser
    context, targets = batch[:, :-1], batch[:, -1]
    N, C = context.shape
    before = 1 if controls is not None else 0  # "other" chooses among the far tokens of the token before the last
    if not 0 < recent < C or max(ks) > C - recent - before:
        raise ValueError(f"recent={recent} and k up to {max(ks)} need a context of at least "
                         f"{recent + max(ks) + before} tokens; got {C}")
    ids = torch.arange(C).expand(N, C)
    rows = {"example": range(N), "full": _last_nll(model, context, ids, targets),
            "recent": _last_nll(model, context[:, -recent:], ids[:, -recent:], targets)}
    windows = tqdm(batch, desc="leave-one-out", disable=not progress, leave=False)
    chosen = {"": torch.stack([leave_one_out(chooser, window, recent).argsort(descending=True) for window in windows])}
    if controls is not None:
        chosen[" random"] = torch.stack([torch.randperm(C - recent, generator=controls) for _ in range(N)])
        chosen[" other"] = torch.stack([leave_one_out(chooser, window[:-1], recent).argsort(descending=True)
                                        for window in batch])
    for k in ks:
        for name, order in chosen.items():
            keep = torch.cat([_farthest(order, k), ids[:, -recent:]], 1)
            rows[f"recent+{k}{name}"] = _last_nll(model, context.gather(1, keep), keep, targets)
    return pd.DataFrame({name: list(values) if isinstance(values, range) else values.tolist()
                         for name, values in rows.items()})


def perplexity_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Table 1: median test perplexity over seeds by model (rows) and evaluation length (columns), with the seeds."""
    ppl = runs[runs.metric == "perplexity"]
    table = ppl.pivot_table(index="lm", columns="length", values="value", aggfunc="median")
    table.columns = [f"ppl at {n}" for n in table.columns]
    return table.assign(seeds=ppl.groupby("lm").seed.nunique())


CONTROLS = ("random", "other")  # the far tokens of `influence`'s controls


def influence_points(runs: pd.DataFrame, k: int) -> pd.DataFrame:
    """One row per (seed, scored model, choosing model, window): far gain (b) - (a), what the whole far context
    gives, and recovered (b) - (c), what its k most influential tokens give; and what the controls' k tokens give
    ("recovered random", "recovered other"; NaN where they were not measured)."""
    nll = runs[runs.metric.str.startswith("nll ")]
    wide = nll.pivot_table(index=["seed", "lm", "chooser", "example"], columns="metric", values="value").reset_index()
    controls = {f"recovered {c}": wide["nll recent"] - wide.get(f"nll recent+{k} {c}", float("nan"))
                for c in CONTROLS}
    return wide.assign(far_gain=wide["nll recent"] - wide["nll full"],
                       recovered=wide["nll recent"] - wide[f"nll recent+{k}"], **controls)[
        ["seed", "lm", "chooser", "example", "far_gain", "recovered", *controls]]


LEVEL = 0.95  # the confidence of `lower_bound`


def lower_bound(values: pd.Series) -> float:
    """The one-sided lower confidence bound at LEVEL of a mean (Student's t over the values; NaN with fewer than
    two)."""
    return float(values.mean() - t_half_width(values, LEVEL)) if len(values) > 1 else float("nan")


def window_gains(points: pd.DataFrame) -> pd.Series:
    """The far gain of each window, the mean over the seeds that scored it: every seed scores the same windows (one
    eval seed), so a window, not a (seed, window) pair, is the unit a bound over windows counts."""
    return points.groupby("example").far_gain.mean()


def far_context_sparsity(points: pd.DataFrame) -> pd.DataFrame:
    """Per (scored model, choosing model): windows, the mean far gain (nats) and its lower bound at LEVEL over the
    windows (`lower_bound` of `window_gains`), Pearson r of recovered vs far gain (over seeds and windows), and the
    share of the far gain that the k tokens recover, sum(recovered) / sum(far gain) over the (seed, window) pairs
    whose far gain is positive; the same share for the controls' tokens ("share random", "share other")."""
    def summary(group: pd.DataFrame) -> pd.Series:
        gain = group[group.far_gain > 0]
        windows = window_gains(group)

        def share(column: str) -> float:
            return gain[column].sum(min_count=1) / gain.far_gain.sum() if len(gain) else float("nan")

        return pd.Series({"windows": len(windows), "mean far gain": group.far_gain.mean(),
                          "far gain lower bound": lower_bound(windows),
                          "pearson r": group.far_gain.corr(group.recovered), "share recovered": share("recovered"),
                          **{f"share {c}": share(f"recovered {c}") for c in CONTROLS}})

    return points.groupby(["lm", "chooser"]).apply(summary, include_groups=False).astype({"windows": int})


SHARE = 0.5  # the few-tokens claim holds when k tokens recover at least this share of the far gain ...
MARGIN = 0.1  # ... and tokens chosen on another token recover at least this much more of it than random ones


def few_tokens_verdict(few: pd.Series) -> str:
    """The few-tokens claim on one model's `far_context_sparsity` row: judged only where the far context helps on
    average (the lower bound at LEVEL of the mean far gain > 0: a mean above 0 by noise is not help) and the controls
    were measured; "reproduced" when its own k tokens recover at least
    SHARE of the far gain and the k tokens chosen on the token before recover at least MARGIN more of it than k
    random far tokens (selection on the scored token's own loss favours its choice by construction; a choice made on
    another token does not, so only a sparse use of far context can put it ahead of random tokens)."""
    if not few["far gain lower bound"] > 0:
        return (f"inconclusive: the far context does not help on average ({few['mean far gain']:+.3f} nats, "
                f"{LEVEL:.0%} lower bound {few['far gain lower bound']:+.3f})")
    if few[[f"share {c}" for c in CONTROLS]].isna().any():
        return "inconclusive: no control measured"
    if few["share recovered"] >= SHARE and few["share other"] - few["share random"] >= MARGIN:
        return "reproduced"
    return "not reproduced"


def language_claims(runs: pd.DataFrame, k: int, short: str, long: int, control: str | None = None) -> pd.DataFrame:
    """The paper's claims of Section 5.3 judged on a profile's runs, with the numbers behind each verdict: the
    short-context PoSE model `short` has a lower perplexity at length `long` than at its own context (in the median
    over seeds, and in how many seeds); the paper's reading of that, that the model uses tokens beyond its training
    window, judged on the far gain itself (its one-sided lower bound at LEVEL above zero; longer windows alone lower the
    perplexity, by giving more tokens a long context, so the first row cannot tell); and `few_tokens_verdict` on its k
    most influential far tokens (its own choice) and the controls. With `control` (the model trained on windows of
    `long` tokens), the second row's numbers also give its far gain: where even it gains nothing from far tokens, the
    corpus and scale, not the short model's training window, are what the row measures."""
    ppl = runs[(runs.metric == "perplexity") & (runs.lm == short)].pivot_table(index="seed", columns="length",
                                                                             values="value")
    at_short, at_long = ppl[ppl.columns.min()], ppl[long]
    lower = int((at_long < at_short).sum())
    summary = far_context_sparsity(influence_points(runs, k))
    few = summary.loc[(short, short)]
    beside = "" if control is None else (
        f"; {control}: {summary.loc[(control, control), 'mean far gain']:+.3f} nats, lower bound "
        f"{summary.loc[(control, control), 'far gain lower bound']:+.3f}")
    return pd.DataFrame([
        {"claim": f"{short}: perplexity at {long} below perplexity at {ppl.columns.min()}",
         "ours": f"{at_short.median():.2f} -> {at_long.median():.2f} (lower in {lower} of {len(ppl)} seeds)",
         "verdict": "reproduced" if at_long.median() < at_short.median() else "not reproduced"},
        {"claim": f"{short}: tokens beyond its {ppl.columns.min()}-token window lower its loss (Table 1's reading)",
         "ours": f"mean far gain {few['mean far gain']:+.3f} nats, {LEVEL:.0%} lower bound "
                 f"{few['far gain lower bound']:+.3f} ({int(few.windows)} windows){beside}",
         "verdict": "reproduced" if few["far gain lower bound"] > 0 else "not reproduced"},
        {"claim": f"{short}: {k} far tokens recover most of the far context's gain",
         "ours": f"share recovered {few['share recovered']:.2f} (k chosen on the token before: "
                 f"{few['share other']:.2f}, k random: {few['share random']:.2f}), mean far gain "
                 f"{few['mean far gain']:+.3f} nats, Pearson r {few['pearson r']:.2f} ({int(few.windows)} windows)",
         "verdict": few_tokens_verdict(few)}])
