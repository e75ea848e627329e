"""GET /metrics: scraped after real requests, the counters moved by what the requests did; the request id
header; who may scrape; and the merge of several processes' metrics (`yaksa serve --workers N`)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar.testing import TestClient
from prometheus_client.parser import text_string_to_metric_families

from serving import metrics
from serving.app import create_app
from serving.config import MULTIPROC_ENV, ServingConfig
from serving.headers import WORKER_HEADER
from serving.logs import REQUEST_ID_HEADER
from tests.serving.conftest import ADMIN, ALICE, OPS, copy_version, live_server, serving_client, sse_events
from tests.serving.fakes import fake_factory
from tests.serving.test_critique import PE_CASE
from yaksa.agent.factory import build_runner
from yaksa.config import Settings, load_settings
from yaksa.index.layout import current_version
from yaksa.index.publish import publish
from yaksa.scope.decision import ScopeDecision
from yaksa.scope.red_flags import red_flag, red_flag_decision

REPO = Path(__file__).resolve().parents[2]
IN_SCOPE = "타이레놀 먹어도 되나요? 한 번에 몇 알 먹어야 하나요?"
OUT_OF_SCOPE = "체스에서 캐슬링을 할 때 킹과 룩 중에 무엇을 먼저 움직여야 하나요?"
CRISIS = "죽고 싶어서 수면제를 한꺼번에 다 먹으려고 해요"


def scrape(client: TestClient) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of GET /metrics (with the admin key): (name, labels) -> value."""
    response = client.get("/metrics", headers=ADMIN)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(response.text) for s in family.samples}


def value(samples: dict, name: str, **labels: str) -> float:
    """The sum of `name`'s samples whose labels include `labels` (0 when none)."""
    want = set(labels.items())
    return sum(v for (n, got), v in samples.items() if n == name and want <= got)


def moved(before: dict, after: dict, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


@pytest.fixture(scope="module")
def client(settings: Settings) -> Iterator[TestClient]:
    with serving_client(settings) as client:
        yield client


def test_requests_are_counted_under_their_route_template(client: TestClient) -> None:
    before = scrape(client)
    assert client.get("/v1/profile/alice", headers=ALICE).status_code == 200
    assert client.get("/v1/profile/alice", headers=ALICE).status_code == 200
    assert client.get("/v1/profile/bob", headers=ALICE).status_code == 403
    assert client.get("/no/such/page/alice").status_code == 404
    after = scrape(client)
    route = "/v1/profile/{user_id}"
    assert moved(before, after, "yaksa_http_requests_total", route=route, method="GET", status="200") == 2
    assert moved(before, after, "yaksa_http_requests_total", route=route, method="GET", status="403") == 1
    assert moved(before, after, "yaksa_http_requests_total", route="unmatched", status="404") == 1
    assert moved(before, after, "yaksa_http_request_seconds_count", route=route, method="GET") == 3
    # the scrape itself is counted too, at its end (so the second scrape sees the first)
    assert moved(before, after, "yaksa_http_requests_total", route="/metrics", status="200") == 1
    text = client.get("/metrics", headers=ADMIN).text
    assert "alice" not in text and "bob" not in text and "/no/such" not in text  # no path, no user id


def test_every_response_carries_a_request_id(client: TestClient) -> None:
    ids = {client.get(path, headers=ALICE).headers[REQUEST_ID_HEADER]
           for path in ("/healthz", "/v1/indexes", "/no/such/page")}
    assert len(ids) == 3 and all(len(i) == 32 and int(i, 16) >= 0 for i in ids)  # fresh uuid4 hex each
    assert client.get("/healthz", headers={REQUEST_ID_HEADER: "lb-7f3a.42_x"}).headers[REQUEST_ID_HEADER] \
        == "lb-7f3a.42_x"  # a proxy's id is kept, so its logs and ours line up
    for unsafe in ("a" * 65, "has space", "quote\"d", "김"):  # not a short safe token: replaced
        got = client.get("/healthz", headers={REQUEST_ID_HEADER: unsafe.encode()})
        assert got.headers[REQUEST_ID_HEADER] != unsafe and len(got.headers[REQUEST_ID_HEADER]) == 32
    # errors and SSE streams too
    refused = client.post("/v1/chat", json={"question": "두통", "user_id": "bob"}, headers=ALICE)
    assert refused.status_code == 403 and REQUEST_ID_HEADER in refused.headers
    stream = client.post("/v1/chat", json={"question": "두통에 먹는 약", "user_id": "alice", "web": False},
                         headers={**ALICE, REQUEST_ID_HEADER: "turn-1"})
    assert stream.headers["content-type"].startswith("text/event-stream")
    assert stream.headers[REQUEST_ID_HEADER] == "turn-1"


def test_the_bundle_gauge_names_the_served_version_and_worker(client: TestClient) -> None:
    response = client.get("/readyz")
    version, worker = response.json()["version"], response.headers[WORKER_HEADER]
    assert value(scrape(client), "yaksa_bundle_info", version=version, worker=worker) == 1


def test_the_bundle_gauge_follows_a_swap(tiny_copy: Path) -> None:
    settings = load_settings(tiny_copy / "params.yaml")
    indexes = settings.paths.indexes
    first = current_version(indexes)
    assert first is not None
    second = copy_version(indexes, first, "v-metrics-second")
    with serving_client(settings, follow_seconds=0.0) as client:
        worker = client.get("/healthz").headers[WORKER_HEADER]
        publish(indexes, second)
        assert client.post("/v1/admin/reload", headers=ADMIN).json()["version"] == second
        samples = scrape(client)
    assert value(samples, "yaksa_bundle_info", version=second, worker=worker) == 1
    assert value(samples, "yaksa_bundle_info", version=first, worker=worker) == 0


def test_who_may_scrape(settings: Settings, client: TestClient) -> None:
    assert client.get("/metrics").status_code == 401                  # no key
    assert client.get("/metrics", headers=ALICE).status_code == 401   # a user key is not the admin key
    assert client.get("/metrics", headers=ADMIN).status_code == 200
    with serving_client(settings, admin_key=None) as keyed:            # user keys, no admin key: disabled
        assert keyed.get("/metrics").status_code == 403
    open_mode = create_app(settings, fake_factory(), ServingConfig(rate_per_sec=0.0))
    with live_server(open_mode) as url:                                # open mode: a loopback client may
        assert httpx.get(url + "/metrics").status_code == 200


def test_scrapes_do_not_spend_the_admin_call_bucket(settings: Settings) -> None:
    with serving_client(settings, admin_per_min=1.0) as client:
        for _ in range(5):
            assert client.get("/metrics", headers=ADMIN).status_code == 200
        assert client.post("/v1/admin/reload", headers=ADMIN).status_code == 200


def test_web_searches_are_counted(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)  # the search ends at once, as `disabled`
    before = scrape(client)
    events = sse_events(client.post("/v1/chat", json={"question": "두통에 먹는 약", "user_id": "alice"},
                                    headers=ALICE).text)
    assert dict(events)["web_refs"]["reason"] == "no TAVILY_API_KEY"
    after = scrape(client)
    assert moved(before, after, "yaksa_web_searches_total", outcome="disabled") == 1
    assert moved(before, after, "yaksa_turns_total", outcome="answered") == 1


def test_a_critiques_llm_steps_are_counted(client: TestClient) -> None:
    before = scrape(client)
    response = client.post("/v1/critique", json={"case": PE_CASE, "stream": False}, headers=ALICE)
    after = scrape(client)
    assert response.status_code == 200, response.text
    calls = response.json()["trace"]["llm"]["calls"]
    assert {c["role"] for c in calls} >= {"analyst", "critic"}, calls
    for role in {c["role"] for c in calls}:
        assert moved(before, after, "yaksa_llm_calls_total", role=role) == sum(c["role"] == role for c in calls)


# the production agent: what its traces say reaches the metrics ------------------------------------


@pytest.fixture(scope="module")
def agent_client(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    tmp = tmp_path_factory.mktemp("metrics-agent")
    with serving_client(settings.with_state_in(tmp), build_runner) as client:
        yield client


def _ask(client: TestClient, question: str, user: str) -> dict[str, Any]:
    response = client.post("/v1/chat", json={"question": question, "user_id": user, "stream": False, "web": False},
                           headers=OPS)
    assert response.status_code == 200, response.text
    return response.json()


def test_turns_nodes_scope_cache_and_llm_steps_are_counted(agent_client: TestClient) -> None:
    before = scrape(agent_client)
    answered = _ask(agent_client, IN_SCOPE, "metrics-user-1")
    refused = _ask(agent_client, OUT_OF_SCOPE, "metrics-user-2")
    crisis = _ask(agent_client, CRISIS, "metrics-user-3")
    after = scrape(agent_client)
    assert not answered["blocked"] and refused["blocked"] and crisis["blocked"]
    assert moved(before, after, "yaksa_turns_total", outcome="answered") == 1
    assert moved(before, after, "yaksa_turns_total", outcome="blocked") == 2
    assert moved(before, after, "yaksa_turn_seconds_count") == 3
    assert moved(before, after, "yaksa_scope_decisions_total", decision="in_scope") == 1
    assert moved(before, after, "yaksa_scope_decisions_total", decision="refused") == 1
    assert moved(before, after, "yaksa_scope_decisions_total", decision="crisis") == 1
    # every turn ran the scope node; only the answered one retrieved and generated
    assert moved(before, after, "yaksa_node_seconds_count", node="scope") == 3
    assert moved(before, after, "yaksa_node_seconds_count", node="generate_answer") == 1
    for node in answered["trace"]["timings_ms"]:
        if node != "total":
            assert moved(before, after, "yaksa_node_seconds_count", node=node) >= 1, node
    # the answered turn's LLM steps, as its trace lists them (offline here: every step is a fallback)
    calls = answered["trace"]["llm_calls"]["calls"]
    assert calls, "the answered turn recorded no LLM step"
    for role in {c["role"] for c in calls}:
        want = sum(c["role"] == role for c in calls)
        assert moved(before, after, "yaksa_llm_calls_total", role=role) == want, role
    # the in-scope turn of a user with no profile looked the response cache up; the refused ones never did
    lookups = moved(before, after, "yaksa_cache_lookups_total")
    assert lookups == (1 if isinstance(answered["trace"].get("cache"), dict) else 0)


def test_a_cached_answer_is_a_cache_hit(agent_client: TestClient) -> None:
    first = _ask(agent_client, IN_SCOPE, "metrics-user-4")
    assert first["trace"]["cache"] != "off", first["trace"]["cache"]
    before = scrape(agent_client)
    second = _ask(agent_client, IN_SCOPE, "metrics-user-5")  # a new user (no profile): the cache may serve it
    after = scrape(agent_client)
    hit = second["trace"]["cache"]["hit"]
    assert moved(before, after, "yaksa_cache_lookups_total", result="hit" if hit else "miss") == 1
    assert hit, "the same question from a user without a profile was not served from the cache"


# several processes (the workers of `yaksa serve --workers N`) --------------------------------------

WORKER = textwrap.dedent("""
    import sys
    from serving import metrics
    metrics.observe_request("/v1/search", "GET", 200, 0.02)
    metrics.observe_turn(metrics.ANSWERED, 1.5, {"scope": {"in_scope": True, "reason": "model"}})
    metrics.bundle_served(sys.argv[1], None)
    print("ready", flush=True)
    sys.stdin.readline()   # stays alive until the test says so
""")


def _worker(directory: Path, version: str) -> subprocess.Popen:
    env = {**os.environ, MULTIPROC_ENV: str(directory)}
    proc = subprocess.Popen([sys.executable, "-c", WORKER, version], cwd=REPO, env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def _samples(directory: Path) -> dict:
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(metrics.render(directory).decode())
            for s in family.samples}


def test_metrics_of_several_processes_are_merged_and_a_dead_workers_gauge_is_dropped(tmp_path: Path) -> None:
    workers = [_worker(tmp_path, "v-a"), _worker(tmp_path, "v-b")]
    try:
        live = _samples(tmp_path)
        assert value(live, "yaksa_http_requests_total", route="/v1/search", status="200") == 2
        assert value(live, "yaksa_turns_total", outcome="answered") == 2
        assert value(live, "yaksa_turn_seconds_sum") == 3.0
        assert value(live, "yaksa_scope_decisions_total", decision="in_scope") == 2
        gauges = {dict(labels)["version"]: dict(labels)["worker"] for (name, labels), v in live.items()
                  if name == "yaksa_bundle_info" and v == 1}
        assert set(gauges) == {"v-a", "v-b"} and len(set(gauges.values())) == 2  # one per worker
        assert workers[0].communicate("\n", timeout=30) and workers[0].returncode == 0
        gone = _samples(tmp_path)
        versions = {dict(labels)["version"] for name, labels in gone if name == "yaksa_bundle_info"}
        assert versions == {"v-b"}  # the dead worker's bundle is no longer reported
        assert value(gone, "yaksa_http_requests_total", route="/v1/search") == 2  # a dead worker's counts stay
    finally:
        for proc in workers:
            if proc.poll() is None:
                proc.communicate("\n", timeout=30)


def test_a_red_flag_and_a_see_a_doctor_flag_are_told_apart() -> None:
    """The scope node's decision as a metric label: urgent advice first, or "see a doctor soon" first."""
    in_scope = ScopeDecision(True, "scope_model", {}, "m")
    urgent = red_flag_decision(red_flag("50일 된 아기가 열이 38.2도예요"), in_scope).to_json()
    soon = red_flag_decision(red_flag("기침이 3주째 계속돼요"), in_scope).to_json()
    assert metrics.scope_decision(urgent) == "red_flag" and metrics.scope_decision(soon) == "see_doctor"
    assert metrics.scope_decision(in_scope.to_json()) == "in_scope"
