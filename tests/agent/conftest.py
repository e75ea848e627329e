"""An agent over the tiny built project, with its memory and cache in the test's own tmp dir."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.fake_openai import FakeOpenAI, fake_openai  # noqa: F401 - fixture re-exported for tests/agent
from yaksa.agent.factory import build_runner
from yaksa.agent.runner import AgentRunner
from yaksa.config import Settings, load_settings
from yaksa.llm.config import ROLES
from yaksa.retrieval.loader import LoadedBundle, load_published


@pytest.fixture(scope="module")
def loaded(tiny_project: Path) -> Iterator[LoadedBundle]:
    bundle = load_published(load_settings(tiny_project / "params.yaml").paths.indexes)
    yield bundle
    bundle.close()


@pytest.fixture()
def settings(tiny_project: Path, tmp_path: Path) -> Settings:
    return load_settings(tiny_project / "params.yaml").with_state_in(tmp_path)


@pytest.fixture()
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("YAKSA_LLM_BASE_URL", raising=False)


@pytest.fixture()
def make_runner(loaded: LoadedBundle, settings: Settings, offline: None) -> Callable[..., AgentRunner]:
    def make(s: Settings | None = None, enforce_safety: bool = True) -> AgentRunner:
        return build_runner(loaded, s or settings, enforce_safety=enforce_safety)
    return make


@pytest.fixture()
def llm_env(fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> FakeOpenAI:  # noqa: F811
    """Point the agent's LLM client at the fake server; each role gets its own model name."""
    monkeypatch.setenv("YAKSA_LLM_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("YAKSA_LLM_API_KEY", "test-key")
    monkeypatch.setenv("YAKSA_LLM_MODEL", "default-model")
    monkeypatch.setenv("YAKSA_LLM_TIMEOUT", "2")
    monkeypatch.setenv("YAKSA_LLM_MAX_RETRIES", "1")
    monkeypatch.setenv("YAKSA_LLM_BACKOFF", "0.01")
    for role in ROLES:
        monkeypatch.setenv(f"YAKSA_LLM_MODEL_{role.upper()}", f"{role}-model")
    return fake_openai
