import subprocess
import sys

import nbformat

from lengthgen.book import CHAPTERS, ROOT, cell_sources, text_notebook


def test_ruff_clean(tmp_path):
    for chapter, source in CHAPTERS.items():  # the chapters' code cells, as the .ipynb that ruff reads cell by cell
        nbformat.write(text_notebook(ROOT / source), tmp_path / f"{chapter}.ipynb")
    paths = ["lengthgen", "tests", "book/_ext", str(tmp_path)]
    result = subprocess.run([sys.executable, "-m", "ruff", "check", *paths], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


MAX_CELL_LINES = 15  # a longer code cell holds logic that belongs in the package, where it is tested


def test_notebook_code_cells_stay_short():
    long_cells = []
    for chapter, source in CHAPTERS.items():
        for i, cell in enumerate(cell_sources(ROOT / source, "code")):
            if len(cell.splitlines()) > MAX_CELL_LINES:
                long_cells.append(f"{chapter} code cell {i}: {len(cell.splitlines())} lines")
    assert not long_cells, long_cells


MAX_PROSE_WIDTH = 120  # as the code's lines (ruff): prose read in an editor or a diff


def _long_prose_lines(name: str, text: str) -> list[str]:
    """Lines of Markdown over MAX_PROSE_WIDTH, outside tables and fenced blocks."""
    long, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        fenced ^= line.lstrip().startswith("```")
        if len(line) > MAX_PROSE_WIDTH and not fenced and not line.lstrip().startswith("|"):
            long.append(f"{name}:{number}: {len(line)} characters")
    return long


def test_prose_lines_stay_within_the_width():
    long = []
    tracked = subprocess.run(["git", "ls-files", "book/*.md"], cwd=ROOT, capture_output=True, text=True, check=True)
    written = [ROOT / name for name in tracked.stdout.split()]  # not the pages a build generates (scorecard, ...)
    for path in [ROOT / "README.md", *written]:
        long += _long_prose_lines(path.name, path.read_text())
    for source in CHAPTERS.values():
        long += _long_prose_lines(source, (ROOT / source).read_text())
    assert not long, long
    assert _long_prose_lines("x", "a\n| " + "b" * 130 + " |\n```\n" + "c" * 130 + "\n```\n" + "d" * 121) == [
        "x:6: 121 characters"]
