"""The profile database: one SQLite file in WAL mode, one long-lived connection per process.

Why SQLite and not DuckDB (the store's first engine): DuckDB lets one process at a time open a file
for writing, so every profile operation had to open and close its own connection (~10 ms each, four
a turn) for several server workers to share the file. SQLite's WAL mode lets every worker keep its
connection open: readers never block the writer, writers queue on the file's lock (waiting up to
`LOCK_WAIT_SECONDS`, then `TimeoutError`), and each read sees every transaction committed before it
started, so an erasure by one worker is seen by the others on their next read.

Durability: `synchronous=NORMAL`, the WAL default: a commit survives a crash of the process at once
and a power loss from the next checkpoint on (an fsync per commit costs ~8 ms here, more than the
whole operation, and a lost profile fact is restated). An erasure is the exception: `write(durable=True)`
commits it with `synchronous=FULL`, so it never comes back after a power loss. `secure_delete`
overwrites erased rows in the file, and `checkpoint` (after an erasure) moves the WAL into the file
and truncates it, so no copy of erased pages stays in it (best effort while another worker reads).

The `erasures` table holds each recently erased user's erasure epoch (`yaksa.memory.profile_store`:
a turn that began before an erasure writes nothing after it), keyed by a hash of the user id.

A connection is not shared across a fork: `ProfileDB` notices a new process id and opens its own.
Within a process a lock serialises statements on the one connection (each takes well under 1 ms).

`ProfileDatabase` is what `ProfileStore` needs of a database; `ProfileDB` is the SQLite one, and
`yaksa.store.profiles.PostgresProfileDB` the shared one of several hosts. Statements are
written once, in the SQL both understand, with `?` placeholders. Inside a write, a statement whose
result nothing reads is `defer`red: SQLite runs it at once, PostgreSQL sends it with the next
statement or the COMMIT, so a write costs two or three round trips to the server instead of six.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

log = logging.getLogger(__name__)

LOCK_WAIT_SECONDS = 5.0
SCHEMA_VERSION = 2   # 2: the erasures table (a version-1 file gains it on open)
SQLITE_MAGIC = b"SQLite format 3\x00"

SCHEMA = """
CREATE TABLE IF NOT EXISTS profile_items (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    slot_type TEXT NOT NULL,
    name TEXT NOT NULL,
    item TEXT NOT NULL,
    stored_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS profile_items_user ON profile_items (user_id);
CREATE TABLE IF NOT EXISTS conversation_turns (
    user_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    question TEXT NOT NULL,
    answer TEXT NOT NULL,
    said_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS conversation_turns_user ON conversation_turns (user_id, said_at, seq);
CREATE TABLE IF NOT EXISTS erasures (
    user_key TEXT PRIMARY KEY,
    epoch INTEGER NOT NULL,
    erased_at REAL NOT NULL
);
"""


def is_sqlite_file(path: Path) -> bool:
    """True for a SQLite database file (by its 16-byte header)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except FileNotFoundError:
        return False


def connect(path: Path) -> sqlite3.Connection:
    """A connection with the store's settings, the schema created (idempotent, safe to race)."""
    con = sqlite3.connect(str(path), timeout=LOCK_WAIT_SECONDS, isolation_level=None,
                          check_same_thread=False)
    try:
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")
        con.execute("PRAGMA secure_delete=ON")
        con.execute("PRAGMA foreign_keys=OFF")
        if con.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            with transaction(con, path):  # re-read under the write lock: another worker may be here too
                (version,) = con.execute("PRAGMA user_version").fetchone()
                if version > SCHEMA_VERSION:
                    raise RuntimeError(f"{path}: profile database schema {version} is newer than this "
                                       f"code's {SCHEMA_VERSION}; upgrade yaksa")
                for statement in SCHEMA.split(";"):
                    if statement.strip():
                        con.execute(statement)
                con.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    except BaseException:
        con.close()
        raise
    return con


@contextmanager
def transaction(con: sqlite3.Connection, path: Path) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error): the write lock is taken up front, so a
    read-then-write (`ProfileStore.add`) never fails half-way on another worker's write."""
    try:
        con.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise TimeoutError(f"profile store {path} stayed locked by another process for "
                               f"{LOCK_WAIT_SECONDS:.0f} s") from exc
        raise
    try:
        yield con
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


class Cursor(Protocol):
    def fetchone(self) -> Any: ...
    def fetchall(self) -> list[Any]: ...


class Connection(Protocol):
    def execute(self, sql: str, parameters: Any = ..., /) -> Cursor: ...


class WriteConnection(Connection, Protocol):
    def defer(self, sql: str, parameters: Any = ..., /) -> None:
        """Run a statement whose result is not read, in order, at the latest with the commit (module doc)."""
        ...


class _SQLiteWrite:
    """The SQLite connection inside a write: a deferred statement runs at once (it costs no round trip)."""

    def __init__(self, con: sqlite3.Connection) -> None:
        self._con = con

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        return self._con.execute(sql, parameters)

    def defer(self, sql: str, parameters: Any = (), /) -> None:
        self._con.execute(sql, parameters)


class ProfileDatabase(Protocol):
    """A profile database as `ProfileStore` uses it (module doc)."""

    def read(self) -> contextlib.AbstractContextManager[Connection]:
        """A connection whose every statement sees the latest committed state."""
        ...

    def write(self, durable: bool = False,
              user: str | None = None) -> contextlib.AbstractContextManager[WriteConnection]:
        """One write transaction; no other write transaction for `user` runs beside it (a
        read-then-write never interleaves with an erasure); `durable`: its commit is on disk."""
        ...

    def checkpoint(self) -> None:
        """After an erasure: drop what copies of erased rows the engine keeps beside its tables."""
        ...

    def close(self) -> None: ...


class ProfileDB:
    """The process's connection to one profile database file, and the lock that guards it."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.lock = threading.Lock()
        self._con: sqlite3.Connection | None = None
        self._pid = -1
        with self.lock:
            self._connection()

    def _connection(self) -> sqlite3.Connection:
        if self._con is None or self._pid != os.getpid():
            self._con, self._pid = connect(self.path), os.getpid()
        return self._con

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """The connection for reads (each statement sees the latest committed state)."""
        with self.lock:
            yield self._connection()

    @contextmanager
    def write(self, durable: bool = False, user: str | None = None) -> Iterator[WriteConnection]:
        """The connection inside one write transaction; `durable` fsyncs its commit (erasures). The
        transaction holds the file's write lock, so it excludes every other writer, of `user` or not."""
        with self.lock:
            con = self._connection()
            if durable:
                con.execute("PRAGMA synchronous=FULL")
            try:
                with transaction(con, self.path):
                    yield _SQLiteWrite(con)
            finally:
                if durable:
                    con.execute("PRAGMA synchronous=NORMAL")

    def checkpoint(self) -> None:
        """Move the WAL into the file and truncate it; skipped (logged) while another worker reads."""
        with self.lock:
            busy, _, _ = self._connection().execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy:
            log.info("profile store %s: WAL checkpoint deferred (another process is reading)", self.path)

    def close(self) -> None:
        with self.lock:
            if self._con is not None and self._pid == os.getpid():
                self._con.close()
            self._con = None
