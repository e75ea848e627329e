"""Clients for the app over the tiny bundle, with the streaming fake runner and chosen keys."""

from __future__ import annotations

import json
import logging
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from litestar import Litestar
from litestar.testing import TestClient

from serving.app import create_app
from serving.config import ServingConfig, parse_api_keys
from tests.serving.fakes import fake_factory
from tests.web.fake_tavily import fake_tavily  # noqa: F401 - fixture for the web-references test
from yaksa.config import Settings, load_settings
from yaksa.index.layout import MANIFEST_NAME, USERDICT_NAME
from yaksa.index.manifest import sha256_file
from yaksa.text.userdict import userdict_hash

USER_KEY = "alice-key"        # bound to alice only
OPS_KEY = "ops-key"           # any user
ADMIN_KEY = "admin-secret"
KEYS = f"{USER_KEY}=alice;{OPS_KEY}=*"
ALICE = {"Authorization": f"Bearer {USER_KEY}"}
OPS = {"Authorization": f"Bearer {OPS_KEY}"}
ADMIN = {"Authorization": f"Bearer {ADMIN_KEY}"}

Event = tuple[str, dict[str, Any]]


def sse_events(text: str) -> list[Event]:
    """Parse an SSE body into (event, JSON data) pairs."""
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\n") if ": " in line)
        if "event" in fields:
            events.append((fields["event"], json.loads(fields.get("data", "null"))))
    return events


def wait_ready(client: TestClient, limit_s: float = 60.0) -> str:
    """Poll /readyz until the background load finishes; returns the served version."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        ready = client.get("/readyz")
        if ready.status_code == 200:
            return ready.json()["version"]
        if "loading" not in ready.text:
            raise AssertionError(f"bundle failed to load: {ready.text}")
        time.sleep(0.05)
    raise AssertionError("bundle did not load")


def copy_version(indexes: Path, version: str, new_version: str) -> str:
    """A second complete bundle: `version`'s files under a new version name (its manifest says so).

    Why a copy, not a rebuild: a swap depends only on the version CURRENT names, and the index stage
    costs tens of seconds on the CI machine; the copy verifies like any bundle (same checksums)."""
    shutil.copytree(indexes / version, indexes / new_version)
    manifest = indexes / new_version / "manifest.json"
    data = json.loads(manifest.read_text("utf-8"))
    data["version"] = new_version
    manifest.write_text(json.dumps(data, ensure_ascii=False, indent=2), "utf-8")
    return new_version


NEW_WORD = "스왑테스트정"   # a made-up brand stem: in no label, so no answer changes


def add_user_word(indexes: Path, version: str, word: str = NEW_WORD) -> None:
    """Add `word` to `version`'s user dictionary and record the new checksum and analyser identity in
    its manifest, as a build with one more product would."""
    folder = indexes / version
    userdict = folder / USERDICT_NAME
    lines = [*userdict.read_text("utf-8").splitlines(), f"{word}\tNNP\t0.0"]
    userdict.write_text("\n".join(sorted(lines)) + "\n", "utf-8")
    manifest = folder / MANIFEST_NAME
    data = json.loads(manifest.read_text("utf-8"))
    data["files"][USERDICT_NAME] = sha256_file(userdict)
    data["tokenizer"]["userdict_hash"] = userdict_hash(userdict)
    manifest.write_text(json.dumps(data, ensure_ascii=False, indent=2), "utf-8")


@pytest.fixture(scope="session")
def settings(tiny_project: Path) -> Settings:
    return load_settings(tiny_project / "params.yaml")


@contextmanager
def serving_client(settings: Settings, runner_factory: Any = None, ready: bool = True,
                   **config: Any) -> Iterator[TestClient]:
    """A TestClient (lifespan running) with the test keys; `config` overrides ServingConfig fields."""
    cfg = ServingConfig(**{"api_keys": parse_api_keys(KEYS), "admin_key": ADMIN_KEY, "rate_per_sec": 0.0, **config})
    with TestClient(app=create_app(settings, runner_factory or fake_factory(), cfg)) as client:
        if ready:
            wait_ready(client)
        yield client


@pytest.fixture(scope="module")
def client(settings: Settings) -> Iterator[TestClient]:
    """One ready app per test module, for tests that do not need their own configuration."""
    with serving_client(settings) as client:
        yield client


@contextmanager
def live_server(app: Litestar, **uvicorn_config: Any) -> Iterator[str]:
    """`app` under a real uvicorn on 127.0.0.1 (a free port), ready; yields its base URL.

    Why not TestClient: its peer is "testclient" and its Host "testserver.local", so open mode
    (loopback peers and Host names only) can only be exercised over a real socket.
    """
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", **uvicorn_config))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(url + "/readyz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        else:
            raise AssertionError("server did not become ready")
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


@contextmanager
def recording(*loggers: str, each: Callable[[logging.LogRecord], Any] = lambda record: record) -> Iterator[list[Any]]:
    """Every record of `loggers` (and their children), at any level, as `each` turns it at emit time
    (a formatter reads the request id while the request still runs).

    Why not caplog: Litestar's logging set-up at app start-up replaces the root logger's handlers.
    """
    records: list[Any] = []
    handler = logging.Handler(logging.DEBUG)
    handler.emit = lambda record: records.append(each(record))  # type: ignore[method-assign]
    saved = [(logging.getLogger(name), logging.getLogger(name).level) for name in loggers]
    for logger, _ in saved:
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
    try:
        yield records
    finally:
        for logger, level in saved:
            logger.removeHandler(handler)
            logger.setLevel(level)
