"""Attention captured from a model's hook points: top-k weights (dispersion), attention outputs, and where a
sequence-to-sequence model's focus goes while it decodes."""

import numpy as np
import pandas as pd
import torch

from lengthgen.device import device_of
from lengthgen.errors import LengthgenError
from lengthgen.models.cross_attention import on_source
from lengthgen.models.gru_seq2seq import HOOK_ATTENTION_WEIGHTS, HOOK_DIRECTION_GATE, HOOK_MONO_GATE
from lengthgen.models.hooks import capture, hook_names
from lengthgen.train.evaluate import sub_batches


@torch.no_grad()
def probe_internals(model, batch) -> dict[str, torch.Tensor]:
    """Attention weights (B,N), outputs O (B,D) and normed outputs (B,D) of the probe, in memory-bounded parts."""
    names = {"weights": "attention.hook_pattern", "outputs": "attention.hook_output", "normed": "hook_normed"}
    with capture(model, *names.values()) as rec:
        for part in sub_batches(batch, model.width):
            model(part)
    return {key: torch.cat(rec[hook]).flatten(1) for key, hook in names.items()}  # one head, one query: (B, N or D)


def top_k(weights: torch.Tensor, k: int) -> torch.Tensor:
    """The k largest attention weights of each row, in decreasing order (B, k)."""
    return weights.topk(min(k, weights.shape[-1]), dim=-1).values


@torch.no_grad()
def seq2seq_attention(model, task, examples) -> list[dict]:
    """Greedy-decode `examples` one by one, capturing the cross-attention of every step.

    Returns:
        One dict per example: weights (T, S) over the source positions [START, source..., END] (direction
        mixing undone with the captured direction gate, see `cross_attention.on_source`), source and predicted
        tokens, and the gold target.
    """
    out = []
    model.eval()
    hooks = [h for h in (HOOK_ATTENTION_WEIGHTS, HOOK_DIRECTION_GATE) if h in hook_names(model)]
    for src, tgt in examples:
        batch = task.batch([(src, tgt)])
        with capture(model, *hooks) as rec:
            pred = model.predict(batch.to(device_of(model)))
        weights = torch.cat(rec[HOOK_ATTENTION_WEIGHTS])[None]  # (1, T, S) over the attended positions
        gate = rec[HOOK_DIRECTION_GATE][0] if HOOK_DIRECTION_GATE in rec else None  # (1, 1, 1)
        n = torch.tensor([weights.shape[-1]], device=weights.device)  # one example: no padding
        weights = on_source(weights, gate, n)[0]  # (T, S)
        out.append({"weights": weights.cpu().numpy(), "source": ["START", *src, "END"],
                    "prediction": task.vocab.decode(pred[0].tolist()), "target": list(tgt)})
    return out


@torch.no_grad()
def mono_gate(model, task, example) -> float | None:
    """MonoAttn's step gate b as the trained model uses it (captured at its hook point while decoding `example`);
    None for a mechanism without it."""
    if HOOK_MONO_GATE not in hook_names(model):
        return None
    model.eval()
    with capture(model, HOOK_MONO_GATE) as rec:
        model.predict(task.batch([example]).to(device_of(model)))
    return rec[HOOK_MONO_GATE][0].item()


def attention_maps(models: dict[str, tuple], splits: list[str]) -> dict[str, list[dict]]:
    """For `figures.attention_heatmaps`: label -> the `seq2seq_attention` of the first example of each split, labelled
    with its split and source length. `models`: label -> (model, task)."""
    maps = {}
    for label, (model, task) in models.items():
        examples = [task.examples(split, 1)[0] for split in splits]
        maps[label] = [dict(d, label=f"{split} (source length {len(ex[0])})") for d, split, ex
                       in zip(seq2seq_attention(model, task, examples), splits, examples, strict=True)]
    return maps


def first_failures(models: dict[tuple[str, str], tuple], split: str, tries: int, limit: int) -> list[dict]:
    """Up to `limit` failure examples, at most one per model: the first of `tries` examples of `split` that each
    model (keyed (task, mechanism)) gets wrong, decoded with its attention, for `figures.highlight_prefix`."""
    failures = []
    for (task_name, mechanism), (model, task) in models.items():
        if len(failures) >= limit:
            break
        examples = task.examples(split, tries)
        for d, ex in zip(seq2seq_attention(model, task, examples), examples, strict=True):
            if d["prediction"] != d["target"]:
                failures.append({**d, "model": mechanism, "task": task_name, "source": ex[0]})
                break
    return failures


def first_step_focus(model, task, split: str, n: int) -> dict[str, float]:
    """Where a model's attention goes on the first `n` examples of `split`: the mean attended position (0 = START,
    1 = END) after the first decoder step, the mean largest weight over all steps, and the exact-match accuracy (%)
    of the decoded outputs."""
    decoded = seq2seq_attention(model, task, task.examples(split, n))
    first = [float((d["weights"][0] * np.linspace(0, 1, d["weights"].shape[1])).sum()) for d in decoded]
    return {"focus after the first step": sum(first) / len(first),
            "mean largest weight": float(sum(d["weights"].max(-1).mean() for d in decoded) / len(decoded)),
            "iid accuracy": 100 * sum(d["prediction"] == d["target"] for d in decoded) / len(decoded)}


def source_runs(tokens: list) -> list[tuple[int, int]]:
    """The runs of equal consecutive tokens of a source as (first, last) positions, counted as `seq2seq_attention`'s
    weights count them (0 is START, so the source's first token is at 1)."""
    runs = []
    for j, token in enumerate(tokens, start=1):
        if j > 1 and token == tokens[j - 2]:  # the same as the token before it: the current run grows
            runs[-1] = (runs[-1][0], j)
        else:
            runs.append((j, j))
    return runs


def run_lags(decoded: list[dict]) -> pd.DataFrame:
    """How the attention follows the source of a task whose target is its source's runs of equal tokens (DeDupe),
    from `seq2seq_attention` examples: one row per output step that both the target and the decoding reach, with
    `step`, `lag` (the first position of the run the step's token comes from minus the attended position, i.e. the
    weighted mean position; > 0: the focus trails the run, in source positions), `largest weight` and `right` (the
    decoded token is the target's)."""
    rows = []
    for d in decoded:
        runs, focus = _target_runs(d, "run_lags"), _focus(d)
        rows += [{"step": t, "lag": first - focus[t], "largest weight": d["weights"][t].max(),
                  "right": t < len(d["prediction"]) and d["prediction"][t] == d["target"][t]}
                 for t, (first, _) in enumerate(runs[:len(focus)])]
    return pd.DataFrame(rows, columns=["step", "lag", "largest weight", "right"])


def first_errors(decoded: list[dict]) -> pd.DataFrame:
    """How a decoding of a task whose target is its source's runs (DeDupe) first goes wrong, from
    `seq2seq_attention` examples: one row per example whose prediction is not its target, with `step` (its first
    wrong output step), `kind` ("skip": the token of the target's next run; "repeat": of its previous run; "other";
    "length": one of prediction and target is the other's prefix), and for a wrong token `run length` (source
    positions of the run the step should read) and `past run end` (the attended position, the weighted mean, minus
    that run's last position; > 0: the focus has left the run forward)."""
    rows = []
    for d in decoded:
        runs, pred, target = _target_runs(d, "first_errors"), d["prediction"], d["target"]
        if pred == target:
            continue
        shorter = min(len(pred), len(target))
        step = next((t for t in range(shorter) if pred[t] != target[t]), shorter)
        if step == shorter:
            rows.append({"step": step, "kind": "length", "run length": np.nan, "past run end": np.nan})
            continue
        first, last = runs[step]
        kind = ("skip" if target[step + 1:step + 2] == [pred[step]] else
                "repeat" if step > 0 and target[step - 1] == pred[step] else "other")
        rows.append({"step": step, "kind": kind, "run length": last - first + 1,
                     "past run end": _focus(d)[step] - last})
    return pd.DataFrame(rows, columns=["step", "kind", "run length", "past run end"])


def steps_to_first_error(decoded: list[dict]) -> pd.DataFrame:
    """The output steps of a task whose target is its source's runs (DeDupe) that each decoding gets through, from
    `seq2seq_attention` examples: one row per example and step from the first up to its first wrong step (as
    `first_errors` finds it; the target's last step where the decoding is right), with `example` (its index),
    `step`, `run length` (source positions of the run the step should read), `lag` (as `run_lags`; NaN where the
    decoding stopped before the step) and `error` (the first error's kind at its step, "" before it). A decoding
    that only runs on past its target has no row for its error. E.g. the chance of stepping over a one-position
    run once it is reached: the share of "skip" among the rows with `run length` 1."""
    rows = []
    for i, d in enumerate(decoded):
        runs, focus = _target_runs(d, "steps_to_first_error"), _focus(d)
        error = first_errors([d])
        stop, kind = (error.step.iloc[0], error.kind.iloc[0]) if len(error) else (len(runs) - 1, "")
        rows += [{"example": i, "step": t, "run length": last - first + 1,
                  "lag": first - focus[t] if t < len(focus) else np.nan, "error": kind if t == stop else ""}
                 for t, (first, last) in enumerate(runs[:stop + 1])]
    return pd.DataFrame(rows, columns=["example", "step", "run length", "lag", "error"])


def _target_runs(d: dict, caller: str) -> list[tuple[int, int]]:
    """The source runs of a `seq2seq_attention` example, checked to be its target's tokens (DeDupe)."""
    runs = source_runs(d["source"][1:-1])
    if [d["source"][first] for first, _ in runs] != d["target"]:
        raise LengthgenError(f"{caller} needs targets that are their source's runs (DeDupe); got source "
                             f"{' '.join(d['source'][1:-1])} -> target {' '.join(d['target'])}")
    return runs


def _focus(d: dict) -> np.ndarray:
    """The attended position (the weighted mean over the source positions) at each decoded step (T,)."""
    return d["weights"] @ np.arange(d["weights"].shape[1])
