"""An English corpus that ships with Python itself, for the natural-language part of the sparsity chapter.

Nothing is downloaded: the documents are the help topics of `pydoc_data.topics` (the text of `help("if")`, ...)
and the docstrings of the standard library's modules, classes and functions, read from the interpreter's own
source files with `ast` (nothing is imported or run). The same Python version gives the same corpus; `Corpus.summary`
reports its size and a fingerprint, which the chapter prints.

Tokens are words and single punctuation marks (`re` \\w+ | [^\\w\\s]); the vocabulary is the most frequent training
tokens plus the four specials, `vocab_size` in all (a rarer token reads as <unk>). Every tenth document (in a fixed
order) is held out for testing.
"""

import ast
import hashlib
import pydoc_data.topics
import re
import sysconfig
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import torch

from lengthgen.data import SPECIALS, UNK, LMBatch, Vocab
from lengthgen.errors import LengthgenError
from lengthgen.tasks.lm import LMTask, Sequence

SKIPPED = ("site-packages", "test", "tests", "idlelib", "lib2to3", "turtledemo")  # tests and bundled applications
TOKEN = re.compile(r"\w+|[^\w\s]")
HELD_OUT = 10  # every HELD_OUT-th document is a test document


def stdlib_docstrings(root: Path | None = None) -> list[tuple[str, str]]:
    """(name, docstring) of every module, class and function of the standard library under `root`, in path order."""
    root = Path(sysconfig.get_paths()["stdlib"]) if root is None else root
    docs = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts
        if any(p in SKIPPED for p in parts):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue  # a file this interpreter cannot parse (e.g. a template) holds no docstrings we can read
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                text = ast.get_docstring(node)
                if text:
                    docs.append((f"{'/'.join(parts)}:{getattr(node, 'name', '')}", text))
    return docs


@cache
def documents() -> tuple[tuple[str, str], ...]:
    """(name, text) of every document: the help topics (sorted by name), then the standard library's docstrings."""
    topics = sorted(pydoc_data.topics.topics.items())
    return tuple((f"topic:{name}", text) for name, text in topics) + tuple(stdlib_docstrings())


def tokenize(text: str) -> list[str]:
    return TOKEN.findall(text)


@dataclass(frozen=True)
class Corpus(LMTask):
    """Windows of consecutive tokens of the corpus, for language modelling.

    `sample(batch_size, length, gen, split)` draws windows of `length` tokens at uniformly random starts of the
    split's token stream (documents concatenated in order); the loss counts every token but the first.

    Examples:
        a window of 8 tokens:  the  with  statement  is  used  to  wrap  the
    """

    vocab_size: int = 8192
    name = "corpus"
    unit = "tokens"

    @property
    def vocab(self) -> Vocab:
        return _vocab(self.vocab_size)

    def stream(self, split: str) -> torch.Tensor:
        """The token ids of the split ("train" or "test"), documents concatenated in order."""
        if split not in ("train", "test"):
            raise LengthgenError(f"unknown split {split!r} of the corpus; valid: train, test")
        return _stream(self.vocab_size, split)

    def check(self, length: int, split: str = "train") -> None:
        size = len(self.stream(split))
        if not 2 <= length <= size:
            raise LengthgenError(f"impossible length {length} for the corpus; valid: 2..{size} tokens")

    def sample(self, batch_size: int, length: int, gen: torch.Generator, split: str = "train") -> LMBatch:
        self.check(length, split)
        stream = self.stream(split)
        starts = torch.randint(len(stream) - length + 1, (batch_size,), generator=gen)
        windows = stream[starts[:, None] + torch.arange(length)[None, :]]  # (B, length)
        return LMBatch(windows, None, prompt=1)

    def sequence(self, length, gen):
        """One window, as tokens."""
        return Sequence(self.vocab.decode(self.sample(1, length, gen).tokens[0].tolist()), None, 1)

    def summary(self) -> dict:
        """Documents, characters, tokens per split, vocabulary, the share of <unk> and a fingerprint of the text."""
        docs = documents()
        train, test = self.stream("train"), self.stream("test")
        digest = hashlib.sha256("\n".join(text for _, text in docs).encode()).hexdigest()[:12]
        return {"documents": len(docs), "characters": sum(len(t) for _, t in docs), "train tokens": len(train),
                "test tokens": len(test), "vocabulary": self.vocab_size,
                "unknown (test)": round(float((test == UNK).float().mean()), 4), "fingerprint": digest}


def _split_tokens(split: str) -> list[str]:
    keep = (lambda i: i % HELD_OUT == 0) if split == "test" else (lambda i: i % HELD_OUT != 0)
    return [tok for i, (_, text) in enumerate(documents()) if keep(i) for tok in tokenize(text)]


@cache
def _vocab(vocab_size: int) -> Vocab:
    counts = Counter(_split_tokens("train"))
    return Vocab([t for t, _ in counts.most_common(vocab_size - len(SPECIALS))])  # Vocab adds the specials


@cache
def _stream(vocab_size: int, split: str) -> torch.Tensor:
    return torch.tensor(_vocab(vocab_size).encode(_split_tokens(split)), dtype=torch.long)
