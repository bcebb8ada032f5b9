"""The leaderboard's grid: a run's rows, read by the protocol; its mechanisms, id transforms and test examples."""

from dataclasses import replace

import pandas as pd
import pytest
import torch

from lengthgen.errors import LengthgenError
from lengthgen.leaderboard.grid import (
    LEADERBOARD_PROFILES,
    MECHANISMS,
    TASK_LENGTHS,
    LeaderboardRun,
    build_run,
    in_distribution,
    leaderboard_labels,
    run_leaderboard,
)
from lengthgen.leaderboard.protocol import run_scores
from lengthgen.metrics import ACCURACY, COURSE, FINAL_TRAIN_LOSS
from lengthgen.models.gru_seq2seq import Seq2SeqConfig
from lengthgen.models.transformer import TransformerConfig
from lengthgen.papers import EXPERIMENTS
from lengthgen.train.loop import LMTrainConfig

TINY = TransformerConfig(width=16, heads=2, layers=1, ff=32, max_positions=256)
SHORT = LMTrainConfig(steps=3, batch_size=8, warmup=1, min_length=1, max_length=40)


def test_the_training_lengths_are_the_tasks():
    assert in_distribution("modular_arithmetic") == 39 and in_distribution("copy") == 10


def test_every_mechanism_builds_its_scheme_and_trains_with_its_id_transform():
    for name, mechanism in MECHANISMS.items():
        task = "bucket_sort" if mechanism.window is None else "addition"  # the scaffold runs on arithmetic alone
        gru = Seq2SeqConfig(attention=mechanism.gru) if mechanism.gru else None
        cfg = LeaderboardRun(task=task, mechanism=name, seed=0, model=TINY, train=SHORT, gru=gru)
        _, model = build_run(cfg)
        assert cfg.training().positions == mechanism.positions
        if not mechanism.gru:
            assert model.cfg.positional == mechanism.positional
            assert all(getattr(model.cfg, field) == value for field, value in mechanism.model)
        assert type(model).__name__ == {"decoder": "DecoderOnly", "encoder_decoder": "EncoderDecoder",
                                        "gru_seq2seq": "GRUSeq2Seq"}[leaderboard_labels(cfg)["model"]]
    assert {leaderboard_labels(replace(cfg, mechanism=m))["model"] for m in ("rope", "abc", "gru+content")} == {
        "decoder", "encoder_decoder", "gru_seq2seq"}
    assert dict(MECHANISMS["rope+ln"].model) == {"attention_norm": "ln"} and not MECHANISMS["rope"].model
    pose = LeaderboardRun(task="bucket_sort", mechanism="pose", seed=0, model=TINY, train=SHORT).training()
    assert pose.pose_length == pose.max_positions == 256
    with pytest.raises(LengthgenError, match="unknown mechanism 'xpos'; valid: nope, sinusoidal"):
        build_run(LeaderboardRun(task="bucket_sort", mechanism="xpos", seed=0, model=TINY))


@pytest.mark.parametrize("mechanism", ["rope", "randomized"])
def test_a_run_gives_exact_match_per_length_that_the_protocol_scores(mechanism):
    cfg = LeaderboardRun(task="bucket_sort", mechanism=mechanism, seed=0, model=TINY, train=SHORT, tests=(40, 50, 100),
                         eval_samples=8)
    rows = run_leaderboard(cfg).metrics
    acc = rows[rows.metric == ACCURACY]
    assert acc.length.tolist() == [40, 50, 100] and acc.value.between(0, 100).all()
    assert (rows.metric == FINAL_TRAIN_LOSS).sum() == 1
    scores = run_scores(rows.assign(**leaderboard_labels(cfg)), {"bucket_sort": 40})
    assert scores.variant.tolist() == [mechanism] and scores.seed.tolist() == [0]


def test_every_run_meets_the_test_examples_of_the_test_seed_whatever_its_own(monkeypatch):
    import lengthgen.leaderboard.grid as grid

    asked = []
    monkeypatch.setattr(grid, "exact_match_by_length", lambda model, task, lengths, n, seed, **kw: asked.append(
        (task.name, tuple(lengths), n, seed)) or pd.DataFrame({"length": list(lengths), "metric": ACCURACY,
                                                               "value": 0.0}))
    for seed, mechanism in ((3, "nope"), (4, "alibi")):
        run_leaderboard(LeaderboardRun(task="duplicate_string", mechanism=mechanism, seed=seed, model=TINY,
                                       train=SHORT, tests=(40, 50), eval_samples=8))
    assert asked == [("duplicate_string", (40, 50), 8, 0)] * 2  # the test seed (0), not the run's


def test_every_task_prompts_a_batch_at_each_of_its_lengths():
    """A batch of one length is one tensor (`Prompted.batch` pads where sources or answers vary) at the training
    lengths' ends and at every test length; the source has that many tokens where the unit is tokens."""

    from lengthgen.leaderboard.grid import TASK_LENGTHS, board_task

    gen = torch.Generator().manual_seed(0)
    for name, lengths in TASK_LENGTHS.items():
        task = board_task(name)
        for length in (*lengths.train, *lengths.tests):
            batch = task.batch([task.sequence(length, gen) for _ in range(3)])
            assert batch.tokens.shape[0] == 3
        if name in ("copy", "duplicate_string", "bucket_sort", "modular_arithmetic"):
            assert task.sequence(lengths.tests[-1], gen).prompt == lengths.tests[-1] + 1  # its source, then "="


def test_task_lengths_test_from_the_longest_training_length_upward():
    from lengthgen.leaderboard.grid import TaskLengths

    assert TaskLengths((1, 4), (4, 8, 40), "").tests == (4, 8, 40)
    for tests in ((8, 40), (4, 40, 8), (4, 4, 8)):
        with pytest.raises(ValueError, match="must rise from the longest training length 4"):
            TaskLengths((1, 4), tests, "")


def test_each_profile_runs_every_mechanism_on_every_task_with_its_lengths_and_room_for_them():

    from lengthgen.leaderboard.grid import LEADERBOARD_PROFILES, TASK_LENGTHS, board_task, leaderboard_configs, runs_on

    for profile, sizes in LEADERBOARD_PROFILES.items():
        configs = leaderboard_configs(profile, None)
        cells = {(t, m) for t in sizes.tasks for m in sizes.mechanisms if runs_on(m, t)}
        assert {(c.task, c.mechanism) for c in configs} == cells and len(configs) == len(cells) * len(sizes.seeds)
        assert {m for _, m in cells} == set(sizes.mechanisms)  # every mechanism has a cell
        for cfg in configs:
            lengths = TASK_LENGTHS[cfg.task]
            assert (cfg.train.min_length, cfg.train.max_length) == lengths.train
            assert cfg.tests == tuple(n for n in lengths.tests if sizes.longest is None or n <= sizes.longest)
            mechanism = MECHANISMS[cfg.mechanism]
            assert cfg.model == mechanism.architecture(cfg.model, cfg.task)  # the config states its mechanism
            longest = board_task(cfg.task).sequence(cfg.tests[-1], torch.Generator().manual_seed(0))
            assert len(longest.tokens) <= cfg.model.max_positions
    assert leaderboard_configs("quick", (1, 2))[0].seed == 1


def test_coupling_runs_only_on_tasks_that_couple_their_ids_and_trains_on_shifted_ones(monkeypatch):
    from dataclasses import replace

    import lengthgen.leaderboard.grid as grid

    assert grid.runs_on("coupling", "copy") and grid.runs_on("coupling", "addition")
    assert grid.runs_on("rope", "bucket_sort") and not grid.runs_on("coupling", "bucket_sort")
    assert not grid.runs_on("coupling", "modular_arithmetic")
    sizes = replace(grid.LEADERBOARD_PROFILES["smoke"], mechanisms=("rope", "coupling"))
    monkeypatch.setitem(grid.LEADERBOARD_PROFILES, "smoke", sizes)
    cells = {(c.task, c.mechanism) for c in grid.leaderboard_configs("smoke", None)}
    assert cells == {("copy", "rope"), ("copy", "coupling"), ("bucket_sort", "rope")}  # no coupled bucket sort
    cfg = LeaderboardRun(task="copy", mechanism="coupling", seed=0, model=TINY, train=SHORT, tests=(10, 15),
                         eval_samples=8)
    task, model = build_run(cfg)
    assert task.coupled and model.cfg.positional == "learned" and cfg.training().positions == "offset"
    rows = run_leaderboard(cfg).metrics
    assert rows[rows.metric == ACCURACY].length.tolist() == [10, 15]


def test_coupled_mechanisms_shift_their_ids_over_the_ids_the_longest_test_meets():
    """Copy at 100 tokens: the separator 1, the source and answer 2..101; at 10 (its longest training length) ids to 11:
    the shift ranges below 101 + 11. Successor at 50 digits: 51 wide, ids to 52; at 7 digits to 9."""
    cpu = LEADERBOARD_PROFILES["cpu"]
    for mechanism in ("coupling", "abacus+fire"):
        run = cpu.run("copy", mechanism, 0)
        assert run.train.max_positions == run.training().max_positions == 112
        assert cpu.run("successor", mechanism, 0).training().max_positions == 61
    assert cpu.run("copy", "randomized", 0).training().max_positions == cpu.max_positions  # the others: the table's
    assert cpu.run("copy", "rope", 0).train.max_positions == LMTrainConfig().max_positions  # unset: keys unchanged
    with pytest.raises(ValueError, match="coupling on copy shifts its ids below 112, past the id table's 111"):
        replace(cpu, max_positions=111).run("copy", "coupling", 0)
    assert replace(cpu, max_positions=112).run("copy", "coupling", 0).training().max_positions == 112  # fits exactly


def test_abacus_with_fire_embeds_the_coupled_ids_and_biases_by_order():
    import lengthgen.leaderboard.grid as grid
    from lengthgen.models.positional import FIRE, Learned, OrderFIRE

    assert grid.runs_on("abacus+fire", "addition") and not grid.runs_on("abacus+fire", "bucket_sort")
    cfg = LeaderboardRun(task="addition", mechanism="abacus+fire", seed=0, model=TINY, train=SHORT, tests=(7, 10),
                         eval_samples=8)
    task, model = build_run(cfg)
    parts = [type(part) for part in model.positional.parts]
    assert task.coupled and parts == [Learned, OrderFIRE] and issubclass(OrderFIRE, FIRE)
    assert cfg.training().positions == "offset"  # the Abacus paper's random offset of the digit places in training
    rows = run_leaderboard(cfg).metrics
    assert rows[rows.metric == ACCURACY].length.tolist() == [7, 10]
    for name, lengths in TASK_LENGTHS.items():  # order is each token's position: no task it runs on pads on the left
        if grid.runs_on("abacus+fire", name):
            coupled = grid.board_task(name, coupled=True)
            assert all(coupled.sample(8, n, torch.Generator().manual_seed(0)).mask is None
                       for n in (*lengths.train, lengths.tests[-1]))


def test_a_sizing_run_reads_its_course_at_the_longest_training_length_and_stops_where_it_fits(monkeypatch):
    import lengthgen.train.evaluate as evaluate

    cfg = LeaderboardRun(task="bucket_sort", mechanism="randomized", seed=0, model=TINY,
                         train=LMTrainConfig(steps=7, batch_size=8, warmup=1, min_length=1, max_length=40),
                         tests=(40, 50), eval_samples=8, course=2, course_samples=4)
    course = run_leaderboard(cfg).metrics.query(f"metric == '{COURSE}'")
    assert course.step.tolist() == [2, 4, 6, 7] and set(course.length) == {40}  # every 2 steps, and the last
    read = []

    def scripted(model, task, lengths, n, seed, metric, progress, randomize):
        read.append((tuple(lengths), n, seed, randomize))
        return pd.DataFrame({"length": list(lengths), "metric": metric, "value": [50.0, 95.0][len(read) > 1]})

    monkeypatch.setattr(evaluate, "answer_accuracy_by_length", scripted)
    stopped = run_leaderboard(replace(cfg, stop_fitted=True)).metrics
    assert stopped.query(f"metric == '{COURSE}'").step.tolist() == [2, 4]  # 95% >= 90% at step 4: no step 6
    assert read == [((40,), 4, 1, 256)] * 2 + [((40, 50), 8, 0, 256)]  # the course: not the test seed; ids
    # randomized as in training and in the tests (the last call)


def test_the_sparsity_papers_tasks_run_as_they_are_with_their_settings_and_ppc_where_ids_follow_the_input():
    import lengthgen.leaderboard.grid as grid
    from lengthgen.tasks.sparsity import ScratchpadParity, SparseParity, VariableAssignment

    parity, assignment = grid.board_task("sparse_parity"), grid.board_task("variable_assignment", coupled=True)
    assert isinstance(parity, SparseParity) and parity.max_k == 2
    assert isinstance(assignment, VariableAssignment) and assignment.format == "paper" and assignment.coupled
    assert not grid.board_task("scratchpad_parity").coupled and isinstance(grid.board_task("scratchpad_parity"),
                                                                          ScratchpadParity)
    with pytest.raises(LengthgenError, match="sparse_parity defines no coupled position ids"):
        grid.board_task("sparse_parity", coupled=True)
    assert grid.runs_on("ppc", "variable_assignment") and not grid.runs_on("coupling", "variable_assignment")
    assert grid.runs_on("coupling", "scratchpad_parity") and not grid.runs_on("ppc", "scratchpad_parity")
    assert not grid.runs_on("coupling", "sparse_parity") and not grid.runs_on("ppc", "copy")
    assert grid.runs_on("ppc", "recopy") and not grid.runs_on("coupling", "recopy")  # ReCopy's ids follow its digits
    wide = TransformerConfig(width=16, heads=2, layers=1, ff=32, max_positions=512)
    for task, mechanism, tests in (("variable_assignment", "ppc", (60, 100)), ("scratchpad_parity", "coupling",
                                                                              (20, 40)), ("sparse_parity", "rope",
                                                                                          (25, 50))):
        lengths = grid.TASK_LENGTHS[task].train
        cfg = LeaderboardRun(task=task, mechanism=mechanism, seed=0, model=wide, tests=tests, eval_samples=4,
                             train=LMTrainConfig(steps=2, batch_size=4, warmup=1, min_length=lengths[0],
                                                 max_length=lengths[1]))
        _, model = build_run(cfg)
        assert model.predicts_ids == (mechanism == "ppc")
        rows = run_leaderboard(cfg).metrics
        assert rows[rows.metric == ACCURACY].length.tolist() == list(tests)


def test_a_gru_mechanism_trains_monotonic_attentions_model_on_the_same_examples_as_every_other_mechanism():

    import lengthgen.leaderboard.grid as grid
    from lengthgen.models.gru_seq2seq import GRUSeq2Seq
    from lengthgen.seeding import generator
    from lengthgen.tasks import TASKS

    assert grid.runs_on("gru+mono", "reverse_copy") and not grid.runs_on("gru+mono", "sparse_parity")
    cfg = grid.LEADERBOARD_PROFILES["smoke"].run("copy", "gru+onestep", 0)
    assert cfg.gru.attention == "onestep" and grid.LEADERBOARD_PROFILES["smoke"].run("copy", "rope", 0).gru is None
    task, model = build_run(cfg)
    assert isinstance(model, GRUSeq2Seq) and task.name == "copy"
    rows = run_leaderboard(cfg).metrics
    assert rows[rows.metric == ACCURACY].length.tolist() == list(cfg.tests)
    # a test seed draws the same examples for a GRU (source, target) as for a decoder (prompt, answer)
    prompted = grid.board_task("copy").sample(5, 12, generator(0, "test/12"))
    gen = generator(0, "test/12")
    drawn = [TASKS["copy"]().draw(12, gen) for _ in range(5)]
    vocab = grid.board_task("copy").vocab
    assert [vocab.decode(row[13:]) for row in prompted.tokens.tolist()] == [list(t) for _, t in drawn]
    assert torch.equal(task.sample(5, 12, generator(0, "x")).src, task.sample(5, 12, generator(0, "x")).src)


def test_abc_retrains_the_encoder_decoder_with_the_bias_its_plain_cells_model_calibrates():

    import lengthgen.leaderboard.grid as grid
    from lengthgen.analysis.calibration import ABC_DIRECTIONS, PAPER, calibrated_table
    from lengthgen.models.positional import CLOSED, bias_table
    from lengthgen.models.transformer import EncoderDecoder
    from lengthgen.seeding import generator
    from lengthgen.train.loop import train

    assert grid.runs_on("abc", "reverse_copy") and grid.runs_on("encdec", "dedupe")
    assert not grid.runs_on("abc", "sparse_parity") and not grid.runs_on("encdec", "scratchpad_parity")
    smoke = grid.LEADERBOARD_PROFILES["smoke"]
    abc, plain = smoke.run("reverse_copy", "abc", 0), smoke.run("reverse_copy", "encdec", 0)
    task, model = build_run(abc)
    assert isinstance(model, EncoderDecoder) and model.cfg.positional == "sinusoidal+bias"
    assert not bias_table(model).table.any()  # open until calibrated
    share = grid.calibrate(abc, task, model)
    _, reference = build_run(plain)  # the encdec cell of the same seed, trained as that cell trains
    train(reference, task, plain.training(), generator(0, "train"))
    batch = grid.one_length(task, in_distribution("reverse_copy"), grid.ABC_SAMPLES, generator(0, "abc"))
    expected = calibrated_table(reference, batch, abc.model.max_positions, (PAPER, PAPER), ABC_DIRECTIONS)
    assert torch.equal(bias_table(model).table, expected.clamp(min=CLOSED))  # closed cells stored as CLOSED
    assert bool(torch.isinf(expected).any()) and bool((expected == 0).any())  # a bias that closes some cells
    assert share == grid.open_share(model, expected, batch.tgt.shape[1], batch.src.shape[1])
    assert EXPERIMENTS["leaderboard"].work(abc) == 2 * EXPERIMENTS["leaderboard"].work(plain)  # trained twice
    assert batch.src.shape[0] > 0 and bool((batch.tgt_len == batch.tgt_len[0]).all())


def test_abc_calibrates_scan_on_commands_of_one_length_among_those_of_its_action_count():
    import lengthgen.leaderboard.grid as grid
    from lengthgen.seeding import generator

    abc = grid.LEADERBOARD_PROFILES["smoke"].run("scan_length", "abc", 0)
    task, model = build_run(abc)
    batch = grid.one_length(task, in_distribution("scan_length"), 64, generator(0, "abc"))
    assert batch.src.shape[0] > 1 and bool((batch.src_len == batch.src_len[0]).all())  # one command length
    assert bool((batch.tgt_len == batch.tgt_len[0]).all())  # and one action count: the cells line up
    assert 0 < grid.calibrate(abc, task, model) <= 100  # runs through (it stopped the grid when commands differed)


def test_the_open_share_counts_the_first_cross_attention_layers_finite_cells_over_the_steps_and_source():
    import lengthgen.leaderboard.grid as grid
    from lengthgen.models.positional import windowed_table
    from lengthgen.models.transformer import EncoderDecoder

    model = EncoderDecoder(TransformerConfig(width=16, heads=2, layers=2, encoder_layers=1, ff=32,
                                             positional="sinusoidal+bias", max_positions=12), 14)
    table = windowed_table(2, 12, *model.decoder_layers, window=0).masked_fill(
        windowed_table(2, 12, *model.decoder_layers, window=0) != 0, float("-inf"))  # one key open per step
    assert grid.open_share(model, table, 4, 8) == 100 * 4 / 32  # 4 steps, one of 8 keys each
    table[model.decoder_layers[1].start, 1] = 0.0  # head 1 transparent: every cell open
    assert grid.open_share(model, table, 4, 8) == 100 * (4 + 32) / 64


def test_the_scaffold_runs_on_the_arithmetic_tasks_aligned_with_its_window_along_their_anti_diagonal():
    import lengthgen.leaderboard.grid as grid
    from lengthgen.models.positional import CLOSED, bias_table
    from lengthgen.seeding import generator

    assert [t for t in TASK_LENGTHS if grid.runs_on("scaffold", t)] == [
        "successor", "addition", "times_digit", "parity", "listops_sum", "listops_max", "listops_min"]
    cfg = LeaderboardRun(task="addition", mechanism="scaffold", seed=0, model=TINY, train=SHORT, tests=(7, 10),
                         eval_samples=8)
    task, model = build_run(cfg)
    assert task.aligned and task.draw(2, generator(0, "x"))[0][0] == "+"  # + a_3 b_3 a_2 b_2 a_1 b_1
    assert model.cfg.positional == "cyclic+bias" and model.cfg.period == 3
    self_layer, cross_layer = (next(iter(layers)) for layers in model.decoder_layers)
    table = bias_table(model).table
    open_keys = [(table[layer, 0, 3] > CLOSED).nonzero().flatten().tolist() for layer in (self_layer, cross_layer)]
    # step 3 reads itself and the step before; from the source's end, its digit pair (6, 7) and one token each side
    assert open_keys == [[2, 3], [5, 6, 7, 8]]
    assert run_leaderboard(cfg).metrics.query("metric == @ACCURACY").length.tolist() == [7, 10]
    with pytest.raises(LengthgenError, match="scaffold runs on an arithmetic task, not copy; valid: successor, "):
        build_run(replace(cfg, task="copy"))


@pytest.mark.parametrize("task", ["successor", "addition", "times_digit", "parity", "listops_sum"])
def test_the_scaffold_opens_each_answer_step_on_the_source_tokens_it_needs_and_one_each_side(task):

    from lengthgen.models.positional import CLOSED, bias_table
    from lengthgen.seeding import generator

    cfg = LeaderboardRun(task=task, mechanism="scaffold", seed=0, model=replace(TINY, layers=2), train=SHORT)
    board, model = build_run(cfg)
    source, target = board.draw(4, generator(0, "scaffold"))
    from_end = source[::-1]
    two = task in ("addition", "times_digit")  # interleaved: step t reads the pair 2t, 2t+1 from the end
    if two:  # the pair holds the step's digit of each operand (N x 1: the number's digit and the multiplier)
        assert all(from_end[2 * t].isdigit() and from_end[2 * t + 1].isdigit() for t in range(4))
    table = bias_table(model).table
    self_layers, cross_layers = model.decoder_layers
    assert not table[: self_layers.start].any()  # the encoder stays open, as the paper's
    assert bool((table == table[:, :1]).all())  # every head alike
    for t in range(len(target)):
        needed = [2 * t, 2 * t + 1] if two else [t]
        expected = [k for k in range(needed[0] - 1, needed[-1] + 2) if k >= 0]  # and one token each side
        for layer in cross_layers:
            assert (table[layer, 0, t] > CLOSED).nonzero().flatten().tolist() == expected
        for layer in self_layers:
            assert (table[layer, 0, t] > CLOSED).nonzero().flatten().tolist() == [k for k in (t - 1, t) if k >= 0]
    assert torch.equal(table[cross_layers.start], table[cross_layers.stop - 1])


def test_a_task_trains_for_its_own_steps_where_the_profile_names_them():
    sizes = replace(LEADERBOARD_PROFILES["quick"], task_steps=(("reverse_copy", 6_000),))
    copy, reverse = sizes.run("copy", "rope", 0), sizes.run("reverse_copy", "rope", 0)
    assert (copy.train.steps, copy.train.warmup) == (2_000, 100)  # the profile's steps, a twentieth to warm up
    assert (reverse.train.steps, reverse.train.warmup) == (6_000, 300)
    with pytest.raises(ValueError, match="'addition'"):
        replace(sizes, task_steps=(("addition", 1_000),))  # not a task of the profile: a typo, not a budget


def test_scan_runs_on_the_board_by_action_count_for_the_decoder_and_the_gru():
    import lengthgen.leaderboard.grid as grid

    assert grid.runs_on("gru+locattn", "scan_length") and grid.runs_on("encdec", "scan_length")
    assert not grid.runs_on("coupling", "scan_length")  # SCAN couples no ids
    for mechanism in ("rope", "gru+content"):
        sizes = grid.LeaderboardSizes(tasks=("scan_length",), mechanisms=(mechanism,), width=16, heads=2, layers=1,
                                      steps=2, batch=4, lr=1e-3, samples=4, seeds=(0,), max_positions=256, longest=24)
        cfg = sizes.run("scan_length", mechanism, 0)
        rows = run_leaderboard(cfg).metrics
        assert rows[rows.metric == ACCURACY].length.tolist() == [22, 24]  # actions: the split's two sides


def test_a_grid_still_running_is_read_a_whole_cell_at_a_time():
    from lengthgen.leaderboard.grid import complete_cells, grid_progress

    def run(task, variant, seed):
        return {"task": task, "variant": variant, "seed": seed, "key": f"{task}{variant}{seed}", "length": 10,
                "metric": ACCURACY, "value": 90.0}

    runs = pd.DataFrame([run("copy", "rope", s) for s in (0, 1, 2)] + [run("copy", "nope", s) for s in (0, 2)]
                        + [run("recopy", "rope", s) for s in (2, 1, 0, 5)])
    whole = complete_cells(runs, (0, 1, 2))
    assert sorted(set(zip(whole.task, whole.variant, strict=True))) == [("copy", "rope"), ("recopy", "rope")]
    assert len(whole) == 6 and set(whole.seed) == {0, 1, 2}  # another seed neither makes a cell whole nor comes along
    configs = [LEADERBOARD_PROFILES["quick"].run(t, m, s) for t in ("copy", "recopy") for m in ("rope", "nope")
               for s in (0, 1, 2)]
    assert grid_progress(runs, configs, (0, 1, 2)) == (
        "9 of the grid's 12 runs are stored: 2 of its 4 cells hold all 3 seeds")
    assert grid_progress(runs.iloc[:0], configs, (0, 1, 2)).startswith("0 of the grid's 12 runs are stored: 0 of")


def test_rows_added_beside_the_grid_are_every_unlisted_mechanism_ranked_among_the_grids_cells():
    from lengthgen.leaderboard.grid import MECHANISMS, added_board, added_configs, scored

    cpu = LEADERBOARD_PROFILES["cpu"]
    added = added_configs("cpu")
    assert {c.mechanism for c in added} == {m for m in MECHANISMS if m not in cpu.mechanisms} >= {"t5", "pose"}
    assert {c.seed for c in added} == set(cpu.seeds) and {c.task for c in added} <= set(cpu.tasks)

    def cell(variant, beyond):  # copy: trained on up to 10, 100% there; per seed, `beyond` at 20
        return [{"task": "copy", "variant": variant, "seed": s, "length": n, "metric": ACCURACY, "value": v}
                for s, b in enumerate(beyond) for n, v in ((10, 100.0), (20, b))]

    grid_runs = pd.DataFrame(cell("rope", [10, 11, 12]) + cell("alibi", [50, 60, 70]))
    board = added_board(grid_runs, pd.DataFrame(cell("t5", [30, 31, 32]) + cell("pose", [80, 85, 90])))
    assert dict(zip(board.variant, board["rank"], strict=True)) == {"pose": 1, "t5": 3}  # behind pose and alibi
    assert scored(grid_runs).set_index("variant")["rank"].to_dict() == {"alibi": 1, "rope": 2}  # the grid's own


def test_a_mechanisms_parameters_are_its_models_own():
    from lengthgen.leaderboard.grid import parameters

    grid = LEADERBOARD_PROFILES["cpu"]
    nope, rope, learned = (parameters(m, grid, "copy") for m in ("nope", "rope", "learned"))
    assert rope == nope and learned - nope == grid.max_positions * grid.width  # RoPE adds none; learned, its table
    assert parameters("rope+ln", grid, "copy") - nope == 2 * grid.layers * grid.width  # a LayerNorm per attention
    assert parameters("gru+content", grid, "copy") != nope  # the GRU has its own size


def test_abc_calibrates_copy_from_the_sources_start_where_its_cells_lie_on_one_diagonal_at_every_length():
    from lengthgen.analysis.calibration import ABC_DIRECTIONS, PAPER, calibrate

    def copy_cells(length: int, frame: str) -> list[tuple[int, int]]:  # answer step t reads source token t
        return [(t, length - 1 - t if frame == "end" else t) for t in range(length)]

    for frame, opened in (("end", [(0, 9), (9, 0)]), ("start", copy_cells(10, "start"))):
        attention = torch.zeros(1, 10, 10)
        for t, key in copy_cells(10, frame):
            attention[0, t, key] = 1.0
        bias = calibrate(attention, (12, 12), PAPER, ABC_DIRECTIONS[1])[0]
        assert [cell for cell in copy_cells(10, frame) if bias[cell] == 0] == opened
        # at 5 tokens, from the end every cell copy reads is closed (an anti-diagonal that moves with the length);
        # from the start every one is open (the diagonal through (0, 0))
        assert all(bias[cell] == (0 if frame == "start" else float("-inf")) for cell in copy_cells(5, frame))
    cfg = {(t, m): LEADERBOARD_PROFILES["cpu"].run(t, m, 0).model.memory_from
           for t in ("copy", "recopy", "reverse_copy", "successor") for m in ("abc", "encdec")}
    assert cfg == {("copy", "abc"): "start", ("recopy", "abc"): "start", ("reverse_copy", "abc"): "end",
                   ("successor", "abc"): "end", **{(t, "encdec"): "end" for t in ("copy", "recopy", "reverse_copy",
                                                                                  "successor")}}
