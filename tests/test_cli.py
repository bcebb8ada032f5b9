import json
import os
import socket
from dataclasses import replace
from types import SimpleNamespace

import pandas as pd
import pytest

from lengthgen.cli import main, remaining_time, summary, with_progress
from lengthgen.config import config_key
from lengthgen.errors import LengthgenError
from lengthgen.papers import EXPERIMENTS
from lengthgen.results.store import ResultStore, split_and_length
from lengthgen.results.sweep import all_stored, estimated_seconds, stored_runs


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_list_json_names_tasks_models_experiments(capsys):
    code, out, _ = run(capsys, "list", "--json")
    catalog = json.loads(out)
    assert code == 0
    assert {"argmax", "dictionary"} <= set(catalog["tasks"])
    assert catalog["experiments"]["vv-retrieval"]["chapter"] == "vv"
    assert "smoke" in catalog["experiments"]["vv-retrieval"]["profiles"]
    assert set(catalog["profiles"]) == {"smoke", "quick", "cpu", "regime", "full"}
    assert catalog["experiments"]["abc-table1"]["profiles"] == ["smoke", "quick", "cpu", "regime", "full"]
    assert "regime" not in catalog["experiments"]["vv-retrieval"]["profiles"]  # only the papers that size one


def test_run_then_results_export_the_same_tidy_rows(tmp_path, capsys):
    store, out1, out2 = tmp_path / "store", tmp_path / "run.csv", tmp_path / "export.csv"
    code, out, err = run(capsys, "run", "vv-retrieval", "--profile", "smoke", "--seeds", "0", "--results",
                         str(store), "--out", str(out1))
    assert code == 0 and "accuracy" in out and "declared" not in err
    df = pd.read_csv(out1)
    for col in ["experiment", "task", "model", "variant", "seed", "split", "length", "metric", "value", "git_commit",
                "torch_version", "device", "date", "wall_seconds", "profile"]:
        assert col in df.columns
    assert set(df.seed) == {0} and set(df.length) == {16, 64}
    code, out, _ = run(capsys, "results", "vv-retrieval", "--profile", "smoke", "--seeds", "0-1",
                       "--results", str(store), "--out", str(out2))
    assert code == 0 and "4 of 8 smoke runs stored" in out
    hours = df.drop_duplicates("key").wall_seconds.sum() / 3600  # one stored run per task, one missing
    assert (f"missing (4 runs, about {hours:.1f} h at the median wall time per run of the stored runs of their task):\n"
            "  task=argmax model=probe variant=baseline: seed 1\n") in out  # the seed-1 runs, by cell
    assert out.count("seed 1\n") == 4 and "seed 0" not in out
    pd.testing.assert_frame_equal(pd.read_csv(out2), df)


def test_a_seed_outside_the_declared_ones_runs_with_a_note_and_stays_out_of_the_grid(tmp_path, capsys):
    store = tmp_path / "store"
    code, _, err = run(capsys, "run", "vv-retrieval", "--profile", "smoke", "--seeds", "1,7", "--task", "argmax",
                       "--variant", "baseline", "--results", str(store))
    assert code == 0
    assert ("note: seed 7 not among the smoke profile's declared seeds 0, 1: stored, but left out of every grid, "
            "median and verdict") in err
    experiment = EXPERIMENTS["vv-retrieval"]
    stored = stored_runs(experiment, "smoke", ResultStore(store))
    assert set(stored.seed) == {1} and len(list((store / "vv-retrieval").iterdir())) == 2
    assert not all_stored(experiment, "smoke", stored)  # one of the grid's 8 runs
    assert not all_stored(experiment, "smoke", stored.iloc[:0])


def test_a_grid_is_all_stored_only_with_one_run_per_declared_config():
    grid = SimpleNamespace(configs_for=lambda profile: ["a", "b"] if profile == "cpu" else ["a"])
    runs = pd.DataFrame({"key": ["1", "1", "2"], "value": [0.0, 1.0, 2.0]})  # two runs, three rows
    assert all_stored(grid, "cpu", runs) and not all_stored(grid, "cpu", runs.iloc[:2])
    assert not all_stored(grid, "smoke", runs) and not all_stored(grid, "cpu", runs.iloc[:0])


def test_merge_brings_the_runs_of_another_results_folder_and_refuses_bad_sources(tmp_path, capsys):
    there, here = tmp_path / "there", tmp_path / "here"
    assert run(capsys, "run", "vv-retrieval", "--profile", "smoke", "--seeds", "0", "--results", str(there))[0] == 0
    code, out, _ = run(capsys, "merge", str(there), "--results", str(here))
    assert code == 0 and out.startswith("vv-retrieval: 4 copied, 0 already stored, 0 corrupt in the source\n")
    assert out.count(" seed 0 ") == 4
    code, out, _ = run(capsys, "results", "vv-retrieval", "--profile", "smoke", "--seeds", "0", "--results", str(here))
    assert code == 0 and "4 of 4 smoke runs stored" in out
    assert run(capsys, "merge", str(there), "--results", str(here))[1].startswith("vv-retrieval: 0 copied, 4 already")
    (there / "nope").mkdir()
    before = sorted(p.name for p in (here / "vv-retrieval").iterdir())
    for argv, message in ((["merge", str(there), "--results", str(tmp_path / "new")], "unknown experiment 'nope'"),
                          (["merge", str(there), "--results", str(there)], "is the results folder itself"),
                          (["merge", str(tmp_path / "missing")], "no results folder at")):
        code, out, err = run(capsys, *argv)
        assert code == 2 and message in err and err.count("\n") == 1 and out == ""
    assert not (tmp_path / "new").exists() and sorted(p.name for p in (here / "vv-retrieval").iterdir()) == before


def test_merge_takes_a_tar_archive_of_a_results_folder_and_refuses_other_files(tmp_path, capsys):
    import tarfile

    there = tmp_path / "there"
    assert run(capsys, "run", "vv-retrieval", "--profile", "smoke", "--seeds", "0", "--task", "argmax",
               "--results", str(there))[0] == 0
    nested, flat = tmp_path / "runs.tgz", tmp_path / "flat.tar"  # the folder inside, or its experiments at the top
    with tarfile.open(nested, "w:gz") as archive:
        archive.add(there, arcname="results")
    with tarfile.open(flat, "w") as archive:
        archive.add(there / "vv-retrieval", arcname="vv-retrieval")
    for source in (nested, flat):
        code, out, _ = run(capsys, "merge", str(source), "--results", str(tmp_path / source.stem))
        assert code == 0 and out.startswith("vv-retrieval: 2 copied, 0 already stored, 0 corrupt in the source\n")
        assert sorted(p.name for p in (tmp_path / source.stem / "vv-retrieval").iterdir()) == \
            sorted(p.name for p in (there / "vv-retrieval").iterdir())
    escaping = tmp_path / "escaping.tar"
    with tarfile.open(escaping, "w") as archive:
        archive.add(there / "vv-retrieval", arcname="../vv-retrieval")
    (tmp_path / "notes.txt").write_text("not an archive")
    (tmp_path / "cut.tgz").write_bytes(nested.read_bytes()[:600])  # a transfer that broke off
    for source, message in ((escaping, "outside the destination"), (tmp_path / "notes.txt", "nor a tar archive"),
                            (tmp_path / "cut.tgz", "cannot unpack")):
        code, out, err = run(capsys, "merge", str(source), "--results", str(tmp_path / "new"))
        assert code == 2 and message in err and out == "" and not (tmp_path / "new").exists()


def test_results_estimate_from_the_grids_stored_runs_else_from_the_chapters_grids(tmp_path, capsys):
    store, out1 = tmp_path / "store", tmp_path / "seed0.csv"
    assert run(capsys, "run", "vv-retrieval", "--profile", "smoke", "--seeds", "0", "--results", str(store),
               "--out", str(out1))[0] == 0
    runs = pd.read_csv(out1).drop_duplicates("key")
    hours = 2 * runs.groupby("task").wall_seconds.median().sum() / 3600  # seed 1: two runs of each task missing
    code, out, _ = run(capsys, "results", "vv-retrieval", "--profile", "smoke", "--seeds", "1", "--results", str(store))
    assert code == 0 and "0 of 4 smoke runs stored" in out  # none of the selection, but seed 0 of its grid
    assert (f"missing (4 runs, about {hours:.1f} h at the median wall time per run of the stored runs of their "
            "task):\n") in out
    code, out, _ = run(capsys, "results", "vv-factors", "--profile", "smoke", "--results", str(store))
    missing = next(line for line in out.splitlines() if line.startswith("missing"))  # none of vv-factors stored
    assert code == 0 and missing.endswith("of the stored runs of their task in the chapter's grids):")


def test_results_show_the_runs_in_flight_and_the_interrupted_ones(tmp_path, capsys):
    import subprocess
    import sys

    from lengthgen.results.store import ResultStore

    exp = EXPERIMENTS["vv-retrieval"]
    first, second = exp.configs_for("smoke", (0,))[:2]
    store = ResultStore(tmp_path)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    with store.running(exp.name, second):
        marker = store.path(exp.name, first).parent / f".{config_key(first)}.running"
        marker.write_text(json.dumps({"key": config_key(first), "pid": int(gone.stdout), "host": socket.gethostname(),
                                      "started": "2026-01-01T00:00:00+00:00"}))
        code, out, _ = run(capsys, "results", "vv-retrieval", "--profile", "smoke", "--seeds", "0",
                           "--results", str(tmp_path))
    assert code == 0
    labels = [" ".join(f"{k}={v}" for k, v in exp.labels(c).items()) for c in (first, second)]
    assert f"in flight (of the missing runs):\n  {labels[0]}: interrupted, started " in out
    assert f"\n  {labels[1]}: running, started 0 min ago (pid {os.getpid()} on {socket.gethostname()})" in out
    code, out, _ = run(capsys, "results", "vv-retrieval", "--profile", "smoke", "--seeds", "0",
                       "--results", str(tmp_path))
    assert "running, started" not in out and "interrupted" in out  # the context removed its marker


def test_remaining_time_takes_each_tasks_median_and_falls_back_to_all_runs():
    stored = pd.DataFrame({"key": ["a", "a", "b", "c", "d"], "task": ["copy", "copy", "copy", "copy", "recopy"],
                           "size": "", "wall_seconds": [600.0, 600.0, 1200.0, 1800.0, 3600.0], "work": 1.0})
    # copy: median of 600, 1200, 1800 = 1200 s; recopy: 3600 s; scan has none: median of all four runs = 1500 s
    text = remaining_time(stored, [("copy", "", 1.0), ("recopy", "", 1.0), ("recopy", "", 1.0), ("scan", "", 1.0)])
    assert text == (" (4 runs, about 2.8 h at the median wall time per run of the stored runs of their task; 1 with "
                    "no stored run of their task at that of all 4 stored runs)")  # 1200 + 2 x 3600 + 1500 s = 2.75 h
    assert remaining_time(stored.iloc[:0], [("copy", "", 1.0)]) == " (1 run; no stored run to estimate their time from)"


def test_remaining_time_scales_each_run_by_its_steps():
    stored = pd.DataFrame({"key": ["a", "b", "c"], "task": ["successor", "successor", "addition"], "size": "",
                           "wall_seconds": [300.0, 1400.0, 4200.0], "work": [3_000.0, 7_000.0, 42_000.0]})
    # successor: 0.1 and 0.2 s per step, median 0.15; addition 0.1; parity has none: median of all three, 0.1
    text = remaining_time(stored, [("successor", "", 10_000.0), ("addition", "", 30_000.0), ("parity", "", 3_000.0)],
                          "training step")  # 1,500 + 3,000 + 300 s = 1.33 h
    assert text.startswith(" (3 runs, about 1.3 h at the median wall time per training step of the stored runs")
    assert estimated_seconds(stored, [("successor", "", 10_000.0)]) == (pytest.approx(1_500.0), 0)
    assert estimated_seconds(stored, [("parity", "", 3_000.0), ("addition", "", 1.0)]) == (pytest.approx(300.1), 1)


def test_remaining_time_reads_a_run_at_its_models_size_where_one_of_its_task_is_stored():
    stored = pd.DataFrame({"key": ["a", "b", "c"], "task": "parity", "size": ["2x64", "2x64", "4x128"],
                           "wall_seconds": [100.0, 200.0, 3000.0], "work": 1_000.0})
    # per step: 2x64 0.1 and 0.2 (median 0.15), 4x128 3.0; the task's median 0.2; 4x256 has none stored
    missing = [("parity", "4x128", 2_000.0), ("parity", "2x64", 1_000.0), ("parity", "4x256", 1_000.0)]
    assert estimated_seconds(stored, missing) == (pytest.approx(6_000.0 + 150.0 + 200.0), 0)
    assert "of their task (at their model's size where one is stored))" in remaining_time(stored, missing)


def test_one_job_shows_the_epochs_of_each_run_and_stores_it_under_the_same_key(tmp_path, capsys):
    configs = EXPERIMENTS["mla-main"].configs_for("smoke")
    shown = with_progress(configs)
    assert all(c.progress for c in shown) and not any(c.progress for c in configs)
    assert [config_key(c) for c in shown] == [config_key(c) for c in configs]
    code, _, err = run(capsys, "run", "mla-main", "--profile", "smoke", "--variant", "content",
                       "--results", str(tmp_path))
    assert code == 0 and "copy/content/0:" in err  # the bar over the epochs of the run (task/mechanism/seed)


@pytest.mark.parametrize("argv,message", [
    (["run", "nope", "--profile", "smoke"], "unknown experiment 'nope'; valid: mla-main"),
    (["run", "vv-retrieval", "--profile", "smoke", "--seeds", "1-x"], "bad seeds '1-x'"),
    (["run", "vv-retrieval", "--profile", "smoke", "--jobs", "0"], "--jobs must be >= 1"),
    (["run", "vv-retrieval", "--profile", "smoke", "--threads", "-1"], "--threads must be >= 1, got -1"),
    (["run", "vv-factors", "--profile", "quick"], "unknown profile 'quick' for vv-factors; valid: smoke, cpu"),
    (["results", "nope"], "unknown experiment 'nope'"),
    (["run", "mla-main", "--profile", "smoke", "--variant", "mono,nope"],
     "no variant 'nope' in mla-main; valid: content, relative, locattn, bi_relative, onestep, mono"),
    (["results", "mla-main", "--profile", "smoke", "--task", "recopy"], "no task 'recopy' in mla-main; valid: copy"),
])
def test_bad_input_one_message_nonzero_exit_nothing_written(tmp_path, capsys, argv, message):
    code, out, err = run(capsys, *argv, "--results", str(tmp_path / "store"), "--out", str(tmp_path / "o.csv"))
    assert code == 2
    assert message in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv,message", [
    (["bench", "--threads", "0"], "--threads must be >= 1, got 0"),
    (["lab", "--port", "99999"], "--port must be a TCP port, 1..65535, got 99999")])
def test_bench_and_lab_refuse_bad_numbers_before_starting(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and err == f"lengthgen: error: {message}\n"


def test_a_variant_whose_name_holds_commas_is_selected_whole():
    from lengthgen.results.experiment import listed_values

    have = ["w=1, T=3, aligned", "w=1, NoPE, aligned", "vanilla", "vanilla, x"]
    assert listed_values("w=1, T=3, aligned", have) == ["w=1, T=3, aligned"]
    assert listed_values("vanilla,w=1, NoPE, aligned , vanilla, x", have) == [
        "vanilla", "w=1, NoPE, aligned", "vanilla, x"]  # the longest name at each place
    assert listed_values("w=1, T=4, aligned", have) == ["w=1", "T=4", "aligned"]  # unknown: named part by part
    exp = EXPERIMENTS["abc-scaffolding"]
    configs = exp.select(exp.configs_for("smoke"), task="successor", variant="w=1, T=3, aligned,w=1, NoPE, aligned")
    assert {c.model.positional for c in configs} == {"cyclic+bias", "none+bias"}
    with pytest.raises(LengthgenError, match="no variant 'w=1' in abc-scaffolding; valid: 'w=1, sinusoidal, "):
        exp.select(exp.configs_for("smoke"), variant="w=1, T=4, aligned")


def test_task_and_variant_select_cells_of_the_grid(tmp_path, capsys):
    store = str(tmp_path / "store")
    code, out, _ = run(capsys, "run", "mla-main", "--profile", "smoke", "--variant", "mono,content", "--results", store)
    assert code == 0
    configs = tmp_path.glob("store/mla-main/*/config.json")
    stored = sorted(json.loads(p.read_text())["model"]["attention"] for p in configs)
    assert stored == ["content", "mono"]
    code, out, _ = run(capsys, "results", "mla-main", "--profile", "smoke", "--variant", "mono", "--results", store)
    assert code == 0 and "1 of 1 smoke runs stored" in out and "content" not in out


@pytest.mark.parametrize("experiment", [[], ["mla-main"]])
def test_results_of_a_missing_folder_is_an_error_not_an_empty_grid(tmp_path, capsys, experiment):
    """A mistyped --results names the folder, with or without an experiment, and creates nothing."""
    code, out, err = run(capsys, "results", *experiment, "--results", str(tmp_path / "reslts"))
    assert code == 2 and out == "" and err == f"lengthgen: error: no results folder at {str(tmp_path / 'reslts')!r}\n"
    assert list(tmp_path.iterdir()) == []


def test_unknown_profile_is_rejected_by_the_parser(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["run", "vv-retrieval", "--profile", "huge"])
    assert exc.value.code == 2
    assert "invalid choice: 'huge'" in capsys.readouterr().err


def test_corrupt_entry_is_reported_and_kept(tmp_path, capsys):
    store = tmp_path / "store"
    assert run(capsys, "run", "vv-retrieval", "--profile", "smoke", "--seeds", "0", "--results", str(store))[0] == 0
    entry = sorted((store / "vv-retrieval").iterdir())[0]
    (entry / "metrics.csv").write_text("garbage\n\x00")
    code, _, err = run(capsys, "results", "vv-retrieval", "--profile", "smoke", "--seeds", "0",
                       "--results", str(store), "--out", str(tmp_path / "o.csv"))
    assert code == 2 and f"corrupt results entry {entry}" in err
    assert not (tmp_path / "o.csv").exists() and (entry / "metrics.csv").read_text() == "garbage\n\x00"
    # `run` recomputes it and keeps the damaged folder aside
    assert run(capsys, "run", "vv-retrieval", "--profile", "smoke", "--seeds", "0", "--results", str(store))[0] == 0
    assert len(list((store / "vv-retrieval").glob("*.corrupt-*"))) == 1


def test_book_rejects_unknown_chapter(capsys):
    code, _, err = run(capsys, "book", "--chapter", "nope")
    assert code == 2 and "unknown chapter 'nope'; valid: mla, sparsity, vv" in err



def test_bench_reports_rates(capsys, monkeypatch):
    import functools

    import lengthgen.bench

    probe = functools.partial(lengthgen.bench.bench_probe, eval_lengths=(64,), eval_sets=2)
    seq2seq = functools.partial(lengthgen.bench.bench_seq2seq, train_batches=2, decode_samples=8, length=15)
    monkeypatch.setattr(lengthgen.bench, "bench_probe", probe)
    transformer = functools.partial(lengthgen.bench.bench_transformer, steps=2, rounds=1, length=8, generate=6)
    monkeypatch.setattr(lengthgen.bench, "bench_seq2seq", seq2seq)
    monkeypatch.setattr(lengthgen.bench, "bench_transformer", transformer)
    arithmetic = functools.partial(lengthgen.bench.bench_arithmetic, length=8, samples=4)
    monkeypatch.setattr(lengthgen.bench, "bench_arithmetic", arithmetic)
    dropout = functools.partial(lengthgen.bench.bench_dropout, steps=1, rounds=1)
    monkeypatch.setattr(lengthgen.bench, "bench_dropout", dropout)
    monkeypatch.setattr(lengthgen.bench, "bench_ensemble", functools.partial(lengthgen.bench.bench_ensemble, steps=3,
                                                                             rounds=1))
    monkeypatch.setattr(lengthgen.bench.torch, "compile", lambda fn, **_: fn)  # the code path; compiling takes ~30 s
    monkeypatch.setattr(lengthgen.bench, "bench_compile", functools.partial(lengthgen.bench.bench_compile, widths=(8,),
                                                                            steps=2, rounds=1, length=6,
                                                                            board_steps=8))
    code, out, _ = run(capsys, "bench", "--steps", "5")
    assert code == 0 and "5 steps in" in out and "s per 1,000 sets" in out
    assert "samples/s" in out and "sequences/s" in out and "greedy decode onestep" in out
    assert "x torch)" in out and "generate, without key/value cache" in out and "(target 5 x uncached)" in out
    assert "of a 2048^2 matmul's" in out and "(target 15 min)" in out
    assert "masks by bits" in out and "(target 1.3 x torch)" in out
    assert "ensemble ceiling: GRU seq2seq, OneStep (Copy)" in out and "ms at 160" in out and "(target 3 x)" in out
    assert "train ours, RoPE (2 layers, D 8), torch.compile" in out and "x eager)" in out
    assert "quick cell (Copy, RoPE; a length drawn every step), torch.compile (dynamic shapes)" in out


def test_decoding_multiply_adds_by_hand():
    from lengthgen.bench import decoding_macs
    from lengthgen.models.transformer import TransformerConfig

    cfg = TransformerConfig(width=2, ff=3, layers=1, encoder_layers=1)
    # encoder: 2 sources x (4 x 4 + 2 x 2 x 3) + 2 x 2^2 x 2 = 56 + 16; steps: 3 x (6 x 4 + 2 x 2 x 3 + 2 x 5) = 138;
    # cross keys and values once: 2 x 2 x 4 = 16; attention: 3 x 4 x 2 (self, over 1..3 steps) + 2 x 3 x 2 x 2 = 48
    assert decoding_macs(cfg, source=2, steps=3, vocab=5) == 56 + 16 + 138 + 16 + 48


def test_data_prints_and_writes_examples(tmp_path, capsys):
    code, out, _ = run(capsys, "data", "recopy", "--split", "15", "--n", "2")
    lines = out.strip().split("\n")
    assert code == 0 and len(lines) == 2 and all(len(line.split("\t")[0].split()) == 15 for line in lines)
    code, out, _ = run(capsys, "data", "scan", "--split", "test", "--n", "3", "--format", "scan")
    assert code == 0 and all(line.startswith("IN: ") and " OUT: " in line for line in out.strip().split("\n"))
    target = tmp_path / "d" / "lookup.jsonl"
    code, _, err = run(capsys, "data", "lookup", "--split", "11", "--n", "5", "--format", "jsonl", "--out", str(target))
    rows = [json.loads(line) for line in target.read_text().splitlines()]
    assert code == 0 and len(rows) == 5 and all(len(r["source"].split()) == 11 for r in rows) and "wrote 5" in err


@pytest.mark.parametrize("argv,message", [
    (["data", "nope"], "unknown task 'nope'; valid: argmax"),
    (["data", "argmax"], "task 'argmax' has no fixed splits; valid: copy"),
    (["data", "copy", "--split", "50"], "unknown split '50' for copy; valid: train, dev, iid, 15, 30, 100"),
    (["data", "scan", "--split", "nosuch"], "unknown split 'nosuch' for scan; valid: train, dev, test"),
    (["data", "copy", "--n", "0"], "n=0 for copy/train; valid: 1..10000"),
    (["data", "cfq"], "cfq needs --cfq-root DIR"),
    (["results", "mla-main", "--profile", "cpu"], "unknown profile 'cpu' for mla-main; valid: smoke, quick, full"),
])
def test_data_and_mla_bad_input(tmp_path, capsys, argv, message):
    out_file = tmp_path / "o.txt"
    code, out, err = run(capsys, *argv, "--out", str(out_file))
    assert code == 2 and message in err and err.count("\n") == 1 and not out_file.exists()


def test_mla_smoke_run_stores_metrics_and_a_loadable_checkpoint(tmp_path, capsys):
    from lengthgen.papers import EXPERIMENTS
    from lengthgen.papers.mla.experiments import build_run
    from lengthgen.results.store import ResultStore
    from lengthgen.results.sweep import collect_history

    code, out, _ = run(capsys, "run", "mla-ablations", "--profile", "smoke", "--results", str(tmp_path))
    assert code == 0 and "onestep_no_sigmoid" in out
    store, configs = ResultStore(tmp_path), EXPERIMENTS["mla-ablations"].configs_for("smoke")
    metrics, meta = store.load("mla-ablations", configs[0])
    assert {"accuracy", "edit_distance", "epochs", "best_dev"} <= set(metrics.metric) and meta["profile"] == "smoke"
    history = store.load_history("mla-ablations", configs[0])
    assert list(history.columns) == ["epoch", "train_loss", "dev_score", "lr", "direction_gate"]
    assert len(history) == metrics.set_index("metric").value["epochs"]
    every = collect_history(EXPERIMENTS["mla-ablations"], configs, store)
    assert set(every.variant) == {c.model.attention for c in configs} and len(every) == len(configs) * len(history)
    _, model = build_run(configs[0])
    model.load_state_dict(store.load_checkpoint("mla-ablations", configs[0]))


def test_summary_keeps_the_splits_in_evaluation_order_and_averages_seeds():
    rows = [dict(task=t, variant="onestep", seed=s, length=n, metric="accuracy", value=v)
            for t, splits in (("copy", ("iid", "15", "100")), ("lookup", ("7", "9", "11")))
            for s, v in ((0, 100.0), (1, 50.0)) for n in splits]
    rows.append(dict(task="copy", variant="onestep", seed=0, length="15", metric="direction_gate", value=0.99))
    lines = summary(split_and_length(pd.DataFrame(rows))).splitlines()
    assert lines[0].split() == ["iid", "15", "100", "7", "9", "11", "seeds"]
    assert lines[-1].split()[-2:] == ["75.0", "2"] and "direction_gate" not in "".join(lines)


def test_summary_keeps_apart_what_a_run_is_labelled_with_but_seeds():
    rows = [dict(task="variable_assignment", variant="PPC", depth=d, budget=b, seed=s, length=20, metric="accuracy",
                 value=v) for d, b, v in ((2, 20_000, 0.0), (2, 50_000, 90.0), (3, 50_000, 60.0)) for s in (0, 1)]
    lines = summary(split_and_length(pd.DataFrame(rows))).splitlines()
    assert [line.split()[-2:] for line in lines[-3:]] == [["0.0", "2"], ["90.0", "2"], ["60.0", "2"]]
    unlabelled = pd.DataFrame(rows).assign(depth=[2, None] * 3)  # a row without a depth is kept, not dropped
    assert summary(split_and_length(unlabelled)).splitlines()[-1].split()[-1] == "1"


def test_summary_of_language_runs_gives_each_model_its_perplexity():
    rows = [dict(task="corpus", variant="pair", lm=lm, seed=s, length=n, metric=m, value=v)
            for s in (0, 1) for lm, base in (("short", 50.0), ("long", 40.0))
            for n, m, v in ((64, "perplexity", base + s), (128, "perplexity", base - 2), (128, "nll full", 9.0))]
    lines = summary(split_and_length(pd.DataFrame(rows))).splitlines()
    assert lines[0].split() == ["64", "128", "seeds"] and "nll" not in "".join(lines)
    assert lines[-2].split()[-5:] == ["long", "perplexity", "40.5", "38.0", "2"]
    assert lines[-1].split() == ["short", "perplexity", "50.5", "48.0", "2"]
    assert summary(split_and_length(pd.DataFrame(rows[2:3]))) == "(no accuracy or perplexity results)"


def test_list_into_a_closed_pipe_ends_quietly():
    """`lengthgen list | head -1`: the reader closes the pipe early; no BrokenPipeError traceback, status 0."""
    import subprocess
    import sys

    cmd = [sys.executable, "-c", "import sys; from lengthgen.cli import main; sys.exit(main(['list']))"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader goes away before the listing is written
    assert proc.wait(timeout=60) == 0
    assert proc.stderr.read() == b""


def test_data_prints_decoder_only_tasks_at_a_length(capsys, tmp_path):
    code, out, _ = run(capsys, "data", "variable_assignment", "--split", "2", "--n", "3")
    rows = [line.split("\t") for line in out.strip().split("\n")]
    assert code == 0 and len(rows) == 3 and all(len(r) == 3 and len(r[1].split()) == 3 for r in rows)
    code, out, _ = run(capsys, "data", "sparse_parity", "--split", "4", "--n", "2", "--format", "jsonl")
    assert code == 0 and all(len(json.loads(line)["prompt"].split()) == 10 for line in out.strip().split("\n"))
    target = tmp_path / "never.txt"
    code, _, err = run(capsys, "data", "scratchpad_parity", "--split", "0", "--out", str(target))
    assert code == 2 and "valid: >= 1 scratchpad tokens" in err and not target.exists()
    code, _, err = run(capsys, "data", "sparse_parity", "--split", "train")
    assert code == 2 and "takes --split LENGTH (a number of pairs)" in err
    code, out, _ = run(capsys, "data", "corpus", "--split", "9", "--n", "2")
    assert code == 0 and all(len(" ".join(line.split("\t")).split()) == 9 for line in out.strip().split("\n"))


def test_ensemble_ceiling_is_five_solo_updates_over_one_fivefold_batch():
    import re

    from lengthgen.bench import ENSEMBLE_MEMBERS, bench_ensemble

    rows = bench_ensemble(steps=3, rounds=1)
    assert len(rows) == 3
    for _, row in rows.iterrows():
        solo, batch, joint, big = re.match(r"([\d.]+) ms per update at batch (\d+), ([\d.]+) ms at (\d+)",
                                           row["measured"]).groups()
        assert int(big) == ENSEMBLE_MEMBERS * int(batch)
        ratio = float(re.match(r"([\d.]+)x", row["rate"]).group(1))
        assert abs(ratio - ENSEMBLE_MEMBERS * float(solo) / float(joint)) <= 0.01 + ratio * 0.05  # 0.1 ms rounding


def test_a_stored_configs_seed_is_found_where_it_is_nested():
    from lengthgen.cli import seed_of

    assert seed_of({"task": "copy", "seed": 3}) == 3
    assert seed_of({"factor": "dropout", "arithmetic": {"task": "successor", "seed": 101}, "every": 100}) == 101
    assert seed_of({"task": "copy"}) is None


def test_leaderboard_scores_and_ranks_the_stored_runs_and_refuses_what_it_cannot(tmp_path, capsys, monkeypatch):
    """Two mechanisms on one task, their accuracies set by hand (the smoke runs' own numbers are noise): RoPE fits
    (100 in distribution), holds 50 beyond and reaches 15 tokens; NoPE fits, holds 20 and reaches 10: RoPE ranks
    first."""
    import lengthgen.leaderboard.grid as grid

    made = {"rope": [100.0, 95.0, 5.0], "nope": [100.0, 30.0, 10.0], "fire": [100.0, 100.0, 60.0]}  # copy at 10, 15, 30
    monkeypatch.setattr(grid, "exact_match_by_length", lambda model, task, lengths, n, seed, **kw: pd.DataFrame(
        {"length": list(lengths), "metric": "accuracy", "value": made[model.cfg.positional.replace("none", "nope")]}))
    results = str(tmp_path / "results")
    assert main(["run", "leaderboard", "--profile", "smoke", "--task", "copy", "--results", results]) == 0
    capsys.readouterr()
    code, out, _ = run(capsys, "leaderboard", "--profile", "smoke", "--results", results)
    lines = out.splitlines()
    assert code == 0
    assert lines[0].split()[:5] == ["task", "mechanism", "in", "distribution", "beyond"]
    assert lines[1].split()[:5] == ["copy", "rope", "100.0", "50.0", "15.0"]  # beyond: (95 + 5) / 2
    assert lines[2].split()[:5] == ["copy", "nope", "100.0", "20.0", "10.0"]
    assert lines[1].split()[-1] == "1.0" and lines[2].split()[-1] == "2.0"
    assert "CPU-thread hours per row (every task and seed it ran, each cell at its median run's time; its " in out
    assert main(["leaderboard", "--profile", "smoke", "--results", results, "--out", str(tmp_path / "b.csv")]) == 0
    assert pd.read_csv(tmp_path / "b.csv")["rank"].tolist() == [1.0, 2.0]
    # a mechanism the profile does not list: its row runs on the profile's tasks and ranks beside the grid
    assert main(["run", "leaderboard", "--profile", "smoke", "--task", "copy", "--variant", "fire", "--results",
                 results]) == 0
    capsys.readouterr()
    code, out, _ = run(capsys, "leaderboard", "--profile", "smoke", "--results", results)
    assert [line.split()[1] for line in out.splitlines()[1:4]] == ["fire", "rope", "nope"]
    for argv, message in (
            (["--mechanism", "xpos"], "unknown mechanism 'xpos'; valid: nope, sinusoidal, learned"),
            (["--mechanism", "alibi"], "no leaderboard run of alibi at smoke is stored in"),  # registered, not run
            (["--mechanism", "alibi"], "`lengthgen run leaderboard --profile smoke --variant alibi`"),
            (["--mechanism", "ppc"], "ppc runs on no task of the leaderboard at smoke (its tasks: copy, bucket_sort)"),
            (["--profile", "full"], "unknown profile 'full' for leaderboard; valid: smoke, quick, cpu"),
            (["--profile", "quick"], "no leaderboard run at quick is stored"),
            (["--results", str(tmp_path / "none")], "no results folder at")):
        capsys.readouterr()
        code = main(["leaderboard", "--profile", "smoke", "--results", results, *argv])
        assert code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "none").exists()
    # a grid still running: a cell without all of the profile's seeds is held back, never scored on fewer
    monkeypatch.setitem(grid.LEADERBOARD_PROFILES, "smoke", replace(grid.LEADERBOARD_PROFILES["smoke"], seeds=(0, 1)))
    assert main(["leaderboard", "--profile", "smoke", "--results", results]) == 2
    err = capsys.readouterr().err
    assert "3 stored run(s) of cells without all 2 seeds are held back" in err
    assert "no cell of the leaderboard at smoke holds all its seeds (0, 1) yet" in err
