"""Accuracy by length, computed in memory-bounded sub-batches, returned as a tidy DataFrame."""

import pandas as pd
import torch
from tqdm.auto import tqdm

from lengthgen.train.seeding import generator

# Sub-batches hold at most this many item-feature elements (sets x items x width), ~256 MB of float32.
ELEMENT_BUDGET = 2**26


def test_set(task, length: int, n_samples: int, seed: int):
    """The fixed test set for (length, seed): identical for every model evaluated with the same seed (paired)."""
    return task.sample(n_samples, length, generator(seed, f"test/{length}"))


def sub_batches(batch, width: int):
    """Yield slices of `batch` small enough that (sets x length x width) stays within ELEMENT_BUDGET."""
    step = max(1, ELEMENT_BUDGET // (batch.length * width))
    for start in range(0, batch.size, step):
        yield batch.slice(start, start + step)


@torch.no_grad()
def accuracy_by_length(
    model, task, lengths, n_samples: int, seed: int, adaptive_too: bool = False, progress: bool = True
) -> pd.DataFrame:
    """Accuracy of `model.predict(batch, modes)` on `n_samples` test sets per length (sub-batched by `model.width`).

    Returns:
        DataFrame with columns length, metric ("accuracy" or "accuracy_adaptive"), value (in %).
    """
    rows = []
    model.eval()
    modes = [("accuracy", False)] + ([("accuracy_adaptive", True)] if adaptive_too else [])
    for length in tqdm(list(lengths), desc="evaluate", disable=not progress, leave=False):
        batch = test_set(task, length, n_samples, seed)
        correct = dict.fromkeys([m for m, _ in modes], 0)
        for part in sub_batches(batch, model.width):
            preds = model.predict(part, tuple(adaptive for _, adaptive in modes))
            for (metric, _), pred in zip(modes, preds, strict=True):
                correct[metric] += int((pred == part.target).sum())
        rows += [{"length": length, "metric": m, "value": 100.0 * c / n_samples} for m, c in correct.items()]
    return pd.DataFrame(rows)
