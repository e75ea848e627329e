"""The document store of one collection: a DuckDB file keyed by index row, read into memory at open.

Retrieval returns row numbers (BM25 and FAISS rows are positions in the collection); this store
turns them back into `Document`s for citations. On disk it is one DuckDB file with typed columns
(inspectable with SQL, checksummed in the manifest). At query time it is not queried: a DuckDB
query per search cost ~2.5 ms of a ~5 ms hybrid search, so `DocStore` reads every column once when
the bundle opens (one scan) into one Python list per column, and `get` builds the wanted rows'
`Document`s from them (a few microseconds each; an Arrow `take` per query cost ~0.4 ms). The price is
memory: the collection's text once per worker process (the full bundle's ~29k documents, 35 MB of
UTF-8 text, about as much as Python strings), which is what answers are cited from. Lookups by
doc_id and by a metadata value are dictionaries built once. Safe to share between threads: nothing
is mutated after open, and each `get` returns new `Document`s (their metadata dicts are the caller's).

Usage:
    write_docstore(path, documents)
    store = DocStore(path)
    store.get([3, 0])          # documents at rows 3 and 0, in that order
"""

from __future__ import annotations

import json
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
    """Read-only access to a docstore file, held in memory (module doc); safe to share between threads."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise FileNotFoundError(f"{self.path}: docstore file not found")
        con = duckdb.connect(str(self.path), read_only=True)
        try:
            table = con.sql(f"SELECT row_id, {', '.join(COLUMNS)} FROM {TABLE} ORDER BY row_id").to_arrow_table()
        finally:
            con.close()
        row_ids = table.column("row_id").to_numpy()
        if (row_ids != range(len(row_ids))).any():
            raise ValueError(f"{self.path}: row_id is not 0..{len(row_ids) - 1} without gaps")
        self._columns: dict[str, list[str]] | None = {c: table.column(c).to_pylist() for c in COLUMNS}
        self._count = table.num_rows
        self._row_of = {doc_id: row for row, doc_id in enumerate(self._columns["doc_id"])}
        self._by_metadata: dict[str, dict[str, frozenset[int]]] = {}
        self._lock = threading.Lock()   # guards only the lazily built metadata indexes

    def _open_columns(self) -> dict[str, list[str]]:
        columns = self._columns
        if columns is None:
            raise RuntimeError(f"{self.path}: docstore is closed")
        return columns

    def count(self) -> int:
        return int(self._count)

    def get(self, rows: Sequence[int]) -> list[Document]:
        """Documents at the given rows, in the requested order (repeats allowed)."""
        wanted = [int(r) for r in rows]
        out_of_range = [r for r in wanted if not 0 <= r < self._count]
        if out_of_range:
            raise IndexError(f"{self.path}: row {out_of_range[0]} out of range (0..{self._count - 1})")
        columns = self._open_columns()
        return [Document.from_row({c: columns[c][r] for c in COLUMNS}) for r in wanted]

    def rows_with_metadata(self, key: str, value: str) -> frozenset[int]:
        """Rows whose metadata has `key` == `value` (e.g. section_key = side_effects); one scan per key."""
        with self._lock:
            index = self._by_metadata.get(key)
            if index is None:
                found: dict[str, set[int]] = {}
                for row, meta in enumerate(self._open_columns()["metadata"]):
                    v = json.loads(meta).get(key)
                    if isinstance(v, str):
                        found.setdefault(v, set()).add(row)
                index = self._by_metadata[key] = {v: frozenset(r) for v, r in found.items()}
        return index.get(value, frozenset())

    def get_by_id(self, doc_id: str) -> Document | None:
        row = self.row_of(doc_id)
        return None if row is None else self.get([row])[0]

    def row_of(self, doc_id: str) -> int | None:
        """The row of `doc_id` (for reading its vector), None when the store does not hold it."""
        self._open_columns()
        return self._row_of.get(doc_id)

    def close(self) -> None:
        self._columns = None
        self._row_of = {}
        self._by_metadata = {}
