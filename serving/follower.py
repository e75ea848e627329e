"""Follow `indexes/CURRENT`: every worker polls it and swaps itself to the version it names.

Why: `yaksa serve --workers N` runs N processes, each with its own Runtime. A publish, a rollback
(`yaksa publish VERSION`) or `POST /v1/admin/reload` (which reaches the one worker that received
it) only moves CURRENT for the others; each worker notices within one poll and hot-swaps through
its RuntimeHolder (the new bundle loads beside the old one, requests keep their lease).

Why poll and not inotify: reading a one-line file costs microseconds, works on every filesystem
(inotify misses writes made on another host of a shared volume), and bounds the lag at one
interval plus the load. A version that fails to load keeps the old bundle serving and is retried
after 1, 2, 4 … up to 60 s (each failure is logged with its traceback, so no hammering and no log
flood); a different CURRENT is tried at the next poll.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from serving.runtime import RuntimeHolder
from yaksa.index.layout import current_version

log = logging.getLogger(__name__)
FIRST_RETRY_S = 1.0
MAX_RETRY_S = 60.0
_UNREADABLE = "<unreadable CURRENT>"  # the backoff key while CURRENT cannot be read


@dataclass
class _Failure:
    target: str | None
    count: int
    retry_at: float


class CurrentFollower:
    """Keeps one worker's RuntimeHolder on the version CURRENT names (`run` is the lifespan task)."""

    def __init__(self, holder: RuntimeHolder, interval_s: float, clock: Callable[[], float] = time.monotonic,
                 first_retry_s: float = FIRST_RETRY_S, max_retry_s: float = MAX_RETRY_S) -> None:
        if interval_s <= 0:
            raise ValueError(f"the CURRENT poll interval must be > 0 s, got {interval_s}")
        self.holder = holder
        self.interval_s = interval_s
        self.first_retry_s = first_retry_s
        self.max_retry_s = max_retry_s
        self._clock = clock
        self._failure: _Failure | None = None
        self.attempts = 0  # loads started by this follower (the initial one included)

    def _target(self) -> str | None:
        try:
            return current_version(self.holder.settings.paths.indexes)
        except Exception as exc:  # noqa: BLE001 - an unreadable CURRENT is reported, then retried later
            self.holder.load_error = f"cannot read CURRENT: {type(exc).__name__}: {exc}"
            return _UNREADABLE

    async def check(self) -> None:
        """One poll: load CURRENT's version unless it is served, or failed recently."""
        target = self._target()
        runtime = self.holder.current
        if runtime is not None and target == runtime.version:
            self._failure = None
            self.holder.load_error = None
            return
        failure, now = self._failure, self._clock()
        if failure is not None and failure.target == target and now < failure.retry_at:
            return
        if target == _UNREADABLE:
            self._failed(target, now, self.holder.load_error)
            return
        self.attempts += 1
        try:
            await self.holder.reload()
        except Exception as exc:  # noqa: BLE001 - logged by the holder; the old bundle keeps serving
            self._failed(target, now, f"{type(exc).__name__}: {exc}")
        else:
            self._failure = None

    def _failed(self, target: str | None, now: float, why: str | None) -> None:
        count = self._failure.count + 1 if self._failure and self._failure.target == target else 1
        delay = min(self.max_retry_s, self.first_retry_s * 2 ** (count - 1))
        self._failure = _Failure(target, count, now + delay)
        log.warning("bundle %s not loaded (attempt %d, next in %.0f s): %s", target, count, delay, why)

    async def run(self) -> None:
        """Poll until cancelled; the first poll is the worker's initial load."""
        while True:
            await self.check()
            await asyncio.sleep(self.interval_s)

    def describe(self) -> dict[str, Any]:
        failure = self._failure
        return {
            "poll_seconds": self.interval_s,
            "failed_version": failure.target if failure else None,
            "failed_attempts": failure.count if failure else 0,
            "retry_in_seconds": round(max(0.0, failure.retry_at - self._clock()), 1) if failure else None,
        }
