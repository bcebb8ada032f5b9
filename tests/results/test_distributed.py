"""The Dask executor on a local cluster of worker processes started here: it stores what the local executor stores,
and a worker killed mid-run loses only its run."""

import os
import signal
import threading
import time
from dataclasses import replace

import pandas as pd
import pytest
import torch
from distributed import Client, LocalCluster

from lengthgen.cli import main
from lengthgen.papers import EXPERIMENTS
from lengthgen.results.distributed import DaskExecutor
from lengthgen.results.store import ResultStore
from lengthgen.results.sweep import LocalExecutor, sweep

EXPERIMENT = EXPERIMENTS["vv-retrieval"]


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        yield c


def _values(df: pd.DataFrame) -> pd.DataFrame:
    return df[["key", "length", "metric", "value"]].sort_values(["key", "length", "metric"]).reset_index(drop=True)


def test_a_dask_sweep_stores_what_a_local_one_does(cluster, tmp_path):
    configs = EXPERIMENT.configs_for("smoke")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as each Dask job runs
    try:
        local = sweep(EXPERIMENT, configs, ResultStore(tmp_path / "local"), "smoke", LocalExecutor(1), progress=False)
    finally:
        torch.set_num_threads(threads)
    executor = DaskExecutor(cluster.scheduler_address)
    try:
        remote = sweep(EXPERIMENT, configs, ResultStore(tmp_path / "dask"), "smoke", executor, progress=False)
    finally:
        executor.close()
    assert len(remote.key.unique()) == len(configs)
    pd.testing.assert_frame_equal(_values(local), _values(remote))


def test_a_killed_worker_loses_only_its_run(cluster, tmp_path):
    configs = [replace(c, train=replace(c.train, steps=2000)) for c in EXPERIMENT.configs_for("smoke")[:4]]
    store = ResultStore(tmp_path / "store")
    executor = DaskExecutor(cluster.scheduler_address)
    done = {}
    # a daemon thread: should the sweep never end, the test fails below instead of holding pytest's exit
    sweeper = threading.Thread(target=lambda: done.update(df=sweep(EXPERIMENT, configs, store, "smoke", executor,
                                                                   progress=False)), daemon=True)
    sweeper.start()
    try:
        with Client(cluster.scheduler_address) as client:
            deadline = time.monotonic() + 60
            while not (busy := [w for w, jobs in client.processing().items() if jobs]) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert busy, "no worker started a job"
            (pid,) = client.run(os.getpid, workers=busy[:1]).values()
            time.sleep(1.0)  # mid-run
            os.kill(pid, signal.SIGKILL)  # the worker dies; its nanny starts a new one
            sweeper.join(timeout=300)
            stored = [store.status(EXPERIMENT.name, c) for c in configs]
            assert not sweeper.is_alive(), f"the sweep still runs after 300 s; stored: {stored}, " \
                                           f"processing: {client.processing()}"
    finally:
        executor.close()
    assert len(done["df"].key.unique()) == len(configs)
    assert all(store.status(EXPERIMENT.name, c) == "complete" for c in configs)
    names = os.listdir(tmp_path / "store" / EXPERIMENT.name)
    assert not [n for n in names if "corrupt" in n]  # the killed run left no entry to move aside


def test_the_command_refuses_a_dask_run_without_a_reachable_scheduler(tmp_path, capsys):
    args = ["run", "vv-retrieval", "--profile", "smoke", "--results", str(tmp_path), "--executor", "dask"]
    assert main(args) == 2
    assert "needs --address" in capsys.readouterr().err
    assert main([*args, "--address", "tcp://127.0.0.1:9"]) == 2  # nothing listens on the discard port
    assert "no Dask scheduler answers" in capsys.readouterr().err
    assert not (tmp_path / "vv-retrieval").exists()
