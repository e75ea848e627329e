"""A thread-safe request spacer, and one shared instance per remote service.

Why: NCBI allows at most 3 E-utilities requests per second from one client without an API key and
10 with one, and blocks clients that exceed it. The limit is per caller, not per `PubMedClient`, so
every client talking to the same service in this process must draw from one limiter (see
`shared_limiter`); several threads searching at once then still stay under the limit together.

How: each `acquire()` reserves the next free slot (slots are `1 / rate` seconds apart) under a lock,
then sleeps until that slot *outside* the lock, so waiting callers do not block each other's
bookkeeping and the slots handed out are strictly spaced whatever the thread interleaving. There is
no burst allowance: strict spacing is the safe reading of "n requests per second". The clock and the
sleep are injectable so tests can run against a fake clock.

    limiter = shared_limiter("https://eutils.ncbi.nlm.nih.gov/entrez/eutils", rate_for(api_key))
    waited = limiter.acquire()   # seconds slept before the caller may send its request
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

RATE_WITHOUT_KEY = 3.0  # NCBI: requests per second without an API key
RATE_WITH_KEY = 10.0  # NCBI: requests per second with an API key


def rate_for(api_key: str | None) -> float:
    """The NCBI request rate allowed with (10/s) or without (3/s) an API key."""
    return RATE_WITH_KEY if api_key else RATE_WITHOUT_KEY


class RateLimiter:
    """Hands out request slots at most `rate_per_s` per second, across all threads that share it."""

    def __init__(
        self,
        rate_per_s: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not rate_per_s > 0:
            raise ValueError(f"rate_per_s must be > 0, got {rate_per_s!r}")
        self.rate_per_s = float(rate_per_s)
        self.interval_s = 1.0 / self.rate_per_s
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._next_slot: float | None = None

    def reserve(self) -> float:
        """Reserve the next slot without sleeping; returns how many seconds the caller must wait."""
        with self._lock:
            now = self._clock()
            slot = now if self._next_slot is None else max(now, self._next_slot)
            self._next_slot = slot + self.interval_s
            return slot - now

    def acquire(self) -> float:
        """Block until the caller's slot; returns the seconds waited (0.0 when a slot was free)."""
        wait = self.reserve()
        if wait > 0:
            self._sleep(wait)
        return wait


_registry: dict[tuple[str, float], RateLimiter] = {}
_registry_lock = threading.Lock()


def shared_limiter(service: str, rate_per_s: float) -> RateLimiter:
    """The process-wide limiter for `service` (e.g. a base URL) at `rate_per_s`, created on first use.

    Keyed by (service, rate): clients with and without an API key are limited separately, as NCBI
    counts keyed requests against the key and unkeyed ones against the caller's address.
    """
    key = (service.rstrip("/"), float(rate_per_s))
    with _registry_lock:
        limiter = _registry.get(key)
        if limiter is None:
            limiter = _registry[key] = RateLimiter(rate_per_s)
        return limiter


def reset_shared_limiters() -> None:
    """Forget every shared limiter (tests use it to start from a clean slate)."""
    with _registry_lock:
        _registry.clear()
