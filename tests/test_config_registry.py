from dataclasses import replace

import pytest

from lengthgen import config
from lengthgen.errors import LengthgenError
from lengthgen.papers import EXPERIMENTS
from lengthgen.papers.vv.experiments import ProbeRun
from lengthgen.registry import Registry
from lengthgen.seeding import parse_seeds, seeds_text
from lengthgen.train.loop import TrainConfig


def test_key_is_stable_and_sensitive_to_result_fields_only():
    cfg = ProbeRun(task="argmax", seed=0)
    assert config.config_key(cfg) == config.config_key(ProbeRun(task="argmax", seed=0))
    assert config.config_key(cfg) != config.config_key(replace(cfg, seed=1))
    assert config.config_key(cfg) != config.config_key(replace(cfg, train=TrainConfig(steps=10)))
    assert config.config_key(cfg) == config.config_key(replace(cfg, progress=True))  # display only
    assert config.config_key(cfg) == config.config_key(replace(cfg, train=TrainConfig(progress=False)))


def test_key_changes_with_cache_version(monkeypatch):
    cfg = ProbeRun(task="argmax", seed=0)
    before = config.config_key(cfg)
    monkeypatch.setattr(config, "CACHE_VERSION", config.CACHE_VERSION + 1)
    assert config.config_key(cfg) != before


def test_configs_are_frozen_and_hashable():
    cfg = ProbeRun(task="argmax", seed=0)
    assert hash(cfg) == hash(ProbeRun(task="argmax", seed=0))
    with pytest.raises(AttributeError):
        cfg.seed = 3


def test_registry_error_names_valid_entries():
    reg = Registry("widget", {"a": 1, "b": 2})
    assert reg["a"] == 1 and list(reg) == ["a", "b"] and len(reg) == 2
    with pytest.raises(LengthgenError, match=r"unknown widget 'c'; valid: a, b"):
        reg["c"]


@pytest.mark.parametrize("text,seeds", [("0-4", (0, 1, 2, 3, 4)), ("1,3,7", (1, 3, 7)), ("5", (5,)),
                                        ("2-3,3,9", (2, 3, 9))])
def test_parse_seeds(text, seeds):
    assert parse_seeds(text) == seeds


@pytest.mark.parametrize("seeds,text", [([5], "seed 5"), ([3, 1], "seeds 1, 3"), ([4, 5], "seeds 4, 5"),
                                        ([*range(20), 23, 21, 25, 26, 27, 30], "seeds 0-19, 21, 23, 25-27, 30"),
                                        ([], "no seeds")])
def test_seeds_text_writes_ranges_that_parse_seeds_reads_back(seeds, text):
    assert seeds_text(seeds) == text
    if seeds:
        assert parse_seeds(text.split(" ", 1)[1]) == tuple(sorted(seeds))


@pytest.mark.parametrize("text", ["x", "4-2", "-1", "1,,2", ""])
def test_parse_seeds_rejects(text):
    with pytest.raises(LengthgenError, match="bad seeds"):
        parse_seeds(text)


def test_profiles_pair_variants_by_seed():
    configs = EXPERIMENTS["vv-retrieval"].configs_for("cpu")
    assert len(configs) == 2 * 20 * 3
    for task in ("argmax", "dictionary"):
        for seed in range(20):
            norms = {c.model.norm for c in configs if c.task == task and c.seed == seed}
            assert norms == {"baseline", "ln", "std"}
    with pytest.raises(LengthgenError, match="valid: smoke, cpu"):
        EXPERIMENTS["vv-factors"].configs_for("quick")


def test_table7_declares_three_seeds_and_its_own_quick_budget_only():
    """mla-variants overrides the full profile's seeds (3, every cell) and the quick profile's size; the other MLA
    grids keep the full profile's 5 seeds, and the override reaches no profile it does not name."""
    variants = EXPERIMENTS["mla-variants"].configs_for("full")
    assert len(variants) == 12 * 8 * 3
    cells = {(c.task, c.model.attention) for c in variants}
    assert all({c.seed for c in variants if (c.task, c.model.attention) == cell} == {0, 1, 2} for cell in cells)
    assert {c.seed for c in EXPERIMENTS["mla-main"].configs_for("full")} == {0, 1, 2, 3, 4}
    assert {c.train_size for c in EXPERIMENTS["mla-variants"].configs_for("quick")} == {1000}
    assert {c.train_size for c in EXPERIMENTS["mla-ablations"].configs_for("quick")} == {1000}
    assert {c.train_size for c in EXPERIMENTS["mla-main"].configs_for("quick")} == {2000}
    assert {c.seed for c in EXPERIMENTS["mla-variants"].configs_for("full", (4,))} == {4}


def test_registry_membership_is_a_plain_answer():
    reg = Registry("widget", {"a": 1})
    assert "a" in reg and "z" not in reg


def test_from_dict_rebuilds_a_stored_config_and_refuses_an_earlier_generation():
    from lengthgen.config import config_dict, from_dict
    from lengthgen.papers.mla.experiments import Seq2SeqRun

    cfg = Seq2SeqRun(task="copy", seed=3, eval_splits=("iid", "100"))
    data = config_dict(cfg)
    assert from_dict(Seq2SeqRun, data) == cfg  # nested configs and tuples come back
    older = {**data, "train": {k: v for k, v in data["train"].items() if k != "tie"}}
    with pytest.raises(TypeError, match="tie"):
        from_dict(Seq2SeqRun, older)  # a result field added since: not this generation, even with a default
    no_flag = {k: v for k, v in data.items() if k != "progress"}
    assert from_dict(Seq2SeqRun, no_flag) == cfg  # a field that does not affect results may be absent


def test_an_added_field_keeps_earlier_keys_until_it_is_set():
    from dataclasses import dataclass

    from lengthgen.config import added, config_dict, config_key, from_dict

    @dataclass(frozen=True)
    class Before:
        a: int = 1

    @dataclass(frozen=True)
    class After:
        a: int = 1
        b: float = added(0.0)

    Before.__name__ = After.__name__ = "Run"  # two generations of one config type (its name is part of the key)
    assert config_key(After()) == config_key(Before()) and from_dict(After, config_dict(Before())) == After()
    assert config_key(After(b=0.3)) != config_key(Before())
    assert from_dict(After, config_dict(After(b=0.3))) == After(b=0.3)
