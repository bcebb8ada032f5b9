import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_clean():
    paths = ["lengthgen", "tests", "book/_ext", "notebooks"]
    result = subprocess.run([sys.executable, "-m", "ruff", "check", *paths], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
