"""Hot swap on POST /v1/admin/reload: requests spread across a reload each see exactly one bundle,
and none fails. These servers do not follow CURRENT (`follow_seconds=0`), so the admin reload is the
only swap; following is tested in test_follower.py."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from litestar.testing import TestClient

from serving.headers import BUNDLE_HEADER
from serving.runtime import Runtime
from tests.serving.conftest import ADMIN, OPS, serving_client, sse_events, wait_ready
from tests.serving.fakes import fake_factory
from yaksa.config import Settings, load_settings
from yaksa.pipeline.stages import run_stage

REQUESTS = 200


def _ask(client: TestClient, i: int) -> tuple[str, str]:
    """One streamed turn; returns (version in `done`, version the runner answered from)."""
    response = client.post("/v1/chat", json={"question": f"두통에 먹는 약 {i}", "user_id": f"user-{i % 7}",
                                             "web": False}, headers=OPS)
    assert response.status_code == 200, response.text
    events = dict(sse_events(response.text))
    assert "error" not in events, events["error"]
    done = events["done"]
    assert response.headers[BUNDLE_HEADER] == done["version"]  # the header names the leased bundle
    return done["version"], done["trace"]["bundle_version"]


def test_requests_across_a_hot_swap_all_succeed_on_one_bundle_each(tiny_copy: Path) -> None:
    settings = load_settings(tiny_copy / "params.yaml")
    with serving_client(settings, fake_factory(token_delay=0.002), follow_seconds=0,
                        max_inflight_per_key=0) as client:  # 8 at once from one key: the swap, not the limit
        old_version = client.get("/readyz").json()["version"]
        old: Runtime = client.app.state.holder.current
        new_version = run_stage("index", settings, progress=False)["version"]  # published, not yet served
        assert client.get("/v1/indexes", headers=OPS).json()["serving"] == old_version
        # a quarter before the reload, half while the new bundle loads (some straddle the swap),
        # a quarter after it: requests keep flowing through the whole reload
        first_quarter_done = threading.Semaphore(0)
        reloading, reloaded = threading.Event(), threading.Event()

        def ask(i: int) -> tuple[str, str]:
            if i >= REQUESTS // 4:
                (reloading if i < 3 * REQUESTS // 4 else reloaded).wait()
            try:
                return _ask(client, i)
            finally:
                first_quarter_done.release()

        with ThreadPoolExecutor(8) as pool:
            futures = [pool.submit(ask, i) for i in range(REQUESTS)]
            for _ in range(REQUESTS // 4):
                first_quarter_done.acquire()
            reloading.set()
            reload = client.post("/v1/admin/reload", headers=ADMIN)
            reloaded.set()
            answers = [f.result() for f in futures]
    assert reload.status_code == 200
    assert reload.json() == {"reloaded": True, "version": new_version, "previous": old_version}
    assert len(answers) == REQUESTS
    assert all(done == runner for done, runner in answers)
    versions = {done for done, _ in answers}
    assert versions == {old_version, new_version}
    assert old.retired and old.in_flight == 0  # closed once its last request ended


def test_reload_without_a_new_bundle_is_a_no_op(settings: Settings) -> None:
    with serving_client(settings, follow_seconds=0) as client:
        version = client.get("/readyz").json()["version"]
        body = client.post("/v1/admin/reload", headers=ADMIN).json()
        assert body == {"reloaded": False, "version": version, "previous": version}


def test_a_broken_bundle_is_refused_and_the_old_one_keeps_serving(tiny_copy: Path) -> None:
    settings = load_settings(tiny_copy / "params.yaml")
    with serving_client(settings, follow_seconds=0) as client:
        version = client.get("/readyz").json()["version"]
        broken = settings.paths.indexes / "broken"
        broken.mkdir()
        (broken / "manifest.json").write_text("{}", encoding="utf-8")
        (settings.paths.indexes / "CURRENT").write_text("broken\n", encoding="utf-8")
        failed = client.post("/v1/admin/reload", headers=ADMIN)
        assert failed.status_code == 500 and "still serving the previous bundle" in failed.text
        assert client.get("/readyz").json()["version"] == version
        search = client.get("/v1/search", params={"q": "두통"}, headers=OPS)
        assert search.status_code == 200 and search.json()["version"] == version


def test_not_ready_without_a_bundle_then_ready_after_reload(settings: Settings, tmp_path: Path) -> None:
    empty = replace(settings, paths=replace(settings.paths, indexes=tmp_path / "indexes"))
    with serving_client(empty, ready=False, follow_seconds=0) as client:
        assert client.get("/healthz").status_code == 200
        while "loading" in (ready := client.get("/readyz")).text:
            pass
        assert ready.status_code == 503 and "index not loaded" in ready.text
        assert client.get("/v1/search", params={"q": "두통"}, headers=OPS).status_code == 503
        chat = client.post("/v1/chat", json={"question": "두통", "user_id": "a"}, headers=OPS)
        assert chat.status_code == 503 and "index not ready" in chat.text
        empty.paths.indexes.symlink_to(settings.paths.indexes, target_is_directory=True)  # a bundle appears
        assert client.post("/v1/admin/reload", headers=ADMIN).json()["reloaded"] is True
        assert wait_ready(client) == client.get("/v1/indexes", headers=OPS).json()["current"]
