"""ResultStore: results/<experiment>/<key>/{config.json, metrics.csv, meta.json}, written atomically, plus
optionally history.csv (one row per training epoch, committed) and model.pt (a checkpoint, gitignored).

An entry is written into a temporary sibling folder and renamed into place in one step, so a reader sees
either nothing or a complete entry. A folder that fails validation (missing file, unparsable JSON/CSV,
key that does not match its config) is "corrupt": `load` refuses it with a message naming it, and `save`
moves it aside to `<key>.corrupt-<time>` before writing, so nothing is silently lost.

While a config is being computed, a marker `.<key>.running` beside its entry says by which process, on which host,
since when (`running`; gitignored), so `lengthgen results` can show a sweep's runs in flight and two sweeps of one grid
share it (the marker is a claim: one process holds a config at a time); a marker whose process on this host is gone
belongs to an interrupted run.

`merge` copies into a store the complete entries of another (a folder filled on another machine) that it lacks.

On disk, metrics.csv holds tidy (length, metric, value) rows, plus any label columns a run adds. Its `length` names
the evaluated set: a number (16), or, for runs that evaluate named sets (the MLA paper's), the set's name as text:
"iid", "test", "train" (the run's training statistics) or a length ("15"). Every read (`load`, `entries`) returns the
metrics as `split_and_length` normalises them: `split` (str), the set's name ("16", "15", "iid"), then `length`,
integers only (int64, or nullable Int64 with <NA> for the named sets). The files are never rewritten: stored entries
keep their keys.
"""

import json
import os
import shutil
import socket
import tarfile
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import torch

from lengthgen.config import config_dict, config_key
from lengthgen.errors import LengthgenError

FILES = ("config.json", "metrics.csv", "meta.json")
HISTORY = "history.csv"  # optional; committed
CHECKPOINT = "model.pt"  # optional; gitignored


@dataclass(frozen=True)
class RunOutput:
    """What computing one config produced, beyond a bare metrics table.

    Attributes:
        metrics: tidy (length, metric, value) rows in the on-disk format (`length` a number or a set's name).
        checkpoint: a model state dict, kept as model.pt (not committed) for later decoding.
        history: one row per training epoch (e.g. epoch, train_loss, dev_score, lr), kept as history.csv.
    """

    metrics: pd.DataFrame
    checkpoint: dict | None = None
    history: pd.DataFrame | None = None


class CorruptEntry(LengthgenError):
    """A results folder exists but cannot be trusted."""


class ResultStore:
    """Stores one entry per (experiment, config) under `root`.

    Args:
        root: the store's folder (created on first write).
    """

    def __init__(self, root: str | Path):
        self.root = Path(root)

    def path(self, experiment: str, cfg) -> Path:
        return self.root / experiment / config_key(cfg)

    def snapshots(self, experiment: str, cfg) -> Path:
        """The folder where a run of the config in progress keeps its trainings' snapshots (`lengthgen.snapshots`)."""
        path = self.path(experiment, cfg)
        return path.parent / f".{path.name}.snapshots"

    def status(self, experiment: str, cfg) -> str:
        """"missing", "complete" or "corrupt"."""
        path = self.path(experiment, cfg)
        if not path.exists():
            return "missing"
        return "complete" if _complete(path) else "corrupt"

    def load(self, experiment: str, cfg) -> tuple[pd.DataFrame, dict]:
        """(metrics, meta) of a complete entry, the metrics with `split` and integer `length` (`split_and_length`);
        raises CorruptEntry (or LengthgenError if missing)."""
        path = self.path(experiment, cfg)
        if not path.exists():
            raise LengthgenError(f"no stored result for {experiment} at {path}")
        return self._read(path)

    def save(self, experiment: str, cfg, metrics: pd.DataFrame, meta: dict, checkpoint: dict | None = None,
             history: pd.DataFrame | None = None) -> Path:
        """Atomically write an entry (plus `model.pt` / `history.csv` if given), moving a corrupt one aside first."""
        path = self.path(experiment, cfg)

        def write(tmp: Path) -> None:
            (tmp / "config.json").write_text(json.dumps(config_dict(cfg), indent=1, sort_keys=True))
            metrics.to_csv(tmp / "metrics.csv", index=False)
            if checkpoint is not None:
                torch.save(checkpoint, tmp / CHECKPOINT)
            if history is not None:
                history.to_csv(tmp / HISTORY, index=False)
            (tmp / "meta.json").write_text(json.dumps({**meta, "key": path.name}, indent=1, sort_keys=True))

        return self._publish(path, write)

    def merge(self, source: "ResultStore", experiment: str) -> dict[str, list[str]]:
        """Copy into this store the complete entries of `experiment` in `source` (e.g. a results folder filled on
        another machine) that it lacks, each published as `save` publishes one; their checkpoints stay behind.
        Entries this store already holds complete are kept as they are, even where the source's differ (a run made
        elsewhere is another sample, not a correction), and corrupt source entries are not copied. Returns the keys
        by outcome: "copied", "already stored", "corrupt in the source"."""
        outcome = {"copied": [], "already stored": [], "corrupt in the source": []}
        for path in _entry_folders(source.root / experiment):
            if not _complete(path):
                outcome["corrupt in the source"].append(path.name)
                continue
            target = self.root / experiment / path.name
            if target.exists() and _complete(target):
                outcome["already stored"].append(path.name)
                continue

            def copy(tmp: Path, path=path) -> None:
                for name in (*FILES, HISTORY):
                    if (path / name).is_file():
                        shutil.copy2(path / name, tmp / name)

            self._publish(target, copy)
            outcome["copied"].append(path.name)
        return outcome

    @staticmethod
    def _publish(path: Path, write) -> Path:
        """Fill a temporary sibling of `path` with `write(tmp)`, make it durable and rename it into place; an entry
        already complete at `path` (another worker finished the same config first) is kept, a corrupt one moved
        aside to `<key>.corrupt-<time>`."""
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.parent / f".{path.name}.tmp-{os.getpid()}-{time.monotonic_ns()}"
        tmp.mkdir()
        try:
            write(tmp)
            for f in os.listdir(tmp):  # make the contents durable before the rename publishes them
                with open(tmp / f, "rb") as fh:
                    os.fsync(fh.fileno())
            if path.exists():
                if _complete(path):
                    shutil.rmtree(tmp)
                    return path
                path.rename(path.parent / f"{path.name}.corrupt-{int(time.time())}")
            tmp.rename(path)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return path

    @contextmanager
    def running(self, experiment: str, cfg) -> Iterator[bool]:
        """Claim the config for this process while the context is open: yields True with its marker written (removed
        however the context ends), or False, marking nothing, where another live process holds it. The marker is
        complete when it appears and appears only where none is (a hard link of a written file), so of two
        processes that claim one config at the same instant one gets it. A marker of a process gone, or not one this
        code wrote, is taken over (two processes that take over one such marker at the same instant may both run)."""
        path = self.path(experiment, cfg)
        marker = path.parent / f".{path.name}.running"
        marker.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=marker.parent, prefix=f"{marker.name}-")  # one per claim, threads too
        mine = Path(name)
        with os.fdopen(fd, "w") as fh:
            json.dump({"key": path.name, "pid": os.getpid(), "host": socket.gethostname(),
                       "started": datetime.now(UTC).isoformat(timespec="seconds")}, fh)
        mine.chmod(0o644)
        try:
            while True:
                try:
                    os.link(mine, marker)
                    break
                except FileExistsError:
                    held = _marker(marker)
                    if held is not None and held["alive"]:
                        yield False
                        return
                    marker.unlink(missing_ok=True)  # an interrupted run's, or gone already: try again
        finally:
            mine.unlink(missing_ok=True)
        try:
            yield True
        finally:
            marker.unlink(missing_ok=True)

    def in_flight(self, experiment: str) -> dict[str, dict]:
        """key -> marker (pid, host, started, and "alive": False where its process on this host is gone, True where
        it runs or runs on another host) of every config of the experiment marked as being computed."""
        markers = (_marker(path) for path in (self.root / experiment).glob(".*.running"))
        return {info["key"]: info for info in markers if info is not None}

    def load_checkpoint(self, experiment: str, cfg) -> dict:
        """The state dict kept with a complete entry (loaded with weights_only=True)."""
        self.load(experiment, cfg)
        path = self.path(experiment, cfg) / CHECKPOINT
        if not path.is_file():
            raise LengthgenError(f"no checkpoint in {path.parent} (checkpoints are not committed; re-run to create)")
        return torch.load(path, weights_only=True, map_location="cpu")  # load_state_dict moves it to the model

    def load_history(self, experiment: str, cfg) -> pd.DataFrame | None:
        """The per-epoch training history of a complete entry, or None if its run kept none (older entries)."""
        self.load(experiment, cfg)
        path = self.path(experiment, cfg) / HISTORY
        if not path.is_file():
            return None
        try:
            return pd.read_csv(path)
        except (OSError, ValueError, pd.errors.ParserError) as exc:
            raise CorruptEntry(f"corrupt results entry {path.parent}: {exc}; delete it or re-run to recompute") from exc

    def entries(self, experiment: str) -> Iterator[tuple[dict, pd.DataFrame, dict]]:
        """(config as stored, metrics as `load` returns them, meta) of every complete entry of an experiment,
        including entries whose config the current code no longer produces (written under an earlier protocol);
        corrupt ones are skipped."""
        for path in _entry_folders(self.root / experiment):
            try:
                metrics, meta = self._read(path)
            except CorruptEntry:
                continue
            yield json.loads((path / "config.json").read_text()), metrics, meta

    @staticmethod
    def _read(path: Path) -> tuple[pd.DataFrame, dict]:
        try:
            json.loads((path / "config.json").read_text())
            meta = json.loads((path / "meta.json").read_text())
            metrics = pd.read_csv(path / "metrics.csv")
        except (OSError, ValueError, pd.errors.ParserError) as exc:
            raise CorruptEntry(f"corrupt results entry {path}: {exc}; delete it or re-run to recompute") from exc
        if meta.get("key") != path.name or not {"length", "metric", "value"} <= set(metrics.columns):
            raise CorruptEntry(f"corrupt results entry {path}: key or columns do not match; re-run to recompute")
        return split_and_length(metrics), meta


def split_and_length(metrics: pd.DataFrame) -> pd.DataFrame:
    """Stored metrics (column `length`: a number or a set's name, as on disk) with `split`, the set's name as text
    ("15", "iid", "train"), inserted before `length`, and `length` as integers only: int64 when every row has one,
    else nullable Int64 with <NA> on the named sets' rows."""
    split = metrics.length.astype(str)
    numeric = split.str.fullmatch(r"\d+")
    length = split.where(numeric).astype("Int64")
    out = metrics.drop(columns="length")
    at = metrics.columns.get_loc("length")
    out.insert(at, "split", split)
    out.insert(at + 1, "length", length.astype("int64") if numeric.all() else length)
    return out


def _entry_folders(folder: Path) -> list[Path]:
    """The entry folders of an experiment's folder: not its temporary, moved-aside or marker files."""
    return [p for p in sorted(folder.glob("*"))
            if p.is_dir() and not p.name.startswith(".") and ".corrupt-" not in p.name]


def _complete(path: Path) -> bool:
    """Whether the entry folder at `path` passes validation."""
    try:
        ResultStore._read(path)
    except CorruptEntry:
        return False
    return True


def _marker(path: Path) -> dict | None:
    """A `running` marker's contents, with "alive" (`in_flight`); None where it is gone or is not one this code
    wrote."""
    try:
        info = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not {"key", "pid", "host", "started"} <= set(info):
        return None
    return info | {"alive": info["host"] != socket.gethostname() or _alive(info["pid"])}


def _alive(pid: int) -> bool:
    """Whether a process with this id runs on this host."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, owned by someone else
    return True


@contextmanager
def unpacked(source: str, experiments) -> Iterator[str]:
    """A results folder as a path: `source` itself, or, for a tar archive (e.g. `tar czf runs.tgz results`), a
    temporary folder it is unpacked into (members that would land outside it are refused), removed afterwards. The
    archive holds the experiment folders (names in `experiments`), at its top or inside its one top-level folder."""
    if not Path(source).is_file():
        yield source
        return
    if not tarfile.is_tarfile(source):
        raise LengthgenError(f"{source!r} is neither a results folder nor a tar archive of one; nothing merged")
    with tempfile.TemporaryDirectory(prefix="lengthgen-merge-") as tmp, tarfile.open(source) as archive:
        try:
            archive.extractall(tmp, filter="data")
        except (tarfile.TarError, EOFError, OSError) as exc:  # a member outside the folder, a truncated archive
            raise LengthgenError(f"cannot unpack {source!r}: {exc}; nothing merged") from exc
        top = [p for p in Path(tmp).iterdir() if p.is_dir()]
        yield str(top[0] if len(top) == 1 and top[0].name not in experiments else tmp)
