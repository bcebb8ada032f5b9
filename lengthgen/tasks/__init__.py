"""Task registry: every task the harness can train or evaluate on."""

from lengthgen.registry import Registry
from lengthgen.tasks.arithmetic import (
    Addition,
    ListOpsMax,
    ListOpsMin,
    ListOpsSum,
    ListOpsSumBalanced,
    Parity,
    Successor,
    TimesDigit,
)
from lengthgen.tasks.cfq import Cfq
from lengthgen.tasks.chomsky import BucketSort, DuplicateString, ModularArithmetic
from lengthgen.tasks.copying import (
    Copy,
    DeDupe,
    InvReCopy,
    InvReverseReCopy,
    PosRetrieve,
    ReCopy,
    ReverseCopy,
    ReverseReCopy,
)
from lengthgen.tasks.corpus import Corpus
from lengthgen.tasks.lookup import Lookup, LookupLength, ReverseLookup, ReverseLookupLength
from lengthgen.tasks.retrieval import ArgmaxRetrieval, DictionaryLookup
from lengthgen.tasks.scan import Scan, ScanLength
from lengthgen.tasks.sparsity import ScratchpadParity, SparseParity, VariableAssignment

TASKS = Registry(
    "task",
    {
        "argmax": ArgmaxRetrieval,
        "dictionary": DictionaryLookup,
        "copy": Copy,
        "reverse_copy": ReverseCopy,
        "lookup": Lookup,
        "reverse_lookup": ReverseLookup,
        "lookup_length": LookupLength,
        "reverse_lookup_length": ReverseLookupLength,
        "recopy": ReCopy,
        "reverse_recopy": ReverseReCopy,
        "inv_recopy": InvReCopy,
        "inv_reverse_recopy": InvReverseReCopy,
        "dedupe": DeDupe,
        "posretrieve": PosRetrieve,
        "scan": Scan,
        "scan_length": ScanLength,
        "cfq": Cfq,
        "sparse_parity": SparseParity,
        "scratchpad_parity": ScratchpadParity,
        "variable_assignment": VariableAssignment,
        "corpus": Corpus,
        "successor": Successor,
        "addition": Addition,
        "parity": Parity,
        "times_digit": TimesDigit,
        "listops_sum": ListOpsSum,
        "listops_sum_balanced": ListOpsSumBalanced,
        "listops_max": ListOpsMax,
        "listops_min": ListOpsMin,
        "duplicate_string": DuplicateString,
        "bucket_sort": BucketSort,
        "modular_arithmetic": ModularArithmetic,
    },
)

__all__ = ["TASKS"]
