"""Sweeps on a Dask distributed cluster: the `Executor` of `sweep.py` with jobs sent to a scheduler's workers
(optional extra: `pip install -e '.[dist]'`).

Why Dask rather than Ray: a run here is one coarse, independent job that writes its own entry to the results store,
so all a backend must do is place jobs on workers and re-place those whose worker dies. Dask's scheduler does that
in pure Python, pip-installs anywhere, and `dask-jobqueue` starts its workers through Slurm, PBS, SGE or LSF; Ray's
object store and actors would go unused.

The store's root must be a folder every worker sees at the same path (a shared filesystem): each worker writes its
runs there, atomically (`ResultStore.save`), so a worker killed mid-run leaves no partial entry; the scheduler gives
its job to another worker, and the other jobs are untouched. A sweep interrupted as a whole resumes like a local one:
`lengthgen run` again computes only what is missing. Every worker needs this package at the same commit (each run
records the commit its worker ran).
"""

from collections.abc import Callable, Iterable, Iterator
from functools import partial

from lengthgen.errors import LengthgenError

CONNECT_TIMEOUT = "10s"  # how long to wait for the scheduler before giving up


def _with_threads(threads: int, fn: Callable, item):
    """Run fn(item) with `threads` torch threads (in a worker process)."""
    import torch

    torch.set_num_threads(threads)
    return fn(item)


class DaskExecutor:
    """Runs each job on a worker of the Dask scheduler at `address` (e.g. tcp://10.0.0.5:8786), with `threads`
    torch threads per job, yielding results as jobs finish."""

    def __init__(self, address: str, threads: int = 1):
        try:
            from distributed import Client
        except ImportError as exc:
            raise LengthgenError("the dask executor needs the [dist] extra: pip install -e '.[dist]'") from exc
        try:
            self.client = Client(address, timeout=CONNECT_TIMEOUT)
        except OSError as exc:
            raise LengthgenError(f"no Dask scheduler answers at {address!r} ({exc})") from exc
        self.threads = threads

    def map(self, fn: Callable, items: Iterable) -> Iterator:
        from distributed import as_completed

        futures = self.client.map(partial(_with_threads, self.threads, fn), list(items), pure=False)
        for future in as_completed(futures):
            yield future.result()

    def close(self) -> None:
        self.client.close()
