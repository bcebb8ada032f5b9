"""Where a result came from: code version, library versions, machine, date."""

import datetime
import platform
import subprocess
from pathlib import Path

import torch

import lengthgen
from lengthgen.device import default_device


def git_commit() -> str:
    """HEAD of the package's repository, with "+dirty" if tracked files differ; "unknown" outside git."""
    root = Path(lengthgen.__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


# the commit of the code this process loaded: a sweep of many runs records it for each, even when HEAD moves while it
# works (a commit made during the sweep is not the code its later runs execute)
LOADED_COMMIT = git_commit()


def cpu_model(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The processor's model name (from `cpuinfo`, Linux's format), else the platform's architecture."""
    try:
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def device_name() -> str:
    """Where results are computed (`default_device()`): a CUDA device by name, or the CPU's model and thread count."""
    device = default_device()
    if device.type == "cuda":
        return f"cuda:{torch.cuda.get_device_name(device)}"
    return f"cpu:{cpu_model()} x{torch.get_num_threads()} threads"


def provenance() -> dict:
    """Provenance fields stored in every results entry (wall time is added by the caller); the commit is the one
    this process loaded (LOADED_COMMIT)."""
    return {
        "git_commit": LOADED_COMMIT,
        "lengthgen_version": lengthgen.__version__,
        "torch_version": torch.__version__,
        "python_version": platform.python_version(),
        "device": device_name(),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }
