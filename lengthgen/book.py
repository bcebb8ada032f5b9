"""Build the book: execute each chapter notebook with papermill (profile as a parameter), then Jupyter Book 1.

Executed copies go to book/chapters/ (ignored by git); the book is built from them with execution off.
"""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from lengthgen.analysis.figures import BOOK_ENV
from lengthgen.errors import LengthgenError
from lengthgen.experiments.base import PROFILES
from lengthgen.registry import Registry

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = Registry("chapter", {"vanishing-variance": "notebooks/vanishing-variance.ipynb"})
EXECUTED = ROOT / "book" / "chapters"


def plotly_js() -> Path:
    """The installed plotly package's own plotly.min.js."""
    import plotly

    path = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    if not path.is_file():
        raise LengthgenError(f"plotly.min.js not found at {path}; reinstall plotly")
    return path


def execute_chapter(chapter: str, profile: str, out_dir: Path = EXECUTED, results_dir: str | None = None) -> Path:
    """Run one chapter notebook with papermill; returns the executed copy's path."""
    import papermill

    source = ROOT / CHAPTERS[chapter]
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / source.name
    params = {"profile": profile}
    if results_dir:
        params["results_dir"] = results_dir
    os.environ[BOOK_ENV] = "1"
    start = time.perf_counter()
    papermill.execute_notebook(str(source), str(target), parameters=params, cwd=str(ROOT), kernel_name="python3",
                               progress_bar=False)
    print(f"executed {chapter} ({profile}) in {time.perf_counter() - start:.0f} s -> {target.relative_to(ROOT)}")
    return target


def build_book(profile: str = "quick", chapter: str | None = None) -> Path:
    """Execute the chapters (one, or all) and build the HTML book; returns the path of index.html."""
    if profile not in PROFILES:
        raise LengthgenError(f"unknown profile {profile!r}; valid: {', '.join(PROFILES)}")
    for name in [chapter] if chapter else list(CHAPTERS):
        execute_chapter(name, profile)
    static = ROOT / "book" / "_static"
    static.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(plotly_js(), static / "plotly.min.js")
    jb = Path(sys.executable).parent / "jupyter-book"
    subprocess.run([str(jb), "build", str(ROOT), "--quiet"], check=True)
    index = ROOT / "_build" / "html" / "index.html"
    print(f"book built: open file://{index}")
    return index
