"""HTTP handlers: thin wrappers that validate, authorise, lease a Runtime and call into `yaksa`.

Handlers under /v1 run behind `api_key_guard` (admin ones behind `admin_guard`), see `serving.app`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from litestar import Request, Response, delete, get, post
from litestar.datastructures import State
from litestar.exceptions import PermissionDeniedException, ServiceUnavailableException, ValidationException
from litestar.params import FromPath, FromQuery, JSONBody
from litestar.response import File, ServerSentEvent, ServerSentEventMessage

from serving import metrics as service_metrics
from serving.auth import ADMIN_MAY_CALL, authorize_variant, is_admin_grant, metrics_guard, require_user
from serving.concurrency import CRITIQUE, SEARCH, admit
from serving.critique import ERROR, RESULT, CritiqueRequest, read_case, start_critique
from serving.follower import CurrentFollower
from serving.headers import bundle_headers
from serving.runtime import RuntimeHolder
from serving.turns import Event, TurnRequest, start_turn
from serving.validation import (
    MAX_QUERY_CHARS,
    MAX_QUESTION_CHARS,
    check_k,
    check_user_id,
    check_variant_name,
    clean_text,
)

STATIC_DIR = Path(__file__).resolve().parent / "static"
CRITIQUE_ONLY_COLLECTION = "cases"


@dataclass
class ChatRequest:
    question: str
    user_id: str
    variant: str | None = None  # None = the configured `agent.variant`; another one needs the admin key
    profile: str | None = None  # the old name of `variant`, still read (one of the two, or both equal)
    stream: bool = True         # SSE events; False = one JSON body when the turn ends
    web: bool = True            # web references for the agent's redacted query (shown apart, never used to answer)


def _holder(state: State) -> RuntimeHolder:
    return state.holder


@get("/healthz", sync_to_thread=False)
def healthz() -> dict[str, str]:
    """The process is up (says nothing about the bundle: see /readyz)."""
    return {"status": "ok"}


@get("/readyz", sync_to_thread=False)
def readyz(state: State) -> dict[str, Any]:
    """503 until a bundle and its agent are loaded."""
    runtime = _holder(state).current
    if runtime is None:
        raise ServiceUnavailableException(detail=_holder(state).load_error or "loading")
    return {"status": "ready", "version": runtime.version}


@get(service_metrics.METRICS_PATH, sync_to_thread=True, guards=[metrics_guard])
def metrics() -> Response:
    """Prometheus metrics of every worker of this server (`serving.metrics`); the admin key, or a
    loopback client in open mode without one."""
    return Response(service_metrics.render(), media_type=service_metrics.CONTENT_TYPE)


@get("/", sync_to_thread=False, include_in_schema=False)
def chat_page() -> File:
    return File(STATIC_DIR / "index.html", content_disposition_type="inline", media_type="text/html")


@get("/indexes", sync_to_thread=True)
def indexes(state: State) -> dict[str, Any]:
    """The bundle this worker serves, the published one (CURRENT), all complete versions, and how
    this worker follows CURRENT (`follow`: null when it swaps only on /v1/admin/reload)."""
    follower: CurrentFollower | None = state.follower
    return {**_holder(state).describe(), "follow": follower.describe() if follower else None}


@get("/search", sync_to_thread=True)
def search(
    request: Request,
    state: State,
    q: FromQuery[str],
    k: FromQuery[int | None] = None,
    collection: FromQuery[list[str] | None] = None,
) -> Response:
    """Retrieval only, with scores, behind the agent's scope stage (an out-of-scope query returns
    `blocked` and no documents): for debugging and evaluation."""
    query = clean_text("q", q, MAX_QUERY_CHARS)
    check_k(k)
    if collection and CRITIQUE_ONLY_COLLECTION in collection:
        # internal M&M records (titles, diagnoses, what went wrong) are evidence for the critique agent,
        # not search results for any holder of a user key
        raise PermissionDeniedException(
            detail=f"the {CRITIQUE_ONLY_COLLECTION!r} collection is searched only by the case critique "
                   "(POST /v1/critique)")
    with admit(request, SEARCH), _holder(state).leased() as runtime:  # 429 past the key's in-flight limit
        try:
            result = runtime.runner.search(query, k=k, collections=collection)
        except ValueError as exc:
            raise ValidationException(detail=str(exc)) from exc
        return Response({**result, "version": runtime.version}, headers=bundle_headers(runtime.version))


SSE_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}


def _sse(events: AsyncIterator[Event]) -> AsyncIterator[ServerSentEventMessage]:
    async def messages() -> AsyncIterator[ServerSentEventMessage]:
        async for name, payload in events:
            yield ServerSentEventMessage(event=name, data=json.dumps(payload, ensure_ascii=False))

    return messages()


def _error(status_code: int, detail: str, headers: dict[str, str] | None = None) -> Response:
    """An error body shaped like Litestar's own; built directly because Litestar blanks 500 details."""
    return Response({"status_code": status_code, "detail": detail}, status_code=status_code, headers=headers)


async def _collect(events: AsyncIterator[Event], headers: dict[str, str]) -> Response:
    """The non-streaming body: the final events merged into one JSON object."""
    body: dict[str, Any] = {}
    async for name, payload in events:
        if name == "error":
            return _error(payload["status_code"], payload["detail"], headers)
        if name == "answer":
            body.update(answer=payload["text"], blocked=payload["blocked"])
        elif name == "web_refs":
            body["web_refs"] = payload
        elif name in ("citations", "verification", "done"):
            body.update(payload)
    return Response(body, headers=headers)


@post("/chat", status_code=200, opt={ADMIN_MAY_CALL: True})
async def chat(request: Request, state: State, data: JSONBody[ChatRequest]) -> Response:
    """One agent turn: SSE events (status, token, answer, citations, verification, web_refs, done |
    error), or one JSON object with `stream=false`. A `variant` (ablation variant; `profile` is its old
    name) other than the configured one needs the admin key (which may act for any user id) or
    YAKSA_ALLOW_VARIANT_CHOICE=1: 403 otherwise."""
    turn = TurnRequest(
        question=clean_text("question", data.question, MAX_QUESTION_CHARS),
        user_id=check_user_id(data.user_id),
        variant=authorize_variant(request, _holder(state).settings.agent,
                                  check_variant_name(data.variant, data.profile)),
        web=data.web,
        remember=not is_admin_grant(request),
        live=data.stream,
    )
    require_user(request, turn.user_id)
    with admit(request) as admission:  # 429 past the key's in-flight limit; the turn's thread releases it
        runtime = _holder(state).acquire()
        events = start_turn(_holder(state), runtime, turn, admission)
    headers = bundle_headers(runtime.version)
    if data.stream:
        return ServerSentEvent(_sse(events), headers={**SSE_HEADERS, **headers})
    return await _collect(events, headers)


async def _collect_critique(events: AsyncIterator[Event], headers: dict[str, str]) -> Response:
    """The non-streaming critique: the `result` event's JSON (or the `error` as its status)."""
    body: dict[str, Any] = {}
    async for name, payload in events:
        if name == ERROR:
            return _error(payload["status_code"], payload["detail"], headers)
        if name == RESULT:
            body = payload
    return Response(body, headers=headers)


@post("/critique", status_code=200)
async def critique(request: Request, state: State, data: JSONBody[CritiqueRequest]) -> Response:
    """M&M critique of a clinical case (tied to no user; writes no memory): SSE events (step*, result,
    done | error), or with `stream=false` one JSON object (the result with the bundle `version`).
    A case that cannot be read is a 400 naming the part and the problem."""
    case = read_case(data.case)
    with admit(request, CRITIQUE) as admission:  # 429 past the key's in-flight limit
        runtime = _holder(state).acquire()
        events = start_critique(_holder(state), runtime, case, admission)
    headers = bundle_headers(runtime.version)
    if data.stream:
        return ServerSentEvent(_sse(events), headers={**SSE_HEADERS, **headers})
    return await _collect_critique(events, headers)


@get("/profile/{user_id:str}", sync_to_thread=True)
def get_profile(request: Request, state: State, user_id: FromPath[str]) -> dict[str, Any]:
    """What is remembered about a user; a key sees only the users it is bound to."""
    require_user(request, check_user_id(user_id))
    with _holder(state).leased() as runtime:
        return {"user_id": user_id, **runtime.runner.profile(user_id)}


@delete("/profile/{user_id:str}", status_code=200, sync_to_thread=True)
def forget_profile(request: Request, state: State, user_id: FromPath[str]) -> dict[str, Any]:
    """Erase what is remembered about a user (`forgotten` is False when nothing was stored)."""
    require_user(request, check_user_id(user_id))
    with _holder(state).leased() as runtime:
        return {"user_id": user_id, "forgotten": runtime.runner.forget(user_id)}


@post("/reload", status_code=200)
async def reload_bundle(state: State) -> Response:
    """Load the bundle CURRENT names beside the served one and swap; failures keep the old one."""
    try:
        return Response(await _holder(state).reload())
    except Exception as exc:  # noqa: BLE001 - any load failure is reported; the old bundle stays
        return _error(500, f"reload failed, still serving the previous bundle: {type(exc).__name__}: {exc}")
