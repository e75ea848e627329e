"""PostgreSQL as the shared store: one connection pool per process, schema migrations on start.

Why a pool per process: `yaksa serve --workers N` runs N processes on each host; a psycopg
connection must not cross a fork, and each request takes a connection for well under a millisecond,
so a few connections per process (`POOL_MAX`) serve every thread. `pool(url)` notices a new process
id and opens that process's own pool.

Why migrations as numbered SQL files (`migrations/NNNN_*.sql`): every host starts the same code
against one database; the first to start applies what is missing, each file in its own transaction
under an advisory lock (`MIGRATION_LOCK`), recorded in `schema_migrations`, so two hosts starting
together never apply one twice and a failed file leaves nothing half-applied. A database with a
migration this code does not know (a newer yaksa ran against it) is refused. `yaksa db upgrade`
applies them by hand; every pool also does at its first connection.

The URL is never logged: it may carry a password.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources

import psycopg
from psycopg_pool import ConnectionPool

log = logging.getLogger(__name__)

POOL_MIN = 1
POOL_MAX = 8                # threads of one process that hold a connection at once
POOL_TIMEOUT_S = 10.0       # waiting for a free connection (or the server) before an error
MIGRATION_LOCK = 0x79616B73  # pg_advisory_xact_lock key of the migrations ("yaks")
_MIGRATION_FILE = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")

_pools: dict[tuple[int, str], ConnectionPool] = {}
_pools_lock = threading.Lock()
_held = threading.local()   # the connection each thread holds, per URL (`connection`)


def migrations() -> list[tuple[int, str, str]]:
    """(number, file name, SQL) of every migration shipped with the code, in order."""
    found = []
    for item in resources.files("yaksa.store").joinpath("migrations").iterdir():
        match = _MIGRATION_FILE.match(item.name)
        if match:
            found.append((int(match.group(1)), item.name, item.read_text("utf-8")))
    numbers = [n for n, _, _ in sorted(found)]
    if numbers != list(range(1, len(numbers) + 1)):
        raise RuntimeError(f"migrations must be numbered 1..n without gaps, found {numbers}")
    return sorted(found)


def upgrade(con: psycopg.Connection) -> list[str]:
    """Apply the missing migrations (each in its own transaction); the names of those applied."""
    applied: list[str] = []
    shipped = migrations()
    for number, name, sql in shipped:
        with con.transaction():
            con.execute("SELECT pg_advisory_xact_lock(%s)", [MIGRATION_LOCK])
            con.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
                        "name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
            newest = con.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()[0]
            if newest > len(shipped):
                raise RuntimeError(f"the database has schema migration {newest}, newer than this code's "
                                   f"{len(shipped)}; upgrade yaksa")
            if con.execute("SELECT 1 FROM schema_migrations WHERE version = %s", [number]).fetchone():
                continue
            con.execute(sql)
            con.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", [number, name])
            applied.append(name)
    for name in applied:
        log.info("database: applied migration %s", name)
    return applied


def _configure(con: psycopg.Connection) -> None:
    """Each new connection: autocommit (transactions are explicit: `transaction`), commits
    that do not wait for their WAL flush (`DURABLE` says why and when they do), and no JIT: the
    planner's estimates for small, young tables made it compile the cache's lookup query (~7 ms for a
    statement that runs in 0.1 ms), and nothing here scans enough rows to gain from it."""
    con.autocommit = True
    con.execute("SET synchronous_commit = off")
    con.execute("SET jit = off")


@contextmanager
def transaction(con: psycopg.Connection, *first: str) -> Iterator[psycopg.Connection]:
    """A transaction on `con` whose BEGIN goes to the server with the `first` statements (constant SQL,
    no parameters) as one message: one round trip fewer than BEGIN and then each of them, of the
    five to seven a write costs. COMMIT at the end, ROLLBACK on an error; inside a transaction the
    thread already holds (`connection` is re-entrant), a savepoint instead."""
    if con.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        with con.transaction():
            for statement in first:
                con.execute(statement)
            yield con
        return
    con.execute("; ".join(("BEGIN", *first)))
    try:
        yield con
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


# Make the open transaction's commit wait until it is on disk: for erasures only (a first statement
# of `transaction`). Why not every commit: waiting for the WAL flush costs ~0.5-1 ms a commit here,
# four commits a turn, for facts a user restates and cache entries that are derived data. With
# `synchronous_commit = off` (`_configure`) a commit survives a crash of any yaksa process at once
# and a crash of the database server from ~0.6 s on (three WAL-writer rounds), and is never
# half-applied: the same trade as SQLite's `synchronous=NORMAL` in `yaksa.memory.profile_db`. An
# erasure must never come back, so its transaction waits.
DURABLE = "SET LOCAL synchronous_commit = on"


def pool(url: str) -> ConnectionPool:
    """This process's pool for `url`, opened (and the schema upgraded) on first use."""
    key = (os.getpid(), url)
    with _pools_lock:
        found = _pools.get(key)
        if found is not None:
            return found
        with psycopg.connect(url, autocommit=True, connect_timeout=int(POOL_TIMEOUT_S)) as con:
            upgrade(con)
        opened = ConnectionPool(url, min_size=POOL_MIN, max_size=POOL_MAX, timeout=POOL_TIMEOUT_S,
                                configure=_configure, open=False, name="yaksa")
        opened.open(wait=True, timeout=POOL_TIMEOUT_S)
        _pools[key] = opened
        return opened


@contextmanager
def connection(url: str) -> Iterator[psycopg.Connection]:
    """A pooled connection in autocommit mode (open a transaction with `transaction(con)`).

    Re-entrant per thread: a call made while this thread already holds a connection to `url` gets
    that one (inside its transaction, if one is open). Why: the response cache checks the profile
    store's erasure epoch from inside its own transaction; taking a second connection there could
    exhaust the pool with threads that each hold one and wait for another."""
    held: dict[str, psycopg.Connection] = _held.__dict__.setdefault("connections", {})
    if url in held:
        yield held[url]
        return
    with pool(url).connection() as con:
        held[url] = con
        try:
            yield con
        finally:
            del held[url]


def close_pools() -> None:
    """Close this process's pools (tests, shutdown); the next `pool` call opens a fresh one."""
    with _pools_lock:
        mine = [k for k in _pools if k[0] == os.getpid()]
        for key in mine:
            _pools.pop(key).close()
