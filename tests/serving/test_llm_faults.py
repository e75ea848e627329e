"""The production agent behind /v1/chat while its LLM endpoint (the fake server) fails mid-stream."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fake_openai import FakeOpenAI, Reply, fake_openai  # noqa: F401 - fixture
from tests.serving.conftest import OPS, serving_client, sse_events
from yaksa.agent.factory import build_runner
from yaksa.config import Settings
from yaksa.llm.config import ROLES

QUESTION = "두통에 먹는 약 알려주세요"
GOOD = "두통에 쓰는 약의 효능효과는 근거 문서에 있습니다 [문서 1]\n\n복용 전에 약사나 의사 등 전문가와 꼭 상담하세요."


@pytest.fixture()
def agent_settings(settings: Settings, tmp_path: Path, fake_openai: FakeOpenAI,  # noqa: F811
                   monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("YAKSA_LLM_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("YAKSA_LLM_MODEL", "m")
    monkeypatch.setenv("YAKSA_LLM_TIMEOUT", "1")
    monkeypatch.setenv("YAKSA_LLM_MAX_RETRIES", "0")
    for role in ROLES:
        monkeypatch.setenv(f"YAKSA_LLM_MODEL_{role.upper()}", f"{role}-model")
    return settings.with_state_in(tmp_path)


def chat(client, user: str = "alice", question: str = QUESTION) -> list[tuple[str, dict]]:
    response = client.post("/v1/chat", json={"question": question, "user_id": user, "web": False}, headers=OPS)
    assert response.status_code == 200
    return sse_events(response.text)


def test_stream_cut_and_500s_degrade_to_a_fallback_answer(agent_settings: Settings, fake_openai: FakeOpenAI) -> None:  # noqa: F811
    fake_openai.on("generator-model", Reply(GOOD, cut_after=2))   # the stream breaks after two chunks
    for role in ("router", "verifier", "judge", "rewriter", "corrector"):
        fake_openai.on(f"{role}-model", Reply.error(500))
    with serving_client(agent_settings, build_runner) as client:
        events = chat(client)
        names = [n for n, _ in events]
        assert names[-1] == "done" and "error" not in names
        answer = next(p for n, p in events if n == "answer")
        assert "[문서" in answer["text"] and "전문가와 꼭 상담하세요" in answer["text"]
        trace = next(p for n, p in events if n == "done")["trace"]
        assert trace["generation_source"] == "extractive"
        assert trace["llm_calls"]["totals"]["failed_calls"] >= 2
        assert client.get("/readyz").status_code == 200

        fake_openai.on("generator-model", Reply.hang(5))  # now the endpoint hangs past the timeout
        events = chat(client, "bob", "속쓰림에 먹는 약 알려주세요")  # another question: no cache hit
        assert [n for n, _ in events][-1] == "done"
        assert next(p for n, p in events if n == "done")["trace"]["generation_source"] == "extractive"
        assert client.get("/healthz").status_code == 200
