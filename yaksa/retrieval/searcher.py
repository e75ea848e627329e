"""Search a loaded bundle: BM25 and dense per collection, fused by reciprocal rank.

This is the foundation's plain hybrid search, enough for `yaksa search`, the publish check and the
smoke tests; tuned fusion, reranking and the out-of-scope guard build on it.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from yaksa.retrieval.loader import LoadedBundle

HANGUL = re.compile(r"[\uac00-\ud7a3]")
RRF_K = 60
ENGLISH_COLLECTIONS = ("health", "literature", "cases")


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
    def __init__(self, loaded: LoadedBundle, pool: int = 20) -> None:
        self.loaded = loaded
        self.pool = pool

    def search(self, query: str, k: int = 10, collections: list[str] | None = None) -> tuple[list[SearchHit], dict]:
        query = query.strip()
        if not query:
            raise ValueError("query is empty")
        available = list(self.loaded.bundle.collections)
        if collections:
            unknown = [c for c in collections if c not in available]
            if unknown:
                raise ValueError(f"unknown collection(s) {unknown}; this bundle has {available}")
            targets = collections
        else:
            targets = route(query, available)
        timings: dict[str, float] = {}
        t = time.perf_counter()
        tokens = self.loaded.tokenizer.tokenize(query)
        timings["tokenize"] = (time.perf_counter() - t) * 1000
        fused: dict[tuple[str, int], float] = {}
        for name in targets:
            col = self.loaded.bundle.collections[name]
            t = time.perf_counter()
            rows, _ = col.bm25_search(tokens, self.pool)
            timings[f"bm25.{name}"] = (time.perf_counter() - t) * 1000
            for rank, row in enumerate(rows):
                fused[(name, int(row))] = fused.get((name, int(row)), 0.0) + 1.0 / (RRF_K + rank + 1)
            t = time.perf_counter()
            qvec = self.loaded.embedders[name].embed_query(query)
            rows, _ = col.dense_search(qvec, self.pool)
            timings[f"dense.{name}"] = (time.perf_counter() - t) * 1000
            for rank, row in enumerate(rows):
                fused[(name, int(row))] = fused.get((name, int(row)), 0.0) + 1.0 / (RRF_K + rank + 1)
        best = sorted(fused.items(), key=lambda kv: -kv[1])[:k]
        hits: list[SearchHit] = []
        for (name, row), score in best:
            doc = self.loaded.bundle.collections[name].documents([row])[0]
            hits.append(SearchHit(doc.doc_id, name, score, doc.title, doc.section, doc.text, doc.metadata))
        return hits, {"collections": targets, "timings_ms": {k: round(v, 3) for k, v in timings.items()}}
