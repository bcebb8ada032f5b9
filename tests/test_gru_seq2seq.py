"""The GRU seq2seq model: padding-free encoding, greedy vs teacher forcing, <eos> stopping, training claims."""

import pandas as pd
import pytest
import torch

from lengthgen.data import EOS, PAD, Seq2SeqBatch
from lengthgen.models.gru_seq2seq import HOOK_DIRECTION_GATE, Seq2SeqConfig
from lengthgen.models.hooks import capture
from lengthgen.papers.mla.experiments import (
    Seq2SeqRun,
    build,
    direction_check,
    evaluate_seq2seq,
    gate_by_construction,
    gate_course,
    initial_gates,
    initial_lean,
    reads_forward,
    run_seq2seq,
    train_seq2seq,
)
from lengthgen.train.evaluate import first_error, sequence_metrics, strip, teacher_forced_accuracy
from lengthgen.train.loop import EpochConfig


def model_and_task(attention="onestep", task="copy"):
    task, model = build(Seq2SeqRun(task=task, seed=0, model=Seq2SeqConfig(attention=attention)))
    return model.eval(), task


def test_encoding_does_not_depend_on_padding():
    model, task = model_and_task()
    short, long = task.examples("iid", 2)[0], task.examples("30", 1)[0]
    alone = task.batch([short])
    padded = task.batch([short, long])
    a, b = model.encode(alone.src, alone.src_len), model.encode(padded.src, padded.src_len)
    n = int(a.n[0])
    assert torch.allclose(a.enc[0, :n], b.enc[0, :n], atol=1e-6) and torch.allclose(a.cls[0], b.cls[0], atol=1e-6)
    assert b.mask[0].sum() == n and b.mask[1].sum() == 32  # 30 tokens + START + END


def test_start_and_end_are_encoded_with_the_source():
    """Revision 2, as the public code: START/END are embedded and encoded, so the encoder's final states are its
    outputs at END (forward) and START (backward), and both positions carry the source."""
    model, task = model_and_task()
    batch = task.batch(task.examples("iid", 1))
    other = batch.src.clone()
    zero, one = task.vocab.encode(["0", "1"])
    other[0, 0] = one if other[0, 0] == zero else zero  # another first digit
    m, m2 = model.encode(batch.src, batch.src_len), model.encode(other, batch.src_len)
    n, half = int(m.n[0]), m.enc.shape[2] // 2
    assert torch.allclose(m.cls[0, :half], m.enc[0, n - 1, :half])
    assert torch.allclose(m.cls[0, half:], m.enc[0, 0, half:])
    assert not torch.allclose(m.enc[0, [0, n - 1]], m2.enc[0, [0, n - 1]], atol=1e-4)
    with pytest.raises(ValueError, match="revision 1 cannot be built"):
        Seq2SeqConfig(revision=1)


@pytest.mark.parametrize("attention", ["content", "relative", "bi_rope", "locattn", "mix_onestep_pr", "mono"])
def test_greedy_matches_teacher_forcing_on_its_own_output(attention):
    model, task = model_and_task(attention)
    batch = task.batch(task.examples("15", 6))
    out = model.predict(batch, 20)
    fed = out.clone()
    fed[fed == PAD] = EOS  # positions after <eos> are never compared
    tf = model.teacher_forced(Seq2SeqBatch(batch.src, batch.src_len, fed, batch.tgt_len)).argmax(-1)
    for row_out, row_tf in zip(strip(out), strip(tf), strict=True):
        assert row_tf[: len(row_out)] == row_out


def test_greedy_stops_when_every_sequence_emitted_eos():
    model, task = model_and_task()
    batch = task.batch(task.examples("100", 4))
    with torch.no_grad():
        model.out_bias[EOS] = 1e4
    assert model.predict(batch, 50).shape == (4, 1)
    with torch.no_grad():
        model.out_bias[EOS] = -1e4
    assert model.predict(batch, 50).shape == (4, 50)


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


def test_edit_distance_and_accuracy_by_hand():
    model, task = model_and_task()
    examples = [(("1", "2", "3"), ("1", "2", "3"))]
    with torch.no_grad():
        model.out_bias[EOS] = 1e4  # predicts the empty sequence
    m = sequence_metrics(task, model, examples)
    assert m["accuracy"] == 0.0 and m["edit_distance"] == 3.0 and m["predictions"] == [[]]
    assert m["first_error"] == 0
    m = sequence_metrics(task, model, examples * 2 + [((), ())] * 3)  # three right (empty), two wrong at token 0
    assert m["accuracy"] == 60.0 and m["first_error"] == 0
    assert "first_error" not in sequence_metrics(task, model, [((), ())])  # nothing wrong: no first error
    with torch.no_grad():
        model.out_bias[task.vocab.encode(["1"])[0]] = 2e4  # now emits "1" at every step and never stops
    runs_of_ones = [(("0",), tuple(t)) for t in ("123", "112", "2", "1112")]  # first wrong token: 1, 2, 0, 3
    assert sequence_metrics(task, model, runs_of_ones)["first_error"] == 1.5


@pytest.mark.parametrize("prediction,target,expected", [
    ("123", "123", None), ("124", "123", 2), ("923", "123", 0),
    ("12", "123", 2),    # stopped early: wrong at the first missing token
    ("1234", "123", 3),  # ran on: wrong where <eos> was due
])
def test_first_error_by_hand(prediction, target, expected):
    assert first_error(list(prediction), list(target)) == expected


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


def test_direction_gate_is_recorded_for_bidirectional_mechanisms_only():
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


def test_direction_gate_by_construction_on_scan(monkeypatch):
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
    task, model = build(cfg)
    with capture(model, HOOK_DIRECTION_GATE) as seen:  # the gate as the dev score's teacher-forced pass sees it
        teacher_forced_accuracy(model, task.batch(task.examples(task.dev_split, 32)))
    assert initial.to_dict("records") == [{"task": "reverse_copy", "variant": "onestep", "seed": 1,
                                           "initial": torch.cat(seen[HOOK_DIRECTION_GATE]).mean().item()}]
    directions = pd.DataFrame({"task": ["reverse_copy", "copy"], "variant": ["onestep"] * 2, "seed": [1, 0],
                               "reads": ["right way", "wrong way"]})
    both = initial_lean(directions, pd.concat([initial.assign(initial=0.4), initial.assign(task="copy", seed=0)]))
    assert list(both.leans) == ["needed way", "needed way" if initial.initial[0] >= 0.5 else "other way"]
