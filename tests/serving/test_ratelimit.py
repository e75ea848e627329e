from __future__ import annotations

import pytest

from serving.ratelimit import TokenBuckets, retry_after_seconds


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_burst_then_steady_rate_per_key() -> None:
    clock = Clock()
    buckets = TokenBuckets(rate_per_sec=2.0, burst=3, clock=clock)
    assert [buckets.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert buckets.take("a") == pytest.approx(0.5)
    assert buckets.take("b") == 0.0  # another key has its own bucket
    clock.now += 0.5
    assert buckets.take("a") == 0.0
    clock.now += 100
    assert [buckets.take("a") for _ in range(4)][-1] > 0  # refills only up to the burst


def test_zero_rate_disables_limiting() -> None:
    buckets = TokenBuckets(rate_per_sec=0.0, burst=1)
    assert all(buckets.take("a") == 0.0 for _ in range(100))


def test_bad_settings_and_retry_after_rounding() -> None:
    with pytest.raises(ValueError):
        TokenBuckets(rate_per_sec=-1, burst=1)
    with pytest.raises(ValueError):
        TokenBuckets(rate_per_sec=1, burst=0)
    assert [retry_after_seconds(w) for w in (0.01, 1.0, 1.2)] == [1, 1, 2]
