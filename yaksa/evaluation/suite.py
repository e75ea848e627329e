"""The retrieval evaluation suite: every fusion mode on every dev set, against one published bundle.

One run gives the ablation table (BM25 only, dense only, weighted, RRF) on the same bundle and the same
questions, appends one DuckDB snapshot row per (mode, set), and writes the DVC metrics file that
`dvc metrics show` / `dvc metrics diff` read. Each set is searched in the collection that holds its
gold documents; routing is evaluated separately.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from yaksa.config import FUSION_METHODS, Settings
from yaksa.corpus.ingest import read_documents
from yaksa.evaluation.goldsets import GoldQuestion, medquad_dev, pubmedqa_dev, restrict_to_corpus
from yaksa.evaluation.in_scope_ko import in_scope_conversational_ko
from yaksa.evaluation.korean import mfds_korean
from yaksa.evaluation.oos import out_of_scope_ko_en
from yaksa.evaluation.runner import evaluate_retrieval, oos_rates
from yaksa.evaluation.snapshot import write_dvc_metrics, write_snapshot
from yaksa.retrieval.loader import load_published
from yaksa.retrieval.searcher import Searcher

COLLECTION_FOR_SET = {"mfds_ko": "drugs", "medquad": "health", "pubmedqa": "literature"}
EVAL_K = 10
CONFIGURED = "configured"  # params.yaml as it stands, per-collection overrides included


@dataclass(frozen=True)
class SuiteResult:
    version: str
    table: dict[str, dict[str, dict[str, float]]]  # mode -> set -> means
    skipped: list[str]


def build_goldsets(settings: Settings, limit: int = 0) -> tuple[dict[str, list[GoldQuestion]], list[str]]:
    """The dev sets whose source files exist, restricted to documents that made it into the corpus."""
    docs = read_documents(settings.paths.documents)
    ids = {d.doc_id for d in docs}
    raw = settings.paths.raw
    sets: dict[str, list[GoldQuestion]] = {}
    skipped: list[str] = []
    drugs = [d for d in docs if d.collection == "drugs"]
    if drugs:
        sets["mfds_ko"] = restrict_to_corpus(mfds_korean(drugs), ids)
    else:
        skipped.append("mfds_ko: no drug documents in this build")
    medquad = raw / "medquad" / "dev_questions.jsonl"
    if medquad.exists():
        qs = medquad_dev(medquad, limit, passages=raw / "medquad" / "passages.jsonl")
        sets["medquad"] = restrict_to_corpus(qs, ids)
    else:
        skipped.append(f"medquad: {medquad.relative_to(settings.paths.root)} not found")
    pubmed = raw / "pubmedqa" / "dev_questions.jsonl"
    if pubmed.exists():
        sets["pubmedqa"] = restrict_to_corpus(pubmedqa_dev(pubmed, limit), ids)
    else:
        skipped.append(f"pubmedqa: {pubmed.relative_to(settings.paths.root)} not found")
    return {name: qs for name, qs in sets.items() if qs}, skipped


def is_held_out(qid: str) -> bool:
    """Deterministic half split of a dev set (tuning vs held-out), stable across runs and machines."""
    return hashlib.sha256(qid.encode("utf-8")).digest()[0] % 2 == 1


def guard_rates(searcher: Searcher, sets: dict[str, Sequence[GoldQuestion]], oos: Sequence[GoldQuestion],
                held_out: bool = False) -> tuple[dict[str, float], dict[str, float]]:
    """Block and false-block rates of the searcher's out-of-scope guard as configured (routing
    included), over all in-scope sets plus the conversational Korean questions; and per set."""
    sets = {**sets, "conversational_ko": in_scope_conversational_ko()}  # no gold: scope only

    def keep(q: GoldQuestion) -> bool:
        return not held_out or is_held_out(q.qid)

    verdicts = {q.question: searcher.search(q.question, k=1).blocked
                for q in [*oos, *(q for qs in sets.values() for q in qs)] if keep(q)}
    in_scope = [q for qs in sets.values() for q in qs if keep(q)]
    rates = oos_rates(verdicts.__getitem__, in_scope, [q for q in oos if keep(q)])
    per_set = {name: sum(verdicts[q.question] for q in qs if keep(q)) / max(1, sum(keep(q) for q in qs))
               for name, qs in sets.items()}
    return rates, per_set


def run_retrieval_suite(
    settings: Settings,
    modes: Sequence[str] = FUSION_METHODS,
    limit: int = 0,
    snapshot_db: Path | None = None,
    metrics_path: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> SuiteResult:
    sets, skipped = build_goldsets(settings, limit)
    loaded = load_published(settings.paths.indexes)
    table: dict[str, dict[str, dict[str, float]]] = {}
    try:
        for mode in modes:
            base = replace(settings.retrieval, pool=max(settings.retrieval.pool, EVAL_K))
            params = base if mode == CONFIGURED else replace(base, fusion=mode, per_collection={})
            searcher = Searcher(loaded, params)
            table[mode] = {}
            for name, questions in sets.items():
                collection = [COLLECTION_FOR_SET[name]]

                def search(q: str, collection: list[str] = collection, searcher: Searcher = searcher) -> list[str]:
                    return [h.doc_id for h in searcher.search(q, k=EVAL_K, collections=collection).hits]

                means = evaluate_retrieval(search, questions, k=EVAL_K).means
                table[mode][name] = means
                if progress:
                    progress(f"{mode:8s} {name:9s} n={int(means['n'])} MRR@10={means['mrr@10']:.3f}")
                if snapshot_db is not None:
                    write_snapshot(snapshot_db, bundle_version=loaded.version, config_name=mode, goldset=name,
                                   params=asdict(params), metrics=means)
            if mode == CONFIGURED and sets:
                rates, per_set = guard_rates(searcher, sets, out_of_scope_ko_en())
                table[mode]["oos"] = {**rates, **{f"false_block.{n}": v for n, v in per_set.items()}}
                if progress:
                    progress(f"{mode:8s} oos       block={rates['block_rate']:.3f} "
                             f"false-block={rates['false_block_rate']:.3f}")
                if snapshot_db is not None:
                    write_snapshot(snapshot_db, bundle_version=loaded.version, config_name=mode, goldset="oos",
                                   params=asdict(params), metrics=table[mode]["oos"])
        if metrics_path is not None:
            write_dvc_metrics(metrics_path, {f"{s}/{m}": v for m, by_set in table.items() for s, v in by_set.items()})
    finally:
        loaded.close()
    return SuiteResult(version=loaded.version, table=table, skipped=skipped)


def markdown_table(result: SuiteResult, metrics: Sequence[str] = ("mrr@10", "recall@10", "ndcg@10", "p@5")) -> str:
    sets = sorted({s for by_set in result.table.values() for s in by_set} - {"oos"})
    lines = ["| set | mode | n | " + " | ".join(metrics) + " |", "|---|---|---:|" + "---:|" * len(metrics)]
    for s in sets:
        best = max(result.table[m][s]["mrr@10"] for m in result.table if s in result.table[m])
        for mode, by_set in result.table.items():
            if s not in by_set:
                continue
            m = by_set[s]
            cells = [f"**{m[x]:.3f}**" if x == "mrr@10" and m[x] == best else f"{m[x]:.3f}" for x in metrics]
            lines.append(f"| {s} | {mode} | {int(m['n'])} | " + " | ".join(cells) + " |")
    oos = result.table.get(CONFIGURED, {}).get("oos")
    if oos:
        lines.append(f"\nout-of-scope guard ({CONFIGURED}): {oos['block_rate']:.1%} of "
                     f"{int(oos['n_out_of_scope'])} out-of-scope questions blocked, {oos['false_block_rate']:.1%} "
                     f"of {int(oos['n_in_scope'])} in-scope questions blocked")
    return "\n".join(lines)
