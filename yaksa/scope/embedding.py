"""Query embeddings of the scope exemplars, cached on disk.

Why a cache: the exemplars are embedded as *queries* (the e5 models prefix queries and passages
differently, and a user's question is embedded as a query); even in batches that is seconds of a
server start for a few hundred exemplars.
Vectors go into the project's embedding cache (`yaksa/embed/cache.py`, one Parquet file per
embedder id) under the id `<embedder id>#query`, keyed by the SHA-256 of the text, so a start after
the first reads them in one shot and an edited exemplar is the only one re-embedded.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from yaksa.embed.base import Embedder, embed_queries
from yaksa.embed.cache import EmbeddingCache

QUERY_SUFFIX = "#query"  # query vectors differ from the passage vectors the build caches under the bare id


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def exemplar_vectors(embedder: Embedder, texts: Sequence[str], cache_dir: Path | None) -> np.ndarray:
    """(n, dim) L2-normalised query vectors of `texts`; reads and fills the cache when one is given."""
    cache_id = embedder.id + QUERY_SUFFIX
    hashes = [text_hash(t) for t in texts]
    cache = EmbeddingCache(cache_dir) if cache_dir is not None else None
    found = cache.get_many(cache_id, hashes) if cache is not None else {}
    missing = {h: t for h, t in zip(hashes, texts, strict=True) if h not in found}
    new = dict(zip(missing, embed_queries(embedder, list(missing.values())), strict=True))
    if cache is not None and new:
        cache.put_many(cache_id, list(new), np.stack(list(new.values())))
    vectors = np.stack([found[h] if h in found else new[h] for h in hashes]).astype(np.float32)
    if vectors.shape[1] != embedder.dim:
        raise ValueError(f"cached scope vectors are {vectors.shape[1]}-d, {embedder.id} makes {embedder.dim}-d ones")
    return vectors
