"""Following CURRENT: a publish and a rollback reach a worker without a reload; a version that fails
to load keeps the old bundle serving and is retried with backoff, not at every poll."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from litestar.testing import TestClient

from serving.follower import CurrentFollower
from serving.headers import BUNDLE_HEADER, WORKER_HEADER, worker_id
from serving.runtime import RuntimeHolder
from tests.serving.conftest import OPS, copy_version, serving_client
from tests.serving.fakes import fake_factory
from yaksa.config import load_settings
from yaksa.index.layout import current_version
from yaksa.index.publish import publish

SWAP_LIMIT_S = 10.0  # following, not its speed (one in-process server on a shared CI machine); the 2 s
                    # bound is asserted across real workers in test_workers.py


def _answered_by(client: TestClient) -> str:
    response = client.get("/v1/search", params={"q": "두통에 먹는 약"}, headers=OPS)
    assert response.status_code == 200, response.text
    assert response.headers[WORKER_HEADER] == worker_id()
    assert response.headers[BUNDLE_HEADER] == response.json()["version"]
    return response.headers[BUNDLE_HEADER]


def _seconds_until_served(client: TestClient, version: str) -> float:
    started = time.monotonic()
    while (elapsed := time.monotonic() - started) < SWAP_LIMIT_S:
        if _answered_by(client) == version:
            return elapsed
        time.sleep(0.02)
    raise AssertionError(f"still serving {_answered_by(client)} {SWAP_LIMIT_S} s after CURRENT -> {version}")


def test_a_publish_and_a_rollback_reach_the_server_without_a_reload(tiny_copy: Path) -> None:
    settings = load_settings(tiny_copy / "params.yaml")
    indexes = settings.paths.indexes
    first = current_version(indexes)
    assert first is not None
    second = copy_version(indexes, first, "v-second")
    with serving_client(settings, follow_seconds=0.1) as client:
        assert _answered_by(client) == first
        publish(indexes, second)
        _seconds_until_served(client, second)
        publish(indexes, first)  # the rollback
        _seconds_until_served(client, first)
        follow = client.get("/v1/indexes", headers=OPS).json()
        assert follow["worker"] == worker_id() and follow["serving"] == first
        assert follow["follow"] == {"poll_seconds": 0.1, "failed_version": None, "failed_attempts": 0,
                                    "retry_in_seconds": None}
        assert client.app.state.follower.attempts == 3  # the initial load, the publish, the rollback


def test_without_following_only_the_admin_reload_swaps(tiny_copy: Path) -> None:
    settings = load_settings(tiny_copy / "params.yaml")
    indexes = settings.paths.indexes
    first = current_version(indexes)
    assert first is not None
    with serving_client(settings, follow_seconds=0) as client:
        publish(indexes, copy_version(indexes, first, "v-second"))
        time.sleep(0.3)
        assert _answered_by(client) == first
        assert client.get("/v1/indexes", headers=OPS).json()["follow"] is None


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_failing_version_keeps_the_old_bundle_and_is_retried_with_backoff(tiny_copy: Path) -> None:
    settings = load_settings(tiny_copy / "params.yaml")
    indexes = settings.paths.indexes
    first = current_version(indexes)
    assert first is not None
    holder = RuntimeHolder(settings, fake_factory())
    clock = Clock()
    follower = CurrentFollower(holder, interval_s=0.5, clock=clock, first_retry_s=1.0, max_retry_s=4.0)

    async def scenario() -> None:
        await follower.check()
        assert holder.current is not None and holder.current.version == first and follower.attempts == 1
        broken = indexes / "broken"
        broken.mkdir()
        (broken / "manifest.json").write_text("{}", encoding="utf-8")
        (indexes / "CURRENT").write_text("broken\n", encoding="utf-8")
        attempts_at = []
        for _ in range(30):  # 15 s of polls every 0.5 s
            before = follower.attempts
            await follower.check()
            if follower.attempts > before:
                attempts_at.append(clock.now - 1000.0)
            assert holder.current.version == first  # the old bundle keeps serving
            clock.now += 0.5
        assert attempts_at == [0.0, 1.0, 3.0, 7.0, 11.0]  # retried after 1, 2, 4 s, then every 4 s (the cap)
        assert follower.describe()["failed_version"] == "broken" and "broken" in (holder.load_error or "")
        second = copy_version(indexes, first, "v-second")
        (indexes / "CURRENT").write_text(second + "\n", encoding="utf-8")
        await follower.check()  # a new CURRENT is tried at once, whatever the backoff
        assert holder.current.version == second and holder.load_error is None
        assert follower.describe()["failed_attempts"] == 0
        (indexes / "CURRENT").write_text("../escape\n", encoding="utf-8")  # unreadable: nothing is loaded
        before = follower.attempts
        await follower.check()
        assert follower.attempts == before and holder.current.version == second
        assert "cannot read CURRENT" in (holder.load_error or "")
        holder.close()

    asyncio.run(scenario())


def test_the_poll_interval_must_be_positive(tiny_copy: Path) -> None:
    holder = RuntimeHolder(load_settings(tiny_copy / "params.yaml"), fake_factory())
    with pytest.raises(ValueError, match="poll interval"):
        CurrentFollower(holder, interval_s=0)
