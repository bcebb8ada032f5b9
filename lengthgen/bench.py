"""`lengthgen bench`: throughput of the vanishing-variance probe on this machine (speed targets live here)."""

import time

import pandas as pd
import torch

from lengthgen.models.probe import AttentionProbe, ProbeConfig
from lengthgen.tasks import TASKS
from lengthgen.train.evaluate import accuracy_by_length
from lengthgen.train.loop import TrainConfig, train
from lengthgen.train.seeding import generator, init_model

EVAL_TARGET_S = 60.0  # target: evaluate 1,000 sets at one length within a minute


def bench(train_steps: int = 200, eval_lengths=(2**14, 2**16, 2**20), eval_sets: int = 4) -> pd.DataFrame:
    """Training steps/s (batch 128, N <= 16) per task, and evaluation time projected to 1,000 sets per length."""
    rows = []
    for name in ("argmax", "dictionary"):
        task = TASKS[name]()
        model = init_model(AttentionProbe, task, ProbeConfig(), seed=0)
        stats = train(model, task, TrainConfig(steps=train_steps, progress=False), generator(0, "bench"))
        rows.append({"what": f"train {name}", "N": 16, "measured": f"{train_steps} steps in {stats['seconds']:.1f} s",
                     "rate": f"{train_steps / stats['seconds']:.0f} steps/s", "target": ""})
        if name != "argmax":
            continue
        for n in eval_lengths:
            start = time.perf_counter()
            accuracy_by_length(model, task, [n], eval_sets, seed=0, adaptive_too=True, progress=False)
            projected = (time.perf_counter() - start) * 1000 / eval_sets
            rows.append({"what": "evaluate argmax (plain + adaptive)", "N": n,
                         "measured": f"{eval_sets} sets", "rate": f"{projected:.0f} s per 1,000 sets",
                         "target": "met" if projected <= EVAL_TARGET_S else f"missed (target {EVAL_TARGET_S:.0f} s)"})
    rows.append({"what": "torch threads", "N": 0, "measured": str(torch.get_num_threads()), "rate": "", "target": ""})
    return pd.DataFrame(rows)
