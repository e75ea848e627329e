"""Per-key token buckets: a steady rate with a burst allowance, and how long to wait when empty.

Why not Litestar's RateLimitMiddleware: it counts fixed windows in a store behind one global lock
and gives no Retry-After; a bucket per key is a few lines, smooths bursts and tells the client
exactly when to retry. Buckets are keyed by the configured key's label, so their number is bounded
by the configuration.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable


class TokenBuckets:
    def __init__(self, rate_per_sec: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        if rate_per_sec < 0 or burst < 1:
            raise ValueError("rate_per_sec must be >= 0 and burst >= 1")
        self.rate = rate_per_sec
        self.burst = float(burst)
        self._clock = clock
        self._state: dict[str, tuple[float, float]] = {}  # key -> (tokens, last refill time)
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """Spend one token for `key`: 0.0 when allowed, else the seconds until one is available."""
        if self.rate == 0:
            return 0.0
        with self._lock:
            now = self._clock()
            tokens, last = self._state.get(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - last) * self.rate)
            if tokens >= 1.0:
                self._state[key] = (tokens - 1.0, now)
                return 0.0
            self._state[key] = (tokens, now)
            return (1.0 - tokens) / self.rate


def retry_after_seconds(wait_seconds: float) -> int:
    """Retry-After takes whole seconds; round up so a client that obeys it is never refused again.

    The 429 body and the header both show this one number, so they cannot disagree.
    """
    return max(1, math.ceil(wait_seconds))
