"""Run one M&M case critique in a worker thread and turn it into an ordered stream of events.

Why a module beside `serving.turns` rather than inside it: a critique is not a chat turn. It is
tied to no user (no user id, no memory written, no web references), its input is a structured case
and its steps are the critique agent's (`yaksa.critique.agent.CritiqueAgent.run`), so it shares
only the pattern: lease the Runtime at the start, run the synchronous agent in a worker thread,
hand each finished step to the event loop with `call_soon_threadsafe`, release the lease when
the thread ends (even if the client has gone away). Every stream has the same shape:

    step* result done          step payloads are {"name", ...what the agent reported}
    ... or, on a failure: step* error   (nothing after `error`)

`result` is `CritiqueResult.to_json()` plus the bundle `version` (what `stream=false` returns);
`done` carries the version and the elapsed time. The case is parsed (`parse_case`) and checked
like every other client text (`serving.validation.clean_text`) before anything is leased, so a
bad case is a 400 with the parser's message, never a stream.

Stopping: the admission's deadline (`YAKSA_CRITIQUE_DEADLINE_S`) and cancel flag
(`serving.concurrency`) are checked as each step ends (the agent's `on_step` hook: the only place a
critique can be stopped from outside), so a critique past its deadline ends in `error` with 504
and one whose client went away (the stream closed early) stops after its current step and frees
the lease and the key's in-flight slot. Its query embeddings are bounded by the embedders' query
window (`yaksa.embed.base`), its input by MAX_CASE_CHARS.

Logs carry lengths, versions, the retrieval mode and timings, never the case text.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Any

import anyio
from litestar.exceptions import ValidationException

from serving import metrics
from serving.concurrency import Admission, cancel_on_disconnect
from serving.runtime import Runtime, RuntimeHolder
from serving.turns import Event, check_admission, stopped_payload
from serving.validation import clean_text
from yaksa.agent.api import TurnStopped
from yaksa.corpus.case import MAX_CASE_CHARS, PARTS, Case, CaseError, parse_case

log = logging.getLogger(__name__)
STEP, RESULT, DONE, ERROR = "step", "result", "done", "error"
_RUN_DONE = "_run_done"
FAILED_DETAIL = "the critique could not be completed; please try again"


@dataclass
class CritiqueRequest:
    # plain text (the whole text is the summary), the JSON text of a case, or the case object
    # {summary (required), timeline, findings, diagnoses, management, outcome}
    case: str | dict[str, Any]
    stream: bool = True  # SSE events; False = one JSON object when the critique ends


def read_case(raw: str | dict[str, Any]) -> Case:
    """The request's case, or a 400 naming the problem (the parser's message, or the part that
    holds control, bidirectional-override or only invisible characters)."""
    try:
        case = parse_case(raw)
    except CaseError as exc:
        raise ValidationException(detail=str(exc)) from None
    cleaned = {name: clean_text(f"case.{name}", value, MAX_CASE_CHARS)
               for name in PARTS if (value := getattr(case, name)) or name == "summary"}
    return replace(case, **cleaned)  # the normalised text (NFC, no format characters) is what runs


def _jsonable(payload: dict[str, Any]) -> dict[str, Any]:
    """Plain JSON types only (tuples become lists; anything else its text, as the CLI's `default=str`),
    so the SSE and the JSON body carry exactly the same values."""
    return json.loads(json.dumps(payload, ensure_ascii=False, default=str))


def start_critique(holder: RuntimeHolder, runtime: Runtime, case: Case,
                   admission: Admission | None = None) -> AsyncIterator[Event]:
    """Start the critique now on `runtime` (leased from `holder` by the caller: this takes the lease
    over, and the `admission`, released with it) and return its events.

    Called on the event loop. The critique agent is built (on its first use for this bundle) inside
    the worker thread.
    """
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Event] = asyncio.Queue()

    if admission is not None:
        admission.hand_over()

    def on_step(name: str, payload: dict[str, Any]) -> None:  # on the worker thread
        if not loop.is_closed():
            loop.call_soon_threadsafe(queue.put_nowait, (STEP, _jsonable({"name": name, **payload})))
        check_admission(admission)  # between steps: stop here when past the deadline or cancelled

    def run() -> dict[str, Any]:
        try:
            check_admission(admission)
            return runtime.critique_agent().run(case, on_step=on_step).to_json()
        finally:
            holder.release(runtime)
            if admission is not None:
                admission.release()

    def run_done(task: asyncio.Future) -> None:
        if not task.cancelled():
            task.exception()  # retrieved here so an abandoned critique's failure is not reported twice
        queue.put_nowait((_RUN_DONE, {}))

    run_task = asyncio.ensure_future(anyio.to_thread.run_sync(run))
    run_task.add_done_callback(run_done)
    return _events(runtime, case, queue, run_task, time.perf_counter(), admission)


async def _events(runtime: Runtime, case: Case, queue: asyncio.Queue[Event], run_task: asyncio.Future,
                  started: float, admission: Admission | None = None) -> AsyncIterator[Event]:
    watch = asyncio.ensure_future(cancel_on_disconnect(admission, run_task.done)) if admission is not None else None
    try:
        while (event := await queue.get())[0] != _RUN_DONE:
            yield event
    finally:
        if watch is not None:
            watch.cancel()
        if admission is not None and not run_task.done():
            admission.cancel.set()  # closed before the critique ended: the client went away
    exc = None if run_task.cancelled() else run_task.exception()
    if isinstance(exc, TurnStopped):
        log.warning("critique stopped on bundle %s (case %d chars): %s", runtime.version, len(case.text),
                    type(exc).__name__)
        yield ERROR, stopped_payload(exc, admission, what="critique")
        return
    if run_task.cancelled() or exc is not None:
        log.error("critique failed on bundle %s (case %d chars): %s", runtime.version, len(case.text),
                  type(exc).__name__, exc_info=exc)
        yield ERROR, {"status_code": 500, "detail": FAILED_DETAIL}
        return
    result = _jsonable({**run_task.result(), "version": runtime.version})
    metrics.observe_llm_calls((result.get("trace") or {}).get("llm"))  # its LLM steps, for GET /metrics
    elapsed_ms = round((time.perf_counter() - started) * 1000, 1)
    log.info("critique done on bundle %s: case %d chars, mode %s, %d internal, %d external, verdict %s, %.1f ms",
             runtime.version, len(case.text), result.get("retrieval_mode"), len(result.get("internal") or []),
             len(result.get("external") or []), (result.get("verification") or {}).get("verdict"), elapsed_ms)
    yield RESULT, result
    yield DONE, {"version": runtime.version, "elapsed_ms": elapsed_ms}
