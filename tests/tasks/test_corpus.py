"""The natural-language corpus (tasks/corpus.py): docstrings read without importing, windows that are slices
of its streams."""


import pytest
import torch

from lengthgen.errors import LengthgenError
from lengthgen.tasks.corpus import Corpus, stdlib_docstrings, tokenize


def test_docstrings_are_read_without_importing(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text('"""Module text."""\nclass A:\n    """Class text."""\n'
                                             '    def f(self):\n        """Method text."""\nraise SystemExit\n')
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "t.py").write_text('"""Never read."""\n')
    (tmp_path / "broken.py").write_text('"""Not Python 3""" print "x"\n')
    assert stdlib_docstrings(tmp_path) == [("pkg/mod.py:", "Module text."), ("pkg/mod.py:A", "Class text."),
                                           ("pkg/mod.py:f", "Method text.")]


def test_the_corpus_windows_are_slices_of_its_token_streams():
    corpus = Corpus(vocab_size=500)
    summary = corpus.summary()
    assert len(corpus.vocab) == 500 and summary["documents"] > 1000
    train, test = corpus.stream("train"), corpus.stream("test")
    assert summary["train tokens"] == len(train) > 8 * len(test) > 0  # a tenth of the documents held out
    assert int(train.max()) < 500 and 0 < summary["unknown (test)"] < 0.5
    batch = corpus.sample(3, 12, torch.Generator().manual_seed(0), split="test")
    assert batch.tokens.shape == (3, 12) and batch.prompt == 1 and batch.ids is None
    windows = test.unfold(0, 12, 1)  # every window of the test stream
    assert all(bool((windows == row).all(1).any()) for row in batch.tokens)
    assert tokenize("x**2, isn't it?") == ["x", "*", "*", "2", ",", "isn", "'", "t", "it", "?"]
    with pytest.raises(LengthgenError, match="valid: train, test"):
        corpus.stream("dev")
    with pytest.raises(LengthgenError, match="impossible length 1"):
        corpus.sample(1, 1, torch.Generator())


def test_influence_windows_are_slices_of_the_test_stream():
    corpus = Corpus(vocab_size=512)
    stream, w = corpus.stream("test"), corpus.sample(6, 10, torch.Generator().manual_seed(0), split="test").tokens
    assert w.shape == (6, 10) and all(any(bool((stream[i:i + 10] == row).all()) for i in range(len(stream) - 9))
                                      for row in w[:1])


def test_source_files_as_documents_and_windows_that_never_cross_one():
    from lengthgen.tasks.corpus import _bounds, documents, stdlib_sources

    corpus = Corpus(vocab_size=512, source="code", windows="documents")
    docs = documents("code")
    assert len(docs) > 300 and docs[0][0].endswith(".py") and "import" in corpus.vocab.ids
    bounds = _bounds("code", "test")
    assert int(bounds[-1]) == len(corpus.stream("test")) and int(bounds.diff().min()) >= 0
    length = 200
    batch = corpus.sample(64, length, torch.Generator().manual_seed(0), split="test")
    starts = corpus.starts("test", length)
    for row in batch.tokens[:8]:  # each window is a slice that starts and ends inside one document
        start = next(int(s) for s in starts if bool((corpus.stream("test")[s:s + length] == row).all()))
        doc = int(torch.searchsorted(bounds, start, right=True)) - 1
        assert bounds[doc] <= start and start + length <= bounds[doc + 1]
    tiles = corpus.tiles("test", length)
    assert tiles.shape[1] == length and len(tiles) == sum(int(n) // length for n in bounds.diff())
    halves = corpus.tiles("test", length // 2, block=length)  # the same tokens as the tiles of `length`
    assert torch.equal(halves.reshape(-1), tiles.reshape(-1))
    assert len(corpus.tiles("test", length // 2)) > len(halves)  # without the block: the tails too
    stream_tiles = Corpus(vocab_size=512, source="code").tiles("test", length)  # across boundaries: more of them
    assert len(stream_tiles) == len(corpus.stream("test")) // length > len(tiles)
    with pytest.raises(LengthgenError, match="the longest document"):
        corpus.sample(1, int(bounds.diff().max()) + 1, torch.Generator(), split="test")
    with pytest.raises(ValueError, match="unknown corpus source 'web'; valid: docs, code"):
        Corpus(source="web")
    with pytest.raises(ValueError, match="unknown corpus windows 'pages'; valid: stream, documents"):
        Corpus(windows="pages")
    assert stdlib_sources.__doc__ and all(not name.startswith(("test/", "idlelib/")) for name, _ in docs)
