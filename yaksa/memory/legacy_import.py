"""One-time import of a profile store written by the DuckDB engine (yaksa before the SQLite store).

Why import rather than refuse or start empty: the file holds what users told the service about
themselves; dropping it silently would lose their profiles and conversation turns, and keeping it
beside the new store would leave data that an erasure (`ProfileStore.forget`) no longer reaches.
So the DuckDB file's facts and turns are copied into a new SQLite file, which then replaces it
(same path), or, when the configured path is new and a DuckDB file with the same stem and suffix
`.duckdb` sits beside it, replaces that sibling (which is deleted once the import is on disk).

Several workers may start at once: the import holds an exclusive flock on `<path>.import.lock`
and checks again under it, so exactly one worker imports and the others open the result.
"""

from __future__ import annotations

import fcntl
import logging
import os
from pathlib import Path

from yaksa.atomicio import fsync_dir, fsync_file
from yaksa.memory import profile_db

log = logging.getLogger(__name__)

DUCKDB_MAGIC = b"DUCK"   # at byte offset 8 of every DuckDB database file
_TABLES = {"profile_items": ("id", "user_id", "slot_type", "name", "item", "stored_at"),
           "conversation_turns": ("user_id", "seq", "question", "answer", "said_at")}


def is_duckdb_file(path: Path) -> bool:
    """True for a DuckDB database file (by its header)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(12)
    except (FileNotFoundError, IsADirectoryError):
        return False
    return head[8:12] == DUCKDB_MAGIC


def legacy_source(path: Path) -> Path | None:
    """The DuckDB profile store `path` should be imported from, or None."""
    path = Path(path)
    if is_duckdb_file(path):
        return path
    sibling = path.with_suffix(".duckdb")
    if not path.exists() and sibling != path and is_duckdb_file(sibling):
        return sibling
    return None


def _read_legacy(source: Path) -> dict[str, list[tuple]]:
    import duckdb  # only for this one-time import

    try:
        con = duckdb.connect(str(source), read_only=True)
    except duckdb.Error as exc:
        raise RuntimeError(f"{source}: cannot open the old DuckDB profile store to import it ({exc}); "
                           "stop any worker of an older yaksa version that still uses it, then restart") from exc
    try:
        present = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        return {table: (con.execute(f"SELECT {', '.join(cols)} FROM {table}").fetchall() if table in present else [])
                for table, cols in _TABLES.items()}
    finally:
        con.close()


def import_legacy(path: Path) -> bool:
    """Import a DuckDB profile store into a SQLite one at `path` (module doc); False if there was none."""
    path = Path(path)
    if legacy_source(path) is None:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".import.lock"), "ab") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        source = legacy_source(path)   # another worker may have imported it while we waited
        if source is None:
            return False
        rows = _read_legacy(source)
        tmp = path.with_name(f".{path.name}.import-{os.getpid()}")
        for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
            leftover.unlink(missing_ok=True)
        try:
            con = profile_db.connect(tmp)
            try:
                with profile_db.transaction(con, tmp):
                    for table, cols in _TABLES.items():
                        con.executemany(f"INSERT INTO {table} ({', '.join(cols)}) VALUES "
                                        f"({', '.join('?' * len(cols))})", rows[table])
                con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                con.execute("PRAGMA journal_mode=DELETE")   # one self-contained file to rename
            finally:
                con.close()
            fsync_file(tmp)
            os.replace(tmp, path)
        except BaseException:
            for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
                leftover.unlink(missing_ok=True)
            raise
        fsync_dir(path.parent)
        if source != path:
            source.unlink()
        Path(f"{source}.wal").unlink(missing_ok=True)   # DuckDB's write-ahead log, already read above
        log.warning("profile store %s: imported %d facts and %d conversation turns from the DuckDB store %s",
                    path, len(rows["profile_items"]), len(rows["conversation_turns"]), source)
    return True
