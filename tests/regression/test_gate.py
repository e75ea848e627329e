from __future__ import annotations

import json
import math
from collections.abc import Sequence

import numpy as np
import pytest

from yaksa.regression.gate import (
    LLM_MARGIN,
    MetricSpec,
    Scores,
    compare,
    holm,
    worst_items,
)

FAST = 2_000  # resamples: enough for stable CIs in tests, quicker than the nightly 10,000


def scores(**metrics: Sequence[float]) -> dict[str, dict[str, float]]:
    """scores(a=[...], b=[...]) -> {"q000": {"a": .., "b": ..}, ...} (all lists the same length)."""
    n = len(next(iter(metrics.values())))
    return {f"q{i:03d}": {m: float(v[i]) for m, v in metrics.items()} for i in range(n)}


def test_identical_runs_pass_with_zero_delta_and_a_point_ci() -> None:
    rng = np.random.default_rng(1)
    run = scores(cite=rng.integers(0, 2, 50), judge=rng.uniform(0, 1, 50))
    specs = [MetricSpec("cite", "deterministic", 0.02), MetricSpec("judge", "llm")]
    result = compare(run, run, specs, resamples=FAST)
    assert result.passed
    for m in result.metrics:
        assert m.status == "pass"
        assert m.n_paired == 50 and m.n_unpaired == 0
        assert m.delta == 0.0
        assert (m.ci_low, m.ci_high) == (0.0, 0.0)
        assert m.p_value == 1.0
        assert m.baseline_mean == pytest.approx(m.current_mean)


def test_deterministic_metric_breaking_on_30_percent_of_items_fails() -> None:
    baseline = scores(cite=np.ones(100))
    broken = np.ones(100)
    broken[::10] = broken[1::10] = broken[2::10] = 0.0  # 30 items
    result = compare(
        scores(cite=broken), baseline, [MetricSpec("cite", "deterministic", 0.02)], resamples=FAST
    )
    m = result.metrics[0]
    assert not result.passed
    assert m.status == "fail"
    assert m.delta == pytest.approx(-0.3)
    assert m.ci_low < -0.3 < m.ci_high < -0.2
    assert m.p_value < 1e-6
    assert "tolerance" in m.reason


def test_small_noise_within_tolerance_passes() -> None:
    rng = np.random.default_rng(2)
    base = rng.uniform(0.5, 0.95, 100)
    current = base + rng.normal(0, 0.01, 100)
    result = compare(
        scores(f1=current), scores(f1=base), [MetricSpec("f1", "deterministic", 0.02)], resamples=FAST
    )
    m = result.metrics[0]
    assert result.passed and m.status == "pass"
    assert abs(m.delta) < 0.005
    assert "within tolerance" in m.reason


def test_any_deterministic_drop_beyond_the_tolerance_fails() -> None:
    base = np.ones(100)
    one = base.copy()
    one[0] = 0.0                                   # one item in 100 breaks: a drop of 0.01
    within = compare(scores(ok=one), scores(ok=base), [MetricSpec("ok", "deterministic", 0.02)], resamples=FAST)
    assert within.passed and within.metrics[0].delta == pytest.approx(-0.01)
    strict = compare(scores(ok=one), scores(ok=base), [MetricSpec("ok", "deterministic", 0.0)], resamples=FAST)
    assert not strict.passed and "tolerance" in strict.metrics[0].reason
    assert strict.metrics[0].p_holm > 0.05          # reported, but not what decides a deterministic metric

    rng = np.random.default_rng(3)
    cont = rng.uniform(0.3, 0.9, 100)
    shifted = cont - 0.04 + rng.normal(0, 0.005, 100)  # beyond tolerance 0.02
    real = compare(
        scores(f1=shifted), scores(f1=cont), [MetricSpec("f1", "deterministic", 0.02)], resamples=FAST
    )
    m = real.metrics[0]
    assert not real.passed
    assert -0.05 < m.delta < -0.03
    assert "tolerance" in m.reason


def test_all_items_dropping_by_the_same_amount_gives_a_point_ci_and_fails() -> None:
    base = np.linspace(0.5, 0.9, 40)
    result = compare(
        scores(x=base - 0.1), scores(x=base), [MetricSpec("x", "deterministic", 0.02)], resamples=FAST
    )
    m = result.metrics[0]
    assert m.status == "fail"
    assert m.ci_low == pytest.approx(-0.1) and m.ci_high == pytest.approx(-0.1)


@pytest.mark.parametrize(("drop", "status"), [(0.1, "fail"), (0.01, "pass")])
def test_llm_metric_fails_only_when_the_whole_ci_is_below_the_margin(drop: float, status: str) -> None:
    rng = np.random.default_rng(4)
    base = rng.uniform(0.3, 0.9, 60)
    current = base - drop + rng.normal(0, 0.05, 60)
    result = compare(scores(judge=current), scores(judge=base), [MetricSpec("judge", "llm")], resamples=FAST)
    m = result.metrics[0]
    assert m.status == status
    assert result.passed is (status == "pass")
    assert m.delta == pytest.approx(-drop, abs=0.02)
    assert m.ci_low < m.delta < m.ci_high
    if status == "fail":
        assert m.ci_high < LLM_MARGIN and m.p_holm < 0.05
    else:
        assert m.ci_high >= LLM_MARGIN


def test_lower_is_better_latency_is_sign_flipped() -> None:
    rng = np.random.default_rng(5)
    base = rng.uniform(0.8, 1.5, 80)
    spec = MetricSpec("latency_s", "deterministic", tolerance=0.1, higher_is_better=False)
    slower = compare(scores(latency_s=base + 0.5), scores(latency_s=base), [spec], resamples=FAST)
    m = slower.metrics[0]
    assert m.delta == pytest.approx(-0.5)  # slower = worse = negative
    assert m.current_mean == pytest.approx(m.baseline_mean + 0.5)  # means stay raw
    assert m.status == "fail"

    faster = compare(scores(latency_s=base - 0.5), scores(latency_s=base), [spec], resamples=FAST)
    assert faster.metrics[0].delta == pytest.approx(0.5)
    assert faster.passed


def test_unpaired_items_are_counted_and_excluded() -> None:
    baseline = scores(x=np.ones(20))
    current = scores(x=np.ones(20))
    for i in range(5):
        del current[f"q{i:03d}"]  # missing from tonight's run
    for i in range(5, 8):
        baseline[f"q{i:03d}"]["x"] = math.nan  # failed in the baseline
    for i in range(8, 10):
        baseline[f"q{i:03d}"]["x"] = current[f"q{i:03d}"]["x"] = math.nan  # not applicable: not counted
    current["new"] = {"x": 0.0}  # new item, no baseline
    m = compare(current, baseline, [MetricSpec("x", "deterministic")], resamples=FAST).metrics[0]
    assert (m.n_paired, m.n_unpaired) == (10, 9)
    assert m.delta == 0.0  # the new 0.0 item is not paired


def test_holm_adjusts_upwards_and_matches_the_step_down_rule() -> None:
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm([]) == []

    rng = np.random.default_rng(6)
    base = {f"m{k}": rng.uniform(0.3, 0.9, 40) for k in range(5)}
    current = {name: v - 0.01 * k + rng.normal(0, 0.03, 40) for k, (name, v) in enumerate(base.items())}
    specs = [MetricSpec(name, "llm") for name in base]
    result = compare(scores(**current), scores(**base), specs, resamples=FAST)
    raw = [m.p_value for m in result.metrics]
    assert len(set(raw)) == 5 and all(0 < p <= 1 for p in raw)
    for m in result.metrics:
        assert m.p_holm >= m.p_value
    assert [m.p_holm for m in result.metrics] == pytest.approx(holm(raw))


def test_seed_makes_cis_reproducible_and_metrics_independent() -> None:
    rng = np.random.default_rng(8)
    base = scores(a=rng.uniform(0, 1, 50), b=rng.uniform(0, 1, 50))
    cur = {k: {m: v + rng.normal(0, 0.1) for m, v in row.items()} for k, row in base.items()}
    specs = [MetricSpec("a", "llm"), MetricSpec("b", "llm")]
    first = compare(cur, base, specs, resamples=FAST, seed=11)
    again = compare(cur, base, specs, resamples=FAST, seed=11)
    other = compare(cur, base, specs, resamples=FAST, seed=12)
    only_a = compare(cur, base, specs[:1], resamples=FAST, seed=11)
    ci = [(m.ci_low, m.ci_high) for m in first.metrics]
    assert ci == [(m.ci_low, m.ci_high) for m in again.metrics]
    assert ci != [(m.ci_low, m.ci_high) for m in other.metrics]
    assert (only_a.metrics[0].ci_low, only_a.metrics[0].ci_high) == ci[0]


def test_fewer_than_two_paired_items_is_insufficient_and_never_fails() -> None:
    baseline = {"q1": {"x": 1.0, "y": 1.0}, "q2": {"x": 1.0, "y": math.nan}}
    current = {"q1": {"x": 0.0, "y": 0.0}, "q2": {"x": 0.0, "y": 0.0}}
    specs = [MetricSpec("x", "deterministic"), MetricSpec("y", "deterministic")]
    result = compare(current, baseline, specs, resamples=FAST)
    x, y = result.metrics
    assert x.status == "fail"
    assert y.status == "insufficient" and y.n_paired == 1 and y.n_unpaired == 1
    assert math.isnan(y.p_value) and math.isnan(y.p_holm) and math.isnan(y.ci_low)
    assert x.p_holm == x.p_value  # insufficient metrics are not part of the Holm family

    alone = compare(current, baseline, specs[1:], resamples=FAST)
    assert alone.passed


def test_to_json_is_strict_json_with_nulls_for_nan() -> None:
    current = {"q1": {"x": 0.5}, "q2": {"x": 0.7}, "q3": {"y": 1.0}}
    baseline = {"q1": {"x": 0.6}, "q2": {"x": 0.7}, "q3": {"y": 1.0}}
    result = compare(current, baseline, [MetricSpec("x", "llm"), MetricSpec("y", "llm")], resamples=FAST)
    data = json.loads(json.dumps(result.to_json(), allow_nan=False))
    assert data["passed"] is True
    assert [m["name"] for m in data["metrics"]] == ["x", "y"]
    assert data["metrics"][1]["status"] == "insufficient"
    assert data["metrics"][1]["p_value"] is None
    assert data["metrics"][0]["n_paired"] == 2


def test_worst_items_lists_largest_drops_first_in_the_metrics_direction() -> None:
    # item: (x baseline, x current, t baseline, t current); t is lower-is-better
    rows = {
        "a": (1.0, 0.0, 1.0, 3.0),
        "b": (1.0, 0.9, 1.0, 0.5),
        "c": (0.5, 0.1, 1.0, 2.0),
        "d": (0.2, 0.9, 1.0, 1.0),
    }
    baseline: Scores = {k: {"x": r[0], "t": r[2]} for k, r in rows.items()}
    current: Scores = {k: {"x": r[1], "t": r[3]} for k, r in rows.items()}
    assert worst_items(current, baseline, "x") == [("a", 1.0, 0.0), ("c", 0.5, 0.1), ("b", 1.0, 0.9)]
    assert worst_items(current, baseline, "x", n=1) == [("a", 1.0, 0.0)]
    specs = [MetricSpec("x", "deterministic"), MetricSpec("t", "deterministic", 0.1, higher_is_better=False)]
    result = compare(current, baseline, specs, resamples=FAST)
    assert result.worst_items(current, baseline, "t") == [("a", 1.0, 3.0), ("c", 1.0, 2.0)]


def test_invalid_specs_are_rejected() -> None:
    run = scores(x=[1.0, 1.0])
    with pytest.raises(ValueError, match="duplicate"):
        compare(run, run, [MetricSpec("x", "llm"), MetricSpec("x", "llm")])
    with pytest.raises(ValueError, match="tolerance"):
        compare(run, run, [MetricSpec("x", "deterministic", tolerance=-0.1)])
