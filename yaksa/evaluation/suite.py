"""The retrieval evaluation suite: every fusion mode on every dev set, against one published bundle.

One run gives the ablation table (BM25 only, dense only, weighted, RRF) on the same bundle and the same
questions, appends one DuckDB snapshot row per (mode, set), and writes the DVC metrics file that
`dvc metrics show` / `dvc metrics diff` read. Each set is searched in the collection that holds its
gold documents; routing is evaluated separately.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from yaksa.config import FUSION_METHODS, Settings
from yaksa.corpus.document import Document
from yaksa.corpus.ingest import read_documents
from yaksa.evaluation.goldsets import GoldQuestion, medquad_dev, pubmedqa_dev, restrict_to_corpus
from yaksa.evaluation.in_scope_ko import in_scope_questions
from yaksa.evaluation.korean import mfds_korean
from yaksa.evaluation.natural_ko import Hit, NaturalReport, evaluate_natural
from yaksa.evaluation.oos import out_of_scope_ko_en
from yaksa.evaluation.search_scoring import evaluate_retrieval, oos_rates
from yaksa.evaluation.snapshot import write_dvc_metrics, write_snapshot
from yaksa.retrieval.loader import load_published
from yaksa.retrieval.searcher import Searcher
from yaksa.scope.stage import ScopeStage
from yaksa.split import is_held_out

COLLECTION_FOR_SET = {"mfds_ko": "drugs", "medquad": "health", "pubmedqa": "literature"}
EVAL_K = 10
CONFIGURED = "configured"  # params.yaml as it stands, per-collection overrides included
NATURAL = "natural_ko"  # the natural Korean questions (held-out half), scored on the configured searcher


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


def guard_rates(scope: ScopeStage, sets: dict[str, Sequence[GoldQuestion]], oos: Sequence[GoldQuestion],
                held_out: bool = False) -> tuple[dict[str, float], dict[str, float]]:
    """Block and false-block rates of the scope stage over the dev sets plus the committed in-scope questions; and per set.

    The committed scope questions (`oos` and the in-scope set) always count on their held-out half
    only: the other half fitted the scope model. `held_out` restricts the dev sets to their held-out
    half too (they never fit the scope model, but retrieval settings were tuned on the other half).
    """
    sets = {**sets, "in_scope_set": in_scope_questions()}  # no gold: scope only
    exemplar_ids = {q.qid for q in (*oos, *sets["in_scope_set"])}

    def keep(q: GoldQuestion) -> bool:
        return is_held_out(q.qid) if held_out or q.qid in exemplar_ids else True

    verdicts = {q.question: not scope.decide(q.question).in_scope
                for q in [*oos, *(q for qs in sets.values() for q in qs)] if keep(q)}
    in_scope = [q for qs in sets.values() for q in qs if keep(q)]
    rates = oos_rates(verdicts.__getitem__, in_scope, [q for q in oos if keep(q)])
    per_set = {name: sum(verdicts[q.question] for q in qs if keep(q)) / max(1, sum(keep(q) for q in qs))
               for name, qs in sets.items()}
    return rates, per_set


def natural_report(searcher: Searcher, drugs: Sequence[Document], k: int) -> NaturalReport:
    """The natural Korean questions through `searcher` in the drugs collection, scored on both halves."""
    def search(question: str) -> list[Hit]:
        hits = searcher.search(question, k=k, collections=[COLLECTION_FOR_SET["mfds_ko"]]).hits
        return [Hit(str(h.metadata.get("item_seq", "")), str(h.metadata.get("section_key", ""))) for h in hits]

    return evaluate_natural(search, drugs, is_held_out, k=k)


def run_retrieval_suite(
    settings: Settings,
    modes: Sequence[str] = FUSION_METHODS,
    limit: int = 0,
    snapshot_db: Path | None = None,
    metrics_path: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> SuiteResult:
    sets, skipped = build_goldsets(settings, limit)
    documents = read_documents(settings.paths.documents) if CONFIGURED in modes else []
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
            drugs = [d for d in documents if d.collection == COLLECTION_FOR_SET["mfds_ko"]]
            if mode == CONFIGURED and drugs:
                report = natural_report(searcher, drugs, settings.retrieval.k)
                table[mode][NATURAL] = {**report.held_out, **{f"tuning.{m}": v for m, v in report.tuning.items()}}
                if progress:
                    progress(f"{mode:8s} {NATURAL} held-out n={int(report.held_out['n'])} "
                             f"first_ok={report.held_out['first_ok']:.3f} share={report.held_out['share']:.3f} "
                             f"intent_ok={report.held_out['intent_ok']:.3f} p@5={report.held_out.get('p@5', 0):.3f}")
                if snapshot_db is not None:
                    write_snapshot(snapshot_db, bundle_version=loaded.version, config_name=mode, goldset=NATURAL,
                                   params=asdict(params), metrics=table[mode][NATURAL])
            if mode == CONFIGURED and sets:
                scope = ScopeStage(loaded, searcher.query_vector, scope_params=settings.scope,
                                   catalog=searcher.catalog, cache_dir=settings.paths.embedding_cache,
                                   learned_dir=settings.paths.scope_model)
                rates, per_set = guard_rates(scope, sets, out_of_scope_ko_en())
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
    sets = sorted({s for by_set in result.table.values() for s in by_set} - {"oos", NATURAL})
    lines = ["| set | mode | n | " + " | ".join(metrics) + " |", "|---|---|---:|" + "---:|" * len(metrics)]
    for s in sets:
        best = max(result.table[m][s]["mrr@10"] for m in result.table if s in result.table[m])
        for mode, by_set in result.table.items():
            if s not in by_set:
                continue
            m = by_set[s]
            cells = [f"**{m[x]:.3f}**" if x == "mrr@10" and m[x] == best else f"{m[x]:.3f}" for x in metrics]
            lines.append(f"| {s} | {mode} | {int(m['n'])} | " + " | ".join(cells) + " |")
    natural = result.table.get(CONFIGURED, {}).get(NATURAL)
    if natural:
        lines.append(f"\n{NATURAL} ({CONFIGURED}, held-out n={int(natural['n'])}): first result about the target "
                     f"{natural['first_ok']:.1%}, share of top-k {natural['share']:.1%}, intent section in top-k "
                     f"{natural['intent_ok']:.1%}, symptom P@5 {natural.get('p@5', 0.0):.3f}")
    oos = result.table.get(CONFIGURED, {}).get("oos")
    if oos:
        lines.append(f"\nout-of-scope guard ({CONFIGURED}): {oos['block_rate']:.1%} of "
                     f"{int(oos['n_out_of_scope'])} out-of-scope questions blocked, {oos['false_block_rate']:.1%} "
                     f"of {int(oos['n_in_scope'])} in-scope questions blocked")
    return "\n".join(lines)
