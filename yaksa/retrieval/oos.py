"""Out-of-scope guard: refuse to answer when even the best retrieved passage scores too low.

Why calibrate instead of picking a floor: a weak floor removes noise but lets coherent off-topic
questions ("삼성전자 주가") through, and a strong one blocks real pharmacy questions. The threshold
is chosen on dev questions known to be in scope and out of scope, on the score the pipeline
actually uses (reranker score when a reranker runs, fused first-stage score offline), and both the
block rate and the false-block rate are reported. `score_name` records which score that was, so a
threshold calibrated on one scale is not silently applied to another.

Rule: a question is blocked when it has no candidates or its top score is strictly below the
threshold; a score equal to the threshold passes.

Usage:
    cal = calibrate_threshold(in_scope_scores=[0.9, 0.8, 0.7], out_scope_scores=[0.1, 0.3])
    guard = OOSGuard(cal.threshold, score_name="rerank.sigmoid")   # threshold 0.7
    guard.blocked(0.2), guard.blocked(None), guard.blocked(0.75)     # True, True, False
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


def _finite(value: float, label: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{label} must be a finite number, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class OOSGuard:
    """Blocks a question whose best candidate scores below `threshold` on the `score_name` scale."""

    threshold: float
    score_name: str

    def __post_init__(self) -> None:
        _finite(self.threshold, "threshold")
        if not isinstance(self.score_name, str) or not self.score_name:
            raise ValueError(f"score_name must be a non-empty string, got {self.score_name!r}")

    def blocked(self, top_score: float | None) -> bool:
        """True when there is no candidate (None) or the top score is below the threshold."""
        if top_score is None:
            return True
        return _finite(top_score, "top_score") < self.threshold


@dataclass(frozen=True)
class CalibrationResult:
    """The chosen threshold with the rates it achieves on the calibration scores."""

    threshold: float
    block_rate: float        # share of out-of-scope questions blocked (higher is better)
    false_block_rate: float  # share of in-scope questions blocked (must stay <= max_false_block)


def calibrate_threshold(
    in_scope_scores: Sequence[float],
    out_scope_scores: Sequence[float],
    max_false_block: float = 0.05,
) -> CalibrationResult:
    """Threshold with the highest out-of-scope block rate whose false-block rate <= max_false_block.

    Candidates are the observed scores (in- and out-of-scope). Blocking is `score < threshold`, so
    a threshold at an observed score lets every question with exactly that score pass: tied in- and
    out-of-scope scores are never separated, and an in-scope question is never blocked by a tie.
    Both rates grow with the threshold; among candidates with the same (best) block rate the lowest
    one is taken, as it has the fewest false blocks and the widest margin for unseen in-scope
    questions. The lowest observed score blocks nothing, so a feasible threshold always exists.
    """
    if not in_scope_scores:
        raise ValueError("in_scope_scores is empty: need at least one in-scope score")
    if not out_scope_scores:
        raise ValueError("out_scope_scores is empty: need at least one out-of-scope score")
    limit = _finite(max_false_block, "max_false_block")
    if not 0.0 <= limit <= 1.0:
        raise ValueError(f"max_false_block must be in [0, 1], got {max_false_block!r}")
    ins = [_finite(s, "in_scope_scores item") for s in in_scope_scores]
    outs = [_finite(s, "out_scope_scores item") for s in out_scope_scores]

    best: CalibrationResult | None = None
    for t in sorted(set(ins) | set(outs)):
        false_block = sum(s < t for s in ins) / len(ins)
        if false_block > limit:
            break  # rates only grow with t
        block = sum(s < t for s in outs) / len(outs)
        if best is None or block > best.block_rate:
            best = CalibrationResult(threshold=t, block_rate=block, false_block_rate=false_block)
    assert best is not None  # the lowest candidate has false_block 0
    return best
