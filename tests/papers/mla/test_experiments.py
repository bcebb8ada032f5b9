"""The MLA experiments (papers/mla/experiments.py): training runs, direction gates, generations, SCAN
verdicts and reasons, Table 4's borrowed rows."""

import pandas as pd
import pytest
import torch

from lengthgen.analysis import report
from lengthgen.models.gru_seq2seq import HOOK_DIRECTION_GATE, Seq2SeqConfig
from lengthgen.models.hooks import capture
from lengthgen.papers.mla import readings as mla_readings
from lengthgen.papers.mla.experiments import (
    Seq2SeqRun,
    build_run,
    evaluate_seq2seq,
    initial_gates,
    run_seq2seq,
    train_seq2seq,
)
from lengthgen.papers.mla.readings import (
    direction_check,
    gate_by_construction,
    gate_course,
    initial_lean,
    reads_forward,
)
from lengthgen.results.store import split_and_length
from lengthgen.tasks import TASKS
from lengthgen.train.evaluate import sequence_metrics, teacher_forced_accuracy
from lengthgen.train.loop import EpochConfig


def test_training_is_deterministic_and_keeps_the_best_dev_epoch():
    cfg = Seq2SeqRun(task="copy", seed=3, model=Seq2SeqConfig(attention="mix_locattn_s_pr"),
                     train=EpochConfig(epochs=2), train_size=96, dev_size=32, eval_size=16, eval_splits=("15",))
    first, second = run_seq2seq(cfg), run_seq2seq(cfg)
    assert first.metrics.equals(second.metrics) and first.history.equals(second.history)
    model, task, stats = train_seq2seq(cfg)
    assert stats["epochs"] == 2 and stats["best_dev"] == max(h[2] for h in stats["history"])
    assert all(torch.equal(v, first.checkpoint[k]) for k, v in model.state_dict().items())
    history = first.history.set_index("epoch")
    kept = first.metrics.set_index("metric").value
    assert list(history.index) == [0, 1] and history.dev_score[kept.best_epoch] == kept.best_dev
    assert (history.train_loss > 0).all() and history.lr.iloc[0] == cfg.train.lr
    assert list(first.history.columns) == ["epoch", "train_loss", "dev_score", "lr"]  # no direction gate to record


def test_history_records_the_dev_gate_of_every_epoch():
    cfg = Seq2SeqRun(task="reverse_copy", seed=1, model=Seq2SeqConfig(attention="onestep"),
                     train=EpochConfig(epochs=3), train_size=96, dev_size=32, eval_size=16, eval_splits=("15",))
    model, task, stats = train_seq2seq(cfg)
    history = run_seq2seq(cfg).history
    dev = task.batch(task.examples(task.dev_split, cfg.dev_size))
    with capture(model, HOOK_DIRECTION_GATE) as seen:
        teacher_forced_accuracy(model, dev)
    # the kept weights are those of the best epoch: their dev gate is the one recorded after that epoch
    assert history.direction_gate[stats["best_epoch"]] == torch.cat(seen[HOOK_DIRECTION_GATE]).mean().item()
    assert history.direction_gate.tolist() == stats["dev_gates"] and history.direction_gate.nunique() == 3
    assert history.direction_gate.between(0, 1).all()


def test_bidirectional_attention_learns_reverse_copy_and_content_does_not():
    """Fixed seeds, CPU: the paper's first separation (Table 2, Reverse Copy) at a toy scale."""
    acc = {}
    for attention in ("bi_relative", "content"):
        cfg = Seq2SeqRun(task="reverse_copy", seed=0, model=Seq2SeqConfig(attention=attention),
                         train=EpochConfig(epochs=3), train_size=1500, dev_size=200, eval_size=100,
                         eval_splits=("30",))
        df = run_seq2seq(cfg).metrics
        acc[attention] = df.query("metric == 'accuracy'").value.item()
    assert acc["bi_relative"] >= 90.0 and acc["content"] <= 10.0, acc


def test_direction_gate_is_recorded_for_bidirectional_mechanisms_only(model_and_task):
    model, task = model_and_task("bi_relative")
    examples = task.examples("iid", 7)
    for bias, expected in ((50.0, 1.0), (-50.0, 0.0)):  # the gate saturates: every sequence read one way
        with torch.no_grad():
            model.attention.direction.weight.zero_()
            model.attention.direction.bias.fill_(bias)
        captured = sequence_metrics(task, model, examples, batch_size=3, hooks=(HOOK_DIRECTION_GATE,))["captured"]
        assert [g.shape for g in captured[HOOK_DIRECTION_GATE]] == [(3, 1, 1), (3, 1, 1), (1, 1, 1)]  # once per batch
        assert torch.cat(captured[HOOK_DIRECTION_GATE]).flatten().tolist() == pytest.approx([expected] * 7, abs=1e-6)
    for attention, has_gate in (("bi_relative", True), ("content", False)):
        model, task = model_and_task(attention)
        cfg = Seq2SeqRun(task="copy", seed=0, model=Seq2SeqConfig(attention=attention), eval_size=4,
                         eval_splits=("iid", "15"))
        df = evaluate_seq2seq(model, task, cfg)
        gates = df[df.metric == "direction_gate"]
        assert list(gates.length) == (["iid", "15"] if has_gate else [])
        assert ((gates.value > 0) & (gates.value < 1)).all()


def test_direction_gate_by_construction_on_scan(monkeypatch, model_and_task):
    model, task = model_and_task("bi_relative", task="scan")
    # the 60 examples form one batch: give example i the gate i / 100, so each construction's mean is that of its
    # indices ("X and Y" and "X after Y" alternate in the test split, so a swap of the two would show)
    gate = model.attention.direction_gate  # the hook point, so evaluation captures the patched gate
    monkeypatch.setattr(model.attention, "gate",
                        lambda memory: gate((torch.arange(len(memory.n)) / 100)[:, None, None]))
    cfg = Seq2SeqRun(task="scan", seed=0, model=Seq2SeqConfig(attention="bi_relative"), eval_size=60)
    metrics = evaluate_seq2seq(model, task, cfg).set_index("metric").value
    examples = task.examples("test", 60)
    kinds = {"and": [i for i, (src, _) in enumerate(examples) if "and" in src],
             "after": [i for i, (src, _) in enumerate(examples) if "after" in src]}
    kinds["single"] = sorted(set(range(60)) - set(kinds["and"]) - set(kinds["after"]))
    for kind, indices in kinds.items():
        assert indices and metrics[f"direction_gate:{kind}"] == pytest.approx(sum(indices) / len(indices) / 100)
    assert metrics["direction_gate"] == pytest.approx(sum(range(60)) / 60 / 100)


def test_gate_by_construction_by_hand():
    rows = [("scan", "mono", 0, "direction_gate:and", 0.99), ("scan", "mono", 0, "direction_gate:after", 0.01),
            ("scan", "mono", 0, "direction_gate", 0.5), ("scan", "mono", 0, "accuracy", 14.7),
            ("scan", "rmono", 1, "direction_gate:after", 0.2), ("scan", "rmono", 1, "direction_gate:and", 0.7),
            ("scan", "rmono", 1, "direction_gate", 0.45), ("scan", "bi_relative", 0, "direction_gate", 0.501)]
    runs = pd.DataFrame([dict(task=t, variant=v, seed=s, length="test", metric=m, value=x) for t, v, s, m, x in rows])
    table = gate_by_construction(runs)
    assert list(table.columns) == ["all", "and", "after"]
    assert table.loc[("scan", "rmono", 1)].tolist() == [0.45, 0.7, 0.2]
    assert table.loc[("scan", "mono", 0), "after"] == 0.01
    assert table.loc[("scan", "bi_relative", 0), "all"] == 0.501  # recorded before the gate by construction: NaN
    assert table.loc[("scan", "bi_relative", 0), ["and", "after"]].isna().all()
    assert gate_by_construction(runs[runs.metric == "accuracy"]).empty


def test_direction_check_by_hand():
    assert reads_forward("lookup") and reads_forward("inv_recopy") and reads_forward("dedupe")
    assert not reads_forward("reverse_lookup") and not reads_forward("inv_reverse_recopy")
    with pytest.raises(ValueError, match="valid: copy"):
        reads_forward("scan")
    rows = [("lookup", "bi_relative", 0, "7", 0.02), ("lookup", "bi_relative", 0, "9", 0.0),  # mean 0.01
            ("reverse_copy", "onestep", 0, "15", 0.01), ("copy", "mono", 1, "15", 0.5),
            ("copy", "mono", 1, "15", 0.97), ("scan", "onestep", 0, "test", 0.3),
            ("dedupe", "bi_relative", 2, "15", 0.01)]
    runs = pd.DataFrame([dict(task=t, variant=v, seed=s, length=n, metric="direction_gate", value=g)
                         for t, v, s, n, g in rows] + [dict(task="copy", variant="mono", seed=1, length="15",
                                                            metric="accuracy", value=100.0)])
    check = direction_check(runs).set_index(["task", "variant"])
    assert list(check.reads) == ["wrong way", "right way", "undecided", "wrong way"]  # scan has none: left out
    assert check.gate["lookup", "bi_relative"] == pytest.approx(0.01)
    assert check.gate["copy", "mono"] == pytest.approx(0.735)


def test_gate_course_by_hand():
    courses = {("copy", "onestep"): [0.3, 0.7, 0.98], ("reverse_copy", "mono"): [0.95, 0.4, 0.6, 0.97],
               ("lookup", "bi_relative"): [0.99, 0.99], ("copy", "content"): [float("nan")] * 2,
               ("scan", "onestep"): [0.2, 0.8]}
    history = pd.DataFrame([dict(task=t, variant=v, seed=0, epoch=e, train_loss=1.0, direction_gate=g)
                            for (t, v), gates in courses.items() for e, g in enumerate(gates)])
    course = gate_course(history.sample(frac=1.0, random_state=0)).set_index(["task", "variant"])  # any row order
    assert list(course.index) == [("copy", "onestep"), ("lookup", "bi_relative"), ("reverse_copy", "mono")]
    assert list(course.crossings) == [1, 0, 2] and list(course.settled) == [1, 0, 2]  # no gate, no direction: out
    assert list(course.starts) == ["undecided", "right way", "wrong way"]
    assert list(course.ends) == ["right way", "right way", "wrong way"]
    assert list(course["first"]) == [0.3, 0.99, 0.95] and list(course["last"]) == [0.98, 0.99, 0.97]
    assert gate_course(history.drop(columns="direction_gate")).empty


def test_initial_gates_are_the_untrained_models_dev_gates():
    cfg = Seq2SeqRun(task="reverse_copy", seed=1, model=Seq2SeqConfig(attention="onestep"), dev_size=32)
    content = Seq2SeqRun(task="reverse_copy", seed=1, model=Seq2SeqConfig(attention="content"), dev_size=32)
    initial = initial_gates([cfg, content])  # content has no gate: left out
    task, model = build_run(cfg)
    with capture(model, HOOK_DIRECTION_GATE) as seen:  # the gate as the dev score's teacher-forced pass sees it
        teacher_forced_accuracy(model, task.batch(task.examples(task.dev_split, 32)))
    assert initial.to_dict("records") == [{"task": "reverse_copy", "variant": "onestep", "seed": 1,
                                           "initial": torch.cat(seen[HOOK_DIRECTION_GATE]).mean().item()}]


def test_initial_lean_by_hand():
    """Copy and Lookup are read forward (the gate at or above 0.5), Reverse Copy and Reverse Lookup backward (below
    it): each untrained gate leans the needed way or the other, whatever the run ends up reading."""
    runs = [("reverse_copy", "onestep", 1, "right way", 0.4), ("copy", "onestep", 0, "wrong way", 0.5),  # 0.5: forward
            ("copy", "mono", 0, "right way", 0.49), ("lookup", "bi_relative", 2, "right way", 0.9),
            ("reverse_lookup", "onestep", 3, "wrong way", 0.6)]
    directions = pd.DataFrame([(t, v, s, reads) for t, v, s, reads, _ in runs] + [("copy", "onestep", 5, "right way")],
                              columns=["task", "variant", "seed", "reads"])  # seed 5 has no initial gate: left out
    gates = pd.DataFrame([(t, v, s, g) for t, v, s, _, g in runs] + [("dedupe", "mono", 9, 0.2)],  # no direction
                         columns=["task", "variant", "seed", "initial"])
    both = initial_lean(directions, gates.iloc[::-1])
    assert both[["task", "variant", "seed", "reads", "initial"]].values.tolist() == [list(run) for run in runs]
    assert list(both.leans) == ["needed way", "needed way", "other way", "needed way", "other way"]


def test_generations_and_their_changes():
    def cfg(tie, revision):
        train = {"epochs": 100} | ({"tie": 0.001} if tie else {})
        return {"task": "copy", "seed": 0, "train": train, "model": {"attention": "mono"} | (
            {"revision": 2} if revision else {})}

    assert [mla_readings.generation(cfg(t, r)) for t, r in ((False, False), (True, False), (True, True))] == list(
        mla_readings.GENERATIONS)
    entries = [(c, split_and_length(pd.DataFrame(metrics)), meta) for c, metrics, meta in [  # as the store reads them
        (cfg(True, False), {"length": ["100", "train"], "metric": ["accuracy", "best_epoch"], "value": [0.0, 7.0]},
         {"profile": "full"}),
        (cfg(True, True), {"length": ["100", "train"], "metric": ["accuracy", "best_epoch"], "value": [99.0, 50.0]},
         {"profile": "full"}),
        (cfg(True, True), {"length": ["100"], "metric": ["accuracy"], "value": [1.0]}, {"profile": "quick"})]]
    every = mla_readings.stored_generations(entries)
    assert len(every) == 4  # the quick entry is left out
    old, new = mla_readings.GENERATIONS[1:3]
    table, moved, cells = mla_readings.generation_changes(every, old, new, ("100",))
    assert (moved, cells) == (1, 1)
    assert table.iloc[0]["epoch kept"] == "7 -> 50" and table.iloc[0]["accuracy, latest tie, rev 2"] == "99"


def test_scan_reason_names_the_rows_the_public_code_ran_unmixed():
    def row(verdict, seeds, p):
        return pd.Series({"verdict": verdict, "seeds": seeds, "p": p, "in distribution": 100.0})

    assert mla_readings.scan_reason("mix_onestep_pr", row("inconclusive (one seed)", 1, None)) == (
        "one seed: no spread to test against the paper's 5 runs; the paper's row ran unmixed (public code), ours mixes")
    assert mla_readings.scan_reason("content", row("not reproduced (ours lower)", 3, 0.0123)) == (
        "Welch's t-test, 3 seeds against the paper's 5: p = 0.012")
    assert mla_readings.scan_reason("content", row("reproduced (no significant difference)", 3, 0.4)) == ""


def test_scan_side_judges_the_common_seeds_and_sets_unfitted_mechanisms_apart():
    """Hand-made SCAN runs: content at seeds 0-3 (seed 3 not common: left out), mono at seeds 0-2 with dev exact
    match 100 / 80 / 70 (median 80: not trained); test accuracy 10 / 12 / 14 (content) -> mean 12."""
    rows = []
    for variant, seeds, tests, devs in (("content", (0, 1, 2, 3), (10.0, 12.0, 14.0, 90.0), (100.0,) * 4),
                                        ("mono", (0, 1, 2), (15.0, 15.0, 15.0), (100.0, 80.0, 70.0))):
        for seed, test, dev in zip(seeds, tests, devs, strict=True):
            rows += [{"task": "scan", "variant": variant, "seed": seed, "length": "test", "metric": "accuracy",
                      "value": test},
                     {"task": "scan", "variant": variant, "seed": seed, "length": "train", "metric": "best_dev",
                      "value": dev}]
    side = mla_readings.scan_side(split_and_length(pd.DataFrame(rows)))
    assert side.loc["content", "ours"] == 12.0 and side.loc["content", "seeds"] == 3
    assert side.loc["content", "in distribution"] == 100.0
    assert side.loc["content", "verdict"] == "not reproduced (ours lower)"  # paper 17.6 +- 4.1
    assert side.loc["mono", "verdict"] == "not trained" and side.loc["mono", "in distribution"] == 80.0
    assert side.loc["mono", "reason"] == "median dev exact match 80% < 90%: the runs did not fit their training split"
    assert side.loc["relative", "verdict"] == "not run yet" and side.loc["relative", "reason"] == ""
    empty = mla_readings.scan_side(pd.DataFrame())
    assert (empty.verdict == "not run yet").all() and len(empty) == len(side)


def test_with_fit_estimates_adds_an_estimated_iid_row_to_lookup_runs():
    """Lookup / mono seed 0 (full profile: 1,000 dev examples, half held out): 2 x 55.5 - 11.4 = 99.6; seed 1 (quick
    sizes: 300 dev examples, all held out): its dev score 70; seed 2 lacks split 7, Reverse Lookup has an iid row
    already, Copy is not estimated: none of them gets a row."""
    def run(task, seed, profile, dev, accuracy):
        cells = {("train", "best_dev"): dev, **{(split, "accuracy"): v for split, v in accuracy.items()}}
        return [{"task": task, "variant": "mono", "seed": seed, "length": length, "metric": metric, "value": v,
                 "profile": profile, "key": f"{task}{seed}"} for (length, metric), v in cells.items()]
    rows = (run("lookup", 0, "full", 55.5, {"7": 11.4, "11": 1.0}) + run("lookup", 1, "quick", 70.0, {"7": 5.0})
            + run("lookup", 2, "full", 60.0, {"11": 0.0})
            + run("reverse_lookup", 0, "full", 50.0, {"7": 0.0, "iid": 42.0})
            + run("copy", 0, "full", 100.0, {"15": 100.0}))
    runs = split_and_length(pd.DataFrame(rows))
    out = mla_readings.with_fit_estimates(runs)
    assert out.iloc[: len(runs)].equals(runs) and out.dtypes.equals(runs.dtypes)
    added = out.iloc[len(runs):].set_index("seed")
    assert list(added.index) == [0, 1] and set(added.task) == {"lookup"} and set(added.split) == {"iid"}
    assert added.length.isna().all()
    assert added.value.tolist() == pytest.approx([99.6, 70.0]) and set(added.metric) == {"accuracy"}
    assert added.key.tolist() == ["lookup0", "lookup1"] and added.profile.tolist() == ["full", "quick"]
    assert mla_readings.with_fit_estimates(runs.iloc[:0]).empty


def test_task_table_and_scan_constructions():
    table = mla_readings.task_table(("copy",))
    src, tgt = TASKS["copy"]().examples("train", 1)[0]
    assert table.loc["copy", "source"] == " ".join(src) == table.loc["copy", "target"]
    assert table.loc["copy", "splits"].startswith("train (10,000), dev (2,000)")
    kinds = mla_readings.scan_constructions(TASKS["scan"]())
    assert set(kinds) == {"and", "after", "single"} and kinds["jump around left thrice"] == "single"


def test_table4_borrows_onestep_from_table2_and_judges_the_common_seeds(runs_frame):
    """Hand-made Copy runs: OneStep w/o Step 2 at seeds 0-2 (100 / 50 / 0 at length 15); Table 2's OneStep at seeds
    0-3 (seed 3 is not common: left out) and its Content (not a Table 4 row). Medians over seeds 0-2: 50 and 100."""
    def run(variant, seed, value):
        return [(task, variant, seed, length, "accuracy", v) for task, length, v in
                (("copy", "iid", 100.0), ("copy", "15", value))]
    ablations = runs_frame(sum((run("onestep_no_step2", s, v) for s, v in ((0, 100.0), (1, 50.0), (2, 0.0))), []))
    main = runs_frame(sum((run("onestep", s, 100.0) for s in range(4)), []) + run("content", 0, 100.0))
    runs = mla_readings.with_unablated("mla-ablations", ablations, main)
    assert set(runs.variant) == {"onestep_no_step2", "onestep"} and len(runs) == len(ablations) + 8
    assert mla_readings.with_unablated("mla-variants", ablations, main) is ablations
    assert mla_readings.with_unablated("mla-ablations", ablations, main.iloc[:0]) is ablations
    side, balanced, seeds = mla_readings.against_paper("mla-ablations", runs, "full protocol")
    assert seeds == [0, 1, 2] and set(balanced.seed) == {0, 1, 2}
    cell = side.set_index(["variant", "task", "split"])
    assert cell.loc[("onestep_no_step2", "copy", "15"), "ours"] == 50.0
    assert cell.loc[("onestep_no_step2", "copy", "15"), "verdict"] == "not reproduced (ours lower)"  # paper 100
    assert cell.loc[("onestep", "copy", "15"), "ours"] == 100.0
    assert "content" not in set(side.variant)
    assert mla_readings.against_paper("mla-ablations", runs.iloc[:0], "full protocol")[0].empty


def test_first_seeds_changes_judges_the_table_again_on_its_first_seeds(runs_frame):
    """Hand-made Copy / OneStep runs (paper: 100 at 15, 30 and 100): seeds 0-2 solve every split, seeds 3 and 4 fail
    all three. On seeds 0-2 each cell is reproduced; on 0-4 each is reproduced with its seeds split."""
    values = [100.0, 100.0, 100.0, 0.0, 0.0]
    runs = runs_frame([("copy", "onestep", s, n, "accuracy", 100.0 if n == "iid" else v)
                       for s, v in enumerate(values) for n in ("iid", "15", "30", "100")])
    side, _, seeds = mla_readings.against_paper("mla-main", runs, "full protocol")
    changes, first = mla_readings.first_seeds_changes("mla-main", runs, side, "full protocol")
    assert seeds == [0, 1, 2, 3, 4] and first == [0, 1, 2]
    assert changes.split.tolist() == ["15", "30", "100"]
    assert set(changes["verdict before"]) == {"reproduced"} and set(changes["verdict after"]) == {
        "reproduced (seeds split)"}
    text, table = report.first_seeds_parts(changes, first, len(side), seeds)
    assert text == ("Judged on its first seeds 0-2 alone, 3 of the 3 cells had another verdict: 3 from *reproduced* "
                    "to *reproduced (seeds split)* (the cells below).")
    assert table.equals(changes.round(1))
    assert report.first_seeds_parts(changes.iloc[:0], first, 3, seeds) == (
        "Judged on its first seeds 0-2 alone, none of the 3 cells had another verdict.", "")
    three = runs[runs.seed < 3]
    assert mla_readings.first_seeds_changes("mla-main", three, side, "full protocol")[0].empty
    assert report.first_seeds_parts(changes.iloc[:0], [0, 1, 2], 3, [0, 1, 2]) == ("", "")
