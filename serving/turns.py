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
bundle version the turn was answered from. The Runtime lease (and the key's in-flight slot,
`serving.concurrency`) is released when the runner's thread ends.

Stopping: when the event stream is closed before the turn ended (the client went away: the SSE
response is cancelled, or a non-streamed request is), the turn's cancel flag is set and the runner
stops before its next node (or its next answer token), so an abandoned turn frees the embedding
engine, the thread and the lease within one node. The admission's deadline reaches the runner as
`deadline_s`; a turn past it ends in `error` with 504 (a cancelled one with 503), never a 500.
A runner whose `run` takes no `deadline_s`/`cancel` is stopped the same way at its next event.

Logs carry lengths, versions and timings under the request id, never the question, the answer, the
web query or the user id. Each turn is counted for `GET /metrics` once, when its stream ends
(`serving.metrics.observe_turn`: outcome, time, and what its trace says of nodes, scope, cache and LLM).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import anyio

from serving import metrics
from serving.concurrency import Admission, cancel_on_disconnect
from serving.runtime import Runtime, RuntimeHolder
from serving.webrefs import WEB_QUERY_EVENT, TurnWebRefs
from yaksa.agent.api import TurnCancelled, TurnDeadlineExceeded, TurnResult, TurnStopped, result_events

log = logging.getLogger(__name__)
LIVE_EVENTS = frozenset({"status", "token"})
_RUN_DONE = "_run_done"

Event = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class TurnRequest:
    question: str
    user_id: str
    variant: str | None
    web: bool
    remember: bool = True  # False for the admin key: the turn reads and writes no profile (serving.auth)
    live: bool = True      # the client reads status and token events as they happen (SSE); a JSON answer
                           # (`stream=false`) does not, so its ~100 per turn never cross to the event loop


def stopped_payload(exc: TurnStopped, admission: Admission | None, what: str = "answer") -> dict[str, Any]:
    """The `error` event of work stopped by its deadline (504) or cancelled (503)."""
    if isinstance(exc, TurnDeadlineExceeded):
        limit = f" of {admission.deadline_s:g} s" if admission is not None and admission.deadline_s else ""
        return {"status_code": exc.status_code,
                "detail": f"the {what} took longer than the server's time limit{limit} and was stopped; "
                          "please try again later or with a shorter text"}
    return {"status_code": exc.status_code, "detail": f"the {what} was cancelled"}


def _error_payload(exc: BaseException | None, admission: Admission | None = None) -> dict[str, Any]:
    if isinstance(exc, ValueError):  # the runner refused the input: its message names the problem
        return {"status_code": 400, "detail": str(exc)}
    if isinstance(exc, TurnStopped):
        return stopped_payload(exc, admission)
    return {"status_code": 500, "detail": "the answer could not be completed; please try again"}


@functools.lru_cache(maxsize=32)
def _takes_controls(runner_type: type) -> bool:
    """The runner's `run` accepts `deadline_s` and `cancel` (AgentRunner does; a TurnRunner need not)."""
    try:
        params = inspect.signature(runner_type.run).parameters
    except (AttributeError, TypeError, ValueError):
        return False
    return "deadline_s" in params and "cancel" in params


def check_admission(admission: Admission | None) -> None:
    """Raise TurnCancelled / TurnDeadlineExceeded when the admitted work must stop (between steps)."""
    if admission is None:
        return
    if admission.cancel.is_set():
        raise TurnCancelled("the request was cancelled")
    if admission.expired():
        raise TurnDeadlineExceeded("the request ran past its deadline")


def start_turn(holder: RuntimeHolder, runtime: Runtime, request: TurnRequest,
               admission: Admission | None = None) -> AsyncIterator[Event]:
    """Start the runner now on `runtime` (leased from `holder` by the caller: this takes the lease
    over, and the `admission` too: its deadline and cancel flag reach the runner, its slot is
    released with the lease) and return the turn's events.

    Called on the event loop. Starting eagerly (not on first iteration) ties the lease to the
    runner's thread, which always ends.
    """
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Event] = asyncio.Queue()
    web = TurnWebRefs(request.web)
    native = admission is not None and _takes_controls(type(runtime.runner))
    if admission is not None:
        admission.hand_over()

    def sink(name: str, payload: dict[str, Any]) -> None:  # on the runner's thread
        if not native:
            check_admission(admission)  # a runner without deadline_s/cancel stops at its next event
        if loop.is_closed():
            return
        if name in LIVE_EVENTS:
            if request.live:
                loop.call_soon_threadsafe(queue.put_nowait, (name, payload))
        elif name == WEB_QUERY_EVENT:
            loop.call_soon_threadsafe(web.start, payload)

    def run() -> TurnResult:
        try:
            check_admission(admission)  # cancelled, or past its deadline, while it waited for a thread
            controls: dict[str, Any] = ({"deadline_s": admission.remaining_s(), "cancel": admission.cancel}
                                        if native and admission is not None else {})
            if not request.remember:  # a runner that cannot forget the user may not run this turn
                controls["remember"] = False
            return runtime.runner.run(request.question, request.user_id, variant=request.variant, on_event=sink,
                                      **controls)
        finally:
            holder.release(runtime)
            if admission is not None:
                admission.release()

    def run_done(task: asyncio.Future) -> None:
        if not task.cancelled():
            task.exception()  # retrieved here so an abandoned turn's failure is not reported twice
        queue.put_nowait((_RUN_DONE, {}))

    run_task = asyncio.ensure_future(anyio.to_thread.run_sync(run))
    run_task.add_done_callback(run_done)
    return _events(runtime, request, queue, run_task, web, time.perf_counter(), admission)


def _outcome(exc: BaseException | None) -> str:
    """The metrics outcome of a turn that ended with `exc` (None: cancelled before it ran)."""
    if isinstance(exc, ValueError):
        return metrics.INVALID
    if isinstance(exc, TurnDeadlineExceeded):
        return metrics.DEADLINE
    if exc is None or isinstance(exc, TurnCancelled):
        return metrics.CANCELLED
    return metrics.FAILED


async def _events(runtime: Runtime, request: TurnRequest, queue: asyncio.Queue[Event], run_task: asyncio.Future,
                  web: TurnWebRefs, started: float, admission: Admission | None = None) -> AsyncIterator[Event]:
    watch = asyncio.ensure_future(cancel_on_disconnect(admission, run_task.done)) if admission is not None else None
    counted = False
    try:
        while (event := await queue.get())[0] != _RUN_DONE:
            yield event
        exc = None if run_task.cancelled() else run_task.exception()
        if run_task.cancelled() or exc is not None:
            if isinstance(exc, ValueError):
                log.info("turn refused: %s (question %d chars)", type(exc).__name__, len(request.question))
            elif isinstance(exc, TurnStopped):
                log.warning("turn stopped on bundle %s: %s before node %s (question %d chars)",
                            runtime.version, type(exc).__name__, exc.node, len(request.question))
            else:
                log.error("turn failed on bundle %s: %s", runtime.version, type(exc).__name__, exc_info=exc)
            counted = True
            metrics.observe_turn(_outcome(exc), time.perf_counter() - started)
            yield "error", _error_payload(exc, admission)
            return
        result: TurnResult = run_task.result()
        for event in result_events(result):
            yield event
        web_refs = await web.payload(result.blocked)
        yield "web_refs", web_refs
        elapsed_s = time.perf_counter() - started
        elapsed_ms = round(elapsed_s * 1000, 1)
        log.info("turn done on bundle %s: question %d chars, answer %d chars, %d citations, "
                 "blocked=%s, web search=%s (%d results), %.1f ms", runtime.version,
                 len(request.question), len(result.answer), len(result.citations), result.blocked,
                 web.started, len(web_refs["results"]), elapsed_ms)
        counted = True
        metrics.observe_turn(metrics.BLOCKED if result.blocked else metrics.ANSWERED, elapsed_s, result.trace)
        yield "done", {
            "version": runtime.version,
            "blocked": result.blocked,
            "trace": result.trace,
            "profile_summary": result.profile_summary,
            "elapsed_ms": elapsed_ms,
        }
    finally:
        web.cancel()
        if watch is not None:
            watch.cancel()
        if not counted:  # the stream was closed before the turn's end was sent: the client went away
            metrics.observe_turn(metrics.ABANDONED, time.perf_counter() - started)
        if admission is not None and not run_task.done():
            # closed before the turn ended: the client went away (or stopped reading)
            admission.cancel.set()
            log.info("turn cancelled: the client went away")
