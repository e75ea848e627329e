"""Rate-limit buckets in PostgreSQL (`YAKSA_DATABASE_URL`): the SQLite buckets' behaviour on a real
server, and one bucket per key across processes (hosts) taking from it at the same time."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from serving.config import load_serving_config
from serving.ratelimit import PostgresTokenBuckets, TokenBuckets, open_buckets, per_minute_buckets
from tests.serving.test_ratelimit import Clock

REPO = Path(__file__).resolve().parents[2]

TAKE_20 = """
import sys
from serving.ratelimit import PostgresTokenBuckets
buckets = PostgresTokenBuckets(rate_per_sec=0.001, burst=10, url=sys.argv[1])
print(sum(buckets.take("key:shared") == 0.0 for _ in range(20)), buckets.take("key:other") == 0.0)
"""


def test_postgres_burst_then_steady_rate_and_a_clock_stepping_back(postgres_url: str) -> None:
    clock = Clock()
    one, two = (PostgresTokenBuckets(rate_per_sec=2.0, burst=3, url=postgres_url, clock=clock) for _ in range(2))
    assert [one.take("a"), two.take("a"), one.take("a")] == [0.0, 0.0, 0.0]
    assert two.take("a") == pytest.approx(0.5) and one.waiting("a") == pytest.approx(0.5)
    assert one.take("b") == 0.0 and one.waiting("never-seen") == 0.0  # another key has its own bucket
    clock.now += 0.5
    assert one.take("a") == 0.0 and two.take("a") == pytest.approx(0.5)
    clock.now -= 100  # a wall clock stepping back grants nothing
    assert one.take("a") > 0
    clock.now += 200
    assert [two.take("a") for _ in range(4)] == [0.0, 0.0, 0.0, pytest.approx(0.5)]  # refills up to the burst
    off = PostgresTokenBuckets(rate_per_sec=0.0, burst=1, url=postgres_url)
    assert all(off.take("a") == 0.0 for _ in range(10)) and off.waiting("a") == 0.0
    with pytest.raises(ValueError):
        PostgresTokenBuckets(rate_per_sec=-1, burst=1, url=postgres_url)


def test_postgres_processes_and_threads_share_one_bucket_per_key(postgres_url: str) -> None:
    """As two hosts (processes) plus a burst of threads: together they get the burst once."""
    procs = [subprocess.Popen([sys.executable, "-c", TAKE_20, postgres_url], cwd=REPO, stdout=subprocess.PIPE,
                              text=True) for _ in range(2)]
    outputs = [p.communicate(timeout=120)[0].split() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sum(int(allowed) for allowed, _ in outputs) == 10  # the burst, across both processes
    assert [other for _, other in outputs] == ["True", "True"]
    buckets = PostgresTokenBuckets(rate_per_sec=0.001, burst=5, url=postgres_url)
    granted: list[float] = []
    threads = [threading.Thread(target=lambda: granted.extend(buckets.take("key:threads") for _ in range(5)))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(w == 0.0 for w in granted) == 5 and len(granted) == 20


def test_postgres_is_chosen_by_the_database_url_setting(postgres_url: str, tmp_path: Path) -> None:
    config = load_serving_config({"YAKSA_DATABASE_URL": postgres_url, "YAKSA_RATE_FILE": str(tmp_path / "r.sqlite")})
    assert config.database_url == postgres_url and postgres_url not in repr(config)
    assert isinstance(open_buckets(1.0, 1, config.rate_file, config.database_url), PostgresTokenBuckets)
    assert isinstance(per_minute_buckets(6, config.rate_file, config.database_url), PostgresTokenBuckets)
    local = open_buckets(1.0, 1, config.rate_file, None)
    assert isinstance(local, TokenBuckets)
    local.close()
    with pytest.raises(ValueError, match="YAKSA_DATABASE_URL"):
        load_serving_config({"YAKSA_DATABASE_URL": "sqlite:///x"})
