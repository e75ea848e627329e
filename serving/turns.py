"""Run one agent turn in a worker thread and turn it into an ordered stream of events.

The runner is synchronous; its live events (`status`, `token`) cross from its thread to the event
loop through `call_soon_threadsafe`, and so does its `web_query`, which starts the web search as an
asyncio task beside the turn (`serving.webrefs`; never shown to the runner, never sent to the
client). The final-state events are derived here from the TurnResult, so every stream has the same
shape whatever the runner reports:

    status* token* answer citations verification web_refs done
    ... or, when the runner raises: status* token* error   (nothing after `error`)

`answer` carries the final text and replaces what the tokens built (a runner that falls back
after a failed LLM stream may have emitted tokens it then abandoned). `web_refs` comes once the
turn's result is known (so a blocked turn never shows any) and before `done`. `done` names the one
bundle version the turn was answered from. The Runtime lease is released when the runner's thread
ends, even if the client has gone away.

Logs carry ids, lengths, versions and timings, never the question, the answer or the web query.
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
from serving.webrefs import WEB_QUERY_EVENT, TurnWebRefs
from yaksa.agent.api import TurnResult

log = logging.getLogger(__name__)
LIVE_EVENTS = frozenset({"status", "token"})
_RUN_DONE = "_run_done"

Event = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class TurnRequest:
    question: str
    user_id: str
    profile: str | None
    web: bool


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


def start_turn(holder: RuntimeHolder, runtime: Runtime, request: TurnRequest) -> AsyncIterator[Event]:
    """Start the runner now on `runtime` (leased from `holder` by the caller: this takes the lease
    over) and return the turn's events.

    Called on the event loop. Starting eagerly (not on first iteration) ties the lease to the
    runner's thread, which always ends.
    """
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Event] = asyncio.Queue()
    web = TurnWebRefs(request.web)

    def sink(name: str, payload: dict[str, Any]) -> None:  # on the runner's thread
        if loop.is_closed():
            return
        if name in LIVE_EVENTS:
            loop.call_soon_threadsafe(queue.put_nowait, (name, payload))
        elif name == WEB_QUERY_EVENT:
            loop.call_soon_threadsafe(web.start, payload)

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
    return _events(runtime, request, queue, run_task, web, time.perf_counter())


async def _events(runtime: Runtime, request: TurnRequest, queue: asyncio.Queue[Event], run_task: asyncio.Future,
                  web: TurnWebRefs, started: float) -> AsyncIterator[Event]:
    try:
        while (event := await queue.get())[0] != _RUN_DONE:
            yield event
        exc = None if run_task.cancelled() else run_task.exception()
        if run_task.cancelled() or exc is not None:
            if isinstance(exc, ValueError):
                log.info("turn refused for user %s: %s (question %d chars)", request.user_id,
                         type(exc).__name__, len(request.question))
            else:
                log.error("turn failed for user %s on bundle %s: %s", request.user_id, runtime.version,
                          type(exc).__name__, exc_info=exc)
            yield "error", _error_payload(exc)
            return
        result: TurnResult = run_task.result()
        for event in _final_events(result):
            yield event
        web_refs = await web.payload(result.blocked)
        yield "web_refs", web_refs
        elapsed_ms = round((time.perf_counter() - started) * 1000, 1)
        log.info("turn done for user %s on bundle %s: question %d chars, answer %d chars, %d citations, "
                 "blocked=%s, web search=%s (%d results), %.1f ms", request.user_id, runtime.version,
                 len(request.question), len(result.answer), len(result.citations), result.blocked,
                 web.started, len(web_refs["results"]), elapsed_ms)
        yield "done", {
            "version": runtime.version,
            "blocked": result.blocked,
            "trace": result.trace,
            "profile_summary": result.profile_summary,
            "elapsed_ms": elapsed_ms,
        }
    finally:
        web.cancel()
