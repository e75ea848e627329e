"""The runner on a toy search with known ranks, and the out-of-scope rate arithmetic."""

from __future__ import annotations

import math

import pytest

from yaksa.evaluation.goldsets import GoldQuestion
from yaksa.evaluation.search_scoring import evaluate_retrieval, oos_rates

RANKINGS = {
    "q1": ["g1", "x", "y"],  # gold at rank 1
    "q2": ["x", "y", "g2"],  # gold at rank 3
    "q3": ["x", "y", "z"],  # gold not retrieved
    "q4": ["a", "b", "c", "d", "e", "f", "g4"],  # gold at rank 7: inside @10, outside @5
}


def _q(qid: str, gold: set[str], kind: str = "t") -> GoldQuestion:
    return GoldQuestion(qid=qid, question=qid, gold=frozenset(gold), lang="en", kind=kind)


def test_exact_means_for_known_ranks() -> None:
    questions = [_q("q1", {"g1"}, "a"), _q("q2", {"g2"}, "a"), _q("q3", {"g3"}, "b"), _q("q4", {"g4"}, "b")]
    result = evaluate_retrieval(lambda text: RANKINGS[text], questions, k=10)
    assert [r.first_hit_rank for r in result.rows] == [1, 3, None, 7]
    m = result.means
    assert m["n"] == 4
    assert m["recall@1"] == pytest.approx(1 / 4)  # only q1
    assert m["recall@5"] == pytest.approx(2 / 4)  # q1, q2
    assert m["recall@10"] == pytest.approx(3 / 4)  # q1, q2, q4
    assert m["mrr@10"] == pytest.approx((1 + 1 / 3 + 0 + 1 / 7) / 4)  # 0.36905
    # nDCG@10 with one gold = 1/log2(rank+1): 1, 0.5, 0, 1/3 → mean 0.45833
    assert m["ndcg@10"] == pytest.approx((1 + 1 / math.log2(4) + 0 + 1 / math.log2(8)) / 4)
    assert m["ndcg@10"] == pytest.approx(0.458333, abs=1e-6)
    assert m["p@5"] == pytest.approx((0.2 + 0.2) / 4)  # q1, q2 have one hit in the top 5
    by_kind = result.means_by_kind()
    assert by_kind["a"]["recall@5"] == 1.0 and by_kind["b"]["recall@10"] == 0.5


def test_depth_changes_metric_names() -> None:
    result = evaluate_retrieval(lambda text: RANKINGS[text], [_q("q4", {"g4"})], k=5)
    assert result.means["recall@5"] == 0.0 and result.means["mrr@5"] == 0.0
    with pytest.raises(ValueError, match="k must be >= 5"):
        evaluate_retrieval(lambda text: RANKINGS[text], [_q("q4", {"g4"})], k=3)


def test_questions_without_gold_are_refused() -> None:
    with pytest.raises(ValueError, match="'oos:1'.*no gold"):
        evaluate_retrieval(lambda text: [], [_q("oos:1", set(), "oos")])


def test_oos_rates_arithmetic() -> None:
    in_scope = [_q(f"in{i}", {"d"}) for i in range(4)]
    oos = [_q(f"out{i}", set(), "oos") for i in range(5)]
    blocked_texts = {"out0", "out1", "out2", "in3"}
    rates = oos_rates(lambda text: text in blocked_texts, in_scope, oos)
    assert rates["block_rate"] == pytest.approx(3 / 5)  # 3 of 5 OOS blocked
    assert rates["false_block_rate"] == pytest.approx(1 / 4)  # 1 of 4 in-scope blocked
    assert (rates["n_in_scope"], rates["n_out_of_scope"]) == (4, 5)
    with pytest.raises(ValueError, match="both"):
        oos_rates(lambda text: True, [], oos)
