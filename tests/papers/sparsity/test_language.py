"""The sparsity chapter's language study (papers/sparsity/language.py): tidy rows and profiles."""

import pandas as pd

from lengthgen.papers.sparsity.language import LANGUAGE_PROFILES, influence_rows


def test_influence_rows_are_tidy():
    rows = influence_rows(pd.DataFrame({"example": [0, 1], "full": [1.0, 2.0], "recent+2": [3.0, 4.0]}), 128)
    assert set(rows.metric) == {"nll full", "nll recent+2"} and set(rows.length) == {128}
    assert rows[(rows.example == 1) & (rows.metric == "nll recent+2")].value.item() == 4.0


def test_profiles_pair_a_short_pose_model_with_a_long_one():
    for name, p in LANGUAGE_PROFILES.items():
        cfg = p.run(0)
        assert cfg.short.positions == "pose" and cfg.short.pose_length == cfg.long.max_length == p.long, name
        assert cfg.long.positions == "given" and cfg.short.max_length == cfg.recent == p.short, name
        assert cfg.name("short") == f"context {p.short} + PoSE" and cfg.name("long") == f"context {p.long}"


def test_the_regime_reads_long_documents_without_crossing_them():
    regime, cpu = LANGUAGE_PROFILES["regime"].run(0), LANGUAGE_PROFILES["cpu"].run(0)
    assert (regime.corpus.source, regime.corpus.windows) == ("code", "documents")
    assert (cpu.corpus.source, cpu.corpus.windows) == ("docs", "stream")  # the first study's, as stored
    assert regime.model == cpu.model and regime.short.steps == 5 * cpu.short.steps
    assert regime.short.pose_from == cpu.short.pose_from == 0.7  # PoSE for the last 30%, as the paper


def test_the_short_model_s_pose_split_follows_its_profile():
    from dataclasses import replace

    regime = LANGUAGE_PROFILES["regime"]
    assert regime.pose_split() == (7_000, 3_000)  # the last 30% of 10,000 steps
    assert replace(regime, pose_steps=15_000).pose_split() == (7_000, 15_000)  # the paper's PoSE steps after 70%
