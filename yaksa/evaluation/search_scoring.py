"""Run a search function over a gold set and score it; measure an out-of-scope guard.

The search is any `question → ranked doc ids` callable, so BM25, dense, fused and reranked retrievers
are scored by the same code and their numbers are comparable.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from yaksa.evaluation.goldsets import GoldQuestion
from yaksa.evaluation.metrics import (
    first_hit_rank,
    mean_metrics,
    mrr,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
)


@dataclass(frozen=True)
class QuestionResult:
    qid: str
    kind: str
    first_hit_rank: int | None  # 1-based rank in the returned list; None when no gold was returned
    metrics: dict[str, float]


@dataclass(frozen=True)
class EvalResult:
    rows: list[QuestionResult]
    means: dict[str, float]  # recall@1, recall@5, recall@k, mrr@k, ndcg@k, p@5, n

    def means_by_kind(self) -> dict[str, dict[str, float]]:
        """Means per question kind: a Korean set mixes one-gold section and many-gold symptom questions."""
        groups: dict[str, list[dict[str, float]]] = defaultdict(list)
        for row in self.rows:
            groups[row.kind].append(row.metrics)
        return {kind: mean_metrics(rows) for kind, rows in sorted(groups.items())}


def score_ranking(ranked: Sequence[str], gold: frozenset[str], k: int = 10) -> dict[str, float]:
    """The metrics reported for one question at depth k (k >= 5, so p@5 lies within the depth)."""
    if k < 5:
        raise ValueError(f"evaluation depth k must be >= 5 (p@5 and recall@5 are reported), got {k}")
    return {
        "recall@1": recall_at_k(ranked, gold, 1),
        "recall@5": recall_at_k(ranked, gold, 5),
        f"recall@{k}": recall_at_k(ranked, gold, k),
        f"mrr@{k}": mrr(ranked, gold, k),
        f"ndcg@{k}": ndcg_at_k(ranked, gold, k),
        "p@5": precision_at_k(ranked, gold, 5),
    }


def evaluate_retrieval(
    search: Callable[[str], list[str]], questions: Sequence[GoldQuestion], k: int = 10
) -> EvalResult:
    """Score `search` on every question; questions without gold (out-of-scope) are refused, since a
    zero for them would drag the means down for something retrieval is not asked to do."""
    if not questions:
        raise ValueError("no questions to evaluate")
    rows = []
    for q in questions:
        if not q.gold:
            raise ValueError(f"question {q.qid!r} (kind {q.kind!r}) has no gold documents; "
                             "score out-of-scope questions with oos_rates")
        ranked = list(search(q.question))
        rows.append(QuestionResult(qid=q.qid, kind=q.kind, first_hit_rank=first_hit_rank(ranked, q.gold),
                                   metrics=score_ranking(ranked, q.gold, k)))
    return EvalResult(rows=rows, means=mean_metrics([r.metrics for r in rows]))


def oos_rates(
    blocked: Callable[[str], bool], in_scope: Sequence[GoldQuestion], out_of_scope: Sequence[GoldQuestion]
) -> dict[str, float]:
    """block_rate = share of out-of-scope questions blocked (higher is better); false_block_rate =
    share of in-scope questions blocked (lower is better). Both are needed: a guard that blocks
    everything has a perfect block rate."""
    if not in_scope or not out_of_scope:
        raise ValueError("oos_rates needs both in-scope and out-of-scope questions")
    blocked_oos = sum(bool(blocked(q.question)) for q in out_of_scope)
    blocked_in = sum(bool(blocked(q.question)) for q in in_scope)
    return {
        "block_rate": blocked_oos / len(out_of_scope),
        "false_block_rate": blocked_in / len(in_scope),
        "n_in_scope": float(len(in_scope)),
        "n_out_of_scope": float(len(out_of_scope)),
    }
