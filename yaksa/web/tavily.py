"""Web references from Tavily, fetched beside the answer and never put into the generation context.

Why separate from retrieval: web pages are unvetted, so they are shown to the user as "further
reading" only; the answer is grounded in the index alone. A web search must never fail a turn:
with no `TAVILY_API_KEY`, no network or a slow API the caller gets an empty list and a reason.

Privacy: only `query` is sent, exactly as given, and never logged. Choosing it is the caller's job:
the service searches only the query its agent hands over (`web_query` event: in-scope questions,
personal identifiers and the user's statements about themselves removed), never the raw question.
The call is bounded by `timeout` twice: the client's own HTTP timeout and an `asyncio.wait_for`.

Configuration (environment): `TAVILY_API_KEY` turns the search on; `TAVILY_BASE_URL` points the
real `tavily-python` client at another endpoint (a proxy, or the fake server the tests run on
127.0.0.1); it defaults to Tavily's own `https://api.tavily.com`.

Usage:
    refs = await search_web("타이레놀 복용법")
    refs.results   # [{"title", "url", "content"}, ...] at most 5
    refs.reason    # None, or why the list is empty ("no TAVILY_API_KEY", "timeout after 5.0 s", ...)
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from tavily import AsyncTavilyClient

from yaksa import environment

log = logging.getLogger(__name__)
MAX_CONTENT_CHARS = 500  # a reference is a pointer, not a document: keep the event small


OK, DISABLED, TIMEOUT, FAILURE = "ok", "disabled", "timeout", "failure"  # WebRefs.outcome


@dataclass(frozen=True)
class WebRefs:
    results: list[dict[str, str]] = field(default_factory=list)
    reason: str | None = None
    # for the service's metrics, not the client: ok | disabled (no key) | timeout | failure
    outcome: str = OK

    def to_json(self) -> dict[str, Any]:
        return {"results": self.results, "reason": self.reason}


def _clean(item: dict[str, Any]) -> dict[str, str] | None:
    url = str(item.get("url") or "")
    if not url.startswith(("http://", "https://")):  # the page links to it: refuse javascript: etc.
        return None
    return {
        "title": str(item.get("title") or url)[:200],
        "url": url,
        "content": str(item.get("content") or "")[:MAX_CONTENT_CHARS],
    }


async def search_web(query: str, max_results: int = 5, timeout: float = 5.0) -> WebRefs:
    """Up to `max_results` web pages for `query`; empty with a reason instead of raising."""
    if not query.strip():
        raise ValueError("web search query is empty")
    if not 1 <= max_results <= 20:
        raise ValueError(f"max_results must be between 1 and 20, got {max_results}")
    api_key = environment.value(environment.TAVILY_API_KEY)
    if not api_key:
        return WebRefs(reason="no TAVILY_API_KEY", outcome=DISABLED)
    client = AsyncTavilyClient(api_key=api_key, api_base_url=environment.value(environment.TAVILY_BASE_URL) or None)
    try:
        response = await asyncio.wait_for(
            client.search(query, max_results=max_results, timeout=timeout), timeout=timeout
        )
    except TimeoutError:
        return WebRefs(reason=f"timeout after {timeout} s", outcome=TIMEOUT)
    except Exception as exc:  # noqa: BLE001 - any client/network failure degrades to "no references"
        log.warning("web search failed: %s", type(exc).__name__)
        return WebRefs(reason=f"web search failed: {type(exc).__name__}", outcome=FAILURE)
    finally:
        await client.close()
    items = response.get("results") if isinstance(response, dict) else None
    if not isinstance(items, list):
        return WebRefs(reason="web search returned no result list", outcome=FAILURE)
    results = [r for r in (_clean(i) for i in items if isinstance(i, dict)) if r][:max_results]
    return WebRefs(results=results)
