"""The natural-language study (analysis/language.py): perplexity, leave-one-out influence and the (a)/(b)/(c)
losses against plain loops; the claims by hand."""

import math

import numpy as np
import pandas as pd
import pytest
import torch
import torch.nn.functional as F

from lengthgen.analysis.language import (
    far_context_sparsity,
    influence,
    influence_points,
    language_claims,
    leave_one_out,
    lower_bound,
    perplexity,
    window_gains,
)
from lengthgen.models.transformer import DecoderOnly, TransformerConfig

VOCAB = 50


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    m = DecoderOnly(TransformerConfig(width=32, heads=4, layers=2, ff=64, positional="rope"), VOCAB).eval()
    for p in m.parameters():  # weights large enough that every token matters to the prediction
        p.data.normal_(0, 0.3)
    return m


@torch.no_grad()
def nll_after(model, tokens: list[int], ids: list[int], target: int) -> float:
    logits = model.logits(torch.tensor([tokens]), torch.tensor([ids]), last=True)
    return float(F.cross_entropy(logits, torch.tensor([target])))


def test_leave_one_out_leaves_each_far_token_out_and_keeps_the_others_ids(model):
    window = torch.randint(VOCAB, (13,), generator=torch.Generator().manual_seed(1))
    context, target = window[:-1].tolist(), int(window[-1])
    got = leave_one_out(model, window, recent=5)
    expected = [nll_after(model, context[:j] + context[j + 1:], [i for i in range(12) if i != j], target)
                for j in range(12 - 5)]
    assert got.shape == (7,) and torch.allclose(got, torch.tensor(expected), atol=1e-5)
    assert got.std() > 0.02  # the tokens do matter: the comparison above is not between constants


def test_the_three_losses_by_hand(model):
    batch = torch.randint(VOCAB, (3, 11), generator=torch.Generator().manual_seed(2))
    table = influence(model, batch, recent=4, ks=(1, 6))
    for row, window in zip(table.itertuples(), batch, strict=True):
        context, target = window[:-1].tolist(), int(window[-1])
        assert row.full == pytest.approx(nll_after(model, context, list(range(10)), target), abs=1e-5)
        assert row.recent == pytest.approx(nll_after(model, context[6:], list(range(6, 10)), target), abs=1e-5)
        j = int(leave_one_out(model, window, 4).argmax())  # the one far token whose removal hurts most
        assert row._4 == pytest.approx(nll_after(model, [context[j]] + context[6:], [j, 6, 7, 8, 9],
                                                             target), abs=1e-5)
        assert row._5 == pytest.approx(row.full, abs=1e-5)  # all 6 far tokens back: the full context
    assert list(table.columns) == ["example", "full", "recent", "recent+1", "recent+6"]
    with pytest.raises(ValueError, match="need a context of at least 11 tokens; got 10"):
        influence(model, batch, recent=4, ks=(7,))


def test_a_chooser_picks_the_tokens_another_model_is_scored_with(model):
    other = DecoderOnly(TransformerConfig(width=32, heads=4, layers=2, ff=64, positional="rope"), VOCAB).eval()
    batch = torch.randint(VOCAB, (2, 11), generator=torch.Generator().manual_seed(3))
    crossed = influence(model, batch, recent=4, ks=(1,), chooser=other)
    for row, window in zip(crossed.itertuples(), batch, strict=True):
        j = int(leave_one_out(other, window, 4).argmax())
        context = window[:-1].tolist()
        assert row._4 == pytest.approx(nll_after(model, [context[j]] + context[6:], [j, 6, 7, 8, 9],
                                                 int(window[-1])), abs=1e-5)


def test_perplexity_of_non_overlapping_windows(model):
    stream = torch.randint(VOCAB, (23,), generator=torch.Generator().manual_seed(4))
    with torch.no_grad():
        nlls = [F.cross_entropy(model.logits(w[None, :-1], torch.arange(4)[None]).squeeze(0), w[1:], reduction="sum")
                for w in stream[:20].view(4, 5)]
    assert perplexity(model, stream[:20].view(4, 5)) == pytest.approx(math.exp(float(sum(nlls)) / 16), rel=1e-5)
    assert perplexity(model, stream[:5].view(1, 5)) == pytest.approx(math.exp(float(nlls[0]) / 4), rel=1e-5)


def hand_runs() -> pd.DataFrame:
    """Two seeds of a pair: perplexities, and per window the three losses (k = 1) for the short model's own choice,
    with its controls'."""
    rows = []
    for seed, (p64, p128) in enumerate([(20.0, 18.0), (21.0, 21.5)]):
        rows += [{"seed": seed, "lm": "S", "chooser": None, "metric": "perplexity", "length": 64, "value": p64},
                 {"seed": seed, "lm": "S", "chooser": None, "metric": "perplexity", "length": 128, "value": p128}]
        windows = [(3.0, 4.0, 3.2, 3.9, 3.4), (2.0, 2.5, 2.3, 2.5, 2.4), (4.2, 4.9, 4.6, 4.9, 4.9)]
        for example, (full, recent, plus1, random, other) in enumerate(windows):
            rows += [{"seed": seed, "lm": "S", "chooser": "S", "metric": f"nll {name}", "length": 128,
                      "value": value, "example": example}
                     for name, value in (("full", full), ("recent", recent), ("recent+1", plus1),
                                         ("recent+1 random", random), ("recent+1 other", other))]
    return pd.DataFrame(rows)


def test_far_context_sparsity_by_hand():
    points = influence_points(hand_runs(), k=1)
    assert len(points) == 6 and points.far_gain.round(6).tolist()[:3] == [1.0, 0.5, 0.7]
    summary = far_context_sparsity(points).loc[("S", "S")]
    # every window's far gain is positive: recovered 0.8 + 0.2 + 0.3 of 1.0 + 0.5 + 0.7, in each seed
    assert summary["share recovered"] == pytest.approx(1.3 / 2.2)
    assert summary.windows == 3  # both seeds score the same three windows: three, not six, independent values
    assert far_context_sparsity(points).windows.dtype == int  # a count, shown as one
    assert summary["far gain lower bound"] == pytest.approx(lower_bound(pd.Series([1.0, 0.5, 0.7])))
    assert summary["pearson r"] == pytest.approx(np.corrcoef([1.0, 0.5, 0.7], [0.8, 0.2, 0.3])[0, 1])
    assert summary["share other"] == pytest.approx(0.7 / 2.2) and summary["share random"] == pytest.approx(0.1 / 2.2)
    assert summary["mean far gain"] == pytest.approx(2.2 / 3)


def test_the_bound_counts_windows_once_whatever_the_seeds():
    points = influence_points(hand_runs(), k=1)
    one_seed = far_context_sparsity(points[points.seed == 0]).loc[("S", "S")]
    both = far_context_sparsity(points).loc[("S", "S")]
    assert both["far gain lower bound"] == pytest.approx(one_seed["far gain lower bound"])  # a repeat adds no evidence
    shifted = points.assign(far_gain=points.far_gain + np.where(points.seed == 1, 0.2, 0.0))  # seed 1 gains 0.2 more
    assert window_gains(shifted).round(6).tolist() == [1.1, 0.6, 0.8]  # each window's mean over its two seeds


def test_the_lower_bound_of_a_mean_is_students_by_hand():
    assert lower_bound(pd.Series([1.0, 2.0, 3.0])) == pytest.approx(2.0 - 2.919986 / 3 ** 0.5, abs=1e-6)
    assert np.isnan(lower_bound(pd.Series([1.0])))


def test_language_claims_by_hand():
    claims = language_claims(hand_runs(), k=1, short="S", long=128)
    assert claims.verdict.tolist() == ["reproduced"] * 3  # median 20.5 -> 19.75; far gain 0.73 (bound 0.31); share 0.59
    assert claims.ours[1] == "mean far gain +0.733 nats, 95% lower bound +0.309 (3 windows)"
    beside = language_claims(hand_runs(), k=1, short="S", long=128, control="S")  # a model's own numbers beside it
    assert beside.ours[1] == claims.ours[1] + "; S: +0.733 nats, lower bound +0.309"
    assert "20.50 -> 19.75 (lower in 1 of 2 seeds)" in claims.ours[0]
    worse = hand_runs()
    worse.loc[(worse.metric == "perplexity") & (worse.length == 128), "value"] = 30.0
    worse.loc[worse.metric == "nll recent+1", "value"] = worse.loc[worse.metric == "nll recent", "value"].to_numpy()
    assert language_claims(worse, k=1, short="S", long=128).verdict.tolist() == [
        "not reproduced", "reproduced", "not reproduced"]  # the far gain is untouched
    hurts = hand_runs()
    hurts.loc[hurts.metric == "nll full", "value"] += 1.0  # the far context now raises the loss
    assert language_claims(hurts, k=1, short="S", long=128).verdict.tolist()[:2] == ["reproduced", "not reproduced"]


def test_the_few_tokens_claim_fails_when_random_tokens_do_as_well_and_is_not_judged_without_far_gain():
    def few(change: dict) -> str:
        runs = hand_runs()
        for metric, values in change.items():
            for example, value in enumerate(values):
                runs.loc[(runs.metric == metric) & (runs.example == example), "value"] = value
        return language_claims(runs, k=1, short="S", long=128).verdict.iloc[2]

    assert few({}) == "reproduced"  # other 0.32 of the far gain, random 0.05
    assert few({"nll recent+1 random": [3.5, 2.4, 4.9]}) == "not reproduced"  # random 0.27: other under it + 0.1
    assert few({"nll recent+1 other": [3.8, 2.5, 4.9]}) == "not reproduced"  # other 0.09: under random + 0.1
    assert few({"nll full": [4.5, 2.7, 5.0]}).startswith("inconclusive: the far context does not help on average")
    noisy = few({"nll full": [2.0, 3.5, 5.4]})  # gains 2.0, -1.0, -0.5: a mean of +0.17 nats that noise can give
    assert noisy == "inconclusive: the far context does not help on average (+0.167 nats, 95% lower bound -2.543)"
    runs = hand_runs()
    no_controls = runs[~runs.metric.str.endswith(("random", "other"))]
    assert language_claims(no_controls, 1, "S", 128).verdict.iloc[2] == "inconclusive: no control measured"


def test_the_controls_choose_without_looking_at_the_scored_token(model):
    batch = torch.randint(VOCAB, (3, 11), generator=torch.Generator().manual_seed(4))
    table = influence(model, batch, recent=4, ks=(1, 5), controls=torch.Generator().manual_seed(0))
    draws = torch.Generator().manual_seed(0)
    for values, window in zip(table.to_dict("records"), batch, strict=True):
        context, target = window[:-1].tolist(), int(window[-1])
        j = int(leave_one_out(model, window[:-1], 4).argmax())  # ranked for the token before the last one
        assert j < 5 and values["recent+1 other"] == pytest.approx(
            nll_after(model, [context[j]] + context[6:], [j, 6, 7, 8, 9], target), abs=1e-5)
        r = int(torch.randperm(6, generator=draws)[0])  # the random draw, in the generator's order
        assert values["recent+1 random"] == pytest.approx(
            nll_after(model, [context[r]] + context[6:], [r, 6, 7, 8, 9], target), abs=1e-5)
    assert list(table.columns) == ["example", "full", "recent", "recent+1", "recent+1 random", "recent+1 other",
                                   "recent+5", "recent+5 random", "recent+5 other"]
    with pytest.raises(ValueError, match="need a context of at least 11 tokens; got 10"):  # 5 far tokens before
        influence(model, batch, recent=4, ks=(6,), controls=torch.Generator())
