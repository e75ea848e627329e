"""The document store of one collection: a read-only DuckDB file keyed by index row.

Retrieval returns row numbers (BM25 and FAISS rows are positions in the collection); this store
turns them back into `Document`s for citations. DuckDB gives a single file with typed columns that
opens read-only in several processes at once, and each call takes its own cursor so request
threads never share one.

Usage:
    write_docstore(path, documents)
    store = DocStore(path)
    store.get([3, 0])          # documents at rows 3 and 0, in that order
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path

import duckdb
import pyarrow as pa

from yaksa.atomicio import fsync_dir, fsync_file
from yaksa.corpus.document import Document

TABLE = "documents"
# Every Document field, in declaration order; all are stored as text (metadata as sorted JSON).
COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(Document))


def duplicate_doc_ids(documents: Sequence[Document]) -> list[str]:
    """doc_ids that occur more than once: `get_by_id` must be unambiguous."""
    counts = Counter(d.doc_id for d in documents)
    return sorted(doc_id for doc_id, n in counts.items() if n > 1)


def write_docstore(path: Path, documents: Sequence[Document]) -> None:
    """Store documents with `row_id` = position; built in a temp file and renamed into place."""
    path = Path(path)
    if path.exists():
        raise FileExistsError(f"{path}: refusing to overwrite an existing docstore")
    bad = [i for i, d in enumerate(documents) if not isinstance(d, Document)]
    if bad:
        raise ValueError(f"{path}: item {bad[0]} is {type(documents[bad[0]]).__name__}, not a Document")
    dups = duplicate_doc_ids(documents)
    if dups:
        raise ValueError(f"{path}: duplicate doc_id(s): {', '.join(dups[:5])}")
    rows = [d.to_row() for d in documents]
    table = pa.table(
        {"row_id": pa.array(range(len(rows)), pa.int32())}
        | {c: pa.array([r[c] for r in rows], pa.string()) for c in COLUMNS}
    )
    cols_sql = ", ".join(f"{c} VARCHAR NOT NULL" for c in COLUMNS)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.unlink(missing_ok=True)
    try:
        con = duckdb.connect(str(tmp))
        try:
            con.execute(f"CREATE TABLE {TABLE} (row_id INTEGER PRIMARY KEY, {cols_sql}, UNIQUE (doc_id))")
            con.register("staging", table)
            con.execute(f"INSERT INTO {TABLE} SELECT row_id, {', '.join(COLUMNS)} FROM staging")
            con.unregister("staging")
            con.execute("CHECKPOINT")  # everything in the main file: no WAL beside it
        finally:
            con.close()
        fsync_file(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        Path(f"{tmp}.wal").unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


class DocStore:
    """Read-only access to a docstore file; safe to share between threads."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise FileNotFoundError(f"{self.path}: docstore file not found")
        self._con: duckdb.DuckDBPyConnection | None = duckdb.connect(str(self.path), read_only=True)
        self._lock = threading.Lock()
        self._count = self._query(f"SELECT count(*) FROM {TABLE}")[0][0]

    def _query(self, sql: str, params: list | None = None) -> list[tuple]:
        with self._lock:  # guards only the cursor creation against a concurrent close()
            if self._con is None:
                raise RuntimeError(f"{self.path}: docstore is closed")
            cur = self._con.cursor()
        try:
            return cur.execute(sql, params or []).fetchall()
        finally:
            cur.close()

    def count(self) -> int:
        return int(self._count)

    def get(self, rows: Sequence[int]) -> list[Document]:
        """Documents at the given rows, in the requested order (repeats allowed)."""
        wanted = [int(r) for r in rows]
        out_of_range = [r for r in wanted if not 0 <= r < self._count]
        if out_of_range:
            raise IndexError(f"{self.path}: row {out_of_range[0]} out of range (0..{self._count - 1})")
        if not wanted:
            return []
        found = self._query(
            f"SELECT row_id, {', '.join(COLUMNS)} FROM {TABLE} WHERE row_id IN (SELECT UNNEST(?::INTEGER[]))",
            [sorted(set(wanted))],
        )
        by_row = {r[0]: Document.from_row(dict(zip(COLUMNS, r[1:]))) for r in found}
        return [by_row[r] for r in wanted]

    def rows_with_metadata(self, key: str, value: str) -> frozenset[int]:
        """Rows whose metadata has `key` == `value` (e.g. section_key = side_effects), in one scan."""
        found = self._query(f"SELECT row_id FROM {TABLE} WHERE json_extract_string(metadata, ?) = ?",
                            [f"$.{key}", value])
        return frozenset(int(r[0]) for r in found)

    def get_by_id(self, doc_id: str) -> Document | None:
        found = self._query(f"SELECT {', '.join(COLUMNS)} FROM {TABLE} WHERE doc_id = ?", [doc_id])
        return Document.from_row(dict(zip(COLUMNS, found[0]))) if found else None

    def row_of(self, doc_id: str) -> int | None:
        """The row of `doc_id` (for reading its vector), None when the store does not hold it."""
        found = self._query(f"SELECT row_id FROM {TABLE} WHERE doc_id = ?", [doc_id])
        return int(found[0][0]) if found else None

    def close(self) -> None:
        with self._lock:
            if self._con is not None:
                self._con.close()
                self._con = None
