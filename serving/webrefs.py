"""The web references of one turn: searched only for the query the agent hands over, never the question.

Why the agent decides: the scope stage, the speech-act split and identifier redaction live in the
agent. It emits `web_query` (at most once per turn) only for an in-scope question, carrying the
question with personal identifiers and the user's statements about themselves removed. So nothing
reaches the third-party search for a blocked turn, a greeting or a statement, and what does reach
it is exactly that query (`request.question` is never used here).

Every search started is counted once, as it ends, for `GET /metrics` (`yaksa_web_searches_total`:
the search's own outcome, or `cancelled` when the turn ended first, `error` if it raised).

The sink is called from the runner's worker thread: `TurnWebRefs.start` must run on the event loop
(the caller hops there with `loop.call_soon_threadsafe`). The result is held until the turn's own
result is known, so web references are never shown beside a blocked turn.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from serving import metrics
from yaksa.web.tavily import search_web

log = logging.getLogger(__name__)
WEB_QUERY_EVENT = "web_query"
WEB_TIMEOUT_S = 5.0
WEB_MAX_RESULTS = 5
NOT_REQUESTED = "not requested"
NO_QUERY = "no web search for this turn: out of scope, greeting or statement"
BLOCKED = "no web references for a blocked (out-of-scope) question"


def _empty(reason: str) -> dict[str, Any]:
    return {"results": [], "reason": reason}


def _count(task: asyncio.Task) -> None:
    if task.cancelled():
        metrics.observe_web_search(metrics.WEB_CANCELLED)
    elif task.exception() is not None:  # retrieved here; `payload` reports it to the client
        metrics.observe_web_search(metrics.WEB_ERROR)
    else:
        metrics.observe_web_search(task.result().outcome)


class TurnWebRefs:
    def __init__(self, requested: bool) -> None:
        self.requested = requested
        self.task: asyncio.Task | None = None

    def start(self, payload: dict[str, Any]) -> None:
        """On the loop: search the event's `query` (first event only; a malformed one is ignored)."""
        if not self.requested:
            return
        if self.task is not None:
            log.warning("the runner sent %s twice in one turn; the second is ignored", WEB_QUERY_EVENT)
            return
        query = payload.get("query") if isinstance(payload, dict) else None
        if not isinstance(query, str) or not query.strip():
            log.warning("the runner sent %s without a query; no web search", WEB_QUERY_EVENT)
            return
        self.task = asyncio.create_task(search_web(query, WEB_MAX_RESULTS, WEB_TIMEOUT_S))
        self.task.add_done_callback(_count)

    @property
    def started(self) -> bool:
        return self.task is not None

    async def payload(self, blocked: bool) -> dict[str, Any]:
        """The `web_refs` event once the turn has ended (waits at most the search's own timeout)."""
        if not self.requested:
            return _empty(NOT_REQUESTED)
        if blocked:
            if self.task is not None:
                log.error("the runner sent %s for a blocked turn; its results are dropped", WEB_QUERY_EVENT)
                self.cancel()
            return _empty(BLOCKED)
        if self.task is None:
            return _empty(NO_QUERY)
        try:
            return (await self.task).to_json()
        except Exception as exc:  # noqa: BLE001 - search_web degrades itself; anything left must not fail the turn
            log.warning("web references failed: %s", type(exc).__name__)
            return _empty(f"web search failed: {type(exc).__name__}")

    def cancel(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()
