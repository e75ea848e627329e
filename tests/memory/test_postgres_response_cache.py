"""The response cache in PostgreSQL (`yaksa.store.cache`): caches of separate processes (hosts) share
entries, an erasure through one is never served by another, the erasure race, eviction, expiry and
bundles as in the file cache, and the lookup cost (target: p50 <= 3 ms with a full bundle)."""

from __future__ import annotations

import statistics
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import psycopg
import pytest

from tests.memory.test_response_cache import (
    DAVE,
    PERMIT,
    SCOPE,
    V1,
    V2,
    answer,
    no_entities,
    put,
    random_vector,
)
from yaksa.memory.cache_file import KEEP_FILES
from yaksa.store.cache import PostgresResponseCache

REPO = Path(__file__).resolve().parents[2]
LOOKUP_P50_SANITY_MS = 15.0   # a bound on a shared 2-core machine, not the 3 ms target (measured: README)


def _cache(url: str, **kwargs: object) -> PostgresResponseCache:
    cache = PostgresResponseCache(url, random_vector, no_entities, **kwargs)  # type: ignore[arg-type]
    cache.set_bundle_version(V1)
    return cache


def test_postgres_cache_entries_are_shared_and_an_erasure_reaches_every_host(postgres_url: str) -> None:
    dave_host, erin_host = _cache(postgres_url), _cache(postgres_url)
    medical = "65세 남성 당뇨 환자가 이부프로펜 먹어도 되나요?"
    assert put(dave_host, DAVE, owner="dave") is False            # identifiers: never stored
    assert put(dave_host, medical, owner="dave")
    assert erin_host.lookup(medical, V1, SCOPE) is not None        # stored on one host, served by another
    assert put(dave_host, medical, answer("다시 쓴 답"), owner="dave")   # the same question again: replaced
    assert erin_host.lookup(medical, V1, SCOPE).answer["answer"] == "다시 쓴 답" and len(erin_host) == 1
    script = textwrap.dedent(f"""
        from tests.memory.test_response_cache import no_entities, random_vector
        from yaksa.store.cache import PostgresResponseCache
        print(PostgresResponseCache({postgres_url!r}, random_vector, no_entities).forget_user("dave"))
    """)
    done = subprocess.run([sys.executable, "-c", script], check=False, cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "1", done.stderr[-2000:]
    assert erin_host.lookup(medical, V1, SCOPE) is None            # the next lookup sees the erasure
    assert dave_host.lookup(medical, V1, SCOPE) is None
    assert put(erin_host, "게보린 먹어도 되나요", owner="erin")      # and a later store revives nothing
    assert dave_host.owned_by("dave") == 0 and dave_host.owned_by("erin") == 1
    with psycopg.connect(postgres_url) as con:
        rows = con.execute("SELECT owner, entry FROM cache_entries").fetchall()
    assert [owner for owner, _ in rows] == ["erin"]
    assert all("홍길동" not in entry and "게보린" not in entry for _, entry in rows)   # no question text kept


def test_postgres_forget_user_erases_only_that_user_in_every_bundle(postgres_url: str) -> None:
    cache = _cache(postgres_url)
    for i in range(3):
        put(cache, f"dave {i}", owner="dave", version=V1 if i else V2)
    put(cache, "erin 0", owner="erin")
    assert cache.forget_user("dave") == 3 and cache.forget_user("dave") == 0
    assert cache.lookup("erin 0", V1, SCOPE) is not None and len(cache) == 1
    with pytest.raises(ValueError, match="user_id"):
        cache.forget_user("")


def test_postgres_a_store_waits_on_an_erasure_and_an_erasure_on_a_store(postgres_url: str) -> None:
    """Erasure wins the race: the epoch check runs under the cache's lock, which forget_user takes too."""
    cache, other_host = _cache(postgres_url), _cache(postgres_url)
    assert cache.store("타이레놀 먹어도 되나요", PERMIT, V1, verified=True, owner="dave", scope=SCOPE,
                       still_current=lambda: False) is False
    checking, release = threading.Event(), threading.Event()

    def slow_check() -> bool:          # a turn's epoch check, still current, that takes a while
        checking.set()
        release.wait(10)
        return True

    storer = threading.Thread(target=lambda: cache.store("게보린 먹어도 되나요", PERMIT, V1, verified=True,
                                                         owner="dave", scope=SCOPE, still_current=slow_check))
    storer.start()
    assert checking.wait(10)
    erased: list[int] = []
    eraser = threading.Thread(target=lambda: erased.append(other_host.forget_user("dave")))
    eraser.start()
    time.sleep(0.3)
    assert eraser.is_alive()           # waits for the store's transaction
    release.set()
    storer.join(10)
    eraser.join(10)
    assert erased == [1] and cache.owned_by("dave") == 0
    assert cache.lookup("게보린 먹어도 되나요", V1, SCOPE) is None


def test_postgres_lru_eviction_expiry_and_replacement(postgres_url: str) -> None:
    now = [1000.0]
    cache = _cache(postgres_url, max_size=3, ttl_s=100.0, clock=lambda: now[0])
    for n in ("약0", "약1", "약2"):
        put(cache, n, answer(n))
    assert cache.lookup("약0", V1, SCOPE) is not None       # 약0 is now the most recent; 약1 the least
    put(cache, "약3", answer("약3"))
    assert len(cache) == 3 and cache.lookup("약1", V1, SCOPE) is None
    put(cache, "약2", answer("약2 again"))                  # same question: replaced, not duplicated
    other = _cache(postgres_url, max_size=3, ttl_s=100.0, clock=lambda: now[0])
    assert len(other) == 3 and other.lookup("약2", V1, SCOPE).answer["answer"] == "약2 again"
    now[0] += 101                                           # every entry has expired
    assert other.lookup("약2", V1, SCOPE) is None
    put(other, "약4", answer("약4"))                          # a store drops the expired rows
    assert cache.lookup("약4", V1, SCOPE) is not None and len(cache) == 1


def test_postgres_bundles_keep_their_own_answers_and_only_the_newest_are_kept(postgres_url: str) -> None:
    cache = _cache(postgres_url)
    put(cache, "타이레놀 먹어도 되나요", version=V1)
    assert cache.lookup("타이레놀 먹어도 되나요", V2, SCOPE) is None    # another bundle's answers never hit
    assert cache.lookup("타이레놀 먹어도 되나요", V1, SCOPE) is not None
    versions = [f"v{i}" for i in range(KEEP_FILES + 1)]
    for v in versions:
        put(cache, f"{v} 질문", version=v)
    with psycopg.connect(postgres_url) as con:
        kept = {v for (v,) in con.execute("SELECT DISTINCT bundle_version FROM cache_entries")}
    assert kept == set(versions[-KEEP_FILES:])


def test_postgres_cache_lookup_cost_with_a_full_bundle(postgres_url: str) -> None:
    """512 entries (the default max_size), lookups from another host's cache: the per-lookup cost is
    one round trip to ask whether anything changed plus the in-memory search."""
    writer, reader = _cache(postgres_url), _cache(postgres_url)
    for i in range(512):
        put(writer, f"{i}번 약 먹어도 되나요", owner=f"user-{i % 7}")
    questions = [f"{i}번 약 먹어도 되나요" for i in range(0, 512, 8)]
    assert reader.lookup(questions[0], V1, SCOPE) is not None      # the first lookup loads the rows
    timings = []
    for q in questions * 3:
        started = time.perf_counter()
        hit = reader.lookup(q, V1, SCOPE)
        timings.append((time.perf_counter() - started) * 1000)
        assert hit is not None
    p50 = statistics.median(timings)
    print(f"postgres cache lookup over 512 entries: p50 {p50:.2f} ms, "
          f"p95 {sorted(timings)[int(0.95 * len(timings))]:.2f} ms")    # the README's figure (pytest -s)
    assert p50 <= LOOKUP_P50_SANITY_MS
