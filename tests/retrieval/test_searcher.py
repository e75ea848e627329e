"""The searcher on the tiny built project: stages, expansion, reranker in the path."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from yaksa.config import load_settings
from yaksa.retrieval.loader import LoadedBundle, load_published
from yaksa.retrieval.searcher import Searcher


@pytest.fixture(scope="module")
def loaded(tiny_project: Path) -> LoadedBundle:
    bundle = load_published(load_settings(tiny_project / "params.yaml").paths.indexes)
    yield bundle
    bundle.close()


@pytest.fixture(scope="module")
def params(tiny_project: Path):
    return load_settings(tiny_project / "params.yaml").retrieval


def test_result_has_the_wire_format(loaded: LoadedBundle, params) -> None:
    result = Searcher(loaded, params, use_focus=False).search("두통에 먹는 약", k=3)
    out = result.to_json()
    assert set(out) >= {"query", "collections", "results", "timings_ms"} and "blocked" not in out
    assert out["collections"] == ["drugs"] and len(out["results"]) == 3
    assert {"expand", "tokenize", "bm25", "embed_query", "faiss", "fuse", "fetch", "total"} <= set(out["timings_ms"])
    assert out["expansion"]["added"] == ["아세트아미노펜", "이부프로펜"]


def test_stopword_only_query_still_gets_dense_candidates(loaded: LoadedBundle, params) -> None:
    result = Searcher(loaded, params).search("ㅋㅋㅋ")
    assert result.hits and "bm25" not in result.timings_ms


def test_expansion_flag_changes_only_the_lexical_query(loaded: LoadedBundle, params) -> None:
    # the hybrid path (no focus): a symptom question would otherwise be ranked by 효능효과 alone
    off = Searcher(loaded, replace(params, expansion=False), use_focus=False).search("머리가 아파요")
    on = Searcher(loaded, params, use_focus=False).search("머리가 아파요")
    assert off.expansion is None and on.expansion.added[0] == "두통"
    assert any("두통" in h.text for h in on.hits)


def test_cross_encoder_reranks_the_fused_candidates(loaded: LoadedBundle, params, tiny_cross_encoder: Path) -> None:
    reranked = replace(params, rerank="cross_encoder", rerank_model=str(tiny_cross_encoder), rerank_min_score=0.0,
                       rerank_candidates=8)
    result = Searcher(loaded, reranked).search("두통에 먹는 약", k=3)
    assert result.reranker == "cross_encoder" and "rerank" in result.timings_ms
    assert len(result.hits) == 3 and all(0.0 <= h.score <= 1.0 for h in result.hits)
    assert [h.score for h in result.hits] == sorted((h.score for h in result.hits), reverse=True)


@pytest.mark.parametrize("query", ["", "  "])
def test_empty_query_is_refused(loaded: LoadedBundle, params, query: str) -> None:
    with pytest.raises(ValueError, match="empty"):
        Searcher(loaded, params).search(query)


def test_query_vectors_are_cached_per_text(loaded: LoadedBundle, params) -> None:
    searcher = Searcher(loaded, params)
    searcher.search("두통에 먹는 약")
    vec = searcher.query_vector("drugs", "두통에 먹는 약")
    assert vec is searcher.query_vector("drugs", "두통에 먹는 약") and not vec.flags.writeable
    searcher.clear_query_cache()
    assert searcher.query_vector("drugs", "두통에 먹는 약") is not vec


def test_common_verbs_do_not_reach_bm25(loaded: LoadedBundle, params) -> None:
    plain = Searcher(loaded, replace(params, expansion=False)).search("두통에 먹어도 되나요", k=3)
    assert {"먹다", "되다"} <= set(plain.bm25_tokens)  # the analyser keeps them ...
    expanded = Searcher(loaded, params).search("두통에 먹어도 되나요", k=3)
    assert "두통" in expanded.bm25_tokens and not {"먹다", "되다"} & set(expanded.bm25_tokens)  # ... BM25 does not


def test_intent_prior_down_weights_side_effect_sections_unless_asked(loaded: LoadedBundle, params) -> None:
    def scores(prior: float, query: str) -> dict[str, float]:
        per = {n: {**o, "intent_prior": prior} for n, o in params.per_collection.items()}
        searcher = Searcher(loaded, replace(params, per_collection=per), use_focus=False)  # no intent known
        result = searcher.search(query, k=20, collections=["drugs"])
        return {h.doc_id: h.score for h in result.hits}

    plain, prior = scores(1.0, "두통에 먹는 약"), scores(0.5, "두통에 먹는 약")
    side = [d for d in plain if d.endswith(":side_effects") and d in prior]
    assert side and all(prior[d] == pytest.approx(plain[d] * 0.5) for d in side)
    other = [d for d in plain if not d.endswith(":side_effects") and d in prior]
    assert other and all(prior[d] == pytest.approx(plain[d]) for d in other)
    assert scores(0.5, "두통약 부작용") == scores(1.0, "두통약 부작용")  # asked about: no prior


def test_intent_prior_demotes_sections_that_do_not_answer(loaded: LoadedBundle, params) -> None:
    def scores(prior: float) -> dict[str, float]:
        per = {n: {**o, "intent_prior": prior} for n, o in params.per_collection.items()}
        result = Searcher(loaded, replace(params, per_collection=per)).search("보관은 어떻게 하나요", k=20)
        assert result.focus.mode == "general" and result.focus.intent.name == "storage"
        return {h.doc_id: h.score for h in result.hits}

    plain, prior = scores(1.0), scores(0.64)
    storage = [d for d in plain if d.endswith(":storage") and d in prior]
    assert storage and all(prior[d] == pytest.approx(plain[d]) for d in storage)
    usage = [d for d in plain if d.endswith(":precautions") and d in prior]  # not asked: demoted
    assert all(prior[d] == pytest.approx(plain[d] * 0.64) for d in usage)


class _LongestFirst:
    """A reranker that prefers longer passages: deterministic, and unlike the fused order."""

    name = "longest"

    def identity(self) -> dict[str, str]:
        return {"kind": self.name}

    def rerank(self, query: str, passages, top_k=None, scores=None) -> list[tuple[int, float]]:
        order = sorted(range(len(passages)), key=lambda i: (-len(passages[i]), i))
        return [(i, float(len(passages[i]))) for i in order[:top_k]]


def test_rank_reorders_case_rows_by_the_configured_reranker(loaded: LoadedBundle, params) -> None:
    query = "post-operative sepsis with hypotension and delayed blood cultures"
    fused = Searcher(loaded, params).rank(query, "cases", 3)
    reranked = Searcher(loaded, replace(params, rerank_candidates=10), reranker=_LongestFirst()).rank(query, "cases", 3)
    pool = [row for row, _ in Searcher(loaded, params).rank(query, "cases", 10)]
    lengths = dict(zip(pool, (len(d.title) + 1 + len(d.text) for d in loaded.bundle.collections["cases"].documents(pool))))
    assert [row for row, _ in reranked] == sorted(pool, key=lambda r: (-lengths[r], pool.index(r)))[:3]
    assert [s for _, s in reranked] == [float(lengths[r]) for r, _ in reranked]
    assert [row for row, _ in fused] == pool[:3]
    with pytest.raises(ValueError, match="unknown collection"):
        Searcher(loaded, params).rank(query, "nope", 3)


def test_one_section_of_one_product(loaded: LoadedBundle, params) -> None:
    """`product_section`: a cited product's 주의사항 fetched by its item_seq (a child's age limits)."""
    searcher = Searcher(loaded, params)
    assert searcher.catalog is not None
    product = next(p for p in searcher.catalog.products.values() if "precautions" in p.rows)
    hit = searcher.product_section(product.item_seq, "precautions")
    assert hit is not None and hit.collection == "drugs" and hit.metadata["section_key"] == "precautions"
    assert str(hit.metadata["item_seq"]) == product.item_seq and hit.text
    assert searcher.product_section("no-such-product", "precautions") is None
