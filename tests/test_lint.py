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
