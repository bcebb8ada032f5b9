"""The verdict rules (analysis/verdicts.py) on hand-chosen numbers."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from lengthgen.analysis import verdicts


@pytest.mark.parametrize("paper,ours,ci95,expected", [
    (1.0, 2.0, 1.5, "reproduced"),
    (0.5, 2.0, 1.5, "reproduced"),  # on the interval's edge
    (0.0, 2.0, 1.5, "not reproduced (ours higher)"),
    (4.0, 2.0, 1.5, "not reproduced (ours lower)"),
    (2.0, 2.0, float("nan"), "inconclusive (one seed pair)"),
])
def test_gain_verdict_reads_the_papers_number_against_our_interval(paper, ours, ci95, expected):
    assert verdicts.gain_verdict(paper, ours, ci95) == expected


@pytest.mark.parametrize("pd_,pp,od,op,expected", [
    (2.0, 0.01, 1.0, 0.01, "reproduced"),
    (2.0, 0.01, -1.0, 0.01, "not reproduced (opposite sign)"),
    (2.0, 0.01, 1.0, 0.30, "inconclusive (ours not significant)"),
    (0.1, 0.60, 0.0, 0.90, "reproduced (no difference)"),
    (0.1, 0.60, 3.0, 0.001, "not reproduced (we find a difference)"),
])
def test_verdict_rules(pd_, pp, od, op, expected):
    assert verdicts.verdict(pd_, pp, od, op) == expected


@pytest.mark.parametrize("paper,ours,lo,hi,iid,expected", [
    (95.0, 90.0, 90.0, 90.0, None, "reproduced"),  # one seed: within TOLERANCE (5 points)
    (95.0, 89.0, 89.0, 89.0, None, "not reproduced (ours lower)"),
    (5.0, 95.0, 95.0, 95.0, None, "not reproduced (ours higher)"),
    (33.3, 23.0, 23.0, 23.0, None, "not reproduced (ours lower)"),  # both "partial" in bands, ten points apart: off
    (33.3, 30.0, 23.0, 41.0, None, "reproduced"),  # the median within 5 points, the paper's value inside the range
    (33.3, 25.0, 23.0, 41.0, None, "not reproduced (ours lower)"),  # inside the range, but a partial median 8 off
    (80.0, 15.0, 12.0, 85.0, None, "not reproduced (ours lower)"),  # both partial, 65 apart: the range alone is not
    (100.0, 91.0, 91.0, 99.0, None, "reproduced"),  # both solved, 9 apart
    (100.0, 90.0, 90.0, 90.0, None, "not reproduced (ours lower)"),  # both solved, but outside the widened range
    (0.0, 8.0, 4.0, 10.0, None, "reproduced"), (0.0, 11.0, 4.0, 20.0, None, "not reproduced (ours higher)"),
    (50.0, 45.0, 0.0, 45.0, None, "reproduced"), (50.0, 44.9, 0.0, 44.9, None, "not reproduced (ours lower)"),
    (0.0, 0.0, 0.0, 0.0, 40.0, "not trained"),  # agrees with the paper, but the model never learned its task
    (100.0, 100.0, 100.0, 100.0, 89.9, "not trained"), (0.0, 0.0, 0.0, 0.0, 90.0, "reproduced"),
    (100.0, 0.0, 0.0, 0.0, 95.0, "not reproduced (ours lower)"),
    (100.0, 100.0, 100.0, 100.0, float("nan"), "reproduced"),  # no iid split: not judged on it
    (100.0, 100.0, 0.0, 100.0, 99.0, "reproduced (seeds split)"),  # seeds 0 / 100 / 100: the median is the paper's
    (100.0, 0.0, 0.0, 100.0, 99.0, "not reproduced (ours lower)"),  # seeds 0 / 0 / 100: the median is not
    (95.0, 90.0, 10.0, 90.0, None, "reproduced (seeds split)"), (95.0, 95.0, 10.1, 95.0, None, "reproduced"),
    (100.0, 40.0, 0.0, 80.0, None, "not reproduced (ours lower)"),
])
def test_cell_verdict_judges_our_median_within_our_seeds_range(paper, ours, lo, hi, iid, expected):
    assert verdicts.cell_verdict(paper, ours, lo, hi, iid) == expected


@pytest.mark.parametrize("seeds,first,every", [
    ([100.0, 100.0, 0.0, 0.0, 0.0], "reproduced (seeds split)", "not reproduced (ours lower)"),
    ([0.0, 0.0, 100.0, 100.0, 100.0], "not reproduced (ours lower)", "reproduced (seeds split)"),
])
def test_more_seeds_move_a_cell_either_way(seeds, first, every):
    """Judged on the median, added seeds are no licence: they can take a cell out of reproduced as well as bring it
    in (paper 100; judged on the first three seeds, then on all five)."""
    def judged(s):
        return verdicts.cell_verdict(100.0, float(np.median(s)), min(s), max(s))
    assert judged(seeds[:3]) == first and judged(seeds) == every


@pytest.mark.parametrize("mean,std,n,ours,expected", [
    (20.0, 5.0, 5, [19.0, 22.0, 21.0], "reproduced (no significant difference)"),
    (15.0, 0.15, 5, [14.0, 14.2, 13.9], "not reproduced (ours lower)"),
    (8.4, 1.2, 5, [20.0, 22.0, 21.0], "not reproduced (ours higher)"),
    (24.6, 17.5, 5, [0.0], "inconclusive (one seed)"),  # no spread of ours to test
    (15.0, 0.0, 5, [15.0, 15.0], "reproduced (no significant difference)"),  # neither varies: equal means
    (15.0, 0.0, 5, [14.0, 14.0], "not reproduced (ours lower)"),
])
def test_mean_verdict_is_welchs_test(mean, std, n, ours, expected):
    verdict, p = verdicts.mean_verdict(mean, std, n, ours)
    assert verdict == expected
    if len(ours) > 1 and std > 0:  # against the test written out: t on the two standard errors, Welch's df
        m, s2 = sum(ours) / len(ours), pd.Series(ours).var()
        se2 = s2 / len(ours) + std**2 / n
        df = se2**2 / ((s2 / len(ours)) ** 2 / (len(ours) - 1) + (std**2 / n) ** 2 / (n - 1))
        assert p == pytest.approx(2 * sps.t.sf(abs(m - mean) / se2**0.5, df))


@pytest.mark.parametrize("paper,ours,expected", [
    ([0, 10, 20, 30, 40, 50], [1, 12, 18, 35, 41, 60], "reproduced"),  # the same order: rho 1
    ([0, 10, 20, 30, 40, 50], [60, 41, 35, 18, 12, 1], "not reproduced"),  # reversed: rho -1
    ([0, 10, 20, 30], [0, 20, 10, 30], "inconclusive (too few cells)"),  # rho 0.8 on four cells: p 0.2
    ([100, 100, 100], [0, 50, 100], "inconclusive (a constant side)"),
])
def test_ranking_verdict_is_a_rank_correlation(paper, ours, expected):
    verdict, rho, _ = verdicts.ranking_verdict(paper, ours)
    assert verdict == expected
    if expected.startswith(("reproduced", "not")):
        assert rho == pytest.approx(1.0 if expected == "reproduced" else -1.0)


@pytest.mark.parametrize("fit,expected", [(89.9, "not trained"), (90.0, "reproduced (no significant difference)"),
                                          (float("nan"), "reproduced (no significant difference)"),
                                          (None, "reproduced (no significant difference)")])
def test_mean_verdict_sets_runs_that_did_not_fit_their_training_data_apart(fit, expected):
    verdict, p = verdicts.mean_verdict(20.0, 5.0, 5, [19.0, 22.0, 21.0], fit)
    assert verdict == expected and (p != p) == (expected == "not trained")  # p NaN only when not judged


@pytest.mark.parametrize("holds,pairs,expected", [(5, 5, "reproduced"), (0, 5, "not reproduced"),
                                                  (3, 5, "partly (3 of 5 pairs)")])
def test_share_verdict_counts_the_pairs_a_claim_holds_in(holds, pairs, expected):
    assert verdicts.share_verdict(holds, pairs) == expected


@pytest.mark.parametrize("slopes,expected", [([-1.02, -0.95, -1.08], "reproduced"), ([-1.0, -0.89], "not reproduced"),
                                             ([-1.1], "not reproduced"), ([-0.5, -1.0], "not reproduced")])
def test_exponent_verdict_needs_every_slope_within_a_tenth_of_the_law(slopes, expected):
    assert verdicts.exponent_verdict(slopes, -1.0) == expected


@pytest.mark.parametrize("slope,expected", [(-0.5, "reproduced"), (-0.45, "reproduced"), (-0.9, "reproduced"),
                                            (-0.44, "partly"), (-0.01, "partly"), (0.0, "not reproduced"),
                                            (0.3, "not reproduced")])
def test_decay_verdict_reads_steeper_as_reproduced_and_slower_as_partly(slope, expected):
    assert verdicts.decay_verdict(slope, -0.5) == expected


def test_the_bars_the_prose_quotes_are_the_rules_own():
    from lengthgen.analysis.verdicts import FAILED, SOLVED, band, bars

    assert (band(SOLVED), band(SOLVED - 0.1), band(FAILED), band(FAILED + 0.1)) == (
        "solved", "partial", "failed", "partial")
    assert bars() == {"bar_solved": 90.0, "bar_failed": 10.0, "bar_trained": 90.0, "bar_exponent": 10.0}
