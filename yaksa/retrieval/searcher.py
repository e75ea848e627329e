"""Search a loaded bundle: BM25 and dense per collection, fused as `retrieval.fusion` says.

`bm25` and `dense` run one retriever alone (the ablation baselines); `weighted` and `rrf` fuse both
(see `yaksa.retrieval.fusion`). Collections are searched separately and their fused lists merged by
fused score. Per-stage timings are returned so benchmarks and the trace can show where time goes.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from yaksa.config import RetrievalParams
from yaksa.retrieval.fusion import rrf, weighted_fusion
from yaksa.retrieval.loader import LoadedBundle

HANGUL = re.compile(r"[\uac00-\ud7a3]")
ENGLISH_COLLECTIONS = ("health", "literature", "cases")

Key = tuple[str, int]  # (collection, row)


@dataclass(frozen=True)
class SearchHit:
    doc_id: str
    collection: str
    score: float
    title: str
    section: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "doc_id": self.doc_id,
            "collection": self.collection,
            "score": round(self.score, 6),
            "title": self.title,
            "section": self.section,
            "metadata": self.metadata,
        }


def route(query: str, available: list[str]) -> list[str]:
    """Korean questions go to the Korean drug sections, English ones to the English collections."""
    wanted = ("drugs",) if HANGUL.search(query) else ENGLISH_COLLECTIONS
    chosen = [c for c in wanted if c in available]
    return chosen or list(available)


class Searcher:
    def __init__(self, loaded: LoadedBundle, params: RetrievalParams | None = None) -> None:
        self.loaded = loaded
        self.params = params or RetrievalParams()
        # resolved once: the per-collection overrides do not change while this searcher lives
        self._params = {name: self.params.for_collection(name) for name in loaded.bundle.collections}

    def _timed(self, timings: dict[str, float], name: str, fn: Any, *args: Any) -> Any:
        t = time.perf_counter()
        out = fn(*args)
        timings[name] = timings.get(name, 0.0) + (time.perf_counter() - t) * 1000
        return out

    def _collection(self, name: str, tokens: list[str], query: str, timings: dict[str, float],
                    qvecs: dict[str, Any]) -> list[tuple[Key, float]]:
        p = self._params[name]
        col = self.loaded.bundle.collections[name]
        scored: dict[str, list[tuple[Key, float]]] = {}
        if p.fusion != "dense":
            rows, scores = self._timed(timings, f"bm25.{name}", col.bm25_search, tokens, p.pool)
            scored["bm25"] = [((name, int(r)), float(s)) for r, s in zip(rows, scores)]
        if p.fusion != "bm25":
            embedder = self.loaded.embedders[name]
            if embedder.id not in qvecs:  # collections sharing a model share the query vector
                qvecs[embedder.id] = self._timed(timings, "embed_query", embedder.embed_query, query)
            rows, scores = self._timed(timings, f"faiss.{name}", col.dense_search, qvecs[embedder.id], p.pool)
            scored["dense"] = [((name, int(r)), float(s)) for r, s in zip(rows, scores)]
        t = time.perf_counter()
        if p.fusion in ("bm25", "dense"):
            fused = scored[p.fusion]
        elif p.fusion == "rrf":
            fused = rrf({n: [key for key, _ in pairs] for n, pairs in scored.items()}, k=p.rrf_k)
        else:
            fused = weighted_fusion(scored, {"bm25": p.bm25_weight, "dense": p.dense_weight})
        timings["fuse"] = timings.get("fuse", 0.0) + (time.perf_counter() - t) * 1000
        return fused

    def search(self, query: str, k: int | None = None, collections: list[str] | None = None) -> tuple[list[SearchHit], dict]:
        query = query.strip()
        if not query:
            raise ValueError("query is empty")
        k = k or self.params.k
        available = list(self.loaded.bundle.collections)
        if collections:
            unknown = [c for c in collections if c not in available]
            if unknown:
                raise ValueError(f"unknown collection(s) {unknown}; this bundle has {available}")
            targets = list(collections)
        else:
            targets = route(query, available)
        timings: dict[str, float] = {}
        start = time.perf_counter()
        tokens = self._timed(timings, "tokenize", self.loaded.tokenizer.tokenize, query)
        merged: list[tuple[Key, float]] = []
        qvecs: dict[str, Any] = {}
        for name in targets:
            merged.extend(self._collection(name, tokens, query, timings, qvecs))
        best = sorted(merged, key=lambda kv: -kv[1])[:k]
        t = time.perf_counter()
        docs = {}
        for name in {n for (n, _), _ in best}:  # one doc-store query per collection, not per hit
            rows = [row for (n, row), _ in best if n == name]
            docs.update({(name, r): d for r, d in zip(rows, self.loaded.bundle.collections[name].documents(rows))})
        hits = [
            SearchHit(d.doc_id, name, score, d.title, d.section, d.text, d.metadata)
            for (name, row), score in best
            for d in [docs[(name, row)]]
        ]
        timings["fetch"] = (time.perf_counter() - t) * 1000
        timings["total"] = (time.perf_counter() - start) * 1000
        fusion = {n: self._params[n].fusion for n in targets}
        info = {"collections": targets, "fusion": fusion[targets[0]] if len(set(fusion.values())) == 1 else fusion,
                "timings_ms": {n: round(v, 3) for n, v in timings.items()}}
        return hits, info
