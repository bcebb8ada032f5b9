"""Task registry: every task the harness can train or evaluate on."""

from lengthgen.registry import Registry
from lengthgen.tasks.base import SetBatch
from lengthgen.tasks.retrieval import ArgmaxRetrieval, DictionaryLookup

TASKS = Registry(
    "task",
    {
        "argmax": ArgmaxRetrieval,
        "dictionary": DictionaryLookup,
    },
)

__all__ = ["TASKS", "SetBatch"]
