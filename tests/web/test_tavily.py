"""The real tavily-python async client against a fake Tavily API on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import socket

import pytest

from tests.web.fake_tavily import FakeTavily
from yaksa.web.tavily import search_web


def test_results_come_from_the_api_cleaned_and_capped(fake_tavily: type[FakeTavily]) -> None:
    refs = asyncio.run(search_web("타이레놀 복용법", max_results=5))
    assert refs.reason is None
    assert [r["url"] for r in refs.results] == ["https://example.org/a", "https://example.org/b"]
    assert len(refs.results[0]["content"]) == 500 and set(refs.results[0]) == {"title", "url", "content"}
    sent = fake_tavily.requests[0]
    assert sent["path"] == "/search" and sent["auth"] == "Bearer tvly-test-key"
    assert sent["body"]["query"] == "타이레놀 복용법" and sent["body"]["max_results"] == 5
    assert len(asyncio.run(search_web("두통", max_results=1)).results) == 1


def test_only_the_given_query_is_sent(fake_tavily: type[FakeTavily]) -> None:
    """The body carries the query once and no other text (the caller has already redacted it)."""
    asyncio.run(search_web("아세트아미노펜 용량", max_results=3))
    [sent] = fake_tavily.requests
    body = sent["body"]
    assert body["query"] == "아세트아미노펜 용량"
    assert json.dumps(body, ensure_ascii=False).count("아세트아미노펜") == 1
    free_text = [v for k, v in body.items() if isinstance(v, str) and k != "query" and not v.isascii()]
    assert free_text == []


def test_timeout_gives_an_empty_list_and_a_reason(fake_tavily: type[FakeTavily]) -> None:
    fake_tavily.mode = "slow"
    refs = asyncio.run(search_web("두통", timeout=0.2))
    assert refs.results == [] and refs.reason == "timeout after 0.2 s"


def test_api_error_gives_an_empty_list_and_a_reason(fake_tavily: type[FakeTavily]) -> None:
    fake_tavily.mode = "error"
    refs = asyncio.run(search_web("두통"))
    assert refs.results == [] and refs.reason is not None and refs.reason.startswith("web search failed")


def test_no_network_gives_an_empty_list_and_a_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test-key")
    monkeypatch.setenv("TAVILY_BASE_URL", f"http://127.0.0.1:{port}")
    refs = asyncio.run(search_web("두통"))
    assert refs.results == [] and refs.reason == "web search failed: ConnectError"


def test_no_key_means_no_request(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    refs = asyncio.run(search_web("두통"))
    assert refs.results == [] and refs.reason == "no TAVILY_API_KEY"


@pytest.mark.parametrize("query, max_results", [("  ", 5), ("두통", 0), ("두통", 21)])
def test_bad_arguments_are_rejected(query: str, max_results: int) -> None:
    with pytest.raises(ValueError):
        asyncio.run(search_web(query, max_results=max_results))
