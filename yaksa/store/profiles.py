"""Profiles and conversation history in PostgreSQL: the `ProfileDatabase` of several hosts.

`ProfileStore` (`yaksa.memory.profile_store`) keeps all of its logic (merging, decay, erasure
epochs, the kept turns); this module only gives it connections and transactions. Its statements
use `?` placeholders (SQLite's); `_Translated` rewrites them to psycopg's `%s` (none of them holds a
literal `?` or `%`).

Why an advisory lock per user: SQLite's `BEGIN IMMEDIATE` serialises every writer, so an erasure
never interleaves with a turn's read-check-write. PostgreSQL runs them side by side, so each write
transaction first takes `pg_advisory_xact_lock` on the user (released at commit): a turn's `add`
either commits before `forget` deletes, or reads the bumped epoch and writes nothing, on whichever
host each runs. Writes of different users never wait on each other.

Why a write is sent in two or three messages (`_Batched`): each round trip is the network's latency,
and the user's lock is held across all of them. So BEGIN and the lock go with the first statement whose
rows are read, statements nothing reads (`defer`) go with the next one or with the COMMIT, each message
rendered client-side (psycopg's `ClientCursor`, its own literal quoting): a turn's history write is two
round trips instead of six, a profile update three instead of five. Measured on loopback (2026-11-27,
one worker, c=8) this changed no throughput (27.6 → 29.5 and 29.2 → 29.6 turns/s, alternating runs): the
worker's CPU, not the database, is the limit there; the saving is latency and lock time to a database on
another host.

Durability: an erasure's commit waits until it is on disk; other commits do not wait for their
WAL flush (`yaksa.store.postgres.DURABLE`: the same trade as SQLite's). After an erasure
`checkpoint` runs `VACUUM` on the two tables, so the erased rows' dead tuples are pruned from the table files now rather than whenever autovacuum comes by (best effort:
PostgreSQL's WAL keeps them until it recycles its segments, as SQLite's did until a checkpoint).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg

from yaksa.store import postgres

log = logging.getLogger(__name__)
USER_LOCK_SPACE = b"yaksa-user\0"   # keys the per-user advisory locks (the cache's use their own)


def user_lock_key(space: bytes, user_id: str) -> int:
    """A signed 64-bit advisory lock key for `user_id` within `space` (a hash: no id in pg_locks)."""
    return int.from_bytes(hashlib.blake2b(space + user_id.encode("utf-8"), digest_size=8).digest(), "big",
                          signed=True)


class _Translated:
    """A psycopg connection that takes SQLite-style `?` placeholders (module doc)."""

    def __init__(self, con: psycopg.Connection) -> None:
        self._con = con

    def execute(self, sql: str, parameters: Any = None, /) -> psycopg.Cursor[Any]:
        return self._con.execute(sql.replace("?", "%s"), parameters)  # type: ignore[arg-type]


class _Immediate(_Translated):
    """A write inside a savepoint of an open transaction: nothing to batch, a deferred statement runs now."""

    def defer(self, sql: str, parameters: Any = None, /) -> None:
        self.execute(sql, parameters)


class _Batched:
    """A write transaction whose statements are sent with the next one whose rows are read (module doc)."""

    def __init__(self, con: psycopg.Connection, first: list[str]) -> None:
        self._cursor = psycopg.ClientCursor(con)
        self._pending = ["BEGIN", *first]
        self._opening = len(self._pending)   # nothing to commit while only these wait and nothing was sent
        self._begun = False

    def _render(self, sql: str, parameters: Any) -> str:
        return self._cursor.mogrify(sql.replace("?", "%s"), parameters)

    def defer(self, sql: str, parameters: Any = None, /) -> None:
        self._pending.append(self._render(sql, parameters))

    def execute(self, sql: str, parameters: Any = None, /) -> psycopg.ClientCursor[Any]:
        """Send what waits and this statement as one message; the cursor holds this statement's result."""
        self._send([*self._pending, self._render(sql, parameters)])
        while self._cursor.nextset():   # each statement of the message has a result: move to the last
            pass
        return self._cursor

    def commit(self) -> None:
        if self._begun or len(self._pending) > self._opening:
            self._send([*self._pending, "COMMIT"])

    def _send(self, statements: list[str]) -> None:
        self._pending = []
        self._begun = True
        self._cursor.execute("; ".join(statements))   # no parameters: the literals are in the text


class PostgresProfileDB:
    """Profiles and history in the database at `url`, shared by every process of every host."""

    def __init__(self, url: str) -> None:
        self.url = url
        postgres.pool(url)   # connects and upgrades the schema now: a bad URL fails at start-up

    @contextmanager
    def read(self) -> Iterator[_Translated]:
        with postgres.connection(self.url) as con:
            yield _Translated(con)

    @contextmanager
    def write(self, durable: bool = False, user: str | None = None) -> Iterator[_Translated]:
        """One transaction holding `user`'s advisory lock (module doc); `durable`: its commit waits
        until it is on disk (`postgres.DURABLE`)."""
        first = [postgres.DURABLE] if durable else []
        if user is not None:   # an integer computed here: safe to inline
            first.append(f"SELECT pg_advisory_xact_lock({user_lock_key(USER_LOCK_SPACE, user):d})")
        with postgres.connection(self.url) as con:
            if con.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                # inside a transaction this thread holds (`postgres.connection` is re-entrant): a savepoint
                with postgres.transaction(con, *first):
                    yield _Immediate(con)
                return
            batch = _Batched(con, first)
            try:
                yield batch
                batch.commit()
            except BaseException:
                if con.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                    con.execute("ROLLBACK")
                raise

    def checkpoint(self) -> None:
        """VACUUM the profile tables after an erasure (module doc); a failure is only logged."""
        try:
            with postgres.connection(self.url) as con:
                con.execute("VACUUM profile_items, conversation_turns")
        except psycopg.Error as exc:
            log.info("profile store: VACUUM after an erasure deferred (%s)", type(exc).__name__)

    def close(self) -> None:
        """Nothing to close per store: the process's pool serves every store (`postgres.close_pools`)."""
