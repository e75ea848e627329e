"""Choose a blocking threshold on a score: the highest block rate within a false-block budget.

Why a budget first: a scope decision that blocks real pharmacy questions is worse than one that
lets an odd off-topic question through (the answer step still cites only retrieved documents), so
the in-scope false-block rate is capped and, within the cap, as much out-of-scope traffic as
possible is blocked. The scope model (`model.py`) applies it to P(in scope).

Rule: a question is blocked when its score is strictly below the threshold; a score equal to the
threshold passes.

Usage:
    cal = calibrate_threshold(in_scope_scores=[0.9, 0.8, 0.7], out_scope_scores=[0.1, 0.3])
    cal.threshold, cal.block_rate, cal.false_block_rate      # 0.5 (midway 0.3..0.7), 1.0, 0.0
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
    one is taken, as it has the fewest false blocks. The lowest observed score blocks nothing, so a
    feasible threshold always exists. The threshold returned is then moved down to the middle of the
    gap between that candidate and the highest score below it (the last question it blocks): the
    rates on the calibration scores are unchanged, since no score lies inside the gap, but an unseen
    in-scope question scoring just under the lowest in-scope calibration score is no longer blocked
    by a threshold sitting exactly on it (maximum margin on both sides).
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
    below = [v for v in (*ins, *outs) if v < best.threshold]
    if below:
        best = CalibrationResult((max(below) + best.threshold) / 2, best.block_rate, best.false_block_rate)
    return best
