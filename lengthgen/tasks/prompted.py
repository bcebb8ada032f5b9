"""A sequence-to-sequence task as a decoder-only one: the source, then SEPARATOR, then the target as the answer, at
positions 0, 1, 2, ... A batch left-pads prompts of different lengths (DeDupe's sources, at one length of its
target), which no attention reads (`LMBatch.mask`; the positions count from each row's first token); where targets of
one length differ in length (`Seq2SeqTask.answers_vary`: ReCopy, DeDupe), every answer ends with <eos> and the
batch right-pads the answers with <pad>, which the loss and the metrics skip and causal attention never reads."""

import torch

from lengthgen.data import EOS, PAD, SPECIALS, LMBatch
from lengthgen.errors import LengthgenError
from lengthgen.tasks.lm import LMTask, Sequence
from lengthgen.tasks.seq2seq import Seq2SeqTask

SEPARATOR = "="


class Prompted(LMTask):
    """`task`'s examples of a source length as prompts (source, SEPARATOR) and answers (target); `length` counts the
    source's tokens, as the task's own lengths do. With `coupled`, the position ids are the task's coupled ids
    (`Seq2SeqTask.coupled_ids`, SEPARATOR's one step before the answer's first), else 0, 1, 2, ..."""

    unit = "source tokens"

    def __init__(self, task: Seq2SeqTask, coupled: bool = False):
        if SEPARATOR in task.tokens:
            raise LengthgenError(f"{task.name} uses {SEPARATOR!r} itself; it cannot separate its prompts")
        self.task, self.name, self.tokens, self.coupled = task, task.name, (*task.tokens, SEPARATOR), coupled
        self.ids_follow_input = task.ids_follow_input

    def sequence(self, length: int, gen: torch.Generator) -> Sequence:
        source, target = self.task.draw(length, gen)
        tokens = [*source, SEPARATOR, *target, *([SPECIALS[EOS]] if self.task.answers_vary else [])]
        if not self.coupled:
            return Sequence(tokens, None, len(source) + 1)
        ids = self.task.coupled_ids(source, target)
        if ids is None:
            raise LengthgenError(f"{self.name} defines no coupled position ids (Seq2SeqTask.coupled_ids)")
        ids = [*ids.source, ids.separator, *ids.target]
        if len(ids) != len(tokens):
            raise LengthgenError(f"{self.name}'s coupled ids number {len(ids)} for {len(tokens)} tokens (one each, and "
                                 f"one for the <eos> of an answer that varies)")
        return Sequence(tokens, ids, len(source) + 1)

    def batch(self, rows: list[Sequence]) -> LMBatch:
        """The rows as one batch: prompts left-padded to the longest (`LMBatch.mask` marks the pads, when there are
        any), answers right-padded after their <eos> where they vary (`answers_vary`)."""
        prompt, longest = max(r.prompt for r in rows), max(len(r.tokens) - r.prompt for r in rows)
        if not self.task.answers_vary and any(len(r.tokens) - r.prompt < longest for r in rows):
            raise LengthgenError(f"{self.name}'s answers to sources of one length differ in length; set "
                                 f"`answers_vary` on the task so that they end with <eos> and pad")
        pad, vocab = SPECIALS[PAD], self.vocab
        left = [prompt - r.prompt for r in rows]
        right = [longest - (len(r.tokens) - r.prompt) for r in rows]
        tokens = torch.tensor([vocab.encode([pad] * a + r.tokens + [pad] * b)
                               for r, a, b in zip(rows, left, right, strict=True)], dtype=torch.long)
        ids = None if rows[0].ids is None else torch.tensor(
            [[0] * a + r.ids + [0] * b for r, a, b in zip(rows, left, right, strict=True)], dtype=torch.long)
        mask = None
        if any(left):
            mask = torch.arange(tokens.shape[1])[None, :] >= torch.tensor(left)[:, None]
        return LMBatch(tokens, ids, prompt, mask)
