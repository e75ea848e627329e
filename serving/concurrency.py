"""Admission of the expensive calls (chat, critique, search): a per-key limit on requests in flight,
and each admitted request's deadline and cancel flag.

Why a limit in flight beside the rate limit (`serving.ratelimit`): the token bucket bounds how
often a key may start requests, not how much work it keeps running. Within its burst one key could
start eight 2,000-character turns at once; they all queued on the one query-embedding engine and
another key's short question waited 33 s. With at most `YAKSA_MAX_INFLIGHT_PER_KEY` (default 4)
requests of a key running, the next one is refused at once with 429 and `Retry-After: 1`.

A request is "in flight" from its admission (after its input was checked) until its work ends: for
a chat turn or a critique that is when the worker thread ends, not when the response does, so a
client that hangs up and asks again does not get a second slot while its first turn still runs
(the hang-up sets the cancel flag and the turn stops at its next node: `serving.turns`).

The deadline (`YAKSA_REQUEST_DEADLINE_S`, default 30 s for chat; `YAKSA_CRITIQUE_DEADLINE_S`, default
60 s for critique) runs from admission; the work checks it between steps (the agent's nodes, the
critique's steps) and stops with a 504-like `error`. A search is one call with no steps in
between: its cost is bounded by the query's length (500 characters) and the query window of the
embedding (`yaksa.embed.base`), not by a deadline.

Scope: counts live in this process. With `yaksa serve --workers N` a key may have up to N times the
limit in flight across workers (each worker has its own engine lock, so a key still cannot stall a
worker beyond the limit). Open mode (no API keys: loopback clients only, one caller) is not limited.

    with admit(request) as admission:             # 429 past the key's limit
        runtime = holder.acquire()
        events = start_turn(holder, runtime, turn, admission)   # the turn's thread releases it
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self

from litestar.connection import ASGIConnection
from litestar.exceptions import TooManyRequestsException

from serving.auth import OPEN_GRANT

RETRY_AFTER_S = 1
CHAT, CRITIQUE, SEARCH = "chat", "critique", "search"
UNLIMITED_GRANTS = frozenset({OPEN_GRANT.label})  # open mode: loopback clients only, one caller


class InFlightLimiter:
    """At most `limit` admitted requests per key at once (0 = no limit); thread-safe, per process."""

    def __init__(self, limit: int) -> None:
        if limit < 0:
            raise ValueError(f"the in-flight limit must be >= 0, got {limit}")
        self.limit = limit
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()

    def try_acquire(self, key: str) -> bool:
        with self._lock:
            count = self._counts.get(key, 0)
            if self.limit and count >= self.limit:
                return False
            self._counts[key] = count + 1
            return True

    def release(self, key: str) -> None:
        with self._lock:
            count = self._counts.get(key, 0) - 1
            if count > 0:
                self._counts[key] = count
            else:
                self._counts.pop(key, None)  # the table holds only keys with work running

    def in_flight(self, key: str) -> int:
        with self._lock:
            return self._counts.get(key, 0)


@dataclass(eq=False)
class Admission:
    """One admitted request: its slot (released once), deadline and cancel flag.

    As a context manager it releases the slot on the way out unless the work was handed to a thread
    (`hand_over`), which then calls `release` when it ends."""

    key: str
    deadline_s: float | None = None          # the limit it was given (for messages)
    deadline: float | None = None            # time.monotonic() after which no further step starts
    cancel: threading.Event = field(default_factory=threading.Event)
    limiter: InFlightLimiter | None = None   # None: not counted (open mode, no limit)
    receive: Any = None                      # the request's ASGI receive: tells when the client went away
    _released: bool = False
    _handed_over: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def remaining_s(self) -> float | None:
        """Seconds left before the deadline (may be <= 0), or None without one."""
        return None if self.deadline is None else self.deadline - time.monotonic()

    def expired(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def hand_over(self) -> None:
        """The work now runs elsewhere and releases the slot itself."""
        self._handed_over = True

    def release(self) -> None:
        with self._lock:
            if self._released:
                return
            self._released = True
        if self.limiter is not None:
            self.limiter.release(self.key)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc is not None or not self._handed_over:
            self.release()


async def cancel_on_disconnect(admission: Admission, done: Callable[[], bool]) -> None:
    """Set `admission.cancel` when the client disconnects before `done()` (run beside the work, as a
    task: a non-streamed response is not otherwise told that its client went away). The request
    body has been read by then, so `receive` only ever answers `http.disconnect`."""
    if admission.receive is None:
        return
    while not done():
        message = await admission.receive()
        if message.get("type") == "http.disconnect":
            if not done():
                admission.cancel.set()
            return


def deadline_for(config: Any, kind: str) -> float | None:
    """The configured deadline of `kind` in seconds (None: none)."""
    seconds = {CHAT: getattr(config, "request_deadline_s", None),
               CRITIQUE: getattr(config, "critique_deadline_s", None)}.get(kind)
    return seconds if seconds else None


def admit(connection: ASGIConnection, kind: str = CHAT) -> Admission:
    """Admit a request of the caller's key (set by `serving.auth.api_key_guard`), or 429 when the key
    already has its limit in flight."""
    state = connection.app.state
    config = state.serving_config
    grant = connection.state.grant
    seconds = deadline_for(config, kind)
    admission = Admission(key=grant.label, deadline_s=seconds, receive=connection.receive,
                          deadline=None if seconds is None else time.monotonic() + seconds)
    limiter: InFlightLimiter | None = state.get("inflight")
    if limiter is None or not limiter.limit or grant.label in UNLIMITED_GRANTS:
        return admission
    if not limiter.try_acquire(grant.label):
        raise TooManyRequestsException(
            detail=f"this API key already has {limiter.limit} requests in progress (the limit); "
                   f"retry when one has finished",
            headers={"Retry-After": str(RETRY_AFTER_S)})
    admission.limiter = limiter
    return admission
