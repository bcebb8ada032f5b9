"""Attention captured from models (analysis/attention.py): top-k weights, maps, focus, run lags and first
errors, by hand and on an untrained model."""

import numpy as np
import pytest
import torch

from lengthgen.analysis.attention import top_k
from lengthgen.errors import LengthgenError


def test_top_k_sorted():
    w = torch.tensor([[0.1, 0.6, 0.3]])
    assert torch.equal(top_k(w, 2), torch.tensor([[0.6, 0.3]]))
    assert top_k(w, 10).shape == (1, 3)


@pytest.mark.parametrize("attention_name", ["mono", "content"])
def test_attention_helpers_on_an_untrained_model(attention_name):
    from lengthgen.analysis import attention
    from lengthgen.models import Seq2SeqConfig
    from lengthgen.papers.mla.experiments import Seq2SeqRun, build_run

    task, model = build_run(Seq2SeqRun(task="copy", seed=0, model=Seq2SeqConfig(attention=attention_name)))
    maps = attention.attention_maps({attention_name: (model, task)}, ["iid", "15"])
    assert [m["label"].split(" ")[0] for m in maps[attention_name]] == ["iid", "15"]
    assert all(abs(m["weights"].sum(-1) - 1).max() < 1e-4 for m in maps[attention_name])  # rows sum to one
    focus = attention.first_step_focus(model, task, "iid", 3)
    assert 0 <= focus["focus after the first step"] <= 1 and focus["iid accuracy"] == 0.0
    gate = attention.mono_gate(model, task, task.examples("iid", 1)[0])
    assert gate == (20.0 if attention_name == "mono" else None)  # b's initial value, or no such hook point
    failures = attention.first_failures({("copy", attention_name): (model, task)}, "iid", tries=3, limit=1)
    assert len(failures) == 1 and failures[0]["prediction"] != failures[0]["target"]


def test_run_lags_measure_how_far_the_focus_trails_each_run_by_hand():
    from lengthgen.analysis import attention

    source = ["START", *"4447999", "END"]  # runs at positions 1-3, 4, 5-7
    assert attention.source_runs(source[1:-1]) == [(1, 3), (4, 4), (5, 7)]
    weights = np.zeros((3, 9))
    weights[0, 1] = weights[1, 2] = 1.0  # on the first run's start; two positions behind the second run
    weights[2, [5, 7]] = 0.5  # spread over the third run: its mean position 6 lies one past the run's start
    decoded = [{"source": source, "target": list("479"), "prediction": list("478"), "weights": weights}]
    lags = attention.run_lags(decoded)
    assert lags.to_dict("list") == {"step": [0, 1, 2], "lag": [0.0, 2.0, -1.0], "largest weight": [1.0, 1.0, 0.5],
                                    "right": [True, True, False]}
    short = {**decoded[0], "prediction": ["4"], "weights": weights[:1]}  # the decoding stopped after one step
    assert attention.run_lags([short]).step.tolist() == [0]
    with pytest.raises(LengthgenError, match="DeDupe"):  # a Copy example: its target is not the source's runs
        attention.run_lags([{**decoded[0], "target": list("4447999")}])


def test_first_errors_classify_each_decodings_first_wrong_token_by_hand():
    from lengthgen.analysis import attention

    source = ["START", *"4447999", "END"]  # runs at positions 1-3, 4, 5-7
    weights = np.zeros((3, 9))
    weights[0, 2] = 1.0
    weights[1, [5, 6]] = 0.5  # step 1 should read the one-position run at 4; its focus 5.5 is 1.5 past that run's end
    example = {"source": source, "target": list("479"), "weights": weights}
    decoded = [{**example, "prediction": list(p)} for p in ("479", "49", "449", "489", "47", "4799")]
    errors = attention.first_errors(decoded)
    assert errors.drop(columns=["run length", "past run end"]).to_dict("list") == {
        "step": [1, 1, 1, 2, 3], "kind": ["skip", "repeat", "other", "length", "length"]}
    assert errors["run length"].tolist()[:3] == [1, 1, 1] and errors["run length"].iloc[3:].isna().all()
    assert errors["past run end"].tolist()[:3] == [1.5, 1.5, 1.5]
    assert attention.first_errors(decoded[:1]).empty and list(attention.first_errors([])) == list(errors)
    with pytest.raises(LengthgenError, match="first_errors needs targets"):  # a Copy example
        attention.first_errors([{**decoded[1], "target": list("4447999")}])


def test_steps_to_first_error_stop_at_each_decodings_first_wrong_step_by_hand():
    from lengthgen.analysis import attention

    source = ["START", *"4447999", "END"]  # runs at positions 1-3, 4, 5-7
    weights = np.zeros((3, 9))
    weights[0, 1] = weights[1, 4] = 1.0  # on the first two runs' starts
    weights[2, 6] = 1.0  # one past the third run's start
    example = {"source": source, "target": list("479"), "weights": weights}
    right, skip, runs_on = ({**example, "prediction": list(p)} for p in ("479", "49", "4799"))
    stopped = {**example, "prediction": ["4"], "weights": weights[:1]}  # ends after its first token
    steps = attention.steps_to_first_error([right, skip, stopped, runs_on])
    assert steps.drop(columns="lag").to_dict("list") == {
        "example": [0, 0, 0, 1, 1, 2, 2, 3, 3, 3], "step": [0, 1, 2, 0, 1, 0, 1, 0, 1, 2],
        "run length": [3, 1, 3, 3, 1, 3, 1, 3, 1, 3], "error": ["", "", "", "", "skip", "", "length", "", "", ""]}
    assert steps.lag.tolist()[:5] == [0.0, 0.0, -1.0, 0.0, 0.0] and np.isnan(steps.lag.iloc[6])
    assert list(attention.steps_to_first_error([])) == list(steps)
