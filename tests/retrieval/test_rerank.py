from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from yaksa.retrieval.rerank import MAX_CANDIDATES, NoReranker, Reranker, make_reranker

QUERY = "타이레놀 두통 용량"
PASSAGES = ["타이레놀 두통 약", "간 손상 부작용", "위 소화", "aspirin dose", "liver pain ?", "약 용량 ."]


def test_none_keeps_order_and_first_stage_scores() -> None:
    rr = make_reranker("none")
    assert isinstance(rr, Reranker) and rr.identity()["kind"] == "none"
    assert rr.rerank("q", ["a", "b", "c"], scores=[0.03, 0.02, 0.01]) == [(0, 0.03), (1, 0.02), (2, 0.01)]
    # no scores: reciprocal rank, so scores still descend along the list
    assert rr.rerank("q", ["a", "b", "c"], top_k=2) == [(0, 1.0), (1, 0.5)]
    assert rr.rerank("q", []) == []


def test_none_min_score_filters_first_stage_scores() -> None:
    rr = make_reranker("none", {"min_score": 0.015})
    assert rr.rerank("q", ["a", "b", "c"], scores=[0.03, 0.01, 0.02]) == [(0, 0.03), (2, 0.02)]
    with pytest.raises(ValueError, match="scores"):
        rr.rerank("q", ["a", "b"], scores=[0.1])


def test_factory_and_request_validation() -> None:
    with pytest.raises(ValueError, match="kind"):
        make_reranker("colbert")
    with pytest.raises(ValueError, match="options"):
        make_reranker("none", {"modle": "x"})
    with pytest.raises(ValueError, match="needs option"):
        make_reranker("cross_encoder", {})
    with pytest.raises(ValueError, match="max_candidates"):
        NoReranker(max_candidates=MAX_CANDIDATES + 1)
    with pytest.raises(ValueError, match="min_score"):
        NoReranker(min_score=float("nan"))
    rr = NoReranker()
    with pytest.raises(ValueError, match="passages: 51 candidates exceed"):
        rr.rerank("q", ["p"] * (MAX_CANDIDATES + 1))
    with pytest.raises(ValueError, match="top_k"):
        rr.rerank("q", ["p"], top_k=0)
    with pytest.raises(ValueError, match="query"):
        rr.rerank("  ", ["p"])
    with pytest.raises(ValueError, match="passages"):
        rr.rerank("q", "not a list")


def check_ranking(result: list[tuple[int, float]], n: int) -> None:
    idx = [i for i, _ in result]
    scores = [s for _, s in result]
    assert len(set(idx)) == len(idx) and all(0 <= i < n for i in idx)
    assert all(0.0 <= s <= 1.0 for s in scores)  # sigmoid scale
    assert scores == sorted(scores, reverse=True)


@pytest.fixture(scope="module")
def cross_encoder(tiny_cross_encoder: Path) -> Reranker:
    return make_reranker("cross_encoder", {"model": str(tiny_cross_encoder), "device": "auto", "min_score": None})


def test_cross_encoder_scores_every_passage_in_score_order(cross_encoder: Reranker) -> None:
    ident = cross_encoder.identity()
    assert ident["kind"] == "cross_encoder" and ident["device"] in ("cpu", "cuda")
    result = cross_encoder.rerank(QUERY, PASSAGES)
    assert len(result) == len(PASSAGES)
    check_ranking(result, len(PASSAGES))
    assert len({s for _, s in result}) > 1, "random model should still give distinct scores"
    assert cross_encoder.rerank(QUERY, PASSAGES) == result  # deterministic
    assert cross_encoder.rerank(QUERY, PASSAGES, top_k=2) == result[:2]
    assert cross_encoder.rerank(QUERY, []) == []


def test_cross_encoder_min_score_filter(cross_encoder: Reranker, tiny_cross_encoder: Path) -> None:
    full = cross_encoder.rerank(QUERY, PASSAGES)
    cut = float(np.median([s for _, s in full]))
    filtered = make_reranker("cross_encoder", {"model": str(tiny_cross_encoder), "min_score": cut})
    kept = filtered.rerank(QUERY, PASSAGES)
    assert kept == [(i, s) for i, s in full if s >= cut]
    assert 0 < len(kept) < len(full)


def test_flag_reranker_matches_cross_encoder_on_the_same_weights(
    cross_encoder: Reranker, tiny_cross_encoder: Path
) -> None:
    flag = make_reranker("flag", {"model": str(tiny_cross_encoder), "device": "cpu", "min_score": None})
    assert flag.identity()["kind"] == "flag"
    result = flag.rerank(QUERY, PASSAGES)
    check_ranking(result, len(PASSAGES))
    # both apply a sigmoid to the same single logit, so they must agree
    ours = dict(cross_encoder.rerank(QUERY, PASSAGES))
    for i, s in result:
        assert s == pytest.approx(ours[i], abs=1e-5)
    assert flag.rerank(QUERY, PASSAGES[:1]) == [(0, pytest.approx(ours[0], abs=1e-5))]
