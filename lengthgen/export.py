"""The examples of a sequence task's split as text lines (`lengthgen data`): txt (source TAB target), jsonl, or scan
(the official IN:/OUT: format); a decoder-only task's as prompt TAB answer [TAB ids]."""

import json

from lengthgen.errors import LengthgenError
from lengthgen.seeding import fixed_generator
from lengthgen.tasks import TASKS
from lengthgen.tasks.lm import LMTask
from lengthgen.tasks.seq2seq import Seq2SeqTask

DATA_FORMATS = ("txt", "jsonl", "scan")


def example_lines(name: str, split: str, n: int | None, fmt: str, data_seed: int = 0,
                  cfq_root: str | None = None) -> tuple[list[str], str]:
    """(lines, what they are) for `n` examples (None: the whole split; a decoder-only task: 10) of task `name`'s
    split (a decoder-only task's: a length); raises LengthgenError naming what is valid for a task without fixed
    splits, a bad split or format, or cfq without its folder."""
    cls = TASKS[name]
    sequence_tasks = [t for t in TASKS if issubclass(TASKS[t], Seq2SeqTask | LMTask)]
    if not issubclass(cls, Seq2SeqTask | LMTask):
        raise LengthgenError(f"task {name!r} has no fixed splits; valid: {', '.join(sequence_tasks)}")
    if issubclass(cls, LMTask):
        return lm_lines(cls(), split, n, fmt, data_seed), f"{cls.name} examples of length {split}"
    if name == "cfq":
        if not cfq_root:
            raise LengthgenError("cfq needs --cfq-root DIR (a user-supplied copy; CFQ is never downloaded)")
        task = cls(cfq_root, data_seed=data_seed)
    else:
        task = cls(data_seed=data_seed)
    return [format_example(e, fmt) for e in task.examples(split, n)], f"{task.name}/{split} examples"


def lm_lines(task: LMTask, split: str, n: int | None, fmt: str, data_seed: int) -> list[str]:
    """`n` (default 10) examples of a decoder-only task at the length `split`, as prompt TAB answer [TAB ids]."""
    if fmt == "scan" or not split.isdigit():
        raise LengthgenError(f"{task.name} takes --split LENGTH (a number of {task.unit}) and --format txt or jsonl")
    length = int(split)
    task.check(length)
    gen = fixed_generator(data_seed)
    lines = []
    for s in (task.sequence(length, gen) for _ in range(n or 10)):
        prompt, answer = " ".join(s.tokens[: s.prompt]), " ".join(s.tokens[s.prompt:])
        ids = "" if s.ids is None else " ".join(map(str, s.ids))
        lines.append(json.dumps({"prompt": prompt, "answer": answer, "ids": ids}) if fmt == "jsonl"
                     else "\t".join(filter(None, (prompt, answer, ids))))
    return lines


def format_example(example, fmt: str) -> str:
    """One example as a line: txt (source TAB target), jsonl, or scan (the official IN:/OUT: format)."""
    from lengthgen.tasks.scan import to_line

    src, tgt = (" ".join(side) for side in example)
    return {"txt": lambda: f"{src}\t{tgt}", "jsonl": lambda: json.dumps({"source": src, "target": tgt}),
            "scan": lambda: to_line(example)}[fmt]()
