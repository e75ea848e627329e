from __future__ import annotations

import pytest

from yaksa.scope.threshold import CalibrationResult, calibrate_threshold


def test_separable_scores_block_everything_with_no_false_blocks() -> None:
    cal = calibrate_threshold([0.7, 0.9, 0.8], [0.1, 0.3, 0.2])
    # the lowest candidate that blocks all three is the lowest in-scope score (0.7); the threshold sits
    # midway between it and the highest blocked score (0.3), so an unseen 0.69 in-scope question passes
    assert cal == CalibrationResult(threshold=0.5, block_rate=1.0, false_block_rate=0.0)


def test_overlapping_scores_respect_the_false_block_limit() -> None:
    ins = [0.2, 0.5, 0.6, 0.7, 0.8, 0.9, 0.9, 0.95, 0.95, 0.99]  # 10 in-scope
    outs = [0.1, 0.3, 0.4, 0.55, 0.65, 0.75]                    # 6 out-of-scope
    # t=0.5: blocks in {0.2} -> 1/10 = 0.1; blocks out {0.1, 0.3, 0.4} -> 3/6
    # t=0.6: blocks in {0.2, 0.5} -> 0.2 > 0.1, infeasible
    assert calibrate_threshold(ins, outs, max_false_block=0.1) == CalibrationResult(0.45, 0.5, 0.1)  # (0.4+0.5)/2
    # no false blocks allowed: t=0.2 blocks only 0.1 -> 1/6
    cal = calibrate_threshold(ins, outs, max_false_block=0.0)
    assert cal.threshold == pytest.approx(0.15) and cal.block_rate == pytest.approx(1 / 6) and cal.false_block_rate == 0.0
    # allowing 30 %: t=0.7 blocks in {0.2, 0.5, 0.6}, out {0.1, 0.3, 0.4, 0.55, 0.65}
    assert calibrate_threshold(ins, outs, max_false_block=0.3) == CalibrationResult(0.675, 5 / 6, 0.3)


def test_tied_scores_are_not_separated() -> None:
    # in and out share 0.5: a threshold at 0.5 passes both; blocking the 0.5 out-of-scope one would
    # need t > 0.5, which also blocks the 0.5 in-scope one (1/2 > 0.05)
    cal = calibrate_threshold([0.5, 0.9], [0.5, 0.1])
    assert cal == CalibrationResult(threshold=0.3, block_rate=0.5, false_block_rate=0.0)  # midway 0.1..0.5


def test_empty_or_bad_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match="in_scope_scores"):
        calibrate_threshold([], [0.1])
    with pytest.raises(ValueError, match="out_scope_scores"):
        calibrate_threshold([0.5], [])
    with pytest.raises(ValueError, match="max_false_block"):
        calibrate_threshold([0.5], [0.1], max_false_block=1.5)
    with pytest.raises(ValueError, match="out_scope_scores item"):
        calibrate_threshold([0.5], [float("nan")])
