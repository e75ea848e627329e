"""Two hosts, one truth (issue 25): two `yaksa serve` instances with their own working directories and
ports, one PostgreSQL database (`YAKSA_DATABASE_URL`) and one bundle directory. A profile written
through one is read through the other; an erasure through one removes the person from the other's
answers, history and cache; rate limits hold across both; a publish and a rollback under load on
both fail no request."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest
import yaml

from tests.serving.conftest import copy_version
from tests.serving.test_workers import Load, ready_workers, yaksa_serve
from yaksa.config import load_settings
from yaksa.index.layout import current_version
from yaksa.index.publish import publish

ADMIN_PER_MIN = 4   # admin calls a minute, for both hosts together when the buckets are shared
CARE = "콧물에 페니라민정 먹어도 되나요?"   # a question the tiny bundle answers with citations (cached)
SHARED_PATHS = ("raw", "processed", "indexes", "embedding_cache")   # the rest of `paths:` is the host's own


def _host_dir(root: Path, project: Path) -> Path:
    """A second host's working directory: its own params.yaml and data folder, the bundle directory
    (indexes) and the built inputs of `project` (as a shared volume would give them)."""
    host = root / "host-b"
    host.mkdir()
    params = yaml.safe_load((project / "params.yaml").read_text("utf-8"))
    params["paths"] = {name: str((project / rel).resolve()) if name in SHARED_PATHS else rel
                       for name, rel in params["paths"].items()}
    (host / "params.yaml").write_text(yaml.safe_dump(params, allow_unicode=True, sort_keys=False), "utf-8")
    return host


def _chat(url: str, question: str, user: str) -> dict:
    r = httpx.post(url + "/v1/chat", json={"question": question, "user_id": user, "stream": False, "web": False},
                   timeout=120)
    assert r.status_code == 200, r.text
    return r.json()


@pytest.mark.slow
def test_postgres_two_hosts_share_profiles_erasures_cache_and_rate_limits(tiny_copy: Path, tmp_path: Path,
                                                                          postgres_url: str) -> None:
    indexes = load_settings(tiny_copy / "params.yaml").paths.indexes
    first = current_version(indexes)
    assert first is not None
    second = copy_version(indexes, first, "v-second")
    host_a = tmp_path / "host-a"
    host_a.mkdir()
    host_b = _host_dir(tmp_path, tiny_copy)
    env = {"YAKSA_DATABASE_URL": postgres_url, "YAKSA_ADMIN_PER_MIN": str(ADMIN_PER_MIN)}
    started = time.monotonic()
    with yaksa_serve(tiny_copy / "params.yaml", tmp_path / "a.log", workers=1, cwd=host_a, extra_env=env) as a, \
            yaksa_serve(host_b / "params.yaml", tmp_path / "b.log", workers=1, cwd=host_b, extra_env=env) as b:
        workers = {a: ready_workers(a, first, workers=1), b: ready_workers(b, first, workers=1)}
        ready_s = time.monotonic() - started

        # a profile written through one host is read through the other, history included
        _chat(a, "와파린을 먹고 있어요", "taker")
        seen = httpx.get(b + "/v1/profile/taker").json()
        assert any(i["slot_type"] == "medications" for i in seen["items"]), seen
        assert [m["content"] for m in seen["history"]][:1] == ["와파린을 먹고 있어요"]

        # the cache is shared: carol's answer on A is erin's hit on B
        carol = _chat(a, CARE, "carol")
        assert carol["trace"]["stored_in_cache"], carol["trace"]
        assert _chat(b, CARE.rstrip("?"), "erin")["trace"]["cache_hit"]

        # an erasure through B removes carol from A's answers, history and cache
        assert httpx.delete(b + "/v1/profile/carol").json()["forgotten"] is True
        assert httpx.get(a + "/v1/profile/carol").json() == {"user_id": "carol", "summary": "", "items": [],
                                                               "history": []}
        gina = _chat(a, CARE.rstrip("?"), "gina")     # A held carol's entry in memory: not served again
        assert not gina["trace"]["cache_hit"] and gina["trace"]["stored_in_cache"]
        print(f"two hosts: ready after {ready_s:.0f} s, checks done after {time.monotonic() - started:.0f} s")

        # a publish and a rollback under load on both hosts: no request fails
        with Load(a, clients=2) as load_a, Load(b, clients=2) as load_b:
            time.sleep(2)
            publish(indexes, second)
            switched = time.monotonic()
            lags = [load.swap_lag(workers[url], second, switched) for url, load in ((a, load_a), (b, load_b))]
            time.sleep(1)
            publish(indexes, first)
            switched = time.monotonic()
            lags += [load.swap_lag(workers[url], first, switched) for url, load in ((a, load_a), (b, load_b))]
            time.sleep(1)
        print(f"two hosts: swap lag {lags}; host A {load_a.counts}, host B {load_b.counts}")  # pytest -s
        assert not load_a.failures and not load_b.failures, (load_a.failures[:3], load_b.failures[:3])
        assert all(n > 0 for load in (load_a, load_b) for n in load.counts.values())

        # rate limits hold across both: the admin allowance is spent once for the two hosts together
        codes = [httpx.post((a, b)[i % 2] + "/v1/admin/reload", timeout=60).status_code
                 for i in range(ADMIN_PER_MIN + 2)]
        assert codes == [200] * ADMIN_PER_MIN + [429, 429], codes
