"""Live notebooks: JupyterLab on the chapters, offline, with the kernel of this environment.

`lengthgen lab` (and `make lab`) serves the repository on a loopback port with a fresh token and prints the URL of
the chapters folder. The chapters run there top to bottom as under `lengthgen book`: the same quick profile by
default, the same results store (`_build/results`), so their live runs reuse what the book build computed.
Nothing is fetched at run time: no update check, no news feed, the extension manager read-only. The chapters are
MyST-markdown notebooks: jupytext's JupyterLab extension opens them as notebooks (the default viewer of Markdown files
in this lab) and saves them back as text.
"""

import json
import os
import secrets
import socket
import subprocess
import sys
from pathlib import Path

from lengthgen.book import ROOT

# JupyterLab settings that keep it on this machine: no update check, no news feed, no extension catalogue.
OFFLINE = ("--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--LabApp.news_url=None",
           "--LabApp.extension_manager=readonly")


def free_port() -> int:
    """A TCP port on the loopback interface that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Settings of this lab (JupyterLab's overrides.json): Markdown files, the chapters among them, open as notebooks.
OVERRIDES = {"@jupyterlab/docmanager-extension:plugin": {"defaultViewers": {"markdown": "Jupytext Notebook",
                                                                            "myst": "Jupytext Notebook"}}}


def lab_command(port: int, token: str, root: Path = ROOT) -> list[str]:
    """The command that serves `root` with JupyterLab on 127.0.0.1:`port`, guarded by `token`; writes its settings
    (`OVERRIDES`) to root/_build/lab/."""
    settings = root / "_build" / "lab"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "overrides.json").write_text(json.dumps(OVERRIDES, indent=2))
    root_user = ["--allow-root"] if os.geteuid() == 0 else []  # containers and CI machines often run as root
    return [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--ServerApp.root_dir={root}",
            f"--LabApp.app_settings_dir={settings}", f"--IdentityProvider.token={token}",
            "--ServerApp.terminals_enabled=False", *OFFLINE, *root_user]


def url(port: int, token: str, path: str = "notebooks") -> str:
    """The address of `path` (a folder or a notebook under the served root) in JupyterLab."""
    return f"http://127.0.0.1:{port}/lab/tree/{path}?token={token}"


def serve(port: int | None = None) -> int:
    """Serve the chapters until interrupted (Ctrl-C); prints the URL first. Returns JupyterLab's exit status."""
    port, token = port or free_port(), secrets.token_hex(16)
    print(f"Chapters, live in JupyterLab: {url(port, token)}\n(Ctrl-C stops the server)", flush=True)
    try:
        return subprocess.run(lab_command(port, token), cwd=ROOT).returncode
    except KeyboardInterrupt:
        return 0
