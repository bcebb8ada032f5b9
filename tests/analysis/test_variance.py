"""Vanishing variance (analysis/variance.py): Proposition 1 simulated, global statistics, log-log slopes, the
paired readings of Figs. 2-4, by hand."""

import numpy as np
import pandas as pd
import pytest
import torch

from lengthgen.analysis import variance


def test_loglog_slope_exact_on_power_law():
    n = np.array([2, 4, 8, 16, 32])
    assert variance.loglog_slope(n, 3.0 * n**-0.5) == pytest.approx(-0.5)


def test_sample_counts_sum_to_length_and_match_probabilities():
    probs = torch.tensor([0.5, 0.25, 0.125, 0.125], dtype=torch.float64)
    counts = variance.sample_counts(4000, 1000, probs, torch.Generator().manual_seed(0))
    assert torch.all(counts.sum(1) == 1000)
    assert torch.allclose(counts.mean(0) / 1000, probs, atol=0.005)
    # multinomial variance of one count: N p (1 - p) = 1000 * 0.5 * 0.5 = 250
    assert counts[:, 0].var().item() == pytest.approx(250, rel=0.1)


def test_prop1_variance_falls_like_one_over_n():
    df = variance.prop1_variance([2**k for k in range(4, 15)], n_sequences=2000, seed=0)
    curve = df.groupby("length").variance.mean()
    assert variance.loglog_slope(curve.index, curve.values) == pytest.approx(-1.0, abs=0.05)


def test_prop1_variance_is_the_values_variance_over_n_under_uniform_attention_centred_or_not():
    """With the logits divided away (temperature 1e12) every token gets the same weight, so O_d is the mean of N
    i.i.d. values: Var(O_d) at N is Var(O_d) at N = 1 (one value) over N, in every component. Softmax averages are
    shift-equivariant, so centring the values (the mean-zero assumption) leaves each variance as it is."""
    by_length = {}
    for centred in (True, False):
        df = variance.prop1_variance([1, 8], n_sequences=20_000, temperature=1e12, mean_zero=centred, seed=3)
        by_length[centred] = df.pivot(index="component", columns="length", values="variance")
        ratio = by_length[centred][8] / by_length[centred][1]
        assert len(ratio) == 16 and ratio.tolist() == pytest.approx([1 / 8] * 16, rel=0.05)
    np.testing.assert_allclose(by_length[True], by_length[False], rtol=1e-9)


def test_global_stats_hand_computed():
    out = torch.tensor([[1.0, 3.0], [0.0, 4.0]])  # means 2, 2; variances 1, 4
    assert variance.global_stats(out) == {"global_mean": 2.0, "global_var": 2.5}


def test_pair_readings_read_every_pair_as_the_figures_do():
    from lengthgen.analysis.attention import probe_internals
    from lengthgen.models import build_model
    from lengthgen.models.probe import ProbeConfig
    from lengthgen.tasks import TASKS

    task = TASKS["argmax"]()
    models = {(norm, seed): build_model("probe", ProbeConfig(width=16, norm=norm), task, seed=seed)
              for norm in ("baseline", "ln") for seed in (0, 1)}
    table = variance.pair_readings(models, task, (4, 32), 8)
    assert list(table.index) == [0, 1]
    parts = {n: probe_internals(models["ln", 1], task.sample(8, n, torch.Generator().manual_seed(n))) for n in (4, 32)}
    ratio = variance.global_stats(parts[32]["normed"])["global_var"] / variance.global_stats(parts[4]["normed"])[
        "global_var"]
    assert table.loc[1, "ln variance ratio"] == pytest.approx(ratio)
    assert table.loc[1, "ln max weight"] == pytest.approx(float(parts[32]["weights"].max(-1).values.mean()))
    spread = float(parts[32]["normed"].var(0).mean() / parts[4]["normed"].var(0).mean())
    assert table.loc[1, "ln spread ratio"] == pytest.approx(spread)
    assert (table.fig4 == (table["ln max weight"] > table["baseline max weight"])).all()
    nearer = (1 - table["ln variance ratio"]).abs() < (1 - table["baseline variance ratio"]).abs()
    assert (table.fig3 == nearer).all()


def test_shared_and_residue_split_the_global_variance():
    profile = torch.tensor([1.0, -1.0, 3.0, -3.0])  # the shared part: mean 0, variance 5
    wobble = torch.tensor([[0.5, -0.5, 0.0, 0.0], [-0.5, 0.5, 0.0, 0.0]])  # residues: mean 0 each, variance 1/8
    split = variance.shared_and_residue(profile + wobble)
    assert split == {"shared_var": pytest.approx(5.0), "residue_var": pytest.approx(0.125)}
    outputs = torch.randn(50, 8, generator=torch.Generator().manual_seed(0)) * 3 + torch.arange(8.0)
    split = variance.shared_and_residue(outputs)
    assert split["shared_var"] + split["residue_var"] == pytest.approx(variance.global_stats(outputs)["global_var"])


def test_pair_table_compares_each_complete_pair_at_the_far_length():
    def rows(seed, variant, var16, var_far, weight_far, spread_far=0.5):
        return [(seed, variant, 16, "global_var", var16), (seed, variant, 256, "global_var", var_far),
                (seed, variant, 16, "max_weight", 0.9), (seed, variant, 256, "max_weight", weight_far),
                (seed, variant, 16, "component_var", 2.0), (seed, variant, 256, "component_var", spread_far)]

    tidy = pd.DataFrame(rows(0, "baseline", 2.0, 0.5, 0.20) + rows(0, "ln", 1.0, 0.8, 0.30)
                        + rows(1, "baseline", 1.0, 0.9, 0.40) + rows(1, "ln", 1.0, 0.6, 0.10, spread_far=3.0)
                        + rows(2, "baseline", 1.0, 0.5, 0.1),  # no +LN run: not a pair
                        columns=["seed", "variant", "length", "metric", "value"])
    table = variance.pair_table(tidy, (16, 256))
    assert list(table.index) == [0, 1]
    assert table.loc[0, "baseline variance ratio"] == pytest.approx(0.25) and table.loc[0, "ln max weight"] == 0.3
    assert table.loc[1, "ln spread ratio"] == pytest.approx(1.5)
    assert table.fig2.tolist() == [True, False]  # both spreads 2.0 -> 0.5; +LN's 2.0 -> 3.0 grows in pair 1
    assert table.fig3.tolist() == [True, False]  # |1 - 0.8| < |1 - 0.25|; |1 - 0.6| > |1 - 0.9|
    assert table.fig4.tolist() == [True, False]  # 0.3 > 0.2; 0.1 < 0.4


def test_trajectory_reads_each_number_of_steps_on_its_complete_pairs():
    def rows(steps, seed, variant, var16, var_far, spread16, acc_far, spread_far=0.1, top_far=0.2):
        return [(steps, seed, variant, n, metric, v) for n, metric, v in [
            (16, "global_var", var16), (256, "global_var", var_far), (16, "component_var", spread16),
            (256, "component_var", spread_far), (16, "max_weight", 0.9), (256, "max_weight", top_far),
            (256, "accuracy", acc_far)]]

    tidy = pd.DataFrame(rows(1000, 0, "baseline", 2.0, 0.4, 1.0, 30.0)
                        + rows(1000, 0, "ln", 1.0, 0.9, 0.9, 20.0, top_far=0.3)
                        + rows(1000, 1, "baseline", 2.0, 0.2, 1.6, 10.0)
                        + rows(1000, 1, "ln", 1.0, 0.7, 0.5, 40.0, spread_far=1.0)
                        + rows(1000, 2, "baseline", 2.0, 0.2, 1.6, 10.0)  # no +LN run at 1,000 steps: not a pair
                        + rows(100_000, 2, "baseline", 1.0, 0.5, 0.5, 10.0)
                        + rows(100_000, 2, "ln", 1.0, 0.1, 1.0, 30.0, spread_far=2.0, top_far=0.3),
                        columns=["steps", "seed", "variant", "length", "metric", "value"])
    table, points = variance.trajectory(tidy, (16, 256), 256)
    assert list(table.index) == [1000, 100_000] and table.pairs.tolist() == [2, 1]
    assert table["Fig. 3 holds"].tolist() == [2, 0]  # +LN nearer 1 in both pairs at 1,000 steps; 0.1 vs 0.5 later
    assert table["Fig. 2 holds"].tolist() == [1, 0]  # +LN's spread grows in pair 1 (0.5 -> 1.0) and at 100,000
    assert table["Fig. 4 holds"].tolist() == [1, 1]  # +LN's largest weight 0.3 > 0.2 in pair 0 and at 100,000
    first = table.loc[1000]
    assert first["baseline global-variance ratio"] == pytest.approx(0.15)  # 0.4 / 2 and 0.2 / 2
    assert first["ln global-variance ratio"] == pytest.approx(0.8)
    assert first["baseline spread share"] == pytest.approx(0.65) and first["ln spread share"] == pytest.approx(0.7)
    assert (first["baseline accuracy at N = 256"], first["ln accuracy at N = 256"], first["ln more accurate"]) == (
        20.0, 30.0, 1)
    assert table.loc[100_000, "ln more accurate"] == 1 and table.loc[100_000, "ln spread share"] == 1.0
    assert len(points) == 3 * 2 * 3 and 2 not in set(points[points.steps == 1000].seed)  # pairs x variants x measures
    assert points.set_index(["steps", "seed", "variant", "measure"]).value[1000, 1, "ln", "spread share"] == 0.5


def test_component_values_and_global_table_by_hand():
    normed = torch.tensor([[1.0, 3.0], [2.0, 2.0]])  # per-vector mean 2, 2; variance 1, 0
    internals = {("ln", 16): {"normed": normed}, ("ln", 64): {"normed": 2 * normed}}
    values = variance.component_values(internals, components=2)
    assert len(values) == 8 and set(values.component) == {"o0", "o1"}
    table = variance.global_table(internals, reference=16).set_index("length")
    assert table.global_var.tolist() == [1.0, 4.0]  # (1 + 0) / 2 = 0.5 at 16; scaled by 2 -> 2.0; both / 0.5
    assert table.global_mean.tolist() == [4.0, 8.0]
