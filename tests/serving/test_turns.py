"""The turn stream when things go wrong: the LLM drops mid-stream, the client asks again."""

from __future__ import annotations

from tests.serving.conftest import ALICE, serving_client, sse_events
from tests.serving.fakes import fake_factory
from tests.web.fake_tavily import FakeTavily
from yaksa.config import Settings


def test_llm_failure_mid_stream_ends_in_an_error_event_and_the_server_recovers(settings: Settings) -> None:
    with serving_client(settings, fake_factory(fail_after_tokens=3, failures=1)) as client:
        body = {"question": "두통에 먹는 약", "user_id": "alice", "web": False}
        failed = client.post("/v1/chat", json=body, headers=ALICE)
        events = sse_events(failed.text)
        names = [n for n, _ in events]
        assert names.count("token") == 3 and names[-1] == "error" and "answer" not in names and "done" not in names
        error = events[-1][1]
        assert error["status_code"] == 500 and "try again" in error["detail"]
        assert "LLM" not in error["detail"]  # internal details stay in the server log
        assert client.get("/healthz").status_code == 200 and client.get("/readyz").status_code == 200
        again = sse_events(client.post("/v1/chat", json=body, headers=ALICE).text)
        assert [n for n, _ in again][-1] == "done" and "[문서 1]" in dict(again)["answer"]["text"]
        plain = client.post("/v1/chat", json={**body, "stream": False}, headers=ALICE)
        assert plain.status_code == 200 and plain.json()["citations"]


def test_llm_failure_without_streaming_is_a_500_json(settings: Settings) -> None:
    with serving_client(settings, fake_factory(fail_after_tokens=0, failures=1)) as client:
        body = {"question": "두통", "user_id": "alice", "stream": False, "web": False}
        failed = client.post("/v1/chat", json=body, headers=ALICE)
        assert failed.status_code == 500 and "try again" in failed.json()["detail"]
        assert client.post("/v1/chat", json=body, headers=ALICE).status_code == 200


def test_web_references_arrive_as_their_own_event(settings: Settings, fake_tavily: type[FakeTavily]) -> None:
    with serving_client(settings) as client:
        events = sse_events(client.post("/v1/chat", json={"question": "타이레놀 복용법", "user_id": "alice"},
                                        headers=ALICE).text)
        web_queries = client.app.state.holder.current.runner.web_queries
    refs = dict(events)["web_refs"]
    assert refs["reason"] is None and [r["url"] for r in refs["results"]] == ["https://example.org/a",
                                                                              "https://example.org/b"]
    assert [r["body"]["query"] for r in fake_tavily.requests] == web_queries == ["타이레놀 복용법"]
    answer = dict(events)["answer"]["text"]
    # never fed to generation (the fake page's text is "아세트아미노펜" repeated; a label answer never is)
    assert "example.org" not in answer and "아세트아미노펜 아세트아미노펜" not in answer
    assert [n for n, _ in events][-1] == "done"


def test_a_json_answer_sends_no_live_events_to_the_event_loop(settings: Settings) -> None:
    """`stream=false` reads only the final events: the turn's status and token events (~100 a turn)
    are not handed to the event loop at all; a streamed turn gets every one."""
    import asyncio

    from serving.runtime import RuntimeHolder
    from serving.turns import TurnRequest, start_turn

    holder = RuntimeHolder(settings, fake_factory())

    async def names(live: bool) -> list[str]:
        await holder.reload()
        request = TurnRequest("두통에 먹는 약", "alice", None, web=False, live=live)
        return [name async for name, _ in start_turn(holder, holder.acquire(), request)]

    streamed, collected = asyncio.run(names(True)), asyncio.run(names(False))
    assert "status" in streamed and "token" in streamed and streamed[-1] == "done"
    assert "status" not in collected and "token" not in collected
    assert [n for n in streamed if n not in ("status", "token")] == collected
