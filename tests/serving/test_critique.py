"""POST /v1/critique over the tiny bundle: JSON and SSE shapes, 400s for bad cases, auth and rate limits,
one critique agent per bundle sharing the runner's searcher, failures as `error`, and the page's form.

The critique agent is the real one (offline: no PubMed configured), on the fake runner's searcher.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest
from litestar.testing import TestClient

from serving.app import create_app
from serving.config import ServingConfig
from serving.ratelimit import TokenBuckets
from serving.runtime import runner_searcher
from tests.serving.conftest import ADMIN, ALICE, OPS, live_server, serving_client, sse_events
from tests.serving.fakes import fake_factory
from yaksa.config import Settings
from yaksa.corpus.case import MAX_CASE_CHARS

MODES = ("external_only", "hybrid", "external_only_after_validation")
SECTIONS = {"diagnostic_errors", "treatment_errors", "what_went_well", "prevention"}
PE_CASE = {
    "summary": "68-year-old man, 3 days after total hip replacement, with sudden pleuritic chest pain and "
               "shortness of breath.",
    "findings": "HR 118, SpO2 88% on room air, RR 24, left calf swollen and tender. No haemoptysis.",
    "diagnoses": "anxiety; musculoskeletal chest pain",
    "management": "Reassured, given ibuprofen and discharged home.",
    "outcome": "Readmitted 12 hours later in cardiac arrest.",
}
CHROMIUM = shutil.which("chromium")


@pytest.fixture(autouse=True)
def offline_pubmed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The critique agent's external evidence comes from the bundle, never from the network."""
    for name in ("YAKSA_PUBMED_BASE_URL", "NCBI_EMAIL"):
        monkeypatch.delenv(name, raising=False)


def critique(client: TestClient, case: Any, stream: bool = False, headers: dict[str, str] | None = None) -> Any:
    return client.post("/v1/critique", json={"case": case, "stream": stream},
                       headers=ALICE if headers is None else headers)


def test_json_mode_returns_the_critique_with_the_bundle_version(client: TestClient) -> None:
    response = critique(client, PE_CASE)
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) >= {"retrieval_mode", "analysis", "internal", "validation", "external", "critique",
                         "verification", "trace", "version"}
    assert body["version"] == client.get("/readyz").json()["version"]
    assert body["retrieval_mode"] in MODES
    assert "pulmonary embolism" in [m["diagnosis"] for m in body["analysis"]["risk_patterns"]]
    assert set(body["critique"]) == SECTIONS
    claims = [c for section in body["critique"].values() for c in section]
    assert claims and all(c["text"] and c["refs"] for c in claims)
    assert body["internal"] and all({"doc_id", "score", "kept", "reason"} <= set(c) for c in body["internal"])
    assert body["external"] and all(e["ref"].startswith(("PMID:", "doc:")) for e in body["external"])
    assert body["verification"]["verdict"] in ("PASS", "FAIL")


def test_a_case_as_json_text_or_plain_text_is_read_like_the_object(client: TestClient) -> None:
    as_object = critique(client, PE_CASE).json()
    as_text = critique(client, json.dumps(PE_CASE)).json()
    assert as_text["critique"] == as_object["critique"] and as_text["internal"] == as_object["internal"]
    plain = critique(client, PE_CASE["summary"]).json()  # plain text: the whole text is the summary
    assert plain["retrieval_mode"] in MODES and plain["analysis"]["diagnoses"] == []


def test_sse_mode_streams_steps_in_order_then_result_then_done(client: TestClient) -> None:
    response = critique(client, PE_CASE, stream=True)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    events = sse_events(response.text)
    names = [n for n, _ in events]
    steps = [p for n, p in events if n == "step"]
    assert names == ["step"] * len(steps) + ["result", "done"]
    internal = next(p for p in steps if p["name"] == "internal_search")
    expected = ["analysis", "internal_search", *(["validation"] if internal["above_threshold"] else []),
                "external_search", "critique"]
    assert [p["name"] for p in steps] == expected
    result, done = events[-2][1], events[-1][1]
    assert steps[0]["risk_patterns"] and steps[0]["should_consider"] == result["analysis"]["should_consider"]
    assert steps[-1]["retrieval_mode"] == result["retrieval_mode"] in MODES
    assert [a["ref"] for a in next(p for p in steps if p["name"] == "external_search")["articles"]] == \
        [e["ref"] for e in result["external"]]
    assert result["version"] == done["version"] == client.get("/readyz").json()["version"]
    assert done["elapsed_ms"] > 0


def test_validation_step_is_streamed_when_candidates_pass_the_threshold(client: TestClient,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    agent = client.app.state.holder.current.critique_agent()
    monkeypatch.setattr(agent, "params", replace(agent.params, internal_threshold=-1.0))  # every case a candidate
    events = sse_events(critique(client, PE_CASE, stream=True).text)
    steps = [p["name"] for n, p in events if n == "step"]
    assert steps == ["analysis", "internal_search", "validation", "external_search", "critique"]
    result = dict(events)["result"]
    assert result["validation"] is not None and result["retrieval_mode"] in MODES[1:]
    assert all(c["above_threshold"] for c in result["internal"])


@pytest.mark.parametrize("case, message", [
    ({"summary": "   "}, "case.summary is required"),
    ({"findings": "HR 118"}, "case.summary is required"),
    ("", "the case is empty"),
    ("a" * (MAX_CASE_CHARS + 1), f"the limit is {MAX_CASE_CHARS}"),
    ({"summary": "a" * MAX_CASE_CHARS, "outcome": "died"}, f"longer than {MAX_CASE_CHARS}"),
    ({"summary": 42}, "case.summary must be a string"),
    ({"summary": "chest pain", "findings": {"hr": 118}}, "case.findings must be a string"),
    ({"summary": "chest pain", "age": 68}, "unknown case field(s) ['age']"),
    ('{"summary": ', "not valid JSON"),
    ('{"summary": [1]}', "case.summary must be a string"),
    ({"summary": "\u200b\u200b"}, "case.summary contains only invisible characters"),
    ({"summary": "chest pain", "outcome": "died\x00"}, "case.outcome contains control characters"),
])
def test_a_case_that_cannot_be_read_is_a_400_with_the_reason(client: TestClient, case: Any, message: str) -> None:
    for stream in (False, True):
        response = critique(client, case, stream=stream)
        assert response.status_code == 400, (case, response.text)
        assert message in response.json()["detail"], response.text


def test_wrong_body_types_are_400s(client: TestClient) -> None:
    for body in ({"case": 42}, {"case": ["chest pain"]}, {"case": None}, {}, {"case": "chest pain", "stream": "yes"}):
        response = client.post("/v1/critique", json=body, headers=ALICE)
        assert response.status_code == 400, (body, response.text)
        assert "case" in response.text or "stream" in response.text


def test_critique_needs_an_api_key(client: TestClient) -> None:
    missing = client.post("/v1/critique", json={"case": PE_CASE})
    assert missing.status_code == 401 and missing.json()["detail"] == "missing bearer API key"
    wrong = client.post("/v1/critique", json={"case": PE_CASE}, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401 and wrong.json()["detail"] == "invalid API key"
    assert client.post("/v1/critique", json={"case": PE_CASE}, headers=ADMIN).status_code == 401  # not a user key
    assert critique(client, PE_CASE, headers=OPS).status_code == 200  # any user key, whatever users it is bound to


def test_open_mode_refuses_clients_that_are_not_local(settings: Settings) -> None:
    with serving_client(settings, ready=False, api_keys={}, admin_key=None) as client:  # peer: "testclient"
        refused = client.post("/v1/critique", json={"case": PE_CASE}, headers={"Host": "127.0.0.1:8000"})
        assert refused.status_code == 403 and "only loopback clients" in refused.json()["detail"]


def test_critique_spends_the_callers_rate_limit(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client.app.state, "rate_limits", TokenBuckets(0.5, 2))  # as YAKSA_RATE_PER_SEC=0.5, BURST=2
    assert client.get("/v1/indexes", headers=ALICE).status_code == 200
    assert critique(client, {"summary": ""}).status_code == 400  # refused, but it spent a token
    limited = critique(client, PE_CASE)
    assert limited.status_code == 429 and limited.headers["retry-after"] == "2"
    assert critique(client, {"summary": ""}, headers=OPS).status_code == 400  # another key, its own bucket


def test_one_critique_agent_per_bundle_on_the_runners_searcher(client: TestClient) -> None:
    assert critique(client, PE_CASE).status_code == 200
    runtime = client.app.state.holder.current
    agent = runtime.critique_agent()
    assert agent is runtime.critique_agent() and agent.searcher is runtime.runner.searcher
    assert runtime.in_flight == 0  # every lease was released


def test_a_failing_critique_is_an_error_event_and_a_500(client: TestClient, monkeypatch: pytest.MonkeyPatch,
                                                        capfd: pytest.CaptureFixture[str],
                                                        caplog: pytest.LogCaptureFixture) -> None:
    def boom() -> Any:
        raise RuntimeError("no concept table")

    runtime = client.app.state.holder.current
    monkeypatch.setattr(runtime, "critique_agent", boom)
    capfd.readouterr()
    events = sse_events(critique(client, PE_CASE, stream=True).text)
    assert events == [("error", {"status_code": 500,
                                 "detail": "the critique could not be completed; please try again"})]
    failed = critique(client, PE_CASE)
    assert failed.status_code == 500 and "could not be completed" in failed.json()["detail"]
    assert runtime.in_flight == 0
    logged = "".join(capfd.readouterr()) + caplog.text  # Litestar's handlers write to stderr; pytest's capture
    assert "critique failed" in logged and "pleuritic" not in logged  # the case text is never logged


def test_the_page_has_the_case_review_form(client: TestClient) -> None:
    page = client.get("/").text
    assert 'id="mode-review"' in page and "증례 검토 (M&amp;M)" in page and 'id="case-form"' in page
    for part in ("summary", "timeline", "findings", "diagnoses", "management", "outcome"):
        assert f'id="case-{part}"' in page
    assert 'id="case-summary" name="summary"' in page and "required" in page.split('id="case-summary"')[1][:200]
    script = client.get("/static/chat.js").text
    assert '"/v1/critique"' in script and "innerHTML" not in script


@pytest.fixture()
def server_url(settings: Settings) -> Iterator[str]:
    with live_server(create_app(settings, fake_factory(), ServingConfig(rate_per_sec=0.0))) as url:
        yield url


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install -y chromium)")
def test_review_form_streams_and_shows_the_critique_in_a_browser(server_url: str) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--headless"])
        page = browser.new_page(locale="ko-KR")
        page.goto(server_url)
        page.click("#mode-review")
        expect(page.locator("#case-form")).to_be_visible()
        expect(page.locator("#chat")).to_be_hidden()
        for part, text in PE_CASE.items():
            page.fill(f"#case-{part}", text)
        page.click("#case-submit")
        expect(page.locator("#review-result .mode")).to_be_visible(timeout=30_000)
        expect(page.locator("#case-submit")).to_be_enabled(timeout=30_000)
        steps = page.locator("#review-steps li").evaluate_all("els => els.map(e => e.dataset.step)")
        assert steps[:2] == ["analysis", "internal_search"] and steps[-1] == "critique"
        assert page.locator("#review-result .mode").get_attribute("data-mode") in MODES
        assert "pulmonary embolism" in page.locator("ul.claims[data-section='diagnostic_errors']").inner_text()
        assert page.locator("#review-result table tr").count() >= 2  # internal cases, one row each
        pmids = page.locator("#review-external a.ref")
        if pmids.count():
            href = pmids.first.get_attribute("href")
            assert href.startswith("https://pubmed.ncbi.nlm.nih.gov/") and pmids.first.inner_text().startswith("PMID:")
        page.click("#mode-chat")
        expect(page.locator("#question")).to_be_visible()
        browser.close()


def test_runner_searcher_finds_the_production_runners_searcher(client: TestClient) -> None:
    """The production AgentRunner keeps its searcher on `deps` (yaksa.agent.factory.build_runner)."""
    searcher = client.app.state.holder.current.runner.searcher
    assert runner_searcher(SimpleNamespace(deps=SimpleNamespace(searcher=searcher))) is searcher  # type: ignore[arg-type]
    assert runner_searcher(SimpleNamespace(searcher=searcher)) is searcher  # type: ignore[arg-type]
    assert runner_searcher(SimpleNamespace(searcher="not a searcher")) is None  # type: ignore[arg-type]
