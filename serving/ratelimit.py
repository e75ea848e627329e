"""Per-key token buckets, shared by every worker of a server: a steady rate with a burst allowance,
and how long to wait when empty.

Why not Litestar's RateLimitMiddleware: it counts fixed windows in a store behind one global lock
and gives no Retry-After; a bucket per key smooths bursts and tells the client exactly when to
retry. Buckets are keyed by the configured key's label, so their number is bounded by the
configuration.

Why SQLite: `yaksa serve --workers N` runs N processes, and buckets held in each process would let
a key through N times its limit. The buckets live in one small SQLite file in WAL mode (one
`BEGIN IMMEDIATE` transaction per request: the file lock serialises the workers, a crashed
worker's lock dies with it); `yaksa serve` gives its workers one such file per run
(`YAKSA_RATE_FILE`). Without a file (tests, one process) the same table lives in memory. Durability
is not needed (a lost update after a power cut is one token), so commits are not fsynced; a request
pays tens of microseconds (README, Serving).

Why PostgreSQL with `YAKSA_DATABASE_URL` (`PostgresTokenBuckets`): hosts behind a load balancer
share no file, and buckets per host would grant each client the limit once per host. The buckets
then live in the shared database's `rate_buckets` table: one `INSERT ... ON CONFLICT DO UPDATE`
statement per request refills, spends and says whether it spent, under the row's lock, so two hosts
taking from one bucket at once are serialised by the server (one round trip, ~0.2 ms on loopback).

Time is the wall clock (every process reads the same one; hosts must keep theirs in sync, NTP); a
clock that steps back refills nothing until it catches up, it never grants extra tokens.
"""

from __future__ import annotations

import math
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

BUSY_TIMEOUT_S = 5.0  # another worker holds the lock for microseconds; this only bounds a pathological wait
_SCHEMA = "CREATE TABLE IF NOT EXISTS buckets (key TEXT PRIMARY KEY, tokens REAL NOT NULL, updated REAL NOT NULL)"


class TokenBuckets:
    """Token buckets in `path` (shared by every process that opens it), or in memory when None."""

    def __init__(self, rate_per_sec: float, burst: int, path: Path | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        if rate_per_sec < 0 or burst < 1:
            raise ValueError("rate_per_sec must be >= 0 and burst >= 1")
        self.rate = rate_per_sec
        self.burst = float(burst)
        self.path = path
        self._clock = clock
        self._lock = threading.Lock()  # one connection per process, used by the loop and worker threads
        self._db = self._connect(path) if rate_per_sec > 0 else None

    @staticmethod
    def _connect(path: Path | None) -> sqlite3.Connection:
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            db: sqlite3.Connection | None = None
            try:
                db = sqlite3.connect(":memory:" if path is None else str(path), timeout=BUSY_TIMEOUT_S,
                                     isolation_level=None, check_same_thread=False)
                if path is not None:
                    db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=OFF")
                db.execute(_SCHEMA)
                return db
            except sqlite3.Error as exc:
                if db is not None:
                    db.close()
                if not isinstance(exc, sqlite3.OperationalError):
                    # not a check of an argument's type: any other database error makes the file unusable
                    raise ValueError(f"cannot open the rate-limit file {path}: {exc}") from exc  # noqa: TRY004
                # workers starting together: switching a new file to WAL takes an exclusive lock
                # and answers "locked" at once instead of waiting for the busy timeout
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise ValueError(f"cannot open the rate-limit file {path}: {exc}") from exc
                time.sleep(0.01)

    def take(self, key: str) -> float:
        """Spend one token for `key`: 0.0 when allowed, else the seconds until one is available."""
        if self.rate == 0:
            return 0.0
        with self._lock:
            db = self._open()
            db.execute("BEGIN IMMEDIATE")  # the write lock first: no other worker reads a stale count
            try:
                now = self._clock()
                row = db.execute("SELECT tokens, updated FROM buckets WHERE key = ?", (key,)).fetchone()
                tokens, last = row if row is not None else (self.burst, now)
                tokens = min(self.burst, tokens + max(0.0, now - last) * self.rate)
                wait = 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate
                if wait == 0.0:
                    tokens -= 1.0
                db.execute("INSERT INTO buckets (key, tokens, updated) VALUES (?, ?, ?) ON CONFLICT (key) "
                           "DO UPDATE SET tokens = excluded.tokens, updated = excluded.updated",
                           (key, tokens, max(now, last)))
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            return wait

    def waiting(self, key: str) -> float:
        """Seconds until `key` has a token again (0.0 when it has one now), spending nothing.

        Why: a client that has used up its failed-login allowance is refused before its key is even
        compared, so guessing keys costs the same refusal whether a guess is right or wrong.
        """
        if self.rate == 0:
            return 0.0
        with self._lock:
            row = self._open().execute("SELECT tokens, updated FROM buckets WHERE key = ?", (key,)).fetchone()
        if row is None:
            return 0.0
        tokens = min(self.burst, row[0] + max(0.0, self._clock() - row[1]) * self.rate)
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate

    def _open(self) -> sqlite3.Connection:
        if self._db is None:
            raise RuntimeError("the rate limiter is closed")
        return self._db

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


# One statement refills `key`'s bucket, spends a token when there is one and records whether it did
# (the module doc); `_PG_REFILLED` is what the bucket holds before spending.
_PG_REFILLED = ("least(%(burst)s::float8, b.tokens + greatest(0.0, %(now)s::float8 - b.updated) "
                "* %(rate)s::float8)")
_PG_TAKE = f"""
INSERT INTO rate_buckets AS b (key, tokens, updated, granted)
VALUES (%(key)s, %(burst)s::float8 - 1, %(now)s::float8, TRUE)
ON CONFLICT (key) DO UPDATE SET
    tokens = CASE WHEN {_PG_REFILLED} >= 1 THEN {_PG_REFILLED} - 1 ELSE {_PG_REFILLED} END,
    updated = greatest(%(now)s::float8, b.updated),
    granted = {_PG_REFILLED} >= 1
RETURNING tokens, granted
"""


class RateLimiter(Protocol):
    """What the guards use of a set of buckets (`TokenBuckets`, `PostgresTokenBuckets`)."""

    def take(self, key: str) -> float: ...
    def waiting(self, key: str) -> float: ...
    def close(self) -> None: ...


class PostgresTokenBuckets:
    """The same buckets in the shared PostgreSQL database at `url` (module doc): every process of
    every host that names it spends from one bucket per key."""

    def __init__(self, rate_per_sec: float, burst: int, url: str, clock: Callable[[], float] = time.time) -> None:
        if rate_per_sec < 0 or burst < 1:
            raise ValueError("rate_per_sec must be >= 0 and burst >= 1")
        from yaksa.store import postgres

        self.rate, self.burst, self.url, self._clock = rate_per_sec, float(burst), url, clock
        self._postgres = postgres
        if rate_per_sec > 0:
            postgres.pool(url)   # connects and upgrades the schema now: a bad URL fails at start-up

    def take(self, key: str) -> float:
        """Spend one token for `key`: 0.0 when allowed, else the seconds until one is available."""
        if self.rate == 0:
            return 0.0
        params = {"key": key, "burst": self.burst, "now": self._clock(), "rate": self.rate}
        with self._postgres.connection(self.url) as con:
            tokens, granted = con.execute(_PG_TAKE, params).fetchone()
        return 0.0 if granted else (1.0 - tokens) / self.rate

    def waiting(self, key: str) -> float:
        """Seconds until `key` has a token again (0.0 when it has one now), spending nothing."""
        if self.rate == 0:
            return 0.0
        with self._postgres.connection(self.url) as con:
            row = con.execute("SELECT tokens, updated FROM rate_buckets WHERE key = %s", [key]).fetchone()
        if row is None:
            return 0.0
        tokens = min(self.burst, row[0] + max(0.0, self._clock() - row[1]) * self.rate)
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate

    def close(self) -> None:
        """Nothing of its own to close: the process's pool serves every store (`postgres.close_pools`)."""


def open_buckets(rate_per_sec: float, burst: int, path: Path | None = None,
                 database_url: str | None = None) -> TokenBuckets | PostgresTokenBuckets:
    """The buckets of the configured store: PostgreSQL when `database_url` is set, else SQLite at
    `path` (in memory when None)."""
    if database_url is not None:
        return PostgresTokenBuckets(rate_per_sec, burst, database_url)
    return TokenBuckets(rate_per_sec, burst, path)


def retry_after_seconds(wait_seconds: float) -> int:
    """Retry-After takes whole seconds; round up so a client that obeys it is never refused again.

    The 429 body and the header both show this one number, so they cannot disagree.
    """
    return max(1, math.ceil(wait_seconds))


def per_minute_buckets(per_minute: float, path: Path | None = None,
                       database_url: str | None = None) -> TokenBuckets | PostgresTokenBuckets:
    """Buckets allowing `per_minute` calls a minute with the same burst (0 turns them off)."""
    return open_buckets(per_minute / 60.0, max(1, math.ceil(per_minute)), path, database_url)
