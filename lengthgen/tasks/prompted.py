"""A sequence-to-sequence task as a decoder-only one: the source, then SEPARATOR, then the target as the answer, at
positions 0, 1, 2, ... For tasks whose sources of one length have one length, so that a batch of one source length
has one prompt length, as `LMBatch` needs. Where the targets of one source length differ in length
(`Seq2SeqTask.answers_vary`: ReCopy), every answer ends with <eos> and a batch right-pads its answers with <pad>,
which the loss and the metrics skip; nothing before a pad attends to it (causal attention)."""

import torch

from lengthgen.data import EOS, PAD, SPECIALS, LMBatch
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
        tokens = [*source, SEPARATOR, *target, *([SPECIALS[EOS]] if self.task.answers_vary else [])]
        if not self.coupled:
            return Sequence(tokens, None, len(source) + 1)
        ids = self.task.coupled_ids(source, target)
        if ids is None:
            raise LengthgenError(f"{self.name} defines no coupled position ids (Seq2SeqTask.coupled_ids)")
        return Sequence(tokens, [*ids[0], 0, *ids[1]], len(source) + 1)

    def batch(self, rows: list[Sequence]) -> LMBatch:
        if len({r.prompt for r in rows}) > 1:
            raise LengthgenError(f"{self.name}'s sources of one length differ in length; a decoder-only batch holds "
                                 f"one prompt length (tasks whose source length is their length)")
        longest = max(len(r.tokens) for r in rows)
        if not self.task.answers_vary and any(len(r.tokens) < longest for r in rows):
            raise LengthgenError(f"{self.name}'s answers to sources of one length differ in length; set "
                                 f"`answers_vary` on the task so that they end with <eos> and pad")
        padded = [r._replace(tokens=[*r.tokens, *[SPECIALS[PAD]] * (longest - len(r.tokens))]) for r in rows]
        return super().batch(padded)
