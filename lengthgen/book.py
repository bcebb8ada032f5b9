"""Build the book: execute each chapter notebook with papermill (profile as a parameter), then Jupyter Book 1.

The chapters are the notebooks that `_toc.yml` lists under book/chapters/, in its order: that file is the one list.
Their sources are MyST-markdown notebooks (jupytext), notebooks/<name>.md; papermill executes each one's .ipynb form
into book/chapters/ (ignored by git), from which the book is built with execution off. While a
chapter runs, the terminal shows which chapter of how many, a bar over its cells and the elapsed time; what the
kernel prints on its own (warnings, shutdown noise) goes to _build/logs/<chapter>.log.
"""

import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from lengthgen.display import BOOK_ENV, breakable, table_html
from lengthgen.errors import LengthgenError
from lengthgen.registry import Registry
from lengthgen.results.experiment import PROFILES

ROOT = Path(__file__).resolve().parent.parent
CELL_TIMEOUT = 1800  # seconds per notebook cell: a hung kernel fails the build instead of blocking it
TOC = ROOT / "_toc.yml"


def chapters_of(toc: Path) -> dict[str, str]:
    """chapter name -> source notebook, for every `- file: book/chapters/<name>` entry of a table of contents."""
    names = re.findall(r"^\s*- file: book/chapters/([\w-]+)\s*$", toc.read_text(), flags=re.MULTILINE)
    return {name: f"notebooks/{name}.md" for name in names}


CHAPTERS = Registry("chapter", chapters_of(TOC))


def text_notebook(path: Path):
    """The notebook (nbformat) of a MyST-markdown source, as jupytext reads it."""
    import jupytext

    return jupytext.read(path)


def cell_sources(path: Path, kind: str) -> list[str]:
    """The source of each cell of one kind ("code" or "markdown") of a MyST-markdown notebook, in order."""
    return [c.source for c in text_notebook(path).cells if c.cell_type == kind]


@contextlib.contextmanager
def stderr_to(log: Path) -> Iterator[None]:
    """Send this process's standard error, and that of the processes it starts (the kernel), to `log`."""
    log.parent.mkdir(parents=True, exist_ok=True)
    sys.stderr.flush()
    saved = os.dup(2)
    with open(log, "w") as fh:
        os.dup2(fh.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)


def start_chapter() -> float:
    """What every chapter does first, in JupyterLab as under papermill: work from the repository folder (so the
    relative paths `results` and `_build/results` are the book build's), one torch thread (the models are tiny: one
    thread trains them about as fast as two and does not stall when another process holds the other core; sweep
    workers use one each), and pandas tables shown in full, as `table_html` writes them. Returns the start
    time (`time.perf_counter()`)."""
    import pandas as pd
    import torch
    from IPython import get_ipython


    os.chdir(ROOT)
    torch.set_num_threads(1)
    for option, value in (("display.width", 200), ("display.max_columns", None), ("display.max_colwidth", None),
                          ("display.max_rows", None)):
        pd.set_option(option, value)
    if (shell := get_ipython()) is not None:
        shell.display_formatter.formatters["text/html"].for_type(pd.DataFrame, table_html)
    return time.perf_counter()


def plotly_js() -> Path:
    """The installed plotly package's own plotly.min.js."""
    import plotly

    path = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    if not path.is_file():
        raise LengthgenError(f"plotly.min.js not found at {path}; reinstall plotly")
    return path


def ticking_engine():
    """papermill's nbclient engine, with the cell bar redrawn every second while a cell runs, so that its elapsed
    time stays current through a long cell (a live sweep runs for minutes in one cell)."""
    from papermill.engines import NBClientEngine

    class TickingEngine(NBClientEngine):
        @classmethod
        def execute_managed_notebook(cls, nb_man, kernel_name, **kwargs):
            stop = threading.Event()

            def tick():
                while not stop.wait(1.0):
                    if nb_man.pbar is not None:
                        nb_man.pbar.refresh()

            ticker = threading.Thread(target=tick, daemon=True)
            ticker.start()
            try:
                return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)
            finally:
                stop.set()
                ticker.join()

    return TickingEngine


def execute_chapter(chapter: str, profile: str, out_dir: Path, results_dir: str | None = None,
                    label: str = "", log: Path | None = None) -> Path:
    """Run one chapter notebook with papermill (figures in book mode); returns the executed copy's path.

    Args:
        label: shown before the chapter's name on its progress bar (e.g. "[1/2]").
        log: where the kernel's own output goes (default: _build/logs/<chapter>.log under the repository).
    """
    import nbformat
    import papermill
    from papermill.engines import papermill_engines

    papermill_engines.register("lengthgen", ticking_engine())
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{chapter}.ipynb"
    log = log or ROOT / "_build" / "logs" / f"{chapter}.log"
    params = {"profile": profile, **({"results_dir": results_dir} if results_dir else {})}
    previous = os.environ.get(BOOK_ENV)
    os.environ[BOOK_ENV] = "1"  # inherited by the kernel
    start = time.perf_counter()
    bar = {"desc": f"{label} {chapter} ({profile})".strip(), "file": sys.stdout, "mininterval": 1.0}
    try:
        with stderr_to(log), tempfile.TemporaryDirectory() as scratch:
            source = Path(scratch) / target.name  # the text notebook, converted for papermill
            nbformat.write(text_notebook(ROOT / CHAPTERS[chapter]), source)
            papermill.execute_notebook(str(source), str(target), parameters=params, cwd=str(ROOT),
                                       kernel_name="python3", progress_bar=bar, execution_timeout=CELL_TIMEOUT,
                                       engine_name="lengthgen")
    finally:
        if previous is None:
            os.environ.pop(BOOK_ENV)
        else:
            os.environ[BOOK_ENV] = previous
    print(f"executed {chapter} ({profile}) in {time.perf_counter() - start:.0f} s -> {target} (kernel log: {log})")
    return target


def write_scorecard(root: Path, profile: str, live_dir: Path) -> Path:
    """Write root/book/scorecard.md and root/book/findings.md (what the book found, which the introduction includes;
    both ignored by git) from the stored runs in root/results and the live runs of `profile` in `live_dir`: generated
    at every build, so they cannot fall behind the results. Returns the scorecard's path."""
    from lengthgen.results.store import ResultStore
    from lengthgen.scorecard import findings, grids, page, scorecard

    stored = ResultStore(root / "results")
    card = scorecard(stored, ResultStore(live_dir), live_profile=profile)
    target = root / "book" / "scorecard.md"
    grid_table = grids(stored)
    text = page(card, f"the stored runs in `results/` and this build's live {profile} runs", grid_table)
    target.write_text(breakable(text))
    (root / "book" / "findings.md").write_text(findings(card, grid_table) + "\n")
    return target


def write_methods_sections(root: Path) -> list[Path]:
    """Write each paper's generated sections of the Methods page (`Paper.methods`) and the leaderboard's (ignored by
    git) from the stored runs in root/results: generated at every build, as the scorecard is."""
    from lengthgen.leaderboard.sizing import METHODS
    from lengthgen.papers import PAPERS
    from lengthgen.results.store import ResultStore

    store, written = ResultStore(root / "results"), []
    for name, section in [*(s for paper in PAPERS.values() for s in paper.methods), *METHODS]:
        target = root / "book" / name
        target.write_text(breakable(section(store)))
        written.append(target)
    return written


def build_book(profile: str = "quick", chapter: str | None = None, root: Path = ROOT,
               results_dir: str | None = None) -> Path:
    """Execute the chapters (one, or all) into root/book/chapters and build the HTML book in root/_build.

    Args:
        profile: sizes of the live runs.
        chapter: only this chapter (the others keep their last executed copy).
        root: the book root (the repository; tests pass a scratch copy).
        results_dir: results store for the live runs (default: the notebook's own, _build/results).

    Returns:
        The path of the built index.html.
    """
    if profile not in PROFILES:
        raise LengthgenError(f"unknown profile {profile!r}; valid: {', '.join(PROFILES)}")
    names = [chapter] if chapter else list(CHAPTERS)
    for name in names:
        CHAPTERS[name]  # unknown chapter: fail before any work
    for i, name in enumerate(names, 1):
        execute_chapter(name, profile, root / "book" / "chapters", results_dir, label=f"[{i}/{len(names)}]")
    missing = [n for n in CHAPTERS if not (root / "book" / "chapters" / f"{n}.ipynb").exists()]
    if missing:
        raise LengthgenError(f"chapters never executed: {', '.join(missing)}; run `lengthgen book` without --chapter")
    write_scorecard(root, profile, Path(results_dir) if results_dir else root / "_build" / "results")
    write_methods_sections(root)
    static = root / "_build" / "static"  # a build artifact, kept out of the source tree
    static.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(plotly_js(), static / "plotly.min.js")
    jb = Path(sys.executable).parent / "jupyter-book"
    subprocess.run([str(jb), "build", str(root), "--quiet"], check=True)
    index = root / "_build" / "html" / "index.html"
    print(f"book built: open file://{index}")
    return index
