"""Ranking metrics over one ranked list of doc ids and a set of gold (relevant) doc ids.

Pure functions with binary relevance, so a run can be re-scored offline from stored rankings.
Recall is *capped* (hits / min(|gold|, k), BEIR's R_cap@k): a symptom question can have 60 relevant
efficacy sections, and plain recall@10 could then never exceed 1/6, which would hide whether the
top of the list is any good. With one gold document (most questions) it equals plain recall.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence


def _check(gold: frozenset[str] | set[str], k: int | None) -> None:
    if not gold:
        raise ValueError("gold set is empty: ranking metrics are undefined without a relevant document")
    if k is not None and k < 1:
        raise ValueError(f"cutoff k must be >= 1, got {k}")


def _hits(ranked: Sequence[str], gold: Iterable[str], k: int) -> int:
    """Gold documents in the top k, each counted once even if a search returns it twice."""
    return len(set(ranked[:k]) & set(gold))


def first_hit_rank(ranked: Sequence[str], gold: Iterable[str]) -> int | None:
    """1-based rank of the first gold document, or None when none is retrieved."""
    wanted = set(gold)
    for rank, doc_id in enumerate(ranked, start=1):
        if doc_id in wanted:
            return rank
    return None


def recall_at_k(ranked: Sequence[str], gold: frozenset[str] | set[str], k: int) -> float:
    """Share of the reachable gold found in the top k: hits / min(|gold|, k)."""
    _check(gold, k)
    return _hits(ranked, gold, k) / min(len(gold), k)


def precision_at_k(ranked: Sequence[str], gold: frozenset[str] | set[str], k: int = 5) -> float:
    """Gold hits in the top k divided by k (a short result list is not rewarded for being short)."""
    _check(gold, k)
    return _hits(ranked, gold, k) / k


def mrr(ranked: Sequence[str], gold: frozenset[str] | set[str], k: int | None = None) -> float:
    """1 / rank of the first gold hit within the cutoff (all of `ranked` when k is None); 0 if none."""
    _check(gold, k)
    rank = first_hit_rank(ranked if k is None else ranked[:k], gold)
    return 0.0 if rank is None else 1.0 / rank


def ndcg_at_k(ranked: Sequence[str], gold: frozenset[str] | set[str], k: int = 10) -> float:
    """Binary-relevance nDCG: sum of 1/log2(rank+1) over gold hits, over the ideal for min(|gold|, k)."""
    _check(gold, k)
    seen: set[str] = set()
    dcg = 0.0
    for rank, doc_id in enumerate(ranked[:k], start=1):
        if doc_id in gold and doc_id not in seen:
            seen.add(doc_id)
            dcg += 1.0 / math.log2(rank + 1)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(gold), k) + 1))
    return dcg / ideal


def mean_metrics(rows: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Mean of each metric over per-question rows, plus `n`; all rows must carry the same metrics."""
    if not rows:
        raise ValueError("no rows to average: the gold set produced no scored questions")
    keys = list(rows[0])
    for i, row in enumerate(rows):
        if set(row) != set(keys):
            raise ValueError(f"row {i} has metrics {sorted(row)}, expected {sorted(keys)}")
    means = {key: math.fsum(row[key] for row in rows) / len(rows) for key in keys}
    means["n"] = float(len(rows))
    return means


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (p50, p95 of latency); NaN for no values."""
    ordered = sorted(v for v in values if not math.isnan(v))
    if not ordered:
        return math.nan
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]
