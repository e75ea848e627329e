"""Retrieval latency per stage on the published bundle, with a rank-bm25 baseline side by side.

    python benchmarks/retrieval.py            # needs a published bundle and data/processed/tokens.parquet
    python benchmarks/retrieval.py --queries 200 --repeat 3

Queries: the MFDS-ko, MedQuAD and PubMedQA dev questions plus the out-of-scope questions (the mix
the service sees), each searched with the configured `params.yaml` settings. Three searchers run the
same queries in the same process, alternating query by query so machine noise hits all alike:

- `now`       — this checkout;
- `before`    — the searcher and document store of `--baseline-rev` (default: the revision before
  the cheaper turn, loaded from git by `benchmarks/baseline_code.py`): a DuckDB query per fetch and
  the flat FAISS scan, over the same bundle;
- `rank-bm25` — this checkout except that each collection's BM25 stage is rank-bm25 (BM25Okapi) over
  the same tokens (`yaksa.retrieval.bm25_reference`).

Reports p50/p95 per stage (expand, tokenize, focus, bm25, embed_query, faiss, fuse, focused, rerank, fetch), the
hybrid retrieval time excluding query embedding, end-to-end, the speed ratios, and how many queries
got exactly the same hits (doc ids, order, scores to 1e-5) now and before.
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from yaksa.host import configure_offline_env

configure_offline_env()

from baseline_code import BASELINE_REV, load_baseline

from yaksa.config import load_settings
from yaksa.corpus.ingest import read_documents
from yaksa.evaluation.natural_ko import load_questions
from yaksa.evaluation.oos import out_of_scope_ko_en
from yaksa.evaluation.suite import build_goldsets
from yaksa.pipeline.embed_stage import group_by_collection
from yaksa.pipeline.tokenize_stage import read_tokens
from yaksa.retrieval.bm25_reference import ReferenceBM25
from yaksa.retrieval.loader import LoadedBundle, load_published
from yaksa.retrieval.searcher import Searcher

STAGES = ("expand", "tokenize", "focus", "bm25", "embed_query", "faiss", "fuse", "focused", "rerank", "fetch")


def with_reference_bm25(loaded: LoadedBundle, settings) -> LoadedBundle:
    """A copy of the loaded bundle whose BM25 stage is rank-bm25 over the very same token lists."""
    docs = read_documents(settings.paths.documents)
    tokens = dict(zip((d.doc_id for d in docs), read_tokens(settings.paths.tokens, docs)))
    groups = group_by_collection(docs)
    collections = {}
    for name, col in loaded.bundle.collections.items():
        group = groups[name]
        first, last = col.documents([0, col.count - 1])
        if (first.doc_id, last.doc_id) != (group[0].doc_id, group[-1].doc_id):
            raise SystemExit(f"{name}: documents.parquet does not match the bundle's row order; rebuild first")
        ref = ReferenceBM25.build([tokens[d.doc_id] for d in group], k1=settings.index.bm25_k1, b=settings.index.bm25_b)
        collections[name] = replace(col, bm25=ref)
    return replace(loaded, bundle=replace(loaded.bundle, collections=collections))


def before_searcher(loaded: LoadedBundle, settings, rev: str):
    """The searcher of revision `rev` over the same bundle, with that revision's document store
    and dense search (the flat index itself)."""
    old = load_baseline(rev, ["yaksa/index/docstore.py", "yaksa/retrieval/searcher.py"])
    collections = {n: replace(c, docs=old["yaksa.index.docstore"].DocStore(c.docs.path), searched=None)
                   for n, c in loaded.bundle.collections.items()}
    before = replace(loaded, bundle=replace(loaded.bundle, collections=collections))
    return old["yaksa.retrieval.searcher"].Searcher(before, settings.retrieval)


def same_hits(a, b) -> bool:
    return [h.doc_id for h in a.hits] == [h.doc_id for h in b.hits] and all(
        abs(x.score - y.score) <= 1e-5 for x, y in zip(a.hits, b.hits, strict=True))


def percentiles(values: list[float]) -> tuple[float, float]:
    if not values:
        return float("nan"), float("nan")
    return float(np.percentile(values, 50)), float(np.percentile(values, 95))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--params", default=str(ROOT / "params.yaml"))
    ap.add_argument("--queries", type=int, default=300, help="queries sampled from the dev sets")
    ap.add_argument("--repeat", type=int, default=2, help="passes over the queries")
    ap.add_argument("--baseline-rev", default=BASELINE_REV, help="git revision of the 'before' code")
    args = ap.parse_args()

    settings = load_settings(args.params)
    sets, _ = build_goldsets(settings, limit=300)
    pool = [q.question for qs in sets.values() for q in qs] + [q.question for q in out_of_scope_ko_en()]
    pool += [q.question for q in load_questions()]  # natural Korean questions: the focused path
    random.Random(20261122).shuffle(pool)
    queries = pool[: args.queries]
    loaded = load_published(settings.paths.indexes)
    print(f"bundle {loaded.version}: {', '.join(f'{n} {c.count}' for n, c in loaded.bundle.collections.items())}")
    print("building the rank-bm25 baseline ...", flush=True)
    baseline = with_reference_bm25(loaded, settings)
    runs = {"now": Searcher(loaded, settings.retrieval), "before": before_searcher(loaded, settings, args.baseline_rev),
            "rank-bm25": Searcher(baseline, settings.retrieval)}
    for s in runs.values():  # warm-up: first-call costs are not what a running service pays
        for q in queries[:5]:
            s.search(q)
    samples: dict[str, dict[str, list[float]]] = {n: {} for n in runs}
    agree = 0
    for p in range(args.repeat):
        for i, q in enumerate(queries):
            names = list(runs) if (p + i) % 2 == 0 else list(reversed(runs))
            results = {}
            for name in names:
                searcher = runs[name]
                searcher.clear_query_cache()  # measure the embedding, not the query-vector cache
                results[name] = searcher.search(q)
                t = results[name].timings_ms
                row = samples[name]
                for stage in (*STAGES, "total"):
                    if stage in t:
                        row.setdefault(stage, []).append(t[stage])
                row.setdefault("hybrid_excl_embed", []).append(t["total"] - t.get("embed_query", 0.0))
            agree += same_hits(results["now"], results["before"])
    print(f"\n{len(queries)} queries x {args.repeat} passes (ms); before = {args.baseline_rev}\n")
    print("| stage | now p50 | now p95 | before p50 | before p95 | before / now (p50) | rank-bm25 p50 | "
          "rank-bm25 / now (p50) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for stage in (*STAGES, "hybrid_excl_embed", "total"):
        if stage not in samples["now"]:
            continue
        n50, n95 = percentiles(samples["now"][stage])
        b50, b95 = percentiles(samples["before"].get(stage, []))
        r50, _ = percentiles(samples["rank-bm25"].get(stage, []))
        print(f"| {stage} | {n50:.3f} | {n95:.3f} | {b50:.3f} | {b95:.3f} | {b50 / n50 if n50 else float('nan'):.1f}× "
              f"| {r50:.3f} | {r50 / n50 if n50 else float('nan'):.1f}× |")
    y = percentiles(samples["now"]["bm25"])[0]
    b = percentiles(samples["rank-bm25"]["bm25"])[0]
    h = percentiles(samples["now"]["hybrid_excl_embed"])[0]
    hb = percentiles(samples["before"]["hybrid_excl_embed"])[0]
    print(f"\nBM25 stage p50 {y:.2f} ms (target <= 2 ms); hybrid excluding query embedding p50 {h:.2f} ms, "
          f"before {hb:.2f} ms (target <= 2 ms); BM25 {b / y:.0f}x faster than rank-bm25 (target >= 20x); "
          f"same hits now and before: {agree}/{len(queries) * args.repeat} searches")
    loaded.close()


if __name__ == "__main__":
    main()
