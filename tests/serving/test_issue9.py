"""Review issue 9, replayed against the app with fake runners: row 2 (the variant switch), row 5
(web search only on `web_query`, never for a blocked turn), row 6 (open mode: Host, Origin,
Content-Type) and row 9 (robustness: path params, deep JSON, invisible text, 500s, 429s).

Rows 2, 5 and 9 use Litestar's TestClient with API keys; row 6 needs a real socket (open mode
serves loopback peers and Host names only), so it runs uvicorn on 127.0.0.1. Apps are shared per
module where their configuration is the same: each one loads the bundle.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from litestar.testing import TestClient

from serving.app import create_app
from serving.config import ServingConfig
from serving.webrefs import BLOCKED, NO_QUERY, NOT_REQUESTED
from tests.serving.conftest import ADMIN, ALICE, OPS, live_server, recording, serving_client, sse_events
from tests.serving.fakes import FakeRunner, fake_factory
from tests.web.fake_tavily import FakeTavily
from yaksa.config import Settings

IN_SCOPE = "두통이 있는데 타이레놀 먹어도 되나요?"
OUT_OF_SCOPE = "크림 파스타 레시피"
WITH_PHONE = "제 번호는 010-1234-5678 인데 두통이 있을 때 타이레놀 먹어도 되나요?"
OTHER_VARIANT = "self_refine_full_safety"
ROGUE_QUERY = "타이레놀 용량"


def _runner(client: TestClient) -> FakeRunner:
    return client.app.state.holder.current.runner


class _Misbehaving(FakeRunner):
    """Breaks the contract: sends `web_query` first in every turn (so twice in an answered one,
    and once in a blocked one), and its profile store fails."""

    def __init__(self, loaded: Any, settings: Settings) -> None:
        super().__init__(loaded, settings, {}, extra_events=(("web_query", {"query": ROGUE_QUERY}),))

    def profile(self, user_id: str) -> dict[str, Any]:
        raise RuntimeError("profile store is corrupt")


@pytest.fixture(scope="module")
def client(settings: Settings) -> Iterator[TestClient]:
    """The app with the test keys and the well-behaved fake runner."""
    with serving_client(settings) as client:
        yield client


@pytest.fixture(scope="module")
def misbehaving(settings: Settings) -> Iterator[TestClient]:
    with serving_client(settings, _Misbehaving) as client:
        yield client


def _chat(client: TestClient, headers: dict[str, str] | None = None, **body: Any) -> httpx.Response:
    return client.post("/v1/chat", json={"question": IN_SCOPE, "user_id": "alice", "stream": False, **body},
                       headers=ALICE if headers is None else headers)


# row 2: a variant is not a client's safety switch ---------------------------------------------


def test_another_variant_needs_the_admin_key(client: TestClient, settings: Settings) -> None:
    assert OTHER_VARIANT in settings.agent.variants and OTHER_VARIANT != settings.agent.variant
    calls = _runner(client).calls
    before = len(calls)
    refused = _chat(client, variant=OTHER_VARIANT)
    assert refused.status_code == 403 and "admin key" in refused.json()["detail"]
    unknown = _chat(client, variant="nosuch")
    assert unknown.status_code == 400 and "unknown variant 'nosuch'" in unknown.json()["detail"]
    assert len(calls) == before  # both refused before the runner saw anything
    assert _chat(client, variant=settings.agent.variant).status_code == 200  # the configured one is everyone's
    assert _chat(client).status_code == 200
    admin = _chat(client, ADMIN, variant=OTHER_VARIANT, user_id="bob")  # the admin key acts for any user
    assert admin.status_code == 200, admin.text
    assert [c["variant"] for c in calls[before:]] == [settings.agent.variant, None, OTHER_VARIANT]
    assert calls[-1]["user_id"] == "bob"
    assert calls[-1]["remember"] is False and calls[before]["remember"] is True  # issue 22: no profile for the admin
    # ... but only on /v1/chat: it is not a user key elsewhere
    assert client.get("/v1/profile/bob", headers=ADMIN).status_code == 401
    assert client.get("/v1/search", params={"q": IN_SCOPE}, headers=ADMIN).status_code == 401


def test_the_old_field_name_profile_still_chooses_a_variant(client: TestClient, settings: Settings) -> None:
    """`profile` was the field's name before issue 26: it is read as `variant`; both, differing, is a 400."""
    assert _chat(client, profile=OTHER_VARIANT).status_code == 403               # as `variant` would be
    assert _chat(client, profile=settings.agent.variant).status_code == 200
    assert "unknown variant 'nosuch'" in _chat(client, profile="nosuch").json()["detail"]
    both = _chat(client, variant=settings.agent.variant, profile=OTHER_VARIANT)
    assert both.status_code == 400 and "differ" in both.json()["detail"]
    assert _chat(client, variant=settings.agent.variant, profile=settings.agent.variant).status_code == 200


def test_variant_choice_can_be_opened_by_the_server_setting(settings: Settings) -> None:
    with serving_client(settings, allow_variant_choice=True) as client:
        assert _chat(client, variant=OTHER_VARIANT).status_code == 200
        assert _chat(client, variant="nosuch").status_code == 400


# row 5: the web search runs only on `web_query`, for exactly its query ------------------------


def _turn(client: TestClient, question: str, **body: Any) -> list[tuple[str, dict[str, Any]]]:
    response = client.post("/v1/chat", json={"question": question, "user_id": "alice", **body}, headers=ALICE)
    assert response.status_code == 200, response.text
    return sse_events(response.text)


def test_web_search_sends_exactly_the_runners_query(client: TestClient, fake_tavily: type[FakeTavily]) -> None:
    events = _turn(client, WITH_PHONE)
    sent = [r["body"]["query"] for r in fake_tavily.requests]
    assert sent == _runner(client).web_queries[-1:]  # one search, for the query the runner handed over
    assert "010" not in sent[0] and sent[0] != WITH_PHONE and "타이레놀" in sent[0]
    names = [n for n, _ in events]
    assert "web_query" not in names  # for the server only
    assert names[-2:] == ["web_refs", "done"] and names.count("web_refs") == 1
    assert [r["url"] for r in dict(events)["web_refs"]["results"]] == ["https://example.org/a",
                                                                       "https://example.org/b"]


@pytest.mark.parametrize("question, blocked, reason", [(OUT_OF_SCOPE, True, BLOCKED), ("안녕하세요", False, NO_QUERY)])
def test_no_web_search_without_web_query(client: TestClient, fake_tavily: type[FakeTavily], question: str,
                                         blocked: bool, reason: str) -> None:
    asked = len(_runner(client).web_queries)
    events = dict(_turn(client, question))
    assert len(_runner(client).web_queries) == asked
    assert events["answer"]["blocked"] is blocked
    assert events["web_refs"] == {"results": [], "reason": reason}
    assert fake_tavily.requests == []  # nothing left the machine


def test_web_false_searches_nothing(client: TestClient, fake_tavily: type[FakeTavily]) -> None:
    events = dict(_turn(client, IN_SCOPE, web=False))
    assert events["web_refs"] == {"results": [], "reason": NOT_REQUESTED} and fake_tavily.requests == []


def test_a_blocked_turn_never_shows_web_results_even_if_the_runner_asks(misbehaving: TestClient,
                                                                         fake_tavily: type[FakeTavily]) -> None:
    """A runner breaking the contract (web_query, then blocked) still gets no web results shown."""
    events = dict(_turn(misbehaving, OUT_OF_SCOPE))
    assert events["answer"]["blocked"] is True
    assert events["web_refs"] == {"results": [], "reason": BLOCKED}


def test_only_the_first_web_query_of_a_turn_is_searched(misbehaving: TestClient,
                                                        fake_tavily: type[FakeTavily]) -> None:
    _turn(misbehaving, IN_SCOPE)
    assert _runner(misbehaving).web_queries[-1] != ROGUE_QUERY  # the runner sent a second one
    assert [r["body"]["query"] for r in fake_tavily.requests] == [ROGUE_QUERY]


# row 6: open mode refuses foreign Host names, foreign origins and non-JSON bodies -------------


@pytest.fixture(scope="module")
def open_url(settings: Settings) -> Iterator[str]:
    """`yaksa serve` without keys: open mode on 127.0.0.1."""
    with live_server(create_app(settings, fake_factory(), ServingConfig(rate_per_sec=0.0))) as url:
        yield url


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def test_open_mode_serves_the_chat_page_and_same_origin_calls(open_url: str) -> None:
    port = _port(open_url)
    page = httpx.get(open_url + "/", headers={"Accept": "text/html"})  # a browser's navigation: no Origin
    assert page.status_code == 200 and "/static/chat.js" in page.text
    assert httpx.get(open_url + "/static/chat.js").status_code == 200
    for origin, host in [(open_url, f"127.0.0.1:{port}"), (f"http://localhost:{port}", f"localhost:{port}"),
                         (f"http://[::1]:{port}", f"[::1]:{port}")]:
        chat = httpx.post(open_url + "/v1/chat", json={"question": IN_SCOPE, "user_id": "web-1", "stream": False},
                          headers={"Origin": origin, "Host": host})  # what chat.js sends
        assert chat.status_code == 200, (origin, chat.text)
    charset = httpx.post(open_url + "/v1/chat", content=f'{{"question": "{IN_SCOPE}", "user_id": "a", '
                         '"stream": false}'.encode(), headers={"Content-Type": "application/json; charset=UTF-8"})
    assert charset.status_code == 200
    assert httpx.post(open_url + "/v1/admin/reload").status_code == 200  # a bodiless POST needs no type


@pytest.mark.parametrize("path", ["/", "/static/chat.js", "/v1/indexes", "/schema/openapi.json"])
def test_open_mode_refuses_a_rebound_host_name_on_every_route(open_url: str, path: str) -> None:
    refused = httpx.get(open_url + path, headers={"Host": f"evil.example:{_port(open_url)}"})
    assert refused.status_code == 403 and "DNS rebinding" in refused.json()["detail"]


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:1", "https://127.0.0.1:{port}",
                                    "http://127.0.0.1.evil.example:{port}"])
def test_open_mode_refuses_cross_origin_requests(open_url: str, origin: str) -> None:
    headers = {"Origin": origin.format(port=_port(open_url))}
    chat = httpx.post(open_url + "/v1/chat", json={"question": IN_SCOPE, "user_id": "web-1"}, headers=headers)
    assert chat.status_code == 403 and "CSRF" in chat.json()["detail"]
    assert httpx.delete(open_url + "/v1/profile/web-1", headers=headers).status_code == 403
    assert httpx.get(open_url + "/v1/profile/web-1", headers=headers).status_code == 403


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data",
                                          "", "application/json; charset=latin-1", "application/jsonx"])
def test_open_mode_accepts_json_bodies_only(open_url: str, content_type: str) -> None:
    body = f'{{"question": "{IN_SCOPE}", "user_id": "web-1"}}'.encode()
    refused = httpx.post(open_url + "/v1/chat", content=body, headers={"Content-Type": content_type})
    assert refused.status_code == 415 and "application/json" in refused.json()["detail"]


def test_open_mode_refuses_variant_choice(open_url: str) -> None:
    chat = httpx.post(open_url + "/v1/chat", json={"question": IN_SCOPE, "user_id": "web-1", "variant": OTHER_VARIANT})
    assert chat.status_code == 403 and "YAKSA_ALLOW_VARIANT_CHOICE" in chat.json()["detail"]


# row 9: robustness ---------------------------------------------------------------------------


@pytest.mark.parametrize("raw", ["x%0A", "x%00", "x%7F", "x%C2%85", "%FF", "x%0D%0Ay"])
def test_control_characters_in_a_path_parameter_are_a_400(client: TestClient, raw: str) -> None:
    for method in ("GET", "DELETE"):
        response = client.request(method, f"/v1/profile/{raw}", headers=OPS)
        assert response.status_code == 400, (raw, response.text)
        assert "control characters" in response.json()["detail"] or "user_id" in response.json()["detail"]


@pytest.mark.parametrize("body", ["[" * 5000 + "]" * 5000,
                                  '{"question": ' + "[" * 5000 + "]" * 5000 + ', "user_id": "alice"}',
                                  '{"question": "두통", "user_id": "alice", "x": ' + '{"a":' * 5000 + "1" + "}" * 5001])
def test_deeply_nested_json_is_a_400(client: TestClient, body: str) -> None:
    response = client.post("/v1/chat", content=body.encode(), headers={**ALICE, "Content-Type": "application/json"})
    assert response.status_code == 400 and "nested too deeply" in response.json()["detail"]


@pytest.mark.parametrize("text, problem", [
    ("\u200b\u200c\u200d", "invisible"), (" \ufeff\u2060 ", "invisible"), ("\u00ad", "invisible"),
    ("두통\u007f", "control characters"), ("두통\u0085약", "control characters"), ("\u009b두통", "control characters"),
    ("\u202e약통두", "bidirectional"), ("두통 \u2066약\u2069", "bidirectional"), ("\u202a두통", "bidirectional"),
])
def test_invisible_and_control_text_is_a_400(client: TestClient, text: str, problem: str) -> None:
    chat = _chat(client, question=text)
    assert chat.status_code == 400 and problem in chat.json()["detail"] and "question" in chat.json()["detail"]
    search = client.get("/v1/search", params={"q": text}, headers=ALICE)
    assert search.status_code == 400 and problem in search.json()["detail"]


def test_zero_width_characters_inside_real_text_are_kept(client: TestClient) -> None:
    assert _chat(client, question="두통\u200b에 먹는 약").status_code == 200


def test_a_500_logs_its_traceback_and_answers_generically(misbehaving: TestClient) -> None:
    with recording("serving.app") as records:
        failed = misbehaving.get("/v1/profile/alice", headers=ALICE)
    assert failed.status_code == 500 and failed.json() == {"status_code": 500, "detail": "Internal Server Error"}
    [record] = [r for r in records if r.levelno == logging.ERROR]
    assert record.exc_info is not None and record.exc_info[0] is RuntimeError
    assert "/v1/profile/{user_id}" in record.getMessage() and "alice" not in record.getMessage()  # no user id


def test_429_body_and_retry_after_agree(settings: Settings) -> None:
    with serving_client(settings, rate_per_sec=0.4, rate_burst=1) as client:  # a token every 2.5 s
        assert client.get("/v1/indexes", headers=ALICE).status_code == 200
        limited = client.get("/v1/indexes", headers=ALICE)
    assert limited.status_code == 429 and limited.headers["retry-after"] == "3"
    assert limited.json()["detail"] == "rate limit exceeded; retry in 3 s"


# row 9 (logs): no question, answer or web query in the logs ----------------------------------


def test_logs_hold_no_question_answer_or_web_query(client: TestClient, fake_tavily: type[FakeTavily]) -> None:
    # the server-side loggers a request reaches: ours, the web client, the framework, the server (not
    # httpx: here it is the test's own client logging the URLs it requests)
    with recording("serving", "yaksa.web", "tavily", "litestar", "uvicorn") as records:
        events = dict(_turn(client, WITH_PHONE))
        refused = client.post("/v1/chat", json={"question": WITH_PHONE, "user_id": "alice", "variant": "nosuch"},
                              headers=ALICE)
        client.get("/v1/search", params={"q": WITH_PHONE}, headers=ALICE)
        web_query = _runner(client).web_queries[-1]
    assert refused.status_code == 400
    logged = "\n".join(r.getMessage() for r in records)
    assert "turn done on bundle" in logged and "alice" not in logged  # lengths and versions, no user id
    for secret in ("010-1234-5678", WITH_PHONE, web_query, events["answer"]["text"], "타이레놀"):
        assert secret not in logged
