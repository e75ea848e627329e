"""Paired statistics against values computed by hand and by scipy directly."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from yaksa.evaluation.paired import bootstrap_ci, holm, paired_compare, with_holm

BASE = [0.50, 0.60, 0.70, 0.40, 0.90, 0.30, 0.80, 0.55]
VARIANT = [0.55, 0.70, 0.72, 0.45, 0.95, 0.31, 0.86, 0.60]


def test_delta_tests_and_effect_sizes_match_scipy_and_hand_values() -> None:
    c = paired_compare(BASE, VARIANT, name="p", metric="m", resamples=2_000, seed=1)
    d = np.array(VARIANT) - np.array(BASE)
    assert c.n == 8 and c.delta == pytest.approx(d.mean()) == pytest.approx(0.39 / 8)
    assert c.p_t == pytest.approx(stats.ttest_rel(VARIANT, BASE).pvalue)
    assert c.p_wilcoxon == pytest.approx(stats.wilcoxon(d, zero_method="pratt").pvalue)
    assert c.d_z == pytest.approx(d.mean() / d.std(ddof=1))
    sd_av = (np.std(BASE, ddof=1) + np.std(VARIANT, ddof=1)) / 2
    assert c.d_av == pytest.approx(d.mean() / sd_av)
    low, high = c.ci
    assert low < c.delta < high and low > 0          # every difference is positive
    direct = stats.bootstrap((d,), np.mean, n_resamples=2_000, method="BCa", rng=np.random.default_rng(1))
    assert (low, high) == pytest.approx(tuple(direct.confidence_interval), rel=1e-9)


def test_no_difference_is_p_one_and_zero_effect_not_nan() -> None:
    c = paired_compare(BASE, BASE)
    assert (c.delta, c.ci, c.p_t, c.p_wilcoxon, c.d_z, c.d_av) == (0.0, (0.0, 0.0), 1.0, 1.0, 0.0, 0.0)


def test_nan_pairs_are_dropped_and_shapes_checked() -> None:
    c = paired_compare([1.0, math.nan, 0.0, 1.0], [1.0, 1.0, 1.0, 0.0], resamples=500)
    assert c.n == 3 and c.delta == pytest.approx(0.0)
    with pytest.raises(ValueError, match="paired"):
        paired_compare([1.0, 2.0], [1.0])
    empty = paired_compare([math.nan], [1.0])
    assert empty.n == 0 and math.isnan(empty.delta)
    assert empty.to_json()["delta"] is None


def test_holm_by_hand() -> None:
    # sorted: 0.01*4=0.04, 0.02*3=0.06, 0.03*2=0.06 (running max), 0.5*1=0.5
    assert holm([0.03, 0.01, 0.5, 0.02]) == pytest.approx([0.06, 0.04, 0.5, 0.06])
    assert holm([0.4, 0.6]) == pytest.approx([0.8, 0.8])
    assert holm([]) == []


def test_with_holm_adjusts_the_family_and_skips_empty_comparisons() -> None:
    family = [paired_compare(BASE, VARIANT, metric="a", resamples=500),
              paired_compare(BASE, BASE, metric="b"),
              paired_compare([math.nan], [1.0], metric="c")]
    adjusted = with_holm(family)
    assert adjusted[0].p_holm == pytest.approx(min(1.0, family[0].p_t * 2))
    assert adjusted[1].p_holm == 1.0 and math.isnan(adjusted[2].p_holm)
    assert adjusted[0].ci == family[0].ci


def test_bootstrap_degenerate_cases() -> None:
    assert bootstrap_ci([0.2, 0.2, 0.2]) == (0.2, 0.2)
    assert all(math.isnan(x) for x in bootstrap_ci([]))
