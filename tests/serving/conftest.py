"""Clients for the app over the tiny bundle, with the streaming fake runner and chosen keys."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from serving.app import create_app
from serving.config import ServingConfig, parse_api_keys
from tests.serving.fakes import fake_factory
from tests.web.fake_tavily import fake_tavily  # noqa: F401 - fixture for the web-references test
from yaksa.config import Settings, load_settings

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
