"""Choose the fusion per collection on the dev sets, and report it on questions it was not chosen on.

Each dev set is split deterministically (by a hash of the question id) into a tuning half and a
held-out half. BM25 and dense candidates are fetched once per question; every configuration (BM25 only,
dense only, RRF, weighted fusion with BM25 weight 0.1 … 0.9) is then scored on the tuning half and
the best one, together with the baselines, is reported on the held-out half. Nothing is written to
params.yaml: the suggested `retrieval.per_collection` block is printed for a person to record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from yaksa.config import Settings
from yaksa.evaluation.goldsets import GoldQuestion
from yaksa.evaluation.metrics import mrr
from yaksa.evaluation.suite import COLLECTION_FOR_SET, EVAL_K, build_goldsets, is_held_out
from yaksa.retrieval.fusion import rrf, weighted_fusion
from yaksa.retrieval.loader import LoadedBundle, load_published

WEIGHTS = tuple(round(0.1 * i, 1) for i in range(1, 10))


@dataclass(frozen=True)
class Candidates:
    gold: frozenset[str]
    bm25: list[tuple[str, float]]
    dense: list[tuple[str, float]]


@dataclass(frozen=True)
class SetTuning:
    goldset: str
    collection: str
    chosen: str
    tune_mrr: dict[str, float]  # config -> MRR@10 on the tuning half
    test_mrr: dict[str, float]  # chosen + baselines -> MRR@10 on the held-out half
    n_tune: int
    n_test: int


def _candidates(loaded: LoadedBundle, collection: str, q: GoldQuestion, pool: int) -> Candidates:
    col = loaded.bundle.collections[collection]
    rows, scores = col.bm25_search(loaded.tokenizer.tokenize(q.question), pool)
    bm25 = list(zip([d.doc_id for d in col.documents(rows)], map(float, scores)))
    rows, scores = col.dense_search(loaded.embedders[collection].embed_query(q.question), pool)
    dense = list(zip([d.doc_id for d in col.documents(rows)], map(float, scores)))
    return Candidates(q.gold, bm25, dense)


def fuse(config: str, c: Candidates, rrf_k: int = 60) -> list[str]:
    if config == "bm25":
        return [d for d, _ in c.bm25]
    if config == "dense":
        return [d for d, _ in c.dense]
    if config == "rrf":
        return [d for d, _ in rrf({"bm25": [d for d, _ in c.bm25], "dense": [d for d, _ in c.dense]}, k=rrf_k)]
    w = float(config.removeprefix("weighted:"))
    return [d for d, _ in weighted_fusion({"bm25": c.bm25, "dense": c.dense}, {"bm25": w, "dense": 1 - w})]


def configs() -> list[str]:
    return ["bm25", "dense", "rrf", *[f"weighted:{w}" for w in WEIGHTS]]


def _mean_mrr(config: str, cands: Sequence[Candidates]) -> float:
    return sum(mrr(fuse(config, c)[:EVAL_K], c.gold) for c in cands) / len(cands)


def tune(settings: Settings, limit: int = 0) -> list[SetTuning]:
    sets, _ = build_goldsets(settings, limit)
    pool = max(settings.retrieval.pool, EVAL_K)
    loaded = load_published(settings.paths.indexes)
    out: list[SetTuning] = []
    try:
        for name, questions in sets.items():
            collection = COLLECTION_FOR_SET[name]
            cands = [_candidates(loaded, collection, q, pool) for q in questions]
            tune_c = [c for q, c in zip(questions, cands) if not is_held_out(q.qid)]
            test_c = [c for q, c in zip(questions, cands) if is_held_out(q.qid)]
            tune_scores = {cfg: _mean_mrr(cfg, tune_c) for cfg in configs()}
            chosen = max(tune_scores, key=lambda cfg: tune_scores[cfg])
            reported = dict.fromkeys(["bm25", "dense", "rrf", chosen])
            test_scores = {cfg: _mean_mrr(cfg, test_c) for cfg in reported}
            out.append(SetTuning(name, collection, chosen, tune_scores, test_scores, len(tune_c), len(test_c)))
    finally:
        loaded.close()
    return out


def suggested_params(results: Sequence[SetTuning]) -> dict[str, dict[str, object]]:
    """The `retrieval.per_collection` block that encodes each collection's chosen configuration."""
    block: dict[str, dict[str, object]] = {}
    for r in results:
        if r.chosen.startswith("weighted:"):
            w = float(r.chosen.removeprefix("weighted:"))
            block[r.collection] = {"fusion": "weighted", "bm25_weight": w, "dense_weight": round(1 - w, 1)}
        else:
            block[r.collection] = {"fusion": r.chosen}
    return block
