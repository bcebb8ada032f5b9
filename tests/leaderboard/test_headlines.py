"""Peers' headlines in their shape: the configs follow each peer, and the table judges ours by its rule."""

from dataclasses import replace

import pandas as pd
import pytest

from lengthgen.leaderboard.headlines import (
    HEADLINES,
    LEADERBOARD_HEADLINES,
    headline_of,
    headline_shape,
    headline_table,
)


def test_each_headline_runs_the_peers_shape():
    runs = LEADERBOARD_HEADLINES.configs_for("cpu")
    assert sorted({headline_of(r) for r in runs}) == sorted(HEADLINES) and len(runs) == 3 * len(HEADLINES)
    coupling = next(r for r in runs if headline_of(r) == "coupling 1-30")
    assert coupling.model.layers == 1 and (coupling.train.min_length, coupling.train.max_length) == (1, 30)
    assert coupling.tests[0] == 30 and coupling.tests[-1] == 200 and coupling.model.positional == "learned"
    assert coupling.training().positions == "offset"  # position coupling's random shift in training
    assert coupling.training().max_positions <= coupling.model.max_positions  # every shifted id has an embedding
    with pytest.raises(ValueError, match="no headline"):
        headline_of(replace(coupling, model=replace(coupling.model, layers=3)))


def test_the_headlines_shape_is_said_from_the_runs_configs():
    coupling, abacus = (next(r for r in LEADERBOARD_HEADLINES.configs_for("cpu") if headline_of(r) == name)
                        for name in ("coupling 1-30", "abacus 1-20"))
    words = headline_shape("cpu")
    assert f"coupling 1-30: {coupling.model.layers} layer;" in words and f"abacus 1-20: {abacus.model.layers} layers;" \
        in words
    assert f"width {coupling.model.width} with {coupling.model.heads} heads" in words
    assert f"trained {coupling.train.steps:,} steps of batch {coupling.train.batch_size}" in words


def _runs(name: str, fit: float, at_longest: list[float]) -> list[dict]:
    h = HEADLINES[name]
    return [row for seed, value in enumerate(at_longest)
            for row in ({"task": name, "variant": h.mechanism, "seed": seed, "length": h.train[1],
                         "metric": "accuracy", "value": fit},
                        {"task": name, "variant": h.mechanism, "seed": seed, "length": h.tests[-1],
                         "metric": "accuracy", "value": value})]


@pytest.mark.parametrize(("name", "fit", "at_longest", "verdict"), [
    ("coupling 1-30", 100.0, [95.0, 91.0, 40.0], "reproduced at this scale"),  # no number stated: the 90% bar
    ("coupling 1-30", 100.0, [95.0, 60.0, 40.0], "not reproduced at this scale"),
    ("abacus 1-20", 100.0, [99.5, 99.0, 98.0], "reproduced at this scale"),  # the peer's 99%
    ("abacus 1-20", 100.0, [95.0, 93.0, 98.0], "partly (at or above 90%, below the peer's)"),
    ("abacus 1-20", 80.0, [100.0, 100.0, 100.0], "not trained"),
    ("abacus 1-20", 100.0, [], "not tested at the peer's length"),
])
def test_the_headline_table_judges_ours_at_the_peers_length(name, fit, at_longest, verdict):
    runs = _runs(name, fit, at_longest) or [{"task": name, "variant": "coupling", "seed": 0, "length": n,
                                              "metric": "accuracy", "value": 100.0} for n in (20, 50)]
    row = headline_table(pd.DataFrame(runs)).iloc[0]
    assert row.verdict == verdict and row["length"] == HEADLINES[name].tests[-1]
    if not at_longest:
        return
    assert row.ours == sorted(at_longest)[1] and row.seeds == f"{min(at_longest):.0f}-{max(at_longest):.0f} (3)"
    assert row["past training (median)"] == f"{HEADLINES[name].tests[-1]}: {sorted(at_longest)[1]:.1f}"


def test_the_headline_table_gives_ours_at_every_length_past_training():
    lengths = HEADLINES["coupling 1-30"].tests  # 30 (training's longest), 50, 100, 200
    runs = [{"task": "coupling 1-30", "variant": "coupling", "seed": seed, "length": n, "metric": "accuracy",
             "value": value}
            for seed in range(3) for n, value in zip(lengths, (100.0, 40.0 + 10 * seed, 2.0, 0.0), strict=True)]
    assert headline_table(pd.DataFrame(runs)).iloc[0]["past training (median)"] == "50: 50.0, 100: 2.0, 200: 0.0"
