"""The sparsity chapter's readings of its runs: accuracy by training bound, test sparsity and length; the two claims
(T1: accuracy at long lengths falls as the sparsity k grows; T2: coupled position ids generalize further than their
baselines) as stated, tested rules; and where a trained sparse-parity model attends."""

import numpy as np
import pandas as pd
import torch
from scipy.stats import spearmanr

from lengthgen.analysis.claims import BASELINE
from lengthgen.analysis.compare import on_common_seeds, reach
from lengthgen.analysis.verdicts import NOT_TRAINED, TRAINED, verdict_class
from lengthgen.data import PAD
from lengthgen.device import device_of
from lengthgen.display import and_list
from lengthgen.metrics import ACCURACY, LOOKUP, PPC_PARTS
from lengthgen.models.hooks import capture, hook_names
from lengthgen.train.evaluate import test_set

K_PREFIX = f"{ACCURACY} k="
REACH = "stays >= 90% up to"  # `fit_and_reach`'s column


def by_k(df: pd.DataFrame) -> pd.DataFrame:
    """Sparse-parity rows (metrics "accuracy k=<k>") with the test sparsity as a column k, mean over seeds:
    columns variant, k, length, value, seeds, solved (the seeds at >= TRAINED)."""
    rows = df[df.metric.str.startswith(K_PREFIX)].assign(k=lambda d: d.metric.str[len(K_PREFIX):].astype(int),
                                                          solved=lambda d: d.value >= TRAINED)
    out = rows.groupby(["variant", "k", "length"], sort=False).agg(
        value=("value", "mean"), seeds=("value", "count"), solved=("solved", "sum"))
    return out.reset_index()


def bound(variant: str) -> int:
    """The training sparsity bound K of a variant label "K=<K>"."""
    return int(variant.split("=")[1])


def judged(runs: pd.DataFrame, odd: bool = True) -> pd.DataFrame:
    """The runs of the seeds that every cell (task, variant and depth where labelled) has, an odd number of them
    (`compare.on_common_seeds`): a grid still running is judged on the seeds all of its cells share, so no cell's
    verdict rests on more seeds than the cells it is set against. Without `odd`, every such seed (a seed check)."""
    cell = tuple(c for c in ("task", "variant", "depth") if c in runs and runs[c].notna().all())
    return on_common_seeds(runs, cell, odd)[0]


DROP = 10.0  # points: the least fall of accuracy that counts as "accuracy falls" (with k within a bound, and beyond K)


def sparsity_claim(table: pd.DataFrame, trained_length: int) -> pd.DataFrame:
    """T1, per training bound K, on the paper's statement (Sec. 5.1, App. E.1.2): with a small training bound K, the
    model generalizes near-perfectly to the longest test length for every sparsity k <= K. A model is judged only
    when trained (mean accuracy >= TRAINED at `trained_length` for every k <= K). "reproduced" when every k <= K is
    still solved (>= TRAINED) at the longest test length; "partly" when k = 1 is but a denser k <= K is not; "not
    reproduced" when even k = 1 is not. (The paper's bounds are 4-12, its Fig. 1 a small one: every bound of a grid
    whose largest K is at most the paper's smallest is "small".)

    Args:
        table: `by_k` output.
        trained_length: the longest training length.

    Returns:
        One row per variant: K, in-distribution accuracy (worst k <= K), accuracy at the longest length per k <= K
        (with how many seeds solve it, where there are several), the worst of them, verdict ("reproduced" /
        "partly" / "not reproduced" / "not trained").
    """
    rows = []
    for variant, g in table.groupby("variant", sort=False):
        K = bound(variant)
        inside = g[(g.k <= K)]
        iid = inside[inside.length == trained_length].value.min()
        longest = inside[inside.length == inside.length.max()].sort_values("k")
        sparsest, worst = longest.value.iloc[0], longest.value.min()
        if not iid >= TRAINED:
            verdict = NOT_TRAINED
        elif worst >= TRAINED:
            verdict = "reproduced"
        elif sparsest >= TRAINED:
            unsolved = longest.k[longest.value < TRAINED].tolist()
            verdict = f"partly (k = {and_list(unsolved)} not solved)"
        else:
            verdict = "not reproduced (k = 1 not solved)"
        rows.append({"variant": variant, "K": K, "in distribution (worst k)": round(float(iid), 1),
                     f"at {int(longest.length.max())} pairs": ", ".join(
                         f"k={r.k}: {r.value:.0f}" + (f" ({r.solved} of {r.seeds} seeds >= {TRAINED:g})"
                                                      if r.seeds > 1 else "") for r in longest.itertuples()),
                     "worst k <= K": round(float(worst), 1), "verdict": verdict})
    return pd.DataFrame(rows)


FALLS_RHO = -0.8  # Spearman's rho of accuracy against k at or below which it "falls as k grows" (with three or more
# k; with two, the fall of DROP points alone decides)


def _falls(ks: list[int], values: list[float]) -> str:
    """"reproduced" when accuracy falls by at least DROP points from the first k to the last and, with three or more
    k, Spearman's rho of accuracy against k is <= FALLS_RHO; else "not reproduced (...)" with the fall and rho."""
    fall = values[0] - values[-1]
    ranked = len(ks) > 2 and len(set(values)) > 1  # a constant has no rank correlation (and does not fall)
    rho = round(float(spearmanr(ks, values)[0]), 9) if ranked else float("nan")  # -0.8 exactly is
    # -0.7999999999999999 in floating point
    if fall >= DROP and not rho > FALLS_RHO:
        return "reproduced"
    change = f"falls {fall:.1f} points" if fall >= 0 else f"rises {-fall:.1f} points"
    return f"not reproduced ({change}" + (f", rho {rho:.2f})" if rho == rho else ")")


CHANCE = 50.0  # parity's chance accuracy (%): a fall of DROP points can show only from CHANCE + DROP up


def k_claims(table: pd.DataFrame, trained_length: int) -> pd.DataFrame:
    """T1's statements that larger k degrades, on `by_k` output, per training bound K, each read on every k's mean
    accuracy over its window: the tested lengths beyond `trained_length` up to the longest at which some k <= K still
    holds (>= TRAINED; the best of them, so that no k is favored by the window's choice: a window cut where k = 1
    stops holding would put k = 1's mean at the bar by selection). Past that length every trained k is lost, and near
    parity's CHANCE no fall with k can show; a mean over the window, not one length, so that no single test length
    decides. Within a bound ("K=<K>, k <= K",
    K >= 2; the paper's reading of its Fig. 1, whose symbols our copy lost but whose footnote 11 (a bound trains every
    k <= K with equal weight) fixes them: within a bound, larger k generalize worse although every k <= K fits): the
    means of k = 1 .. K must fall (`_falls`), unless every k <= K still holds at the longest tested length: then no
    tested length can show the fall, and the row is "inconclusive" (as two jumps or models that both hold to the
    longest length, `scratchpad_claims`). Beyond it ("K=<K>, k > K", where sparsities k > K are tested): the best
    unseen k against the worst trained k, in distribution (at `trained_length`) and over the window; "reproduced"
    when both fall by at least DROP points, "partly" when one does, else "not reproduced". The window's half can be
    read only where the worst trained k's mean is at least CHANCE + DROP; where it is not, a fall in distribution
    reads "inconclusive (...)". Both rows are "not trained" when the bound is not (its worst k <= K below TRAINED at
    `trained_length`), and "inconclusive" when no k <= K holds at a length beyond training.

    Returns:
        Rows: variant, in distribution (the worst k <= K at `trained_length`), detail (the numbers judged), verdict.
    """
    rows = []
    for variant, g in table.groupby("variant", sort=False):
        K = bound(variant)
        at = g.pivot_table(index="k", columns="length", values="value")
        at = at.reindex(columns=sorted({*at.columns, trained_length}))  # an untested training length: NaN, not trained
        held = max(reach(g[g.k == k]) for k in range(1, K + 1) if (g.k == k).any())  # no k favored by its choice
        window = [n for n in at.columns if trained_length < n <= held]
        where = (f"at {window[0]} pairs" if len(window) == 1 else f"mean over {window[0]}-{window[-1]} pairs"
                 if window else "beyond training")
        mean, trained = at[window].mean(axis=1), at.index <= K
        seen, unseen = mean[trained], mean[~trained]
        iid = float(at.loc[trained, trained_length].min())
        unjudged = (NOT_TRAINED if not iid >= TRAINED else
                    None if window else "inconclusive (no k <= K holds at a length beyond training)")
        if len(seen) > 1:
            kept = at.loc[trained, at.columns[-1]].min() >= TRAINED  # every k <= K holds at the longest tested length
            rows.append({"variant": f"{variant}, k <= K", "in distribution": round(iid, 1),
                         "detail": f"{where}: " + ", ".join(f"k={k}: {v:.0f}" for k, v in seen.items()),
                         "verdict": unjudged or ("inconclusive (every k <= K holds to the longest length tested)"
                                                 if kept else _falls(seen.index.tolist(), seen.tolist()))})
        if unseen.empty:
            continue
        inside = iid - float(at.loc[~trained, trained_length].max())
        readable = seen.min() >= CHANCE + DROP
        fell = [name for name, fall in (("in distribution", inside), (where, seen.min() - unseen.max()))
                if fall >= DROP and (readable or name == "in distribution")]
        verdict = unjudged or (
            "reproduced" if len(fell) == 2 else
            f"inconclusive (falls in distribution; {where} the trained k are within {DROP:g} points of chance)"
            if fell and not readable else f"partly (falls only {fell[0]})" if fell else
            f"not reproduced (k > K within {DROP:g} points of k <= K)")
        rows.append({"variant": f"{variant}, k > K", "in distribution": round(iid, 1),
                     "detail": f"in distribution: worst k <= K {iid:.0f}, best k > K "
                               f"{at.loc[~trained, trained_length].max():.0f}; {where}: worst k <= K "
                               f"{seen.min():.0f}, best k > K {unseen.max():.0f}",
                     "verdict": verdict})
    return pd.DataFrame(rows, columns=["variant", "in distribution", "detail", "verdict"])


BEYOND = "mean beyond training"  # `fit_and_reach`'s column: mean accuracy over the lengths past training (the
# Chomsky-hierarchy suite's score), which tells apart two models that stay >= TRAINED to the same tested length


def side_by_side(means: dict[str, tuple[pd.DataFrame, pd.DataFrame]],
                 seeds: dict[str, list[tuple[pd.DataFrame, pd.DataFrame]]]) -> pd.DataFrame:
    """Two stored grids' claim rows side by side. Per grid (name -> `parity_reading`'s T1 table and k table: in
    `means` over its seeds, in `seeds` on each seed) each row's verdict ("K=3 (T1)", then "K=3, k <= K" ...) and its
    class on each seed; and whether the two read the same class on the means: "yes"; "no" where no seed of one grid
    reads as any seed of the other; "no (seeds overlap)" where the means differ but some seeds agree. The first grid's
    rows, in its order; a row the other grid lacks reads "-" (and not the same)."""
    def verdicts(t1: pd.DataFrame, ks: pd.DataFrame) -> pd.Series:
        return pd.Series({**{f"{r.variant} (T1)": r.verdict for r in t1.itertuples()},
                          **{r.variant: r.verdict for r in ks.itertuples()}}, dtype=object)

    rows = verdicts(*next(iter(means.values()))).index
    table = pd.DataFrame({name: verdicts(*reading) for name, reading in means.items()}).reindex(rows).fillna("-")
    classes = {name: pd.DataFrame([verdicts(*reading).map(verdict_class) for reading in readings]).T.reindex(rows)
               for name, readings in seeds.items()}
    first, second = table.columns

    def same(row: str) -> str:
        a, b = table.at[row, first], table.at[row, second]
        if a != "-" != b and verdict_class(a) == verdict_class(b):
            return "yes"
        overlap = set(classes[first].loc[row].dropna()) & set(classes[second].loc[row].dropna())
        return "no (seeds overlap)" if overlap else "no"

    by_seed = {f"{name}, by seed": frame.apply(lambda r: " / ".join(r.dropna()) or "-", axis=1)
               for name, frame in classes.items()}
    return table.assign(**by_seed, same=[same(row) for row in rows]).rename_axis("claim row")[
        [first, f"{first}, by seed", second, f"{second}, by seed", "same"]]


def fit_and_reach(df: pd.DataFrame, trained_length: int) -> pd.DataFrame:
    """Per variant, mean over seeds: accuracy in distribution (at the longest evaluated length <= `trained_length`),
    how far it stays >= TRAINED, its mean accuracy over the lengths beyond `trained_length` (BEYOND; NaN with none),
    and whether it is trained (in distribution >= TRAINED).

    Args:
        df: tidy rows (variant, length, metric, value) of the runs.
    """
    mean = df[df.metric == ACCURACY].groupby(["variant", "length"], sort=False).value.mean().reset_index()
    rows = []
    for variant, g in mean.groupby("variant", sort=False):
        inside = g[g.length <= trained_length]
        iid = float(inside.loc[inside.length.idxmax(), "value"]) if len(inside) else float("nan")
        rows.append({"variant": variant, "in distribution": round(iid, 1), REACH: reach(g),
                     BEYOND: round(float(g[g.length > trained_length].value.mean()), 1), "trained": iid >= TRAINED})
    return pd.DataFrame(rows)


VERSUS = "versus coupled"  # `coupling_claim`'s column: each baseline's own verdict against the coupled model
FLOOR = 2.0  # the coupled model generalizes when it stays >= TRAINED to at least this multiple of its longest training
# length (the paper states about 3x for PPC on variable assignment; set before the regime grids' runs were read)


def _ahead(mine: pd.Series, other: pd.Series) -> str:
    """How a `fit_and_reach` row is ahead of another: "further" (it stays >= TRAINED to a longer length), "beyond"
    (to the same length, and its mean accuracy beyond training is at least DROP points higher), or "" (neither)."""
    if mine[REACH] > other[REACH]:
        return "further"
    return "beyond" if mine[REACH] == other[REACH] and mine[BEYOND] - other[BEYOND] >= DROP else ""


def coupling_claim(df: pd.DataFrame, trained_length: int, coupled: str,
                   absent: str = "no baseline stored") -> pd.DataFrame:
    """T2: each variant's `fit_and_reach`, and the verdict: the coupled variant "generalizes further" when it is trained
    and ahead of every trained baseline (`_ahead`), and "generalizes" at all when it stays >= TRAINED to at least FLOOR
    x `trained_length`. "reproduced" needs both, with every baseline reaching a shorter length; "partly" when it is
    ahead of every baseline but short of FLOOR, or ahead of some only in mean accuracy beyond training (the same tested
    length separates neither; the text says where it is also short of FLOOR); "inconclusive" when the rest is level with
    it at the longest length tested; a variant below TRAINED in distribution is "not trained" (its length results say
    nothing). With no trained baseline (none in `df`, or none fits) the comparison cannot be made and the coupled
    model's own reach is the half of the claim that can be judged: "not reproduced" when it falls short of FLOOR x
    `trained_length` (the claim needs both), else "partly". Each baseline also has its own verdict against the coupled
    model (VERSUS; "" on the coupled row), by the same rule; "inconclusive" when both hold to the longest length tested,
    "not trained" when either does not fit.

    Args:
        df: tidy rows (variant, length, metric, value) of the runs.
        trained_length: the longest training length.
        coupled: the variant label with coupled ids.
        absent: why `df` holds no baseline, where it holds none (e.g. the grid leaves them out).
    """
    out = fit_and_reach(df, trained_length)
    mine = out[out.variant == coupled].iloc[0]
    others = out[(out.variant != coupled) & out.trained]
    far = mine[REACH] >= FLOOR * trained_length
    short = f"holds only to {mine[REACH]}, under {FLOOR:g}x its training length {trained_length}"
    longest = df.length.max()

    def outcome(row) -> str:  # `_ahead`, or "top" where both hold to the longest length tested (nothing parts them)
        return _ahead(mine, row) or ("top" if min(mine[REACH], row[REACH]) >= longest else "")

    ahead = [outcome(row) for _, row in others.iterrows()]
    if not mine.trained:
        verdict = f"{NOT_TRAINED}: the coupled model does not fit its training lengths"
    elif others.empty:  # the comparison cannot be made; the coupled model's own reach still can fail the claim
        alone = (out.variant == coupled).all()
        missing = absent if alone else "no baseline fits its training lengths"
        verdict = (f"partly: the coupled model generalizes (>= {FLOOR:g}x), but {missing}: the comparison is not "
                   "made" if far else f"not reproduced: the coupled model {short}; {missing}")
    elif all(a == "further" for a in ahead):
        verdict = ("reproduced: the coupled model generalizes further than every trained baseline" if far else
                   f"partly: the coupled model generalizes further than every trained baseline, but it {short}")
    elif all(a in ("further", "beyond") for a in ahead):
        verdict = (f"partly: the coupled model is ahead of every trained baseline, of some only in mean accuracy "
                   f"beyond training (>= {DROP:g} points) at the same 90% reach" + ("" if far else f"; it {short}"))
    elif all(ahead):
        verdict = "inconclusive: the coupled model and a trained baseline both hold to the longest length tested"
    else:
        verdict = "not reproduced: a trained baseline reaches as far"

    def versus(row) -> str:
        if row.variant == coupled:
            return ""
        if not (row.trained and mine.trained):
            unfit = " and ".join(r.variant for r in (mine, row) if not r.trained)
            return f"{NOT_TRAINED}: {unfit} {'does' if ' and ' not in unfit else 'do'} not fit the training lengths"
        held = f"{coupled} >= 90% up to {mine[REACH]}, {row.variant} up to {row[REACH]}"
        how = outcome(row)
        if how == "further":
            return f"reproduced: {held}" if far else f"partly: {held}; {coupled} {short}"
        if how == "top":
            return f"inconclusive: {held}, the longest length tested"
        gap = f"mean beyond training {mine[BEYOND]:.1f} against {row[BEYOND]:.1f}"
        if how == "beyond":
            return f"partly: {held}, but {gap}" + ("" if far else f"; {coupled} {short}")
        return f"not reproduced: {held}" + (f", {gap}" if mine[REACH] == row[REACH] else "")

    return out.assign(verdict=np.where(out.variant == coupled, verdict,
                                       np.where(out.trained, BASELINE, NOT_TRAINED)),
                      **{VERSUS: [versus(r) for _, r in out.iterrows()]}).drop(columns="trained")


def jump_claim(curves: pd.DataFrame, trained_length: int, larger_model: frozenset[int] = frozenset(),
               same_size: dict[int, str] | None = None) -> pd.DataFrame:
    """Fig. 2, per jump: every jump's coupled model ("j=<j> PPC") fits its training lengths, and a smaller j (sparser
    steps) generalizes further. One row per jump (`fit_and_reach` on combined lengths), each larger jump judged
    against the next smaller one: "reproduced" when it stays >= TRAINED to a shorter length, "not reproduced" when
    it reaches as far, "inconclusive" when both hold to their longest tested length (no length here tells them
    apart), "not trained" when either does not fit. The smallest jump is the reference (BASELINE). A jump j is
    tested at (j + 1) x floor(n / (j + 1)) combined tokens for each length n of the smallest jump's, a few tokens
    short of n: reaches are compared on the smallest jump's lengths, each rounded up to the next of them. Where both
    reach the same of them, the mean accuracy beyond training (BEYOND, each on its own lengths) tells them apart:
    "partly" when the larger jump's is at least DROP points lower, else "not reproduced". A jump that runs on a
    larger model than the one before it (`larger_model`) is at most "partly", where it falls short (the size is not
    ruled out as the cause: a larger model is not shown to generalize no worse), and "inconclusive" otherwise.

    Args:
        curves: scratchpad rows with combined lengths (`with_combined_length`).
        trained_length: the longest combined training length.
        larger_model: the jumps that run on a larger model than the next smaller jump.
        same_size: jump j -> the variant of jump j - 1 trained on j's model (a control, e.g. "4x256 j=2 PPC"): where
            `curves` hold it, j is judged against it, by the rule for equal sizes, instead of against the grid's j - 1.
    """
    ppc = curves[curves.variant.str.fullmatch(r"j=\d+ PPC")]
    out = fit_and_reach(ppc, trained_length)
    out = out.assign(j=out.variant.str.extract(r"^j=(\d+)", expand=False).astype(int)).sort_values("j")
    longest = ppc.groupby("variant").length.max()
    grid = sorted(ppc[ppc.variant == out.variant.iloc[0]].length.unique())  # the smallest jump's lengths

    def on_grid(length: int) -> int:
        return next((n for n in grid if n >= length), length) if length else 0

    peers = {j: pd.concat([fit_and_reach(curves[curves.variant == label], trained_length).iloc[0],
                           pd.Series({"j": j - 1})])
             for j, label in (same_size or {}).items() if (curves.variant == label).any()}
    longest = pd.concat([longest, curves[curves.variant.isin([p.variant for p in peers.values()])]
                         .groupby("variant").length.max()])
    verdicts = [BASELINE]
    for (_, smaller), (_, larger) in zip(out.iloc[:-1].iterrows(), out.iloc[1:].iterrows(), strict=True):
        smaller = peers.get(larger.j, smaller)
        pair = f"j={larger.j} against j={smaller.j}" + (f" on one model ({smaller.variant})" if larger.j in peers
                                                        else "")
        a, b = smaller[REACH], larger[REACH]
        unfit = [r.variant.removesuffix(" PPC") for r in (smaller, larger) if not r.trained]
        if unfit:
            verdicts.append(f"{NOT_TRAINED}: {' and '.join(unfit)} do not fit their training lengths")
            continue
        if a >= longest[smaller.variant] and b >= longest[larger.variant]:
            verdicts.append(f"inconclusive: {pair}, both hold to the longest length tested ({b} and {a})")
            continue
        level, shorter = on_grid(b) == on_grid(a), on_grid(b) < on_grid(a)
        lower = level and smaller[BEYOND] - larger[BEYOND] >= DROP  # level, but worse past training
        rounded = f" (level on j={smaller.j}'s lengths)" if level and a != b else ""
        reaches = (f">= 90% up to {b} against {a}{rounded}"
                   + (f", mean beyond training {larger[BEYOND]:.1f} against {smaller[BEYOND]:.1f}" if level else ""))
        if larger.j in larger_model and larger.j not in peers:  # a shortfall on a larger model: the size may cause it
            verdicts.append(f"{'partly' if shorter or lower else 'inconclusive'}: {pair} on a larger model, {reaches}")
        elif shorter:
            verdicts.append(f"reproduced: {pair}, {reaches}")
        elif lower:
            verdicts.append(f"partly: {pair}, {reaches}")
        else:
            verdicts.append(f"not reproduced: {pair}, {reaches}")
    return out.drop(columns=["trained", "j"]).assign(verdict=verdicts).reset_index(drop=True)


def assignment_claim(df: pd.DataFrame, trained_length: int, absent: str = "no baseline stored") -> pd.DataFrame:
    """Fig. 3: `coupling_claim` with PPC as the coupled variant, at each chain depth (rows carry a column depth;
    `absent`: why a depth holds no baseline, where it holds none)."""
    return pd.concat([coupling_claim(g, trained_length, "PPC", absent).assign(depth=depth)
                      for depth, g in df.groupby("depth", sort=True)], ignore_index=True)


def ppc_parts(runs: pd.DataFrame, panel: str) -> pd.DataFrame:
    """Where a PPC model's answers go wrong, by `panel` (a column: "depth", "variant") and length: exact match of the
    whole answer, of its tokens alone, of its predicted ids alone, and of its tokens when the true ids are fed in
    (`metrics.PPC_PARTS`; the oracle separates the id head from the lookup), mean over seeds (%), with the seeds
    counted. Empty when no run recorded the parts."""
    names = {ACCURACY: "answer", **{f"{ACCURACY} {part}": part for part in PPC_PARTS}}
    rows = runs[runs.metric.isin(list(names))]
    if not rows.metric.ne(ACCURACY).any():
        return pd.DataFrame()
    rows = rows[rows.variant.isin(set(rows.variant[rows.metric != ACCURACY]))]  # the models that have parts
    table = rows.pivot_table(index=[panel, "length"], columns="metric", values="value", aggfunc="mean")
    seeds = rows[rows.metric == ACCURACY].groupby([panel, "length"]).seed.nunique().rename("seeds")
    return table.rename(columns=names)[list(names.values())].join(seeds).round(1)


def ppc_diagnosis(parts: pd.DataFrame, trained_length: int) -> pd.DataFrame:
    """Which part of a PPC model fails first, per panel of a `ppc_parts` table: how far (the longest length, 0 for
    none) each of its answer, tokens, ids and oracle stays >= TRAINED, the longest length tested, and `fails`: "not
    trained" when the answer is below TRAINED at the longest length up to `trained_length`; "nothing" when it holds to
    the longest length; "the id head" when its ids go wrong before its tokens, or the true ids fed in carry the tokens
    further than its own; "both" when ids and tokens go wrong at the same length and the true ids carry the tokens no
    further (each fails on its own there); else "the tokens" (its ids hold longer, and the tokens go wrong as far with
    the true ids as with its own)."""
    rows = []
    for panel, g in parts.groupby(level=0, sort=True) if len(parts) else ():
        g = g.droplevel(0).rename_axis("length").reset_index()
        at = {part: reach(g[["length", part]].rename(columns={part: "value"}))
              for part in ("answer", *PPC_PARTS)}
        longest, inside = int(g.length.max()), g[g.length <= trained_length]
        fit = float(inside.loc[inside.length.idxmax(), "answer"]) if len(inside) else float("nan")
        fails = ("not trained" if not fit >= TRAINED else "nothing" if at["answer"] >= longest else
                 "the id head" if at["ids"] < at["tokens"] or at["oracle"] > at["tokens"] else
                 "both" if at["ids"] == at["tokens"] else "the tokens")
        rows.append({"panel": panel, **at, "longest": longest, "fails": fails})
    return pd.DataFrame(rows, columns=["panel", "answer", *PPC_PARTS, "longest", "fails"])


LOOKUP_SAMPLES = 64  # test prompts per length it is measured on (the first of the length's test set)


@torch.no_grad()
def lookup_mass(model, batch) -> torch.Tensor:
    """(layers, H): the mean attention weight each head puts, from each position that predicts an answer token, on the
    prompt keys sharing that token's id; teacher-forced (the true tokens and ids of the whole answer fed in, as in
    training), the mean over a batch's answer tokens (not its <pad>s) and examples."""
    names = [n for n in hook_names(model) if n.endswith("self_attn.hook_pattern")]
    ids, p = batch.positions, batch.prompt
    with capture(model, *names) as rec:
        model.stack(batch.tokens[:, :-1], ids[:, :-1], causal=True,
                    mask=None if batch.mask is None else batch.mask[:, :-1])
    targets = (ids[:, None, :p] == ids[:, p:, None]).float()  # (B, A, p): the prompt keys of each answer token's id
    real = (batch.answer != PAD).float()  # (B, A)
    mass = [(rec[n][0][:, :, p - 1:, :p] * targets[:, None]).sum(-1) for n in names]  # each (B, H, A)
    return torch.stack([(m * real[:, None]).sum((0, 2)) / real.sum() for m in mass])


def lookup_by_length(model, task, lengths, trained_length: int, seed: int) -> pd.DataFrame:
    """Rows (length, metric, value) of `lookup_mass` on the first LOOKUP_SAMPLES prompts of each length's test set:
    LOOKUP, the mass of the lookup head (the head with the most at the longest of `lengths` up to `trained_length`,
    or at the shortest),
    and LOOKUP + " best", the most of any head at that length; fractions of the head's attention."""
    model.eval()
    mass = {n: lookup_mass(model, test_set(task, n, LOOKUP_SAMPLES, seed).to(device_of(model))).cpu()
            for n in lengths}
    head = mass[max((n for n in lengths if n <= trained_length), default=min(lengths))].argmax()
    return pd.DataFrame([{"length": n, "metric": metric, "value": float(value)} for n, m in mass.items()
                         for metric, value in ((LOOKUP, m.flatten()[head]), (f"{LOOKUP} best", m.max()))])


def lookup_table(runs: pd.DataFrame, panel: str) -> pd.DataFrame:
    """The lookup head's mass (LOOKUP) by `panel` (a column: "depth", "variant") and length, mean over the seeds that
    recorded it, with the seeds counted; empty when none did."""
    rows = runs[runs.metric == LOOKUP]
    if rows.empty:
        return pd.DataFrame()
    by = rows.groupby([panel, "length"])
    return pd.DataFrame({LOOKUP: by.value.mean(), "seeds": by.seed.nunique()})


@torch.no_grad()
def answer_attention(model, task, batch, row: int = 0) -> dict:
    """Where the position that produces the answer attends: every layer and head's weights (layers x H, P) from the
    last prompt token of example `row`, with the positions of its special keys (`*`) and of the bits after them.

    Returns:
        {"weights": array (layers * H, P), "heads": ["L0 H0", ...], "special": [...], "bits": [...],
         "tokens": the prompt's token ids}.
    """
    names = [n for n in hook_names(model) if n.endswith("self_attn.hook_pattern")]
    prompt = batch.tokens[row: row + 1, : batch.prompt]
    ids = batch.positions[row: row + 1, : batch.prompt]
    with capture(model, *names) as rec:
        model.stack(prompt, ids, causal=True)
    weights = torch.cat([rec[n][0][0, :, -1, :] for n in names])  # (layers * H, P)
    special = [int(i) for i in (prompt[0] == task.vocab.ids["*"]).nonzero().flatten()]
    heads = [f"L{li} H{h}" for li in range(len(names)) for h in range(rec[names[0]][0].shape[1])]
    return {"weights": weights.numpy(), "heads": heads, "special": special, "bits": [i + 1 for i in special],
            "tokens": prompt[0].tolist()}


def mass_on_bits(maps: list[dict]) -> pd.DataFrame:
    """Per head, the mean attention mass the answer position puts on the special keys and the bits after them."""
    rows = []
    for m in maps:
        picked = m["weights"][:, m["special"] + m["bits"]].sum(1)
        rows += [{"head": h, "mass": float(v), **m.get("labels", {})} for h, v in zip(m["heads"], picked, strict=True)]
    return pd.DataFrame(rows)


def with_combined_length(df: pd.DataFrame) -> pd.DataFrame:
    """Scratchpad-parity rows with `length` turned from scratchpad tokens into the paper's combined length
    (input bits + scratchpad = length x (j + 1), j read from the variant label "j=<j> ...", or a control's
    "4x256 j=<j> ...")."""
    jump = df.variant.str.extract(r"(?:^| )j=(\d+)", expand=False).astype(int)
    return df.assign(length=df.length * (jump + 1))
