"""The document store of one collection: a DuckDB file keyed by index row, plus an Arrow IPC copy that
serving processes memory-map.

Retrieval returns row numbers (BM25 and FAISS rows are positions in the collection); this store
turns them back into `Document`s for citations. On disk the store of record is one DuckDB file with
typed columns (inspectable with SQL, checksummed in the manifest). Bundles written since issue 25
also hold `docs.arrow`, the same columns as one uncompressed Arrow IPC record batch, written from the
same documents and checksummed alike.

At query time DuckDB is not queried (a query per search cost ~2.5 ms of a ~5 ms hybrid search).
`DocStore` holds each column as one Arrow string array and `get` decodes the wanted rows straight
from the array's offsets and UTF-8 bytes (microseconds a document; an Arrow `take` per query cost
~0.4 ms, Python lists of every column cost a copy per worker and ~1 s to build at each swap). With
`docs.arrow` the arrays are a memory map of the file: opening is free, and the worker processes of
one host share the pages (the page cache holds the text once). Without it (older bundles) the
columns are read from DuckDB into memory at open, as before, private to the process.

Lookups by doc_id and by a metadata value are dictionaries built once (by metadata value lazily, one
scan of the metadata column per key). Safe to share between threads: nothing is mutated
after open, and each `get` returns new `Document`s (their metadata dicts are the caller's).

Usage:
    write_docstore(path, documents, arrow_path=path.with_name("docs.arrow"))
    store = DocStore(path, arrow_path=path.with_name("docs.arrow"))   # or DocStore(path): DuckDB only
    store.get([3, 0])          # documents at rows 3 and 0, in that order
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path

import duckdb
import msgspec
import numpy as np
import pyarrow as pa

from yaksa.atomicio import atomic_write, fsync_dir, fsync_file
from yaksa.corpus.document import Document

TABLE = "documents"
# Every Document field, in declaration order; all are stored as text (metadata as sorted JSON).
COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(Document))


def duplicate_doc_ids(documents: Sequence[Document]) -> list[str]:
    """doc_ids that occur more than once: `get_by_id` must be unambiguous."""
    counts = Counter(d.doc_id for d in documents)
    return sorted(doc_id for doc_id, n in counts.items() if n > 1)


def _documents_table(path: Path, documents: Sequence[Document]) -> pa.Table:
    bad = [i for i, d in enumerate(documents) if not isinstance(d, Document)]
    if bad:
        raise ValueError(f"{path}: item {bad[0]} is {type(documents[bad[0]]).__name__}, not a Document")
    dups = duplicate_doc_ids(documents)
    if dups:
        raise ValueError(f"{path}: duplicate doc_id(s): {', '.join(dups[:5])}")
    rows = [d.to_row() for d in documents]
    return pa.table({c: pa.array([r[c] for r in rows], pa.string()) for c in COLUMNS})


def write_docstore(path: Path, documents: Sequence[Document], arrow_path: Path | None = None) -> None:
    """Store documents with `row_id` = position; each file built in a temp file and renamed into place.

    `arrow_path`: also write the Arrow IPC copy there (what bundles hold, for `DocStore`'s memory map).
    """
    path = Path(path)
    targets = [path] + ([Path(arrow_path)] if arrow_path is not None else [])
    for target in targets:
        if target.exists():
            raise FileExistsError(f"{target}: refusing to overwrite an existing docstore")
    table = _documents_table(path, documents)
    _write_duckdb(path, table)
    if arrow_path is not None:
        _write_arrow(Path(arrow_path), table)


def _write_duckdb(path: Path, table: pa.Table) -> None:
    cols_sql = ", ".join(f"{c} VARCHAR NOT NULL" for c in COLUMNS)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.unlink(missing_ok=True)
    staging = table.add_column(0, "row_id", pa.array(range(table.num_rows), pa.int32()))
    try:
        con = duckdb.connect(str(tmp))
        try:
            con.execute(f"CREATE TABLE {TABLE} (row_id INTEGER PRIMARY KEY, {cols_sql}, UNIQUE (doc_id))")
            con.register("staging", staging)
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


def _write_arrow(path: Path, table: pa.Table) -> None:
    """One uncompressed record batch (contiguous columns: what `_TextColumn` slices), written atomically."""
    batches = table.combine_chunks().to_batches(max_chunksize=max(table.num_rows, 1))

    def write(tmp: Path) -> None:
        with pa.OSFile(str(tmp), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
            for batch in batches:
                writer.write_batch(batch)
    atomic_write(path, write)


@dataclass(frozen=True)
class _TextColumn:
    """One string column as Arrow's two buffers: row r is data[offsets[r]:offsets[r + 1]] (UTF-8).

    Why not `array[r].as_py()` or `take`: both allocate Arrow scalars or arrays per call; slicing the
    buffer and decoding is the cheapest way from a (possibly memory-mapped) array to a `str`."""

    offsets: memoryview   # of int32 or int64, len(column) + 1 (indexing gives Python ints: cheapest)
    data: memoryview

    @classmethod
    def of(cls, array: pa.Array, where: str) -> _TextColumn:
        if array.null_count:
            raise ValueError(f"{where}: {array.null_count} null value(s)")
        if pa.types.is_string(array.type):
            width = "i"
        elif pa.types.is_large_string(array.type):
            width = "q"
        else:
            raise ValueError(f"{where}: expected a string column, found {array.type}")
        _, offsets, data = array.buffers()
        n = len(array)
        if offsets is None:   # an empty array may come without buffers
            return cls(memoryview(bytes(8)).cast(width)[:1], memoryview(b""))
        offs = memoryview(offsets).cast("B").cast(width)[array.offset: array.offset + n + 1]
        return cls(offs, memoryview(data) if data is not None else memoryview(b""))

    def __getitem__(self, row: int) -> str:
        return str(self.data[self.offsets[row]: self.offsets[row + 1]], "utf-8")


def _one_array(column: pa.ChunkedArray) -> pa.Array:
    """The column as one array, without a copy when it is one chunk (`combine_chunks` copies even
    then, which would turn a memory-mapped column into private memory)."""
    if column.num_chunks == 1:
        return column.chunk(0)
    return column.combine_chunks() if column.num_chunks else pa.array([], column.type)


class DocStore:
    """Read-only access to a docstore (module doc); safe to share between threads."""

    def __init__(self, path: Path, arrow_path: Path | None = None) -> None:
        """`arrow_path`: the bundle's Arrow IPC copy, memory-mapped; None reads DuckDB into memory."""
        self.path = Path(path)
        self.arrow_path = Path(arrow_path) if arrow_path is not None else None
        if not self.path.is_file():
            raise FileNotFoundError(f"{self.path}: docstore file not found")
        table = self._read_arrow() if self.arrow_path is not None else self._read_duckdb()
        missing = [c for c in COLUMNS if c not in table.column_names]
        if missing:
            raise ValueError(f"{self.arrow_path or self.path}: column(s) missing: {', '.join(missing)}")
        table = table.select(list(COLUMNS)).combine_chunks()   # no copy when already one chunk
        self._table: pa.Table | None = table   # owns the buffers (and the memory map) the columns view
        self._columns: dict[str, _TextColumn] | None = {
            c: _TextColumn.of(_one_array(table.column(c)), f"{self.arrow_path or self.path}: column {c}")
            for c in COLUMNS}
        self._count = table.num_rows
        self._row_of = {doc_id: row for row, doc_id in enumerate(table.column("doc_id").to_pylist())}
        if len(self._row_of) != self._count:
            raise ValueError(f"{self.arrow_path or self.path}: duplicate doc_id(s)")
        self._by_metadata: dict[str, dict[str, frozenset[int]]] = {}
        self._lock = threading.Lock()   # guards only the lazily built metadata indexes

    def _read_arrow(self) -> pa.Table:
        assert self.arrow_path is not None
        if not self.arrow_path.is_file():
            raise FileNotFoundError(f"{self.arrow_path}: docstore file not found")
        return pa.ipc.open_file(pa.memory_map(str(self.arrow_path), "r")).read_all()

    def _read_duckdb(self) -> pa.Table:
        con = duckdb.connect(str(self.path), read_only=True)
        try:
            table = con.sql(f"SELECT row_id, {', '.join(COLUMNS)} FROM {TABLE} ORDER BY row_id").to_arrow_table()
        finally:
            con.close()
        row_ids = table.column("row_id").to_numpy()
        if (row_ids != np.arange(len(row_ids))).any():
            raise ValueError(f"{self.path}: row_id is not 0..{len(row_ids) - 1} without gaps")
        return table

    def _open_columns(self) -> dict[str, _TextColumn]:
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
        # inlined `_TextColumn.__getitem__`: a method call per cell was a third of the time
        parts = [(c, col.offsets, col.data) for c, col in columns.items()]
        return [Document.from_row({c: str(data[offs[r]:offs[r + 1]], "utf-8") for c, offs, data in parts})
                for r in wanted]

    def rows_with_metadata(self, key: str, value: str) -> frozenset[int]:
        """Rows whose metadata has `key` == `value` (e.g. section_key = side_effects); one scan per key."""
        with self._lock:
            index = self._by_metadata.get(key)
            if index is None:
                index = self._by_metadata[key] = self._metadata_index(key)
        return index.get(value, frozenset())

    def _metadata_index(self, key: str) -> dict[str, frozenset[int]]:
        """value -> rows, for the rows whose metadata holds `key` as a string at its top level."""
        columns = self._open_columns()
        metadata, found = columns["metadata"], {}
        # a decoder of that one key skips the rest of each object: a swap reads 19,000 rows' metadata
        # (the section tables), 0.18 s with json.loads, 0.05 s so
        decoder = msgspec.json.Decoder(msgspec.defstruct("Metadata", [("value", object, None)], rename={"value": key}))
        for row in range(self._count):
            v = decoder.decode(metadata[row]).value
            if isinstance(v, str):
                found.setdefault(v, []).append(row)
        return {v: frozenset(rows) for v, rows in found.items()}

    def get_by_id(self, doc_id: str) -> Document | None:
        row = self.row_of(doc_id)
        return None if row is None else self.get([row])[0]

    def row_of(self, doc_id: str) -> int | None:
        """The row of `doc_id` (for reading its vector), None when the store does not hold it."""
        self._open_columns()
        return self._row_of.get(doc_id)

    def close(self) -> None:
        self._columns = None
        self._table = None
        self._row_of = {}
        self._by_metadata = {}
