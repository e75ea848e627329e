"""Pass/fail gate for a nightly run: a paired comparison of every metric with the last accepted run.

Why paired: the same questions are asked every night, so per-item differences cancel the large spread
between easy and hard questions, and a bootstrap CI of the mean difference is far tighter than one
built from two independent means.

Why two rules: deterministic metrics (citation validity, refusal correctness, ...) repeat exactly on
the same code and bundle, so *any* drop of the mean beyond the metric's stated tolerance is a real
change and fails (seven more unrefused out-of-scope questions out of 300 must not hide behind a
p-value); latency is the one noisy deterministic metric and gets a tolerance in milliseconds.
LLM-judged scores move by a few points between identical runs, so they fail only when the whole
confidence interval lies below a margin (a non-inferiority test) and the drop is significant after
Holm's correction, never on a point estimate.

Why Holm: about fifteen metrics are tested every night; without a correction for multiple tests one
of the LLM-judged ones would fail by chance every few nights and people would learn to ignore the
gate. The adjusted p-values are reported for every metric.

Everything is seeded (one generator per metric, derived from the seed and the metric's name, so adding
a metric does not move the others' intervals) and vectorized, so a run is reproducible and takes
seconds.
"""

from __future__ import annotations

import math
import warnings
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np
from scipy.stats import wilcoxon

from yaksa.evaluation.paired import DEFAULT_RESAMPLES, bootstrap_ci, holm

Scores = Mapping[str, Mapping[str, float]]  # item_id -> metric name -> value (NaN = n/a or failed)
MetricKind = Literal["deterministic", "llm"]
Status = Literal["pass", "fail", "insufficient"]

DEFAULT_SEED = 20261123
DEFAULT_ALPHA = 0.05
LLM_MARGIN = -0.03  # an LLM-judged metric fails only when its whole CI lies below this change
MIN_PAIRED = 2
DIFF_DECIMALS = 12  # differences are rounded so float noise (0.7-0.6 vs 0.8-0.7) does not break ties


@dataclass(frozen=True)
class MetricSpec:
    name: str
    kind: MetricKind
    tolerance: float = 0.0  # deterministic: allowed drop of the mean before failing (absolute, metric units)
    higher_is_better: bool = True  # latency metrics are lower-is-better


@dataclass(frozen=True)
class MetricComparison:
    """One metric's paired comparison. `delta`, `ci_low` and `ci_high` are oriented so positive = better
    (current - baseline, sign-flipped for lower-is-better metrics); the means are raw values over the
    paired items."""

    name: str
    kind: MetricKind
    n_paired: int
    n_unpaired: int
    baseline_mean: float
    current_mean: float
    delta: float
    ci_low: float
    ci_high: float
    p_value: float
    p_holm: float
    status: Status
    reason: str
    tolerance: float = 0.0
    higher_is_better: bool = True


def _json_float(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@dataclass(frozen=True)
class GateResult:
    passed: bool
    metrics: list[MetricComparison]
    alpha: float = DEFAULT_ALPHA
    llm_margin: float = LLM_MARGIN
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED

    @property
    def failed(self) -> list[MetricComparison]:
        return [m for m in self.metrics if m.status == "fail"]

    def metric(self, name: str) -> MetricComparison:
        for m in self.metrics:
            if m.name == name:
                return m
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict; NaN becomes null."""
        return {
            "passed": self.passed,
            "alpha": self.alpha,
            "llm_margin": self.llm_margin,
            "resamples": self.resamples,
            "seed": self.seed,
            "metrics": [{k: _json_float(v) for k, v in asdict(m).items()} for m in self.metrics],
        }

    def worst_items(
        self, current: Scores, baseline: Scores, metric: str, n: int = 5
    ) -> list[tuple[str, float, float]]:
        """The `n` paired items whose `metric` got most worse, largest drop first (direction from the gate)."""
        known = {m.name: m.higher_is_better for m in self.metrics}
        return worst_items(current, baseline, metric, n, higher_is_better=known.get(metric, True))


@dataclass(frozen=True)
class _Paired:
    item_ids: list[str]
    baseline: np.ndarray
    current: np.ndarray
    n_unpaired: int


def _value(scores: Scores, item_id: str, metric: str) -> float:
    row = scores.get(item_id)
    if row is None:
        return math.nan
    try:
        value = float(row.get(metric, math.nan))
    except (TypeError, ValueError):
        return math.nan
    return value if math.isfinite(value) else math.nan


def pair(current: Scores, baseline: Scores, metric: str) -> _Paired:
    """Items with a finite `metric` in both runs (sorted by id); `n_unpaired` counts items with a finite
    value in one run only (missing from the other run or failed there). NaN in both = not applicable."""
    ids, base, cur, unpaired = [], [], [], 0
    for item_id in sorted(set(current) | set(baseline)):
        b, c = _value(baseline, item_id, metric), _value(current, item_id, metric)
        if math.isnan(b) and math.isnan(c):
            continue
        if math.isnan(b) or math.isnan(c):
            unpaired += 1
            continue
        ids.append(item_id)
        base.append(b)
        cur.append(c)
    return _Paired(ids, np.asarray(base, dtype=float), np.asarray(cur, dtype=float), unpaired)


def oriented_differences(paired: _Paired, higher_is_better: bool) -> np.ndarray:
    """Per-item current - baseline, sign-flipped for lower-is-better metrics: positive = better."""
    d = paired.current - paired.baseline
    return np.round(d if higher_is_better else -d, DIFF_DECIMALS)


def _rng_seed(seed: int, metric: str) -> list[int]:
    return [seed, zlib.crc32(metric.encode("utf-8"))]


def wilcoxon_decrease_p(diffs: np.ndarray) -> float:
    """One-sided paired Wilcoxon signed-rank p-value for "current is worse" (zeros kept, Pratt)."""
    d = np.asarray(diffs, dtype=float)
    if d.size == 0 or not np.any(d != 0):
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            p = float(wilcoxon(d, zero_method="pratt", alternative="less").pvalue)
        except ValueError:
            return 1.0
    return p if math.isfinite(p) else 1.0


def _decide(
    spec: MetricSpec, delta: float, ci_high: float, p_holm: float, *, alpha: float, llm_margin: float
) -> tuple[Status, str]:
    drop = -delta
    if spec.kind == "deterministic":
        if drop > spec.tolerance:
            return "fail", f"mean dropped {drop:.4g} > tolerance {spec.tolerance:.4g}"
        return "pass", f"change {delta:+.4g} within tolerance {spec.tolerance:.4g}"
    if ci_high < llm_margin and p_holm < alpha:
        return (
            "fail",
            f"CI upper bound {ci_high:+.4g} < margin {llm_margin:+.4g} and p_holm {p_holm:.3g} < {alpha}",
        )
    if ci_high < llm_margin:
        return (
            "pass",
            f"CI upper bound {ci_high:+.4g} < margin {llm_margin:+.4g} but not significant (p_holm {p_holm:.3g})",
        )
    return "pass", f"CI upper bound {ci_high:+.4g} >= margin {llm_margin:+.4g}"


@dataclass
class _Pending:
    spec: MetricSpec
    paired: _Paired
    delta: float = math.nan
    ci: tuple[float, float] = (math.nan, math.nan)
    p_value: float = math.nan
    p_holm: float = math.nan


def _check_specs(specs: Sequence[MetricSpec]) -> None:
    names = [s.name for s in specs]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"duplicate metric specs: {duplicates}")
    for s in specs:
        if s.kind not in ("deterministic", "llm"):
            raise ValueError(f"metric {s.name!r}: unknown kind {s.kind!r}")
        if not (s.tolerance >= 0 and math.isfinite(s.tolerance)):
            raise ValueError(f"metric {s.name!r}: tolerance must be a finite number >= 0, got {s.tolerance}")


def compare(
    current: Scores,
    baseline: Scores,
    specs: Sequence[MetricSpec],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    alpha: float = DEFAULT_ALPHA,
    llm_margin: float = LLM_MARGIN,
) -> GateResult:
    """Compare `current` with the last accepted `baseline`, metric by metric, on paired items.

    For each metric: delta = mean of per-item (current - baseline), sign-flipped for lower-is-better
    metrics so positive = better; a paired bootstrap 95% CI of that mean (BCa, percentile fallback,
    `resamples` resamples, seeded); a one-sided Wilcoxon signed-rank p-value for a decrease, Holm-adjusted
    across all metrics that have at least two paired items.

    Decision rules:
      - deterministic: FAIL when the mean drops beyond the tolerance (delta < -tolerance) AND
        p_holm < alpha, so one noisy item does not fail the night but a consistent drop does.
        Also FAIL whatever the p-value when the drop exceeds max(5 x tolerance, 0.05), in the metric's
        units: a real break on a few items must not hide behind a small sample.
      - llm: FAIL when the CI upper bound < llm_margin (-0.03) AND p_holm < alpha.
      - fewer than 2 paired items: "insufficient", never fails.
    The gate passes when no metric fails.
    """
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    _check_specs(specs)
    pending = [_Pending(spec, pair(current, baseline, spec.name)) for spec in specs]
    for item in pending:
        if item.paired.baseline.size < MIN_PAIRED:
            continue
        d = oriented_differences(item.paired, item.spec.higher_is_better)
        item.delta = float(d.mean())
        item.ci = bootstrap_ci(d, resamples=resamples, seed=_rng_seed(seed, item.spec.name))
        item.p_value = wilcoxon_decrease_p(d)
    tested = [item for item in pending if not math.isnan(item.p_value)]
    for item, adjusted in zip(tested, holm([item.p_value for item in tested]), strict=True):
        item.p_holm = adjusted

    metrics = []
    for item in pending:
        n_paired = int(item.paired.baseline.size)
        if n_paired < MIN_PAIRED:
            status: Status = "insufficient"
            reason = f"only {n_paired} paired item(s); need {MIN_PAIRED}"
        else:
            status, reason = _decide(
                item.spec, item.delta, item.ci[1], item.p_holm, alpha=alpha, llm_margin=llm_margin
            )
        metrics.append(
            MetricComparison(
                name=item.spec.name,
                kind=item.spec.kind,
                n_paired=n_paired,
                n_unpaired=item.paired.n_unpaired,
                baseline_mean=float(item.paired.baseline.mean()) if n_paired else math.nan,
                current_mean=float(item.paired.current.mean()) if n_paired else math.nan,
                delta=item.delta,
                ci_low=item.ci[0],
                ci_high=item.ci[1],
                p_value=item.p_value,
                p_holm=item.p_holm,
                status=status,
                reason=reason,
                tolerance=item.spec.tolerance,
                higher_is_better=item.spec.higher_is_better,
            )
        )
    return GateResult(
        passed=all(m.status != "fail" for m in metrics),
        metrics=metrics,
        alpha=alpha,
        llm_margin=llm_margin,
        resamples=resamples,
        seed=seed,
    )


def worst_items(
    current: Scores, baseline: Scores, metric: str, n: int = 5, *, higher_is_better: bool = True
) -> list[tuple[str, float, float]]:
    """Up to `n` paired items whose `metric` got worse, as (item_id, baseline_value, current_value),
    largest drop first (ties by item id). Items that held or improved are not listed."""
    paired = pair(current, baseline, metric)
    d = oriented_differences(paired, higher_is_better)
    worse = [i for i in range(d.size) if d[i] < 0]
    worse.sort(key=lambda i: (d[i], paired.item_ids[i]))
    return [(paired.item_ids[i], float(paired.baseline[i]), float(paired.current[i])) for i in worse[:n]]
