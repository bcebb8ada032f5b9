"""The attention-bias-calibration experiments: configs, their refusals, a smoke run end to end (ABC included),
determinism and checkpoints."""

from dataclasses import replace

import pytest
import torch

from lengthgen.config import config_dict, config_key, from_dict
from lengthgen.data import collate
from lengthgen.metrics import ACCURACY
from lengthgen.models.positional import CLOSED, bias_table
from lengthgen.models.transformer import TransformerConfig
from lengthgen.papers.abc.experiments import (
    ABC_EXPERIMENTS,
    ABC_MODELS,
    ARITHMETIC_PROFILES,
    ArithmeticRun,
    build_arithmetic,
    run_arithmetic,
    scaffolding_configs,
    table1_configs,
    variant,
)
from lengthgen.papers.abc.paper import LISTOPS_TASKS

EXPERIMENTS = {e.name: e for e in ABC_EXPERIMENTS}


def test_variants_and_round_trips():
    table1, scaffolding = (EXPERIMENTS[n].configs_for("full") for n in ("abc-table1", "abc-scaffolding"))
    assert [variant(c) for c in table1[:3]] == ["vanilla", "ALiBi", "RoPE"] and table1[0].abc == ABC_MODELS
    assert {variant(c) for c in scaffolding} == {"w=1, sinusoidal, aligned", "w=1, T=3, aligned", "w=1, NoPE, aligned"}
    for cfg in table1 + scaffolding:
        assert from_dict(ArithmeticRun, config_dict(cfg)) == cfg
    assert table1[0].model.layers == 6 and table1[0].model.encoder_layers == 1 and table1[0].model.post_ln
    m = table1[0].model  # the public code's dropout, everywhere its torch layers have it, and its embeddings
    assert (m.dropout, m.attention_dropout, m.ff_dropout) == (0.3, 0.3, 0.3) and m.embed_init == "xavier"
    cpu = EXPERIMENTS["abc-table1"].configs_for("cpu")[0].model
    assert (cpu.dropout, cpu.attention_dropout, cpu.ff_dropout) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("profile, longest", [("cpu", 24), ("regime", 50)])
def test_the_balanced_grid_changes_only_the_mix_and_the_lengths_of_listops_sum(profile, longest):
    stock = [c for c in EXPERIMENTS["abc-scaffolding"].configs_for(profile) if c.task == "listops_sum"]
    balanced = EXPERIMENTS["abc-balanced"].configs_for(profile)
    assert [c.seed for c in balanced] == [c.seed for c in stock] == [0, 1, 2]
    for mine, theirs in zip(balanced, stock, strict=True):
        assert mine.task == "listops_sum_balanced" and mine.eval_lengths == tuple(range(3, longest + 1))
        assert replace(mine, task=theirs.task, eval_lengths=theirs.eval_lengths) == theirs
    assert EXPERIMENTS["abc-balanced"].configs_for("smoke")[0].operand_width is None  # unpadded in every profile


def test_the_regime_is_the_factor_studys_regime_at_the_papers_width_and_columns():
    """regime = cpu's model with the two factors that helped (dropout 0.3 everywhere, Xavier embeddings; masks by
    bits), the factor study's model otherwise, operands padded to 51 and tested at the paper's columns; Addition and
    N x 1 as their sizing runs fitted (no dropout)."""
    from lengthgen.papers.abc.factors import FACTOR_PROFILES
    from lengthgen.papers.abc.paper import LENGTHS

    regime = EXPERIMENTS["abc-table1"].configs_for("regime", seeds=(0,))
    vanilla = next(c for c in regime if c.task == "successor" and variant(c) == "vanilla")
    m = vanilla.model
    assert (m.dropout, m.attention_dropout, m.ff_dropout, m.embed_init, m.dropout_mask) == (
        0.3, 0.3, 0.3, "xavier", "bits")
    studied = FACTOR_PROFILES["cpu"].run("dropout+xavier", 0).arithmetic
    assert vanilla.model == replace(studied.model, dropout_mask="bits") and vanilla.train == studied.train
    assert (vanilla.retrain_steps, vanilla.abc_samples, vanilla.retrain_warmup) == (
        studied.retrain_steps, studied.abc_samples, studied.retrain_warmup)
    assert vanilla.operand_width == 51 and set(LENGTHS) <= set(vanilla.eval_lengths) and vanilla.eval_samples >= 500
    assert {c.seed for c in EXPERIMENTS["abc-scaffolding"].configs_for("regime")} == {0, 1, 2}
    # Addition and N x 1: the recipe of the sizing runs where they fitted (no dropout), at their budgets
    for task, factor in (("addition", "xavier"), ("times_digit", "xavier+budget")):
        sized = FACTOR_PROFILES["cpu"].run(factor, 0, task).arithmetic
        grid = next(c for c in regime if c.task == task and variant(c) == "vanilla")
        assert grid.model == replace(sized.model, dropout_mask="bits") and grid.model.dropout == 0.0, task
        assert (grid.train, grid.retrain_steps, grid.retrain_warmup) == (
            sized.train, sized.retrain_steps, sized.retrain_warmup), task


@pytest.mark.parametrize("profile", ["quick", "cpu", "regime", "full"])
def test_every_table1_model_reads_the_source_in_order(profile):
    """Cross-attention sees no rotation and no ALiBi bias, only what the encoder outputs: a model must embed the
    source's positions, or the reversed source's encoding is the source's, reversed (a bag of tokens to the decoder,
    from which no arithmetic task can be learned)."""
    for cfg in EXPERIMENTS["abc-table1"].configs_for(profile, seeds=(0,)):
        task, models = build_arithmetic(cfg)
        model = models["trained"].eval()
        source, target = task.examples("train", 1)[0]
        assert source != source[::-1]
        batch = collate([(source, target), (source[::-1], target)], task.vocab)  # the same tokens, reversed
        with torch.no_grad():
            memory = model.encode(batch)[0]
        assert (memory[1] - memory[0].flip(0)).abs().max() > 0.1, variant(cfg)


def test_a_task_with_its_own_sizes_leaves_the_other_tasks_configs_as_they_were():
    sizes = replace(ARITHMETIC_PROFILES["smoke"], per_task={})
    costly = replace(sizes, per_task={"addition": {"steps": 300, "retrain_steps": 40},
                                      "successor": {"operand_width": 12, "eval_lengths": (3, 11)}})
    assert costly.budget("addition") == (300, 40) and costly.budget("successor") == (sizes.steps, sizes.retrain_steps)
    added = costly.run("addition", "sinusoidal", 0)
    assert (added.train.steps, added.train.warmup, added.retrain_steps) == (300, 15, 40)
    assert (added.operand_width, added.eval_lengths) == (sizes.operand_width, sizes.eval_lengths)
    wider = costly.run("successor", "sinusoidal", 0)
    assert (wider.operand_width, wider.eval_lengths) == (12, (3, 11)) and costly.ends("successor") == (3, 11)
    assert wider.train == sizes.run("successor", "sinusoidal", 0).train
    assert replace(costly, per_task={"addition": costly.per_task["addition"]}).run("successor", "sinusoidal", 0) == \
        sizes.run("successor", "sinusoidal", 0)  # same key
    assert costly.budget_text() == (f"{sizes.steps:,} steps (ABC: {sizes.retrain_steps:,} more per model); "
                                    "addition 300 (40)")
    assert costly.width_text() == f"{sizes.operand_width} digits (tests to 8); successor 12 (to 11)"


def test_table1_runs_on_the_papers_table1_tasks_only():
    for profile in ("cpu", "regime", "full"):
        assert {c.task for c in table1_configs(profile, (0,))} == {"successor", "addition", "times_digit"}
        scaffolds = scaffolding_configs(profile, (0,))
        assert {c.task for c in scaffolds} == {"successor", "addition", "parity", "times_digit", *LISTOPS_TASKS}
        listops = [c for c in scaffolds if c.task in LISTOPS_TASKS]  # Appendix C: unpadded, the T = 3 scaffold only
        assert [(c.task, variant(c), c.operand_width) for c in listops] == [
            (task, "w=1, T=3, aligned", None) for task in LISTOPS_TASKS]


def test_bad_configs_are_refused():
    with pytest.raises(ValueError, match="unknown ABC model 'paperish'; valid: paper, code, public, paper-sums, "
                                         "code-flat, code-layers, paper/nope, code/nope, public/nope"):
        ArithmeticRun(abc=("paperish",))
    with pytest.raises(ValueError, match="a bias table and a window go together"):
        ArithmeticRun(window=1)
    with pytest.raises(ValueError, match="ABC calibrates a model without a bias of its own"):
        ArithmeticRun(window=1, abc=("paper",), model=TransformerConfig(positional="cyclic+bias"))
    with pytest.raises(ValueError, match="addition at length 50 has 103 source tokens, beyond the model's 64"):
        ArithmeticRun(task="addition", eval_lengths=(50,), model=TransformerConfig(max_positions=64))


def test_the_scaffolding_model_carries_its_window():
    cfg = EXPERIMENTS["abc-scaffolding"].configs_for("smoke")[3]  # addition, aligned: two source tokens per digit
    assert cfg.task == "addition" and cfg.aligned
    _, models = build_arithmetic(cfg)
    table = bias_table(models["trained"]).table  # layers: decoder self 0, cross 1 (no encoder layer)
    assert table[0, 0, 3, 3] == 0 and table[0, 0, 3, 4] == CLOSED  # self: the diagonal and w = 1 before it
    assert table[1, 0, 3, :].eq(0).nonzero().flatten().tolist() == [4, 5, 6, 7, 8, 9]  # cross: 2(t-1) .. 2(t+1)+1
    _, models = build_arithmetic(replace(cfg, window_span="tokens"))  # the paper's: w = 1 token on each side
    assert bias_table(models["trained"]).table[1, 0, 3, :].eq(0).nonzero().flatten().tolist() == [5, 6, 7, 8]
    with pytest.raises(ValueError, match="unknown window span 'pairs'; valid: strides, tokens"):
        replace(cfg, window_span="pairs")


@pytest.mark.parametrize(("markers", "offset", "opened"), [(False, None, [0, 1]), (True, None, [0, 1, 2]),
                                                         (True, 0, [0, 1])])
def test_the_window_of_the_first_step_holds_the_units_digit_and_the_one_key_after_the_window_offset(markers, offset,
                                                                                                       opened):
    cfg = replace(EXPERIMENTS["abc-scaffolding"].configs_for("smoke")[0], markers=markers, window_offset=offset)
    assert cfg.task == "successor" and cfg.window == 1
    _, models = build_arithmetic(cfg)
    step0 = bias_table(models["trained"]).table[1, 0, 0, :]  # cross keys from the source's end: <eos> is 0 with markers
    assert step0.eq(0).nonzero().flatten().tolist() == opened  # w = 1: keys (t - 1) .. (t + 1) moved by the offset


def test_the_regime_scaffold_without_positions_alone_writes_markers_its_window_one_digit_back():
    formats = {(c.task, c.model.positional): (c.markers, c.window_offset)
               for c in EXPERIMENTS["abc-scaffolding"].configs_for("regime", seeds=(0,))}
    assert formats[("successor", "none+bias")] == formats[("parity", "none+bias")] == (True, 0)  # <eos> is key 0
    assert formats[("addition", "none+bias")] == formats[("times_digit", "none+bias")] == (True, -1)  # two per digit
    assert {f for (_, positional), f in formats.items() if positional != "none+bias"} == {(False, None)}
    assert {(c.markers, c.window_offset) for c in EXPERIMENTS["abc-scaffolding"].configs_for("cpu")} == {(False, None)}


def test_the_regime_opens_the_papers_window_on_interleaved_operands_for_the_scaffolds_with_positions():
    spans = {(c.task, c.model.positional): c.window_span
             for c in EXPERIMENTS["abc-scaffolding"].configs_for("regime", seeds=(0,))}
    binary = {k: v for k, v in spans.items() if k[0] in ("addition", "times_digit")}
    assert {k for k, v in binary.items() if v == "tokens"} == {
        (task, p) for task in ("addition", "times_digit") for p in ("sinusoidal+bias", "cyclic+bias")}
    assert set(spans.values()) - {"tokens"} == {"strides"}  # unary tasks and the scaffold without positions
    assert {c.window_span for c in EXPERIMENTS["abc-scaffolding"].configs_for("cpu")} == {"strides"}
    assert config_key(replace(ArithmeticRun(), window_span="strides")) == config_key(ArithmeticRun())  # keys kept


def test_a_smoke_run_tests_the_trained_model_and_both_abc_models_and_is_deterministic():
    cfg = EXPERIMENTS["abc-table1"].configs_for("smoke")[0]
    first, again = run_arithmetic(cfg), run_arithmetic(cfg)
    rows = first.metrics
    acc = rows[rows.metric == ACCURACY]
    assert list(dict.fromkeys(acc.stage)) == ["trained", "ABC (paper)", "ABC (code)", "ABC (paper, NoPE)",
                                              "ABC (code, NoPE)"]
    assert acc.groupby("stage").length.apply(list).to_dict() == {s: [1, 3, 8] for s in acc.stage.unique()}
    assert acc.value.between(0, 100).all() and rows.equals(again.metrics)
    mass = rows[rows.metric.str.startswith("anti_diagonal:")]  # weights of one head's cell: in [0, 1]
    measured = set(zip(mass.stage, mass.length, mass.metric, strict=True))
    assert measured >= {("trained", 8, "anti_diagonal:beyond"), ("ABC (code)", 1, "anti_diagonal:inside")}
    beyond = mass[mass.metric == "anti_diagonal:beyond"]
    assert mass.value.between(0, 1).all() and set(beyond.length) == {8}  # 1 and 3 digits: no step beyond 7
    _, models = build_arithmetic(cfg)
    models.load_state_dict(first.checkpoint)  # the checkpoint restores every model, bias tables included
    assert bias_table(models["abc_paper"]).table.ne(0).any()  # a calibrated table, not the empty one built
    # the same bias with and without positions: the NoPE model differs only in its scheme
    assert bias_table(models["abc_code_nope"]).table.equal(bias_table(models["abc_code"]).table)
    assert [models[k].cfg.positional for k in ("trained", "abc_code", "abc_code_nope")] == [
        "sinusoidal", "sinusoidal+bias", "none+bias"]
    assert replace(cfg, abc=()).stages() == {"trained": "trained"}


def test_the_third_direction_count_is_the_cells_where_the_two_calibrations_differ(monkeypatch):
    from lengthgen.analysis.calibration import ABC_DIRECTIONS, average_attention, calibrate
    from lengthgen.papers.abc import experiments
    from lengthgen.papers.abc.experiments import ABC_RULES, one_length_batch, third_direction
    from lengthgen.seeding import generator

    cfg = EXPERIMENTS["abc-table1"].configs_for("smoke")[0]
    task, models = build_arithmetic(cfg)
    models.load_state_dict(run_arithmetic(cfg).checkpoint)
    counts = third_direction(cfg, models["trained"], task, 8)
    heads = cfg.model.heads
    assert counts.rule.tolist() == ["paper"] * heads + ["code"] * heads  # each rule of cfg.abc once, NoPE or not
    source, target = task.examples("8", 1)[0]
    assert (counts["of"] == len(source) * len(target)).all()
    batch, rows = one_length_batch(task, cfg.abc_samples, generator(cfg.seed, "abc"))
    cross = average_attention(models["trained"], batch)["cross"][:, :rows]
    size = (cfg.model.max_positions,) * 2
    for rule, part in counts.groupby("rule", sort=False):
        two, three = (calibrate(cross, size, ABC_RULES[rule][1], d)[:, :len(target), :len(source)]
                      for d in (ABC_DIRECTIONS[1], (*ABC_DIRECTIONS[1], "anti-diagonal")))
        assert part.cells.tolist() == (two != three).sum((-2, -1)).tolist()

    def fake(model, batch, size, rules, directions, rows):  # head h: h + 1 cells of its cross-attention differ
        table = torch.zeros(len(model.decoder.blocks) * 2, heads, size, size)
        if "anti-diagonal" in directions[1]:
            table[:, :, -1] = 5.0  # the last row: beyond an 8-digit test's steps, not counted
            for h in range(heads):
                table[model.decoder_layers[1], h, 0, : h + 1] = 1.0
            table[model.decoder_layers[0]] = 7.0  # self-attention: not counted
        return table

    monkeypatch.setattr(experiments, "calibrated_table", fake)
    assert third_direction(cfg, models["trained"], task, 8).cells.tolist() == [1, 2] * 2


def test_the_recipe_table_reads_each_profile_and_names_the_tasks_that_differ():
    from lengthgen.papers.abc.experiments import ARITHMETIC_PROFILES, recipe, recipe_section
    from lengthgen.papers.abc.paper import PUBLIC_CODE_RECIPE

    table = recipe(PUBLIC_CODE_RECIPE).set_index("setting")
    assert list(table.columns) == ["cpu", "regime", "full", "public code"]
    assert table.loc["training steps", "cpu"] == "3,000; addition: 30,000"
    assert table.loc["training steps", "regime"] == "3,000; addition: 30,000; times_digit: 7,500"
    assert table.loc["dropout", "regime"] == "0.3; addition, times_digit: 0"
    assert table.loc["operands padded to", "regime"] == "51; ListOps: unpadded"
    assert table.loc["learning rate schedule", "cpu"] == "linear warm-up over 5% of the steps, then linear decay to 0"
    assert table.loc["optimiser", "cpu"] == "AdamW 0.001, betas (0.9, 0.999), eps 1e-08"
    assert table.loc["batch", "public code"] == "512" and table.loc["seeds", "public code"] == ""
    window = table.loc["scaffold window, two operands"]
    assert window["cpu"] == "w operand pairs on each side"
    assert window["full"] == "w tokens on each side (the paper's A.4)"
    assert window["regime"].startswith(window["full"] + "; without positions: its source between markers")
    regime = ARITHMETIC_PROFILES["regime"]
    assert table.loc["model", "regime"] == (f"{regime.encoder_layers} encoder + {regime.layers} decoder layers, "
                                            f"width {regime.width}, {regime.heads} heads, FF {4 * regime.width}")
    assert "| ABC retraining |" in recipe_section(PUBLIC_CODE_RECIPE)
