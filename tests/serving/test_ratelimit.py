"""Token buckets: burst then steady rate, per key; shared through one file by several processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from serving.ratelimit import TokenBuckets, retry_after_seconds

REPO = Path(__file__).resolve().parents[2]


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


TAKE_20 = """
import sys
from pathlib import Path
from serving.ratelimit import TokenBuckets
buckets = TokenBuckets(rate_per_sec=0.001, burst=10, path=Path(sys.argv[1]))
print(sum(buckets.take("key:shared") == 0.0 for _ in range(20)), buckets.take("key:other") == 0.0)
"""


def test_two_processes_share_one_bucket_per_key(tmp_path: Path) -> None:
    """As two workers of one server: together they get the burst once, not once each."""
    path = tmp_path / "ratelimit.sqlite"
    procs = [subprocess.Popen([sys.executable, "-c", TAKE_20, str(path)], cwd=REPO, stdout=subprocess.PIPE, text=True)
             for _ in range(2)]
    outputs = [p.communicate(timeout=60)[0].split() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sum(int(allowed) for allowed, _ in outputs) == 10  # the burst, across both processes
    assert [other for _, other in outputs] == ["True", "True"]  # another key has its own bucket
    again = TokenBuckets(rate_per_sec=0.001, burst=10, path=path)  # a third process-like opener sees the same state
    assert again.take("key:shared") > 0
    again.close()


def test_the_file_refills_at_the_rate_for_everyone(tmp_path: Path) -> None:
    clock = Clock()
    path = tmp_path / "ratelimit.sqlite"
    one, two = (TokenBuckets(rate_per_sec=2.0, burst=2, path=path, clock=clock) for _ in range(2))
    assert [one.take("a"), two.take("a")] == [0.0, 0.0]
    assert two.take("a") == pytest.approx(0.5) and one.take("a") == pytest.approx(0.5)
    clock.now += 0.5
    assert one.take("a") == 0.0 and two.take("a") > 0
    clock.now -= 100  # a wall clock stepping back grants nothing
    assert one.take("a") > 0
    one.close()
    with pytest.raises(RuntimeError, match="closed"):
        one.take("a")
    two.close()


def test_an_unusable_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "not-a-db").write_text("hello, this is not SQLite" * 100, encoding="utf-8")
    with pytest.raises(ValueError, match="rate-limit file"):
        TokenBuckets(rate_per_sec=1.0, burst=1, path=tmp_path / "not-a-db")
