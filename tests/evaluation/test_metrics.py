"""Ranking metrics on tiny cases whose arithmetic is written out next to the expected value."""

from __future__ import annotations

import math

import pytest

from yaksa.evaluation.metrics import (
    first_hit_rank,
    mean_metrics,
    mrr,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
)


def test_single_gold_at_rank_two() -> None:
    ranked, gold = ["a", "b", "c"], {"b"}
    assert first_hit_rank(ranked, gold) == 2
    assert mrr(ranked, gold) == 0.5  # 1/2
    assert mrr(ranked, gold, k=1) == 0.0  # b lies beyond the cutoff
    assert ndcg_at_k(ranked, gold, 10) == pytest.approx(1 / math.log2(3))  # DCG 1/log2(2+1), ideal 1
    assert ndcg_at_k(ranked, gold, 10) == pytest.approx(0.6309, abs=1e-4)
    assert recall_at_k(ranked, gold, 1) == 0.0
    assert recall_at_k(ranked, gold, 2) == 1.0
    assert precision_at_k(ranked, gold, 5) == 0.2  # 1 hit / 5 (a short list is not rewarded)


def test_two_golds() -> None:
    ranked, gold = ["x", "g1", "y", "g2"], {"g1", "g2", "g3"}
    # DCG = 1/log2(3) + 1/log2(5) = 0.63093 + 0.43068 = 1.06161
    # ideal over min(3, 10) = 3 golds: 1 + 0.63093 + 0.5 = 2.13093 → 0.49819
    assert ndcg_at_k(ranked, gold, 10) == pytest.approx((1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3) + 0.5))
    assert ndcg_at_k(ranked, gold, 10) == pytest.approx(0.49819, abs=1e-5)
    # @2: DCG 0.63093; ideal over min(3, 2) = 2 golds: 1 + 0.63093 → 0.38685
    assert ndcg_at_k(ranked, gold, 2) == pytest.approx(0.38685, abs=1e-5)
    assert recall_at_k(ranked, gold, 10) == pytest.approx(2 / 3)  # 2 of 3 golds
    assert recall_at_k(ranked, gold, 2) == 0.5  # 1 hit / min(3, 2): capped denominator
    assert precision_at_k(ranked, gold, 4) == 0.5  # 2 / 4
    assert mrr(ranked, gold) == 0.5


def test_perfect_and_empty_rankings() -> None:
    assert ndcg_at_k(["g"], {"g"}) == 1.0
    assert mrr(["g"], {"g"}, k=1) == 1.0
    assert mrr([], {"g"}) == 0.0
    assert ndcg_at_k([], {"g"}) == 0.0
    assert recall_at_k([], {"g"}, 10) == 0.0


def test_duplicate_ids_in_a_ranking_count_once() -> None:
    # "g" returned twice must not give 2 hits: recall 1/min(2,10) = 0.5, DCG only 1 (rank 1)
    ranked, gold = ["g", "g", "x"], {"g", "h"}
    assert recall_at_k(ranked, gold, 10) == 0.5
    assert precision_at_k(ranked, gold, 5) == 0.2
    assert ndcg_at_k(ranked, gold, 10) == pytest.approx(1 / (1 + 1 / math.log2(3)))


def test_invalid_input_is_refused() -> None:
    with pytest.raises(ValueError, match="gold set is empty"):
        recall_at_k(["a"], set(), 5)
    with pytest.raises(ValueError, match="k must be >= 1"):
        ndcg_at_k(["a"], {"a"}, 0)


def test_mean_metrics() -> None:
    rows = [{"mrr": 1.0, "p@5": 0.2}, {"mrr": 0.5, "p@5": 0.0}, {"mrr": 0.0, "p@5": 0.4}]
    # mrr (1 + 0.5 + 0) / 3 = 0.5; p@5 (0.2 + 0 + 0.4) / 3 = 0.2
    assert mean_metrics(rows) == pytest.approx({"mrr": 0.5, "p@5": 0.2, "n": 3.0})
    with pytest.raises(ValueError, match="row 1 has metrics"):
        mean_metrics([{"mrr": 1.0}, {"ndcg": 1.0}])
    with pytest.raises(ValueError, match="no rows"):
        mean_metrics([])
