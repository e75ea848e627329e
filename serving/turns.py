"""Run one agent turn in a worker thread and turn it into an ordered stream of events.

The runner is synchronous; its live events (`status`, `token`) cross from its thread to the event
loop through `call_soon_threadsafe`. The web search runs as an asyncio task beside it (5 s timeout)
and is never shown to the runner. The final-state events are derived here from the TurnResult, so
every stream has the same shape whatever the runner reports:

    status* token* (web_refs may come anywhere) answer citations verification done
    ... or, when the runner raises: status* token* error   (nothing after `error`)

`answer` carries the final text and replaces what the tokens built (a runner that falls back
after a failed LLM stream may have emitted tokens it then abandoned). `done` names the one bundle
version the turn was answered from. The Runtime lease is released when the runner's thread ends,
even if the client has gone away.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass
from typing import Any

import anyio

from serving.runtime import Runtime, RuntimeHolder
from yaksa.agent.api import TurnResult
from yaksa.web.tavily import search_web

log = logging.getLogger(__name__)
LIVE_EVENTS = frozenset({"status", "token"})
WEB_TIMEOUT_S = 5.0
WEB_MAX_RESULTS = 5
_RUN_DONE = "_run_done"

Event = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class TurnRequest:
    question: str
    user_id: str
    profile: str | None
    web: bool


def _web_payload(task: asyncio.Task) -> dict[str, Any]:
    if task.cancelled():
        return {"results": [], "reason": "cancelled"}
    exc = task.exception()
    if exc is not None:
        log.warning("web references failed: %s", type(exc).__name__)
        return {"results": [], "reason": f"web search failed: {type(exc).__name__}"}
    return task.result().to_json()


def _error_payload(exc: BaseException | None) -> dict[str, Any]:
    if isinstance(exc, ValueError):  # the runner refused the input: its message names the problem
        return {"status_code": 400, "detail": str(exc)}
    return {"status_code": 500, "detail": "the answer could not be completed; please try again"}


def _final_events(result: TurnResult) -> list[Event]:
    return [
        ("answer", {"text": result.answer, "blocked": result.blocked}),
        ("citations", {"citations": [asdict(c) for c in result.citations]}),
        ("verification", {"verification": result.verification}),
    ]


def start_turn(holder: RuntimeHolder, request: TurnRequest) -> AsyncIterator[Event]:
    """Lease a Runtime, start the runner and the web search now, and return the turn's events.

    Called on the event loop; raises 503 before anything starts when no bundle is loaded. Starting
    eagerly (not on first iteration) ties the lease to the runner's thread, which always ends.
    """
    runtime = holder.acquire()
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Event] = asyncio.Queue()

    def sink(name: str, payload: dict[str, Any]) -> None:
        if name in LIVE_EVENTS and not loop.is_closed():
            loop.call_soon_threadsafe(queue.put_nowait, (name, payload))

    def run() -> TurnResult:
        try:
            return runtime.runner.run(request.question, request.user_id, profile=request.profile, on_event=sink)
        finally:
            holder.release(runtime)

    def run_done(task: asyncio.Future) -> None:
        if not task.cancelled():
            task.exception()  # retrieved here so an abandoned turn's failure is not reported twice
        queue.put_nowait((_RUN_DONE, {}))

    run_task = asyncio.ensure_future(anyio.to_thread.run_sync(run))
    run_task.add_done_callback(run_done)
    web_task: asyncio.Task | None = None
    if request.web:
        web_task = asyncio.create_task(search_web(request.question, WEB_MAX_RESULTS, WEB_TIMEOUT_S))
        web_task.add_done_callback(lambda t: queue.put_nowait(("web_refs", _web_payload(t))))
    else:
        queue.put_nowait(("web_refs", {"results": [], "reason": "not requested"}))
    return _events(runtime, queue, run_task, web_task, time.perf_counter())


async def _events(runtime: Runtime, queue: asyncio.Queue[Event], run_task: asyncio.Future,
                  web_task: asyncio.Task | None, started: float) -> AsyncIterator[Event]:
    pending = 2  # the runner and the web references
    result: TurnResult | None = None
    try:
        while pending:
            name, payload = await queue.get()
            if name != _RUN_DONE:
                pending -= name == "web_refs"
                yield name, payload
                continue
            pending -= 1
            exc = None if run_task.cancelled() else run_task.exception()
            if run_task.cancelled() or exc is not None:
                if isinstance(exc, ValueError):
                    log.info("turn refused: %s", exc)
                else:
                    log.error("turn failed on bundle %s: %s", runtime.version, type(exc).__name__, exc_info=exc)
                yield "error", _error_payload(exc)
                return
            result = run_task.result()
            for event in _final_events(result):
                yield event
        assert result is not None
        yield "done", {
            "version": runtime.version,
            "blocked": result.blocked,
            "trace": result.trace,
            "profile_summary": result.profile_summary,
            "elapsed_ms": round((time.perf_counter() - started) * 1000, 1),
        }
    finally:
        if web_task is not None and not web_task.done():
            web_task.cancel()
