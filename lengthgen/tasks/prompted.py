"""A sequence-to-sequence task as a decoder-only one: the source, then SEPARATOR, then the target as the answer, at
positions 0, 1, 2, ... For tasks whose target length follows from the source's (copying, sorting, duplicating, a
value), so that a batch of one source length has one sequence length, as `LMBatch` needs."""

import torch

from lengthgen.errors import LengthgenError
from lengthgen.tasks.lm import LMTask, Sequence
from lengthgen.tasks.seq2seq import Seq2SeqTask

SEPARATOR = "="


class Prompted(LMTask):
    """`task`'s examples of a source length as prompts (source, SEPARATOR) and answers (target); `length` counts the
    source's tokens, as the task's own lengths do. With `coupled`, the position ids are the task's coupled ids
    (`Seq2SeqTask.coupled_ids`; SEPARATOR 0), else 0, 1, 2, ..."""

    unit = "source tokens"

    def __init__(self, task: Seq2SeqTask, coupled: bool = False):
        if SEPARATOR in task.tokens:
            raise LengthgenError(f"{task.name} uses {SEPARATOR!r} itself; it cannot separate its prompts")
        self.task, self.name, self.tokens, self.coupled = task, task.name, (*task.tokens, SEPARATOR), coupled

    def sequence(self, length: int, gen: torch.Generator) -> Sequence:
        source, target = self.task.draw(length, gen)
        tokens = [*source, SEPARATOR, *target]
        if not self.coupled:
            return Sequence(tokens, None, len(source) + 1)
        ids = self.task.coupled_ids(source, target)
        if ids is None:
            raise LengthgenError(f"{self.name} defines no coupled position ids (Seq2SeqTask.coupled_ids)")
        return Sequence(tokens, [*ids[0], 0, *ids[1]], len(source) + 1)

    def batch(self, rows: list[Sequence]):
        if len({len(r.tokens) for r in rows}) > 1 or len({r.prompt for r in rows}) > 1:
            raise LengthgenError(f"{self.name}'s examples of one length differ in length; a decoder-only batch holds "
                                 f"one length (tasks whose target length follows from the source's)")
        return super().batch(rows)
