import json
import os
import platform
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import torch

from lengthgen.errors import LengthgenError
from lengthgen.papers import EXPERIMENTS
from lengthgen.papers.vv.experiments import ProbeRun
from lengthgen.results.store import CorruptEntry, ResultStore
from lengthgen.results.sweep import LocalExecutor, collect, sweep

CFG = ProbeRun(task="argmax", seed=0)
METRICS = pd.DataFrame({"length": [16, 32], "metric": ["accuracy"] * 2, "value": [99.0, 80.5]})


def test_roundtrip_and_no_temporary_left(tmp_path):
    store = ResultStore(tmp_path)
    assert store.status("exp", CFG) == "missing"
    path = store.save("exp", CFG, METRICS, {"date": "today"})
    metrics, meta = store.load("exp", CFG)
    pd.testing.assert_frame_equal(metrics, METRICS.assign(split=["16", "32"])[["split", *METRICS.columns]])
    assert meta["date"] == "today" and meta["key"] == path.name
    assert json.loads((path / "config.json").read_text())["seed"] == 0
    assert [p.name for p in path.parent.iterdir()] == [path.name]
    assert store.status("exp", CFG) == "complete"


def test_a_read_gives_split_names_their_own_column_and_lengths_as_integers(tmp_path):
    """A metrics.csv as the MLA runs write it (split names and lengths as text, in `length`) reads back with `split`,
    the set's name, before `length`, nullable integers with <NA> for the named sets; the file stays as written. With
    a number on every row, `length` reads as int64, and `split` goes where `length` was."""
    store = ResultStore(tmp_path)
    path = store.save("exp", CFG, METRICS, {})
    on_disk = ("length,metric,value\niid,accuracy,99.0\n15,accuracy,80.5\n100,accuracy,3.0\ntrain,best_dev,97.0\n"
               "test,accuracy,1.0\n")
    (path / "metrics.csv").write_text(on_disk)
    metrics, _ = store.load("exp", CFG)
    assert list(metrics.columns) == ["split", "length", "metric", "value"]
    assert metrics.split.tolist() == ["iid", "15", "100", "train", "test"]
    assert metrics.length.dtype == "Int64" and metrics.length.isna().tolist() == [True, False, False, True, True]
    assert metrics.length.dropna().tolist() == [15, 100] and metrics.value.tolist()[:2] == [99.0, 80.5]
    ((_, entry, _),) = store.entries("exp")
    pd.testing.assert_frame_equal(entry, metrics)
    assert (path / "metrics.csv").read_text() == on_disk
    staged = pd.DataFrame({"stage": ["a", "b"], "length": [8, 16], "metric": "accuracy", "value": [1.0, 2.0]})
    store.save("exp", ProbeRun(task="argmax", seed=1), staged, {})
    numeric, _ = store.load("exp", ProbeRun(task="argmax", seed=1))
    assert list(numeric.columns) == ["stage", "split", "length", "metric", "value"]
    assert numeric.length.dtype == "int64" and numeric.split.tolist() == ["8", "16"]


def test_history_is_optional_roundtrips_and_a_damaged_one_is_refused(tmp_path):
    store = ResultStore(tmp_path)
    history = pd.DataFrame({"epoch": [0, 1], "train_loss": [2.5, 0.75], "dev_score": [10.0, 55.5]})
    store.save("exp", CFG, METRICS, {})
    assert store.load_history("exp", CFG) is None  # entries written without one (older runs) stay valid
    path = store.save("exp", ProbeRun(task="argmax", seed=1), METRICS, {}, history=history)
    pd.testing.assert_frame_equal(store.load_history("exp", ProbeRun(task="argmax", seed=1)), history)
    (path / "history.csv").write_text('epoch,"train')
    with pytest.raises(CorruptEntry, match=str(path)):
        store.load_history("exp", ProbeRun(task="argmax", seed=1))


@pytest.mark.parametrize("damage", ["truncate_meta", "delete_metrics", "wrong_key", "bad_columns"])
def test_corrupt_entries_are_detected_refused_and_kept_aside(tmp_path, damage):
    store = ResultStore(tmp_path)
    path = store.save("exp", CFG, METRICS, {})
    if damage == "truncate_meta":
        (path / "meta.json").write_text('{"key": ')
    elif damage == "delete_metrics":
        (path / "metrics.csv").unlink()
    elif damage == "wrong_key":
        (path / "meta.json").write_text(json.dumps({"key": "0000"}))
    else:
        (path / "metrics.csv").write_text("a,b\n1,2\n")
    assert store.status("exp", CFG) == "corrupt"
    with pytest.raises(CorruptEntry, match=str(path)):
        store.load("exp", CFG)
    store.save("exp", CFG, METRICS, {"again": True})  # recompute replaces it; the damaged folder is kept aside
    assert store.load("exp", CFG)[1]["again"] is True
    assert len(list(path.parent.glob(f"{path.name}.corrupt-*"))) == 1


def test_entries_lists_every_complete_entry_with_its_stored_config(tmp_path):
    store = ResultStore(tmp_path)
    store.save("exp", CFG, METRICS, {"n": 0})
    store.save("exp", ProbeRun(task="argmax", seed=1), METRICS, {"n": 1})
    damaged = store.save("exp", ProbeRun(task="argmax", seed=2), METRICS, {"n": 2})
    (damaged / "metrics.csv").unlink()
    store.save("other", ProbeRun(task="argmax", seed=3), METRICS, {"n": 3})
    found = sorted((cfg["seed"], meta["n"]) for cfg, _, meta in store.entries("exp"))
    assert found == [(0, 0), (1, 1)]  # the corrupt entry and the other experiment are left out
    assert list(store.entries("never-run")) == []


def test_merge_copies_only_the_complete_entries_the_store_lacks_and_keeps_its_own(tmp_path):
    here, there = ResultStore(tmp_path / "here"), ResultStore(tmp_path / "there")
    seed = {s: ProbeRun(task="argmax", seed=s) for s in range(4)}
    here.save("exp", seed[0], METRICS, {"made": "here"})
    broken_here = here.save("exp", seed[3], METRICS, {"made": "here"})
    (broken_here / "metrics.csv").unlink()
    for s in range(4):
        there.save("exp", seed[s], METRICS.assign(value=[1.0, float(s)]), {"made": "there"},
                   checkpoint={"w": torch.zeros(1)}, history=pd.DataFrame({"epoch": [0]}))
    (there.path("exp", seed[2]) / "meta.json").write_text('{"key": ')  # corrupt in the source
    (there.root / "exp" / f".{there.path('exp', seed[1]).name}.running").write_text("{}")  # a marker, not an entry
    outcome = here.merge(there, "exp")
    key = {s: there.path("exp", seed[s]).name for s in range(4)}
    assert outcome == {"copied": sorted([key[1], key[3]]),
                       "already stored": [key[0]], "corrupt in the source": [key[2]]}
    assert here.load("exp", seed[0])[1]["made"] == "here"  # its own run kept, though the source's differs
    for s in (1, 3):  # copied: metrics, meta and history, not the checkpoint
        metrics, meta = here.load("exp", seed[s])
        assert meta["made"] == "there" and metrics.value.tolist() == [1.0, float(s)]
        assert here.load_history("exp", seed[s]) is not None and not (here.path("exp", seed[s]) / "model.pt").exists()
    assert here.status("exp", seed[2]) == "missing"
    assert len(list((here.root / "exp").glob(f"{key[3]}.corrupt-*"))) == 1  # the broken entry it replaced, aside
    assert here.merge(there, "exp")["copied"] == []  # a second merge finds nothing new


def test_sweep_computes_only_missing_and_collects_tidy_rows(tmp_path):
    exp = EXPERIMENTS["vv-retrieval"]
    configs = exp.configs_for("smoke", (0,))
    store = ResultStore(tmp_path)
    store.save(exp.name, configs[0], METRICS, {"profile": "smoke", "marker": 1})
    df = sweep(exp, configs, store, "smoke", progress=False)
    assert store.load(exp.name, configs[0])[1]["marker"] == 1  # not recomputed
    assert list(df.columns[:9]) == ["experiment", "task", "model", "variant", "seed", "split", "length", "metric",
                                    "value"]
    assert {"git_commit", "device", "date", "wall_seconds", "torch_version", "profile"} <= set(df.columns)
    assert df.length.dtype == "int64" and (df.split == df.length.astype(str)).all()
    assert df.key.nunique() == len(configs) == 4
    assert set(df.variant) == {"baseline", "ln"}


def test_provenance_is_read_as_the_run_starts(tmp_path, monkeypatch):
    """A commit checked out while a long run trains must not be recorded as the code that ran."""
    from lengthgen.results import sweep as sweep_module
    events = []
    monkeypatch.setattr(sweep_module, "provenance", lambda: events.append("provenance") or {"git_commit": "start"})
    exp = EXPERIMENTS["vv-retrieval"]
    cfg = exp.configs_for("smoke", (0,))[0]
    sweep_module.run_and_store(exp.name, lambda c: events.append("run") or exp.run(c), str(tmp_path), "smoke", cfg)
    assert events == ["provenance", "run"]
    assert ResultStore(tmp_path).load(exp.name, cfg)[1]["git_commit"] == "start"


def test_the_commit_recorded_is_the_code_the_process_loaded_not_a_later_head(monkeypatch):
    from lengthgen.results import provenance as module

    loaded = module.provenance()["git_commit"]
    monkeypatch.setattr(module, "git_commit", lambda: "a commit made during the sweep")
    assert module.provenance()["git_commit"] == loaded == module.LOADED_COMMIT != "a commit made during the sweep"


def test_a_run_is_marked_in_flight_while_it_computes_and_unmarked_however_it_ends(tmp_path):
    from lengthgen.results.sweep import run_and_store

    exp = EXPERIMENTS["vv-retrieval"]
    cfg = exp.configs_for("smoke", (0,))[0]
    store, seen = ResultStore(tmp_path), {}

    def run(c):
        seen.update(store.in_flight(exp.name))
        return METRICS

    run_and_store(exp.name, run, str(tmp_path), "smoke", cfg)
    assert list(seen) == [store.path(exp.name, cfg).name]
    assert seen[store.path(exp.name, cfg).name]["pid"] == os.getpid() and seen[store.path(exp.name, cfg).name]["alive"]
    assert store.in_flight(exp.name) == {}

    def fail(c):
        raise RuntimeError("diverged")

    with pytest.raises(RuntimeError):
        run_and_store(exp.name, fail, str(tmp_path), "smoke", exp.configs_for("smoke", (1,))[0])
    assert store.in_flight(exp.name) == {} and [p.name for p in (tmp_path / exp.name).iterdir()] == [seen.popitem()[0]]


def test_a_config_stored_by_another_process_after_the_sweep_listed_it_is_not_computed_again(tmp_path):
    from lengthgen.results.sweep import run_and_store

    exp = EXPERIMENTS["vv-retrieval"]
    cfg = exp.configs_for("smoke", (0,))[0]
    assert run_and_store(exp.name, lambda c: METRICS, str(tmp_path), "smoke", cfg)  # the other process's run
    stored = (ResultStore(tmp_path).path(exp.name, cfg) / "meta.json").read_text()
    ran = []
    assert run_and_store(exp.name, lambda c: ran.append(c) or METRICS, str(tmp_path), "smoke", cfg) == ""
    assert ran == [] and (ResultStore(tmp_path).path(exp.name, cfg) / "meta.json").read_text() == stored


def test_of_processes_claiming_one_config_at_once_exactly_one_holds_it_and_a_dead_claim_is_taken_over(tmp_path):
    from concurrent.futures import ThreadPoolExecutor
    from threading import Barrier

    exp = EXPERIMENTS["vv-retrieval"]
    cfg = exp.configs_for("smoke", (0,))[0]
    store, start = ResultStore(tmp_path), Barrier(8, timeout=60)  # a claim that raises fails, not hangs

    def claim(_):
        start.wait()
        with store.running(exp.name, cfg) as mine:
            start.wait()  # every claim is settled before any ends
            return mine

    with ThreadPoolExecutor(8) as pool:
        assert sorted(pool.map(claim, range(8))) == [False] * 7 + [True]
    assert store.in_flight(exp.name) == {} and [p.name for p in (tmp_path / exp.name).iterdir()] == []
    marker = store.path(exp.name, cfg)
    marker = marker.parent / f".{marker.name}.running"
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    for stale in ("{}", json.dumps({"key": "k", "host": socket.gethostname(), "started": "now",
                                    "pid": int(done.stdout)})):  # not this code's; of a process gone
        marker.write_text(stale)
        with store.running(exp.name, cfg) as mine:
            assert mine and json.loads(marker.read_text())["pid"] == os.getpid()
        assert not marker.exists()


def test_a_config_another_live_process_computes_is_left_to_it_and_a_dead_ones_is_computed(tmp_path, capsys):
    exp = EXPERIMENTS["vv-retrieval"]
    configs = exp.configs_for("smoke", (0,))
    store = ResultStore(tmp_path)
    marker = store.path(exp.name, configs[0])
    marker = marker.parent / f".{marker.name}.running"
    marker.parent.mkdir(parents=True)
    other = {"key": marker.name[1:-len(".running")], "host": socket.gethostname(), "started": "now"}
    marker.write_text(json.dumps(other | {"pid": os.getppid()}))  # a live process: the one that started pytest
    out = sweep(exp, configs, store, "smoke", progress=False)
    assert store.status(exp.name, configs[0]) == "missing" and out.key.nunique() == len(configs) - 1
    assert "1 run(s) left to the other processes computing them" in capsys.readouterr().err
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    marker.write_text(json.dumps(other | {"pid": int(done.stdout)}))  # its process is gone: an interrupted run
    assert sweep(exp, configs, store, "smoke", progress=False).key.nunique() == len(configs)


def test_parallel_sweep_matches_serial(tmp_path):
    exp = EXPERIMENTS["vv-retrieval"]
    configs = exp.configs_for("smoke", (0,))
    serial = sweep(exp, configs, ResultStore(tmp_path / "a"), "smoke", progress=False)
    parallel = sweep(exp, configs, ResultStore(tmp_path / "b"), "smoke", LocalExecutor(2), progress=False)
    cols = ["key", "length", "metric", "value"]
    pd.testing.assert_frame_equal(serial[cols], parallel[cols])


def test_sweep_all_runs_each_missing_config_once_in_one_pass(tmp_path, monkeypatch):
    from lengthgen.results import sweep as sweep_module
    retrieval, curriculum = EXPERIMENTS["vv-retrieval"], EXPERIMENTS["vv-curriculum"]
    first, second = retrieval.configs_for("smoke", (0,)), curriculum.configs_for("smoke", (0,))
    store = ResultStore(tmp_path)
    store.save(retrieval.name, first[0], METRICS, {"profile": "smoke"})
    passes, ran = [], []

    class Recording(LocalExecutor):
        def map(self, fn, items):
            passes.append(list(items))
            yield from super().map(fn, passes[-1])

    real = sweep_module.run_and_store
    monkeypatch.setattr(sweep_module, "run_and_store", lambda name, *a: ran.append(name) or real(name, *a))
    plan = [(retrieval, first), (curriculum, second), (retrieval, first[:2])]  # the last pair repeats two configs
    out = sweep_module.sweep_all(plan, store, "smoke", Recording(), progress=False)
    assert len(passes) == 1  # one executor pass (one worker pool) for the whole plan
    assert ran == [retrieval.name] * (len(first) - 1) + [curriculum.name] * len(second)  # stored and repeated: once
    assert [df.key.nunique() for df in out] == [len(first), len(second), 2]
    assert set(out[1].experiment) == {curriculum.name}


def test_sweep_killed_with_sigkill_resumes_only_unfinished(tmp_path):
    """Kill a sweep after its first entries are written; the rerun keeps them and computes the rest."""
    root = tmp_path / "store"
    cmd = [sys.executable, "-m", "lengthgen.cli", "run", "vv-retrieval", "--profile", "smoke", "--seeds", "0-4",
           "--results", str(root)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    folder = root / "vv-retrieval"
    deadline = time.time() + 120
    while time.time() < deadline and len(list(folder.glob("[!.]*"))) < 3:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done = {p.name: (p / "meta.json").read_text() for p in folder.iterdir() if not p.name.startswith(".")}
    total = len(EXPERIMENTS["vv-retrieval"].configs_for("smoke", tuple(range(5))))
    assert 3 <= len(done) < total, "the kill should land mid-sweep"
    for leftover in folder.glob(".*"):  # a killed write's temporary folder, the cut run's marker and snapshots
        assert ".tmp-" in leftover.name or leftover.name.endswith((".running", ".snapshots"))
    # the run the kill cut short (if it had begun) is marked, and its process is gone
    assert not any(m["alive"] for m in ResultStore(root).in_flight("vv-retrieval").values())
    subprocess.run(cmd, check=True, capture_output=True)
    assert ResultStore(root).in_flight("vv-retrieval") == {}
    assert not list(folder.glob(".*.snapshots"))  # the resumed run finished and dropped its snapshots
    after = {p.name: (p / "meta.json").read_text() for p in folder.iterdir() if not p.name.startswith(".")}
    assert len(after) == total
    assert all(after[k] == v for k, v in done.items())  # finished runs were not recomputed
    exp = EXPERIMENTS["vv-retrieval"]
    assert collect(exp, exp.configs_for("smoke", tuple(range(5))), ResultStore(root)).key.nunique() == total


def test_a_grid_with_nothing_stored_collects_to_typed_empty_rows_that_keep_stored_values_numeric(tmp_path):
    exp = EXPERIMENTS["vv-retrieval"]
    configs = exp.configs_for("smoke", (0,))
    store = ResultStore(tmp_path)
    store.save(exp.name, configs[0], METRICS, {"profile": "smoke"})
    empty = collect(exp, configs[1:], store, skip_missing=True)
    assert empty.empty
    both = pd.concat([collect(exp, configs[:1], store), empty])  # e.g. the monotonic chapter's grids, one not begun
    assert both.value.dtype == "float64" and both.seed.dtype == "int64"
    assert both.value.tolist() == METRICS.value.tolist()


def test_store_paths_are_per_experiment(tmp_path):
    store = ResultStore(tmp_path)
    assert store.path("a", CFG).parent.name == "a" and store.path("a", CFG).name == store.path("b", CFG).name
    assert Path(store.path("a", CFG)).name.isalnum()


def test_device_names_the_device_models_run_on(monkeypatch):
    from lengthgen.results import provenance
    monkeypatch.setattr(provenance, "cpu_model", lambda: "Test CPU 9000")
    monkeypatch.setattr(provenance.torch, "get_num_threads", lambda: 3)
    monkeypatch.setattr(provenance.torch.cuda, "get_device_name", lambda device: "Test GPU")
    assert provenance.device_name() == "cpu:Test CPU 9000 x3 threads"  # the tests pin LENGTHGEN_DEVICE=cpu
    monkeypatch.setenv("LENGTHGEN_DEVICE", "cuda")
    assert provenance.device_name() == "cuda:Test GPU"


def test_cpu_model_reads_the_first_model_name_or_falls_back(tmp_path):
    from lengthgen.results.provenance import cpu_model
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6338\n\n"
                       "processor\t: 1\nmodel name\t: Other CPU\n")
    assert cpu_model(cpuinfo) == "Intel(R) Xeon(R) Gold 6338"
    cpuinfo.write_text("processor\t: 0\nvendor_id\t: ARM\n")   # no model name line (e.g. some ARM kernels)
    assert cpu_model(cpuinfo) == (platform.processor() or platform.machine())
    assert cpu_model(tmp_path / "missing") == (platform.processor() or platform.machine())


def test_load_trained_gives_back_the_model_that_made_the_stored_metrics(tmp_path):
    from lengthgen.papers import load_trained
    from lengthgen.train.evaluate import accuracy_by_length

    exp = EXPERIMENTS["vv-retrieval"]
    cfg = exp.configs_for("smoke", (0,))[0]
    store = ResultStore(tmp_path)
    stored = sweep(exp, [cfg], store, "smoke", progress=False)
    model, task = load_trained(exp, cfg, store)
    again = accuracy_by_length(model, task, cfg.eval_lengths, cfg.eval_samples, cfg.eval_seed, adaptive_too=True,
                               progress=False)
    expected = stored[stored.metric.str.startswith("accuracy")][["length", "metric", "value"]]
    assert again.values.tolist() == expected.values.tolist()
    untrained = exp.build(cfg)[1]
    assert not all(torch.equal(a, b) for a, b in zip(model.parameters(), untrained.parameters(), strict=True))


def test_load_trained_of_a_run_without_checkpoint_says_so(tmp_path):
    from lengthgen.papers import load_trained

    exp = EXPERIMENTS["mla-main"]
    cfg = exp.configs_for("smoke")[0]
    ResultStore(tmp_path).save(exp.name, cfg, METRICS, {"profile": "smoke"})
    with pytest.raises(LengthgenError, match="no checkpoint"):
        load_trained(exp, cfg, ResultStore(tmp_path))
