from __future__ import annotations

from typing import Any

from litestar.testing import TestClient

from tests.serving.conftest import ALICE, OPS, serving_client, sse_events
from yaksa.config import Settings


def test_search_returns_scored_hits_with_the_version(client: TestClient) -> None:
    body = client.get("/v1/search", params={"q": "두통에 먹는 약", "k": 3}, headers=ALICE).json()
    assert body["version"] == client.get("/readyz").json()["version"]
    assert body["collections"] == ["drugs"] and len(body["results"]) == 3
    assert all({"doc_id", "score", "title", "section"} <= set(r) for r in body["results"])


def test_search_validation_errors_are_clear_400s(client: TestClient) -> None:
    cases = {
        (("q", "   "),): "must not be empty",
        (("q", "x" * 501),): "limit is 500",
        (("q", "두통"), ("k", "0")): "k must be between",
        (("q", "두통"), ("k", "many")): "k",
        (("q", "두통"), ("collection", "nope")): "unknown collection",
        (("q", "두\x00통"),): "control characters",
    }
    for params, message in cases.items():
        response = client.get("/v1/search", params=list(params), headers=ALICE)
        assert response.status_code == 400, params
        assert message in response.text, (params, response.text)
    assert client.get("/v1/search", headers=ALICE).status_code == 400  # q missing
    raw = client.get("/v1/search?q=%FF%FE", headers=ALICE)  # not UTF-8 once percent-decoded
    assert raw.status_code == 400 and "invalid UTF-8" in raw.text


def test_chat_streams_events_in_order(client: TestClient) -> None:
    response = client.post("/v1/chat", json={"question": "두통에 먹는 약 알려줘", "user_id": "alice"},
                           headers=ALICE)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    events = sse_events(response.text)
    names = [n for n, _ in events]
    assert next(n for n in names if n != "web_refs") == "status" and "token" in names
    tail = [n for n in names if n not in ("status", "token", "web_refs")]
    assert tail == ["answer", "citations", "verification", "done"] and names[-1] == "done"
    assert names.count("web_refs") == 1 and names.index("token") < names.index("answer")
    payloads = dict(events)
    streamed = "".join(p["text"] for n, p in events if n == "token")
    assert streamed == payloads["answer"]["text"] and "[문서 1]" in streamed
    citation = payloads["citations"]["citations"][0]
    assert citation["n"] == 1 and citation["text"] and citation["title"] in streamed
    assert payloads["web_refs"] == {"results": [], "reason": "no TAVILY_API_KEY"}
    assert payloads["done"]["trace"]["nodes"] and payloads["done"]["version"]


def test_chat_without_streaming_returns_one_json_object(client: TestClient) -> None:
    body = client.post("/v1/chat", json={"question": "두통에 먹는 약", "user_id": "alice", "stream": False,
                                         "web": False}, headers=ALICE).json()
    assert "[문서 1]" in body["answer"] and body["citations"][0]["text"]
    assert body["web_refs"] == {"results": [], "reason": "not requested"}
    assert body["version"] and body["trace"]["iterations"] == 1 and body["verification"] == {"grounded": True}


def test_chat_validation_errors_are_clear_4xx(client: TestClient) -> None:
    def chat(**body: Any) -> Any:
        return client.post("/v1/chat", json={"user_id": "alice", "stream": False, **body}, headers=ALICE)

    assert "must not be empty" in chat(question="").text
    assert chat(question=" \n\t ").status_code == 400
    assert "limit is 2000" in chat(question="가" * 2001).text
    wrong = chat(question=42)
    assert wrong.status_code == 400 and "question" in wrong.text
    assert chat(question="두통", user_id="../etc").status_code == 400
    assert "variant" in chat(question="두통", variant="DROP TABLE").text
    assert "unknown variant" in chat(question="두통", variant="nosuch").text  # the runner's ValueError
    missing = client.post("/v1/chat", json={"user_id": "alice"}, headers=ALICE)
    assert missing.status_code == 400 and "question" in missing.text
    bad_bytes = client.post("/v1/chat", content=b'{"question": "\xff\xfe", "user_id": "alice"}',
                            headers={**ALICE, "Content-Type": "application/json"})
    # our handler's message under msgspec < 0.23; msgspec 0.23 rejects the bytes itself ("Invalid UTF-8
    # encoded string") and Litestar answers 400 with that: a clear client error either way
    assert bad_bytes.status_code == 400 and "utf-8" in bad_bytes.text.lower()
    too_big = chat(question="두통 " * 12000)  # > the default 64 KiB body limit
    assert too_big.status_code == 413 and too_big.json()["status_code"] == 413


def test_profile_is_visible_and_erasable_only_by_its_user(settings: Settings) -> None:
    with serving_client(settings) as client:  # a fresh memory: earlier tests chatted as alice
        client.post("/v1/chat", json={"question": "혈압약 부작용", "user_id": "alice", "stream": False},
                    headers=ALICE)
        seen = client.get("/v1/profile/alice", headers=ALICE).json()
        assert seen["user_id"] == "alice" and [i["text"] for i in seen["items"]] == ["혈압약 부작용"]
        assert client.get("/v1/profile/bob", headers=ALICE).status_code == 403
        assert client.delete("/v1/profile/bob", headers=ALICE).status_code == 403
        assert client.post("/v1/chat", json={"question": "두통", "user_id": "bob"}, headers=ALICE).status_code == 403
        assert client.get("/v1/profile/bob", headers=OPS).json()["items"] == []
        assert client.get("/v1/profile/al%20ice", headers=OPS).status_code == 400
        assert client.delete("/v1/profile/alice", headers=ALICE).json() == {"user_id": "alice", "forgotten": True}
        assert client.delete("/v1/profile/alice", headers=ALICE).json()["forgotten"] is False
        assert client.get("/v1/profile/alice", headers=ALICE).json()["items"] == []
