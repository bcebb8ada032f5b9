"""Pinned numerics: refactors must not change what any experiment computes, nor the keys of stored runs.

`smoke_pins.json` holds, for every smoke-profile config of every experiment, its key and every metric (and training
history value) it produced when the pins were written. A change that alters any of them beyond a relative 1e-4 fails
here: then either the change is wrong, or it alters numerics on purpose, which needs a `CACHE_VERSION` bump (and
invalidates the stored runs). The tolerance is for the CPU, not for refactors: the same code and torch 2.13 give
losses and gate means that differ by up to 8e-6 (relative) between two machines of ours whose float32 kernels
differ (measured 2026-11-25: the pins were rewritten then, on the machine CI runs on, after one smoke run's
edit distance at length 15 moved from 14.5625 to 14.625, one token of a near tie; nothing else discrete moved).
A real change of numerics moves them by orders of magnitude more. Regenerate only then:
`python tests/test_pinned_results.py`.
"""

import json
from pathlib import Path

import pytest
import torch

from lengthgen.config import config_key, from_dict
from lengthgen.experiments import EXPERIMENTS
from lengthgen.results.store import RunOutput

PINS = Path(__file__).parent / "data" / "smoke_pins.json"
STORED = Path(__file__).parent.parent / "results"


def smoke_values(name: str) -> dict[str, dict[str, float]]:
    """key -> {"<extra columns>/<length>/<metric>" or "history/<column>/<row>": value} for every smoke config of an
    experiment (extra columns: those a run adds to length, metric and value, e.g. the language study's lm)."""
    exp, out = EXPERIMENTS[name], {}
    for cfg in exp.configs_for("smoke"):
        result = exp.run(cfg)
        result = result if isinstance(result, RunOutput) else RunOutput(result)
        extra = [c for c in result.metrics.columns if c not in ("length", "metric", "value")]  # e.g. lm, example
        values = {"/".join(str(v) for v in (*(getattr(r, c) for c in extra), r.length, r.metric)): float(r.value)
                  for r in result.metrics.itertuples()}
        if result.history is not None:
            values |= {f"history/{col}/{i}": float(v) for col in result.history.columns
                       for i, v in enumerate(result.history[col])}
        out[config_key(cfg)] = values
    return out


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_smoke_runs_compute_exactly_the_pinned_metrics(name):
    pinned, values = json.loads(PINS.read_text())[name], smoke_values(name)
    assert {k: sorted(v) for k, v in values.items()} == {k: sorted(v) for k, v in pinned.items()}
    assert values == {k: pytest.approx(v, rel=1e-4, abs=1e-7) for k, v in pinned.items()}


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_every_stored_run_of_the_current_code_keeps_its_key(name):
    """Every committed entry whose config the current code can still build hashes to its own folder name; only
    entries of earlier generations (fields since added, an older model revision) cannot be built."""
    config_type = type(EXPERIMENTS[name].configs_for("smoke")[0])
    built = 0
    for path in sorted((STORED / name).glob("*/config.json")):
        try:
            cfg = from_dict(config_type, json.loads(path.read_text()))
        except (TypeError, ValueError):
            continue  # an earlier generation's config
        assert config_key(cfg) == path.parent.name
        built += 1
    assert built >= MIN_BUILT.get(name, 0)


# Entries of the current generation committed when the pins were written (more may be stored since, never fewer).
MIN_BUILT = {"vv-retrieval": 120, "vv-curriculum": 20, "vv-factors": 80, "mla-main": 71, "mla-ablations": 36,
             "mla-extra": 4, "mla-scan": 18, "sparsity-parity": 12, "sparsity-scratchpad": 15,
             "sparsity-language": 3, "abc-table1": 9, "abc-scaffolding": 9}


if __name__ == "__main__":
    torch.set_num_threads(1)  # as in the tests (conftest.py)
    PINS.write_text(json.dumps({name: smoke_values(name) for name in EXPERIMENTS}, indent=0, sort_keys=True))
    print(f"wrote {PINS}")
