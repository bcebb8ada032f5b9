"""Corpora that ship with Python itself, for the natural-language part of the sparsity chapter.

Nothing is downloaded; the same Python version gives the same corpus, and `Corpus.summary` reports its size and a
fingerprint, which the chapter prints. Two sources (`Corpus.source`):

- "docs": English. The help topics of `pydoc_data.topics` (the text of `help("if")`, ...) and the docstrings of the
  standard library's modules, classes and functions, read from the interpreter's own source files with `ast`
  (nothing is imported or run). Short documents: a docstring averages a few dozen tokens.
- "code": the standard library's own source files, one document each (a median of about 2,000 tokens): long, with
  real long-range dependencies (a name defined far back, used again).

Tokens are words and single punctuation marks (`re` \\w+ | [^\\w\\s]); the vocabulary is the most frequent training
tokens plus the four specials, `vocab_size` in all (a rarer token reads as <unk>). Every tenth document (in a fixed
order) is held out for testing. Windows (`Corpus.windows`) are cut from the split's documents concatenated
("stream": a window may span two documents) or from inside one document ("documents": never across a boundary).
"""

import ast
import hashlib
import pydoc_data.topics
import re
import sysconfig
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import torch

from lengthgen.config import added
from lengthgen.data import SPECIALS, UNK, LMBatch, Vocab
from lengthgen.errors import LengthgenError
from lengthgen.tasks.lm import LMTask, Sequence

SKIPPED = ("site-packages", "test", "tests", "idlelib", "lib2to3", "turtledemo")  # tests and bundled applications
TOKEN = re.compile(r"\w+|[^\w\s]")
HELD_OUT = 10  # every HELD_OUT-th document is a test document


def _stdlib_files(root: Path | None = None) -> Iterator[tuple[tuple[str, ...], str]]:
    """(path parts, text) of every Python file of the standard library under `root`, in path order, but the tests
    and bundled applications (SKIPPED) and what is not UTF-8 text."""
    root = Path(sysconfig.get_paths()["stdlib"]) if root is None else root
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts
        if any(p in SKIPPED for p in parts):
            continue
        try:
            yield parts, path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, ValueError):
            continue  # not text this interpreter can read


def stdlib_docstrings(root: Path | None = None) -> list[tuple[str, str]]:
    """(name, docstring) of every module, class and function of the standard library under `root`, in path order."""
    docs = []
    for parts, text in _stdlib_files(root):
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue  # a file this interpreter cannot parse (e.g. a template) holds no docstrings we can read
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                docstring = ast.get_docstring(node)
                if docstring:
                    docs.append((f"{'/'.join(parts)}:{getattr(node, 'name', '')}", docstring))
    return docs


def stdlib_sources(root: Path | None = None) -> list[tuple[str, str]]:
    """(path, text) of every module of the standard library under `root` (`_stdlib_files`), in path order."""
    return [("/".join(parts), text) for parts, text in _stdlib_files(root)]


SOURCES = {  # Corpus.source: what the prose calls it
    "docs": "Python's own documentation (its help topics and the standard library's docstrings)",
    "code": "the Python standard library's own source files"}
WINDOWS = {  # Corpus.windows: what the prose says of it
    "stream": "windows run across the boundaries between documents",
    "documents": "every window lies inside one document, so that its far tokens come from the same file"}


@cache
def documents(source: str = "docs") -> tuple[tuple[str, str], ...]:
    """(name, text) of every document of a source: "docs", the help topics (sorted by name), then the standard
    library's docstrings; "code", the standard library's source files."""
    if source == "code":
        return tuple(stdlib_sources())
    topics = sorted(pydoc_data.topics.topics.items())
    return tuple((f"topic:{name}", text) for name, text in topics) + tuple(stdlib_docstrings())


def tokenize(text: str) -> list[str]:
    return TOKEN.findall(text)


@dataclass(frozen=True)
class Corpus(LMTask):
    """Windows of consecutive tokens of a corpus, for language modelling.

    `sample(batch_size, length, gen, split)` draws windows of `length` tokens at uniformly random starts: anywhere in
    the split's token stream (documents concatenated in order; `windows` "stream"), or anywhere a window fits inside
    one document ("documents"). The loss counts every token but the first.

    Examples:
        a window of 8 tokens:  the  with  statement  is  used  to  wrap  the
    """

    vocab_size: int = 8192
    source: str = added("docs")  # SOURCES
    windows: str = added("stream")  # WINDOWS
    name = "corpus"
    unit = "tokens"

    def __post_init__(self):
        if self.source not in SOURCES:
            raise ValueError(f"unknown corpus source {self.source!r}; valid: {', '.join(SOURCES)}")
        if self.windows not in WINDOWS:
            raise ValueError(f"unknown corpus windows {self.windows!r}; valid: {', '.join(WINDOWS)}")

    @property
    def vocab(self) -> Vocab:
        return _vocab(self.vocab_size, self.source)

    def stream(self, split: str) -> torch.Tensor:
        """The token ids of the split ("train" or "test"), documents concatenated in order."""
        if split not in ("train", "test"):
            raise LengthgenError(f"unknown split {split!r} of the corpus; valid: train, test")
        return _stream(self.vocab_size, self.source, split)

    def starts(self, split: str, length: int) -> torch.Tensor:
        """Every position of the split's stream where a window of `length` tokens may start."""
        if self.windows == "stream":
            return torch.arange(len(self.stream(split)) - length + 1)
        return _starts(self.source, split, length)

    def check(self, length: int, split: str = "train") -> None:
        size = int(_bounds(self.source, split).diff().max()) if self.windows == "documents" else len(self.stream(split))
        if not 2 <= length <= size:
            where = "the longest document" if self.windows == "documents" else "the split"
            raise LengthgenError(f"impossible length {length} for the corpus; valid: 2..{size} tokens ({where})")

    def sample(self, batch_size: int, length: int, gen: torch.Generator, split: str = "train") -> LMBatch:
        self.check(length, split)
        stream, starts = self.stream(split), self.starts(split, length)
        picked = starts[torch.randint(len(starts), (batch_size,), generator=gen)]
        windows = stream[picked[:, None] + torch.arange(length)[None, :]]  # (B, length)
        return LMBatch(windows, None, prompt=1)

    def tiles(self, split: str, length: int, block: int | None = None) -> torch.Tensor:
        """The split cut into consecutive, non-overlapping windows (W, length): of the whole stream, or of each
        document on its own, its tail short of a multiple of `block` tokens (default `length`) left out, so that
        windows of every length dividing `block` cover the same tokens (with "stream" windows the one cut at the
        stream's end loses fewer than `length` tokens, and `block` is not used)."""
        stream = self.stream(split)
        if self.windows == "stream":
            return stream[: len(stream) // length * length].view(-1, length)
        block = length if block is None else block
        bounds = _bounds(self.source, split).tolist()
        kept = [stream[a: a + (b - a) // block * block] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        return torch.cat([doc[: len(doc) // length * length].view(-1, length) for doc in kept])

    def sequence(self, length, gen):
        """One window, as tokens."""
        return Sequence(self.vocab.decode(self.sample(1, length, gen).tokens[0].tolist()), None, 1)

    def summary(self) -> dict:
        """Documents, characters, tokens per split, vocabulary, the share of <unk> and a fingerprint of the text."""
        docs = documents(self.source)
        train, test = self.stream("train"), self.stream("test")
        digest = hashlib.sha256("\n".join(text for _, text in docs).encode()).hexdigest()[:12]
        return {"documents": len(docs), "characters": sum(len(t) for _, t in docs), "train tokens": len(train),
                "test tokens": len(test), "vocabulary": self.vocab_size,
                "unknown (test)": round(float((test == UNK).float().mean()), 4), "fingerprint": digest}


@cache
def _split_documents(source: str, split: str) -> tuple[list[str], ...]:
    """The tokens of each document of the split."""
    keep = (lambda i: i % HELD_OUT == 0) if split == "test" else (lambda i: i % HELD_OUT != 0)
    return tuple(tokenize(text) for i, (_, text) in enumerate(documents(source)) if keep(i))


@cache
def _bounds(source: str, split: str) -> torch.Tensor:
    """Where each document of the split starts in its stream, and where the last ends."""
    sizes = torch.tensor([0, *map(len, _split_documents(source, split))])
    return sizes.cumsum(0)


@cache
def _vocab(vocab_size: int, source: str = "docs") -> Vocab:
    counts = Counter(tok for doc in _split_documents(source, "train") for tok in doc)
    return Vocab([t for t, _ in counts.most_common(vocab_size - len(SPECIALS))])  # Vocab adds the specials


@cache
def _stream(vocab_size: int, source: str, split: str) -> torch.Tensor:
    tokens = [tok for doc in _split_documents(source, split) for tok in doc]
    return torch.tensor(_vocab(vocab_size, source).encode(tokens), dtype=torch.long)


@cache
def _starts(source: str, split: str, length: int) -> torch.Tensor:
    """Every start of a window of `length` tokens inside one document of the split."""
    bounds = _bounds(source, split).tolist()
    return torch.cat([torch.arange(a, b - length + 1) for a, b in zip(bounds[:-1], bounds[1:], strict=True)
                      if b - a >= length])
