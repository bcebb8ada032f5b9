"""Vanishing variance: Proposition 1 simulated exactly, global statistics of attention outputs, log-log slopes."""

import numpy as np
import pandas as pd
import torch

from lengthgen.analysis.attention import probe_internals
from lengthgen.metrics import ACCURACY, COMPONENT_VAR, GLOBAL_MEAN, GLOBAL_VAR, MAX_WEIGHT
from lengthgen.seeding import fixed_generator, generator


def loglog_slope(lengths, values) -> float:
    """Least-squares slope of log(values) against log(lengths)."""
    x, y = np.log(np.asarray(lengths, float)), np.log(np.asarray(values, float))
    return float(np.polyfit(x, y, 1)[0])


def sample_counts(n_sequences: int, length: int, probs: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Token counts (n_sequences, V) of `length` i.i.d. draws from `probs`: exact multinomial, via binomials.

    Without positional information an attention output depends on a sequence only through these counts,
    so any length (2^20 included) costs V binomial draws per sequence.
    """
    counts = torch.zeros(n_sequences, len(probs), dtype=torch.float64)
    left = torch.full((n_sequences,), float(length), dtype=torch.float64)
    mass_left = 1.0
    last = len(probs) - 1
    for v, p in enumerate(probs.tolist()):
        share = 1.0 if v == last else min(1.0, p / mass_left)
        counts[:, v] = torch.binomial(left, torch.full_like(left, share), generator=gen)
        left -= counts[:, v]
        mass_left -= p
    return counts


def prop1_variance(lengths, vocab: int = 64, width: int = 16, n_sequences: int = 1000, temperature: float = 1.0,
                   mean_zero: bool = True, seed: int = 0) -> pd.DataFrame:
    """Variance over sequences of each attention-output component, for i.i.d. uniform tokens (Prop. 1).

    A random attention module (token embeddings, W_Q, W_K, W_V ~ N(0, 1/width)) and a fixed random query;
    `mean_zero` centres the values so E[W_V x] = 0 (the proposition's second assumption); `temperature`
    divides the logits.

    Returns:
        DataFrame length, component, variance (one row per length x component).
    """
    g = generator(seed, "prop1")
    scale = width**-0.5
    emb = torch.randn(vocab, width, generator=g, dtype=torch.float64)
    w_q, w_k, w_v = (torch.randn(width, width, generator=g, dtype=torch.float64) * scale for _ in range(3))
    query = torch.randn(width, generator=g, dtype=torch.float64)
    values = emb @ w_v  # V,D
    if mean_zero:
        values = values - values.mean(0)
    logits = (emb @ w_k) @ (w_q.T @ query) * scale / temperature  # V
    unnorm = (logits - logits.max()).exp()  # V
    probs = torch.full((vocab,), 1.0 / vocab, dtype=torch.float64)
    rows = []
    for length in lengths:
        weights = sample_counts(n_sequences, length, probs, g) * unnorm  # B,V: total attention mass per token
        out = (weights @ values) / weights.sum(1, keepdim=True)  # B,D attention outputs
        for d, var in enumerate(out.var(0).tolist()):
            rows.append({"length": length, "component": d, "variance": var})
    return pd.DataFrame(rows)


def prop1_centring(lengths, n_sequences: int) -> pd.DataFrame:
    """`prop1_variance` with and without its mean-zero assumption E[W_V x] = 0 (column `values`: "centred: ..." or
    "not centred"), the same draws otherwise."""
    return pd.concat([prop1_variance(lengths, n_sequences=n_sequences, mean_zero=centred)
                      .assign(values="centred: E[W_V x] = 0" if centred else "not centred")
                      for centred in (True, False)])


def global_stats(outputs: torch.Tensor) -> dict:
    """Paper's global statistics of attention outputs O (B, D), averaged over the B vectors.

    Returns:
        {"global_mean": mean over b of mu_b, "global_var": mean over b of sigma_b^2}, where mu_b and sigma_b^2
        are the mean and (biased) variance of the D features of vector b.
    """
    mu = outputs.mean(-1)
    var = (outputs - mu.unsqueeze(-1)).pow(2).mean(-1)
    return {"global_mean": float(mu.mean()), "global_var": float(var.mean())}


def shared_and_residue(outputs: torch.Tensor) -> dict:
    """Split the global variance (`global_stats`) of outputs y_b (B, D) into the profile every vector shares and what
    varies from vector to vector: global_var = shared_var + residue_var exactly, with shared_var the (biased) variance
    over the D features of the mean vector ybar = mean_b y_b, and residue_var the mean over b of that of y_b - ybar
    (the cross term vanishes because the residues average to zero). A learned shift that cancels the shared profile
    leaves only the residue, which shrinks as attention averages over more items (Fig. 2)."""
    shared = outputs.mean(0)
    return {"shared_var": float(global_stats(shared[None])["global_var"]),
            "residue_var": global_stats(outputs - shared)["global_var"]}


def component_values(internals: dict[tuple[str, int], dict], components: int = 5) -> pd.DataFrame:
    """Long frame (value, component, variant, length) of the first `components` normed attention-output components,
    from `attention.probe_internals` keyed (variant, N): what Fig. 2 draws."""
    return pd.concat([pd.DataFrame({"value": parts["normed"][:, d].cpu().numpy(), "component": f"o{d}",
                                    "variant": variant, "length": n})
                      for (variant, n), parts in internals.items() for d in range(components)])


def global_table(internals: dict[tuple[str, int], dict], reference: int) -> pd.DataFrame:
    """Global mean and variance (`global_stats` of the normed outputs) per (variant, N), both divided by the
    variant's global variance at N = `reference` (the training length): what Fig. 3 draws."""
    rows = []
    for (variant, n), parts in internals.items():
        scale = global_stats(internals[(variant, reference)]["normed"])["global_var"]
        g = global_stats(parts["normed"])
        rows.append({"variant": variant, "length": n, "global_mean": g["global_mean"] / scale,
                     "global_var": g["global_var"] / scale})
    return pd.DataFrame(rows)


def readings(model, task, lengths, sets: int) -> pd.DataFrame:
    """What Figs. 2-4 read off one trained probe, at each length, on `sets` sets drawn from a generator seeded with
    the length (every model sees the same sets): the normed outputs' `global_stats` (Fig. 3) and variance across sets
    (Fig. 2's spread, mean over features), and the mean largest attention weight (Fig. 4). Tidy rows (length,
    metric, value)."""
    rows = []
    for n in lengths:
        parts = probe_internals(model, task.sample(sets, n, fixed_generator(n)))
        stats = global_stats(parts["normed"])
        rows += [{"length": n, "metric": GLOBAL_MEAN, "value": stats["global_mean"]},
                 {"length": n, "metric": GLOBAL_VAR, "value": stats["global_var"]},
                 {"length": n, "metric": COMPONENT_VAR, "value": float(parts["normed"].var(0).mean())},
                 {"length": n, "metric": MAX_WEIGHT, "value": float(parts["weights"].max(-1).values.mean())}]
    return pd.DataFrame(rows)


def pair_table(tidy: pd.DataFrame, lengths: tuple[int, int]) -> pd.DataFrame:
    """Figs. 2-4 on every (baseline, +LN) seed pair of `tidy` readings (seed, variant, length, metric, value, as
    `readings` gives them), one row per seed that has both. For each variant: its components' spread across sets
    (`COMPONENT_VAR`) and its global variance, each at the longer length over that at the shorter one (the training
    length), and its mean largest attention weight at the longer one. `fig2` holds when both variants' components
    concentrate (spread ratio below 1), `fig3` when +LN's variance ratio is nearer 1, `fig4` when +LN's largest
    weight is larger (it disperses less)."""
    short, far = lengths
    at = tidy.set_index(["seed", "variant", "metric", "length"]).value
    runs = set(zip(tidy.seed, tidy.variant, strict=True))
    rows = []
    for seed in sorted(s for s, norm in runs if norm == "baseline" and (s, "ln") in runs):
        row = {"seed": seed}
        for norm in ("baseline", "ln"):
            row[f"{norm} spread ratio"] = at[seed, norm, COMPONENT_VAR, far] / at[seed, norm, COMPONENT_VAR, short]
            row[f"{norm} variance ratio"] = at[seed, norm, GLOBAL_VAR, far] / at[seed, norm, GLOBAL_VAR, short]
            row[f"{norm} max weight"] = at[seed, norm, MAX_WEIGHT, far]
        rows.append(row)
    measures = [f"{norm} {m}" for norm in ("baseline", "ln") for m in ("spread ratio", "variance ratio", "max weight")]
    table = pd.DataFrame(rows, columns=["seed", *measures]).set_index("seed")
    table["fig2"] = (table["baseline spread ratio"] < 1) & (table["ln spread ratio"] < 1)
    table["fig3"] = (1 - table["ln variance ratio"]).abs() < (1 - table["baseline variance ratio"]).abs()
    table["fig4"] = table["ln max weight"] > table["baseline max weight"]
    return table


FIG_HOLDS = ("Fig. 2 holds", "Fig. 3 holds", "Fig. 4 holds")  # trajectory's count columns, one per claim


def trajectory(tidy: pd.DataFrame, lengths: tuple[int, int], accuracy_length: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The claims of Figs. 2-4 and the accuracy gap along training, from stored readings of seed pairs trained for
    several numbers of steps (`tidy` as `pair_table` takes it, plus a `steps` column and `ACCURACY` rows).

    Returns (table, points). `points`: one row per (steps, seed, variant, measure) of the pairs complete at that
    number of steps, for three measures: the global-variance ratio far N over short (`pair_table`), the spread share
    at the short N (spread across sets over global variance: the part of the global variance that varies from set to
    set, the rest being a profile all sets share) and the accuracy at N = `accuracy_length` (choose one where the
    accuracy is well above chance at every budget). `table`: one row per number of steps: the pairs, in how many each
    of Figs. 2-4 holds (`pair_table`'s tests), in how many +LN is the more accurate at `accuracy_length`, and each
    variant's median of each measure."""
    short = lengths[0]
    accuracy = f"accuracy at N = {accuracy_length:,}"
    measures = ("global-variance ratio", "spread share", accuracy)
    points, counts = [], []
    for steps, at in tidy.groupby("steps"):
        pairs = pair_table(at, lengths)
        if pairs.empty:
            continue
        value = at.pivot_table(index="seed", columns=["variant", "metric", "length"], values="value").loc[pairs.index]
        for norm in ("baseline", "ln"):
            for measure, values in zip(measures, (
                    pairs[f"{norm} variance ratio"], value[norm, COMPONENT_VAR, short] / value[norm, GLOBAL_VAR, short],
                    value[norm, ACCURACY, accuracy_length]), strict=True):
                points += [{"steps": steps, "seed": seed, "variant": norm, "measure": measure, "value": v}
                           for seed, v in values.items()]
        more = value["ln", ACCURACY, accuracy_length] > value["baseline", ACCURACY, accuracy_length]
        holds = {column: int(pairs[f"fig{k}"].sum()) for k, column in zip((2, 3, 4), FIG_HOLDS, strict=True)}
        counts.append({"steps": steps, "pairs": len(pairs), **holds, "ln more accurate": int(more.sum())})
    points = pd.DataFrame(points, columns=["steps", "seed", "variant", "measure", "value"])
    medians = points.pivot_table(index="steps", columns=["variant", "measure"], values="value", aggfunc="median")
    medians.columns = [f"{norm} {measure}" for norm, measure in medians.columns]
    table = pd.DataFrame(counts, columns=["steps", "pairs", *FIG_HOLDS, "ln more accurate"]).set_index("steps")
    order = [f"{norm} {m}" for m in measures for norm in ("baseline", "ln")]
    return table.join(medians[order]) if len(table) else table, points


def pair_readings(models: dict[tuple[str, int], torch.nn.Module], task, lengths: tuple[int, int],
                  sets: int) -> pd.DataFrame:
    """`pair_table` of live models ((norm, seed) -> trained probe), each read by `readings` at both lengths."""
    tidy = pd.concat([readings(model, task, lengths, sets).assign(variant=norm, seed=seed)
                      for (norm, seed), model in models.items()])
    return pair_table(tidy, lengths)
