import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_clean():
    paths = ["lengthgen", "tests", "book/_ext", "notebooks"]
    result = subprocess.run([sys.executable, "-m", "ruff", "check", *paths], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


MAX_CELL_LINES = 15  # a longer code cell holds logic that belongs in the package, where it is tested


def test_notebook_code_cells_stay_short():
    long_cells = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            source = "".join(cell["source"])
            if cell["cell_type"] == "code" and len(source.splitlines()) > MAX_CELL_LINES:
                long_cells.append(f"{path.name} {cell['id']}: {len(source.splitlines())} lines")
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
    written = [p for p in sorted((ROOT / "book").glob("*.md")) if p.name != "scorecard.md"]  # that one: generated
    for path in [ROOT / "README.md", *written]:
        long += _long_prose_lines(path.name, path.read_text())
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] == "markdown":
                long += _long_prose_lines(f"{path.name} {cell['id']}", "".join(cell["source"]))
    assert not long, long
    assert _long_prose_lines("x", "a\n| " + "b" * 130 + " |\n```\n" + "c" * 130 + "\n```\n" + "d" * 121) == [
        "x:6: 121 characters"]
