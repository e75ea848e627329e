"""Paired statistics for comparing two configurations item by item (the same questions, personas or
turns under both): bootstrap CIs of the mean difference, paired t and Wilcoxon tests, effect sizes and
Holm's correction across a family of comparisons.

Why paired: items differ far more from each other (easy and hard questions, talkative and terse
personas) than a mechanism changes any one of them, so comparing per-item differences is far more
sensitive than comparing two means. Used by the nightly regression gate (`yaksa.regression.gate`) and
the multi-turn ablation study (`yaksa.evaluation.dialogues`).

Effect sizes, both reported because they answer different questions:
    d_z  = mean(d) / sd(d)                        (the paired test's own scale; grows with correlation)
    d_av = mean(d) / ((sd(a) + sd(b)) / 2)        (comparable to an unpaired study's d; Lakens 2013)
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy.stats import bootstrap, ttest_rel, wilcoxon

CONFIDENCE_LEVEL = 0.95
BOOTSTRAP_BATCH = 2_000  # resamples held in memory at once: bounds memory for large suites
DEFAULT_RESAMPLES = 10_000


def bootstrap_ci(diffs: np.ndarray | Sequence[float], *, resamples: int = DEFAULT_RESAMPLES,
                 seed: Sequence[int] | int = 0) -> tuple[float, float]:
    """95% CI of the mean of paired differences: BCa, falling back to percentile when BCa fails.

    All-equal differences (including all zero) are degenerate: every resample has the same mean, so the
    interval is [d, d].
    """
    d = np.asarray(diffs, dtype=float)
    if d.size == 0:
        return math.nan, math.nan
    if np.ptp(d) == 0:
        return float(d[0]), float(d[0])
    for method in ("BCa", "percentile"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                result = bootstrap((d,), np.mean, n_resamples=resamples, batch=BOOTSTRAP_BATCH, vectorized=True,
                                   confidence_level=CONFIDENCE_LEVEL, method=method,
                                   rng=np.random.default_rng(seed))
            except (ValueError, FloatingPointError, ZeroDivisionError):
                continue
        low, high = (float(x) for x in result.confidence_interval)
        if math.isfinite(low) and math.isfinite(high):
            return low, high
    mean = float(d.mean())
    return mean, mean


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values, in input order.

    Implemented here because statsmodels (`multipletests(method="holm")`) is not a dependency; the two
    agree: sort ascending, multiply the k-th smallest by (m - k), take the running maximum, cap at 1.
    """
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    if m == 0:
        return []
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted.tolist()


@dataclass(frozen=True)
class PairedComparison:
    """`variant` against `baseline` on one metric; delta = mean(variant - baseline). `name` says which
    variant (the dialogue study: an ablation variant of the agent)."""

    name: str
    metric: str
    n: int
    baseline_mean: float
    variant_mean: float
    delta: float
    ci: tuple[float, float]
    p_t: float
    p_wilcoxon: float
    d_z: float
    d_av: float
    p_holm: float = math.nan

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["ci"] = list(self.ci)
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in out.items()}


def _p(value: float) -> float:
    return value if math.isfinite(value) else 1.0


def paired_compare(baseline: Sequence[float], variant: Sequence[float], *, name: str = "", metric: str = "",
                   resamples: int = DEFAULT_RESAMPLES, seed: Sequence[int] | int = 0) -> PairedComparison:
    """Two-sided paired tests of `variant` against `baseline` (same items, same order; NaN pairs dropped).

    No difference at all is not evidence of anything: p = 1 and effect sizes 0 (scipy would give NaN).
    """
    a, b = np.asarray(baseline, dtype=float), np.asarray(variant, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"baseline and variant must be paired 1-d sequences, got {a.shape} and {b.shape}")
    keep = np.isfinite(a) & np.isfinite(b)
    a, b = a[keep], b[keep]
    d = b - a
    n = int(d.size)
    if n == 0:
        return PairedComparison(name, metric, 0, math.nan, math.nan, math.nan, (math.nan, math.nan),
                                math.nan, math.nan, math.nan, math.nan)
    delta = float(d.mean())
    if not np.any(d != 0):
        return PairedComparison(name, metric, n, float(a.mean()), float(b.mean()), 0.0, (0.0, 0.0),
                                1.0, 1.0, 0.0, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p_t = _p(float(ttest_rel(b, a).pvalue)) if n > 1 else 1.0
        try:
            p_w = _p(float(wilcoxon(d, zero_method="pratt").pvalue))
        except ValueError:
            p_w = 1.0
    sd_d = float(d.std(ddof=1)) if n > 1 else 0.0
    sd_av = (float(a.std(ddof=1)) + float(b.std(ddof=1))) / 2 if n > 1 else 0.0
    d_z = delta / sd_d if sd_d > 0 else math.copysign(math.inf, delta)
    d_av = delta / sd_av if sd_av > 0 else math.copysign(math.inf, delta)
    return PairedComparison(name, metric, n, float(a.mean()), float(b.mean()), delta,
                            bootstrap_ci(d, resamples=resamples, seed=seed), p_t, p_w, d_z, d_av)


def with_holm(comparisons: Sequence[PairedComparison], *, by: str = "p_t") -> list[PairedComparison]:
    """The family with Holm-adjusted p-values (of the `by` test) filled in; comparisons with no data
    (n = 0) are not part of the family."""
    tested = [i for i, c in enumerate(comparisons) if c.n > 0]
    adjusted = holm([getattr(comparisons[i], by) for i in tested])
    out = list(comparisons)
    for i, p in zip(tested, adjusted, strict=True):
        out[i] = PairedComparison(**{**asdict(out[i]), "ci": out[i].ci, "p_holm": p})
    return out
