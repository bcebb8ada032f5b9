"""Numbers of the monotonic-attention chapter's prose that the package's tasks and profiles define (see `prose`):
split sizes, the full protocol, statistics of generated data. They hold at every profile."""

import itertools

import numpy as np

from lengthgen.display import holds, span
from lengthgen.papers.mla.experiments import FULL_VARIANTS, PROFILE_SIZES, QUICK_OTHERS
from lengthgen.tasks import TASKS


def protocol(copy: str = "copy", lookup: str = "lookup") -> dict:
    """Section 5's full protocol, as the package defines it: the training examples of the Copy family and of Lookup,
    the epochs, the test examples per split, the seeds of the grids and of Table 7's."""
    sizes, tasks = PROFILE_SIZES["full"], {name: TASKS[name]() for name in (copy, lookup)}
    test = {v.size for name, task in tasks.items() for k, v in task.splits.items() if k not in (task.train_split,
                                                                                                 task.dev_split)}
    holds(len(test) == 1, "2,000 test examples per split")
    return {"protocol_train": f"{tasks[copy].splits[tasks[copy].train_split].size:,}",
            "protocol_lookup": f"{tasks[lookup].splits[tasks[lookup].train_split].size:,}",
            "protocol_epochs": sizes.epochs, "protocol_test": f"{test.pop():,}", "protocol_seeds": len(sizes.seeds),
            "protocol_variant_seeds": len(FULL_VARIANTS.seeds)}

def scan_split(task) -> dict:
    """The SCAN length split (`TASKS["scan"]()`): how many test commands, the range of their action counts, the
    longest action sequence in training, and the share (%) of the training commands held out as the dev set."""
    test = [len(target) for _, target in task.examples("test")]
    train = [len(target) for _, target in task.examples(task.train_split)]
    return {"split_test": f"{len(test):,}", "split_shortest": min(test), "split_longest": max(test),
            "split_train": max(train), "split_dev_share": 100 * task.splits["dev"].size / (
                task.splits["dev"].size + task.splits[task.train_split].size)}

def lookup_dev(task) -> dict:
    """Lookup's dev split (`TASKS["lookup"]()`): its size, how many of its examples have a training length (at most
    the longest training input) and how many are as long as the test split it shares them with (`dev_longer_split`)."""
    longest = max(len(source) for source, _ in task.examples(task.train_split))
    dev = [len(source) for source, _ in task.examples(task.dev_split)]
    longer = {len(source) for source, _ in task.examples(task.dev_longer_split, 50)}
    holds(len(longer) == 1 and all(n <= longest or n in longer for n in dev),
          "its ... examples are ... held-out ones of the training lengths and ... of length 7")
    held_out = sum(n <= longest for n in dev)
    return {"dev_size": f"{len(dev):,}", "dev_held_out": held_out, "dev_held_share": 100 * held_out / len(dev),
            "dev_longer": sum(n in longer for n in dev), "dev_longer_split": task.dev_longer_split}

def dedupe_runs(task, split: str = "100", inputs: int = 200) -> dict:
    """DeDupe's runs (`TASKS["dedupe"]()`; a run: consecutive equal source tokens, equal draws merged): their mean
    length over the test splits, and on the first `inputs` inputs of `split` (those the attention readings used) the
    share (%) of one-position runs and how many an input holds on average."""
    def runs(examples) -> np.ndarray:
        return np.array([len(list(run)) for source, _ in examples for _, run in itertools.groupby(source)])

    means = [runs(task.examples(s)).mean() for s in task.splits if s not in (task.train_split, task.dev_split)]
    read = runs(task.examples(split, inputs))
    return {"dedupe_run_mean": span(means), "dedupe_one_share": float(100 * (read == 1).mean()),
            "dedupe_one_per_input": float((read == 1).sum() / inputs)}

def recopy_targets(tasks=("recopy", "reverse_recopy"), against: str = "copy") -> dict:
    """How many times longer the ReCopy tasks' training targets are than Copy's, on average."""
    def mean_target(name: str) -> float:
        task = TASKS[name]()
        return float(np.mean([len(target) for _, target in task.examples(task.train_split, None)]))

    return {"fit_recopy_ratio": float(np.mean([mean_target(t) for t in tasks]) / mean_target(against))}


def quick_others() -> dict:
    """Section 4: the quick budget of the Table 4 and 7 runs (`QUICK_OTHERS`) as a share of the Table 2 runs'
    training examples ("half")."""
    share = QUICK_OTHERS.train_size / PROFILE_SIZES["quick"].train_size
    return {"others_share": {0.5: "half", 0.25: "a quarter"}.get(share, f"{share:.0%}")}
