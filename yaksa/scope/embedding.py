"""Query embeddings of the scope exemplars and of the learned model's sentence windows, cached on disk.

Why a cache: the exemplars are embedded as *queries* (the e5 models prefix queries and passages
differently, and a user's question is embedded as a query); even in batches that is seconds of a
server start for a few hundred exemplars.
Vectors go into the project's embedding cache (`yaksa/embed/cache.py`, one Parquet file per
embedder id) under the id `<embedder id>#query`, keyed by the SHA-256 of the text, so a start after
the first reads them in one shot and an edited exemplar is the only one re-embedded.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from yaksa.embed.base import Embedder, embed_queries
from yaksa.embed.cache import EmbeddingCache

QUERY_SUFFIX = "#query"  # query vectors differ from the passage vectors the build caches under the bare id
BATCH = 256              # texts per embedder call
# new vectors written to the cache every 2,048 texts and at the end: a stopped fit keeps all but the last few
# hundred, while a write after every batch rewrote the growing file 46 times per embedder (~18 s of the build's
# scope stage on this machine)
FLUSH_TEXTS = 2048


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cached_query_vectors(embedder: Embedder, texts: Sequence[str], cache_dir: Path | None,
                         progress: Callable[[str], None] | None = None) -> dict[str, np.ndarray]:
    """Query vectors of the distinct `texts`, by text: read from the cache when one is given, the rest
    embedded in batches of BATCH and written to it every FLUSH_TEXTS (a long fit keeps most of what it
    embedded if it is stopped)."""
    unique = list(dict.fromkeys(texts))
    cache_id = embedder.id + QUERY_SUFFIX
    cache = EmbeddingCache(cache_dir) if cache_dir is not None else None
    hashes = {t: text_hash(t) for t in unique}
    found = cache.get_many(cache_id, list(hashes.values())) if cache is not None else {}
    out = {t: np.asarray(found[h], dtype=np.float32) for t, h in hashes.items() if h in found}
    missing = [t for t in unique if t not in out]
    pending: list[str] = []

    def flush() -> None:
        if cache is not None and pending:
            cache.put_many(cache_id, [hashes[t] for t in pending], np.stack([out[t] for t in pending]))
        pending.clear()

    for start in range(0, len(missing), BATCH):
        chunk = missing[start:start + BATCH]
        vectors = embed_queries(embedder, chunk)
        out.update(zip(chunk, np.asarray(vectors, dtype=np.float32), strict=True))
        pending.extend(chunk)
        if len(pending) >= FLUSH_TEXTS:
            flush()
        if progress and (start // BATCH) % 5 == 0:
            progress(f"scope windows embedded: {min(start + BATCH, len(missing))}/{len(missing)} new "
                     f"({len(found)} from the cache)")
    flush()
    return out


def exemplar_vectors(embedder: Embedder, texts: Sequence[str], cache_dir: Path | None) -> np.ndarray:
    """(n, dim) L2-normalised query vectors of `texts`, in order; reads and fills the cache when one is given."""
    by_text = cached_query_vectors(embedder, texts, cache_dir)
    vectors = np.stack([by_text[t] for t in texts]).astype(np.float32)
    if vectors.shape[1] != embedder.dim:
        raise ValueError(f"cached scope vectors are {vectors.shape[1]}-d, {embedder.id} makes {embedder.dim}-d ones")
    return vectors
