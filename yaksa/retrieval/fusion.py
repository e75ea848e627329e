"""Combine ranked lists from several retrievers (BM25, dense, ...) into one ranking.

Two fusions, because neither wins everywhere (see the Korean retrieval guide): reciprocal rank
fusion needs no score calibration at all, while weighted (convex) fusion of min-max normalised
scores, tuned on a gold set, usually beats it; the pharmacist design uses BM25 0.8 / dense 0.2.
Keys are any hashable document key, e.g. `(collection, row)`, so the same functions fuse across
collections too.

Ties are broken by first appearance: retrievers in mapping order, and within one retriever by its
rank. Mapping order is therefore part of the contract; pass retrievers in a fixed order.

Usage:
    rrf({"bm25": ["A", "B", "C"], "dense": ["C", "A", "D"]})
    # -> [("A", 0.03252), ("C", 0.03227), ("B", 0.01613), ("D", 0.01587)]
    weighted_fusion({"bm25": [("A", 12.0), ("B", 3.0)], "dense": [("B", 0.9)]},
                    weights={"bm25": 0.8, "dense": 0.2})
    # -> [("A", 0.8), ("B", 0.2)]
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

NORMALIZATIONS: tuple[str, ...] = ("minmax",)


def _check_weights(names: Sequence[str], weights: Mapping[str, float] | None) -> dict[str, float]:
    """Default every retriever to weight 1; refuse unknown names, negatives and an all-zero set."""
    if weights is None:
        return dict.fromkeys(names, 1.0)
    unknown = [n for n in weights if n not in names]
    if unknown:
        raise ValueError(f"weights: unknown retriever(s) {unknown}; rankings have {list(names)}")
    checked: dict[str, float] = {}
    for name in names:
        w = weights.get(name, 0.0)
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) or w < 0:
            raise ValueError(f"weights: weight of {name!r} must be a finite number >= 0, got {w!r}")
        checked[name] = float(w)
    if names and not any(checked.values()):
        raise ValueError(f"weights: all weights are zero ({checked}); at least one must be > 0")
    return checked


def _sorted(scores: dict[K, float]) -> list[tuple[K, float]]:
    # dicts keep insertion order (= first appearance) and sorted() is stable, so ties keep it too
    return sorted(scores.items(), key=lambda item: -item[1])


def rrf(
    rankings: Mapping[str, Sequence[K]], k: int = 60, weights: Mapping[str, float] | None = None
) -> list[tuple[K, float]]:
    """Reciprocal rank fusion: score(key) = Σ_retrievers w / (k + rank), rank 1-based.

    Only ranks matter, so BM25 scores and cosine similarities need no common scale. A key listed
    twice by one retriever counts once, at its best rank. Retrievers without a weight get 0.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise ValueError(f"k must be an integer >= 0, got {k!r}")
    w = _check_weights(list(rankings), weights)
    fused: dict[K, float] = {}
    for name, ranked in rankings.items():
        seen: set[K] = set()
        for rank, key in enumerate(ranked, start=1):
            if key in seen:
                continue
            seen.add(key)
            fused[key] = fused.get(key, 0.0) + w[name] / (k + rank)
    return _sorted(fused)


def _minmax(scored: Sequence[tuple[K, float]]) -> dict[K, float]:
    """Scale one retriever's candidate scores to [0, 1]; one candidate or all-equal scores -> 1.0.

    All-equal maps to 1 rather than 0 because the candidates did make the retriever's list: a lone
    BM25 hit must not count as if BM25 had not found it.
    """
    best: dict[K, float] = {}
    for key, score in scored:
        s = float(score)
        if not math.isfinite(s):
            raise ValueError(f"scored: non-finite score {score!r} for key {key!r}")
        if key not in best or s > best[key]:
            best[key] = s
    if not best:
        return {}
    lo, hi = min(best.values()), max(best.values())
    if hi == lo:
        return dict.fromkeys(best, 1.0)
    return {key: (s - lo) / (hi - lo) for key, s in best.items()}


def weighted_fusion(
    scored: Mapping[str, Sequence[tuple[K, float]]],
    weights: Mapping[str, float],
    normalize: str = "minmax",
) -> list[tuple[K, float]]:
    """Convex combination of per-retriever normalised scores: Σ w · norm(score).

    Normalisation is per retriever over its own candidate list, so the fused score depends on
    which candidates were fetched (pool size matters; keep it fixed when tuning weights). A key a
    retriever did not return contributes 0 from it. Retrievers without a weight get 0.
    """
    if normalize not in NORMALIZATIONS:
        raise ValueError(f"normalize: unknown normalisation {normalize!r}; expected one of {NORMALIZATIONS}")
    w = _check_weights(list(scored), weights)
    fused: dict[K, float] = {}
    for name, pairs in scored.items():
        for key, norm in _minmax(pairs).items():
            fused[key] = fused.get(key, 0.0) + w[name] * norm
    return _sorted(fused)
