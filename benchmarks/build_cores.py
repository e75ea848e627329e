"""The embed and tokenize batches in one process against a pool on every core, side by side.

    .venv/bin/python benchmarks/build_cores.py --fraction 0.03 --repeats 2 --out benchmarks/measured/build-cores.json

Draws a seeded sample of each collection of the built corpus (`data/processed/documents.parquet`),
plans it with the stages' own batching (`plan_batches`, no cache: everything is embedded), and
runs the same batches with `build.runner: local` and `build.runner: processes`, alternating, so
both see the same machine. Reports wall seconds, CPU seconds (this process + reaped workers),
CPU use (CPU seconds per wall second, at most the cores), the ratio local / processes per backend,
and a projection of the whole corpus's embed time from each backend's per-document rate. The
vectors and tokens of both runners are compared bit for bit.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from yaksa.config import BuildParams, load_settings
from yaksa.corpus.ingest import read_documents
from yaksa.pipeline.batches import plan_batches
from yaksa.pipeline.build_report import cpu_seconds
from yaksa.pipeline.embed_stage import embed_batch, group_by_collection, spec_for
from yaksa.pipeline.process_pool import map_batches
from yaksa.pipeline.tokenize_stage import TokenizerSpec, tokenize_batch


def _run(build: BuildParams, fn: Any, work: list[tuple[Any, ...]]) -> tuple[float, float, list[Any]]:
    wall, cpu = time.perf_counter(), cpu_seconds()
    results = list(map_batches(build, fn, work))
    return time.perf_counter() - wall, cpu_seconds() - cpu, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--params", default=str(ROOT / "params.yaml"))
    parser.add_argument("--fraction", type=float, default=0.03, help="share of each collection embedded")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--workers", type=int, default=0, help="pool size (0 = one per core)")
    parser.add_argument("--seed", type=int, default=20261126)
    parser.add_argument("--out", default="")
    args = parser.parse_args()

    settings = load_settings(Path(args.params))
    docs = read_documents(settings.paths.documents)
    groups = group_by_collection(docs)
    rng = random.Random(args.seed)
    sample = {c: rng.sample(g, max(1, round(len(g) * args.fraction))) for c, g in sorted(groups.items())}
    # tasks of one embedder call: a sample has too few documents for the stage's 8-call tasks to give
    # every worker work (the full corpus has over 100 such tasks)
    batch_docs = settings.embed.batch_size
    by_spec: dict[Any, list[Any]] = defaultdict(list)
    for collection, group in sample.items():
        by_spec[spec_for(settings, collection)] += group
    embed_work: dict[str, list[tuple[Any, ...]]] = {}
    for spec, group in sorted(by_spec.items(), key=lambda kv: kv[0].backend):
        batches = plan_batches(f"bench-{spec.backend}", [d.content_hash for d in group],
                               [d.index_text for d in group], set(), batch_docs)
        embed_work[spec.backend] = [(spec, b) for b in batches]
    every = [d for g in sample.values() for d in g]
    token_spec = TokenizerSpec(settings.tokenizer.backend, tuple(settings.tokenizer.pos_filter),
                               settings.paths.userdict.read_bytes())
    token_work = [(token_spec, b) for b in plan_batches(
        "bench-tokenize", [d.content_hash for d in every], [d.index_text for d in every], set(),
        max(1, len(every) // 8))]

    local = replace(settings.build, runner="local", address="")
    pool = replace(settings.build, runner="processes", address="", workers=args.workers)
    load_before = os.getloadavg()
    runs: dict[str, dict[str, list[dict[str, float]]]] = defaultdict(lambda: defaultdict(list))
    outputs: dict[tuple[str, str], Any] = {}
    for repeat in range(args.repeats):
        for name, build in (("local", local), ("processes", pool)) if repeat % 2 == 0 else \
                (("processes", pool), ("local", local)):
            for backend, work in embed_work.items():
                wall, cpu, results = _run(build, embed_batch, work)
                runs[backend][name].append({"seconds": wall, "cpu_seconds": cpu})
                outputs[(backend, name)] = np.concatenate(
                    [r.vectors for r in sorted(results, key=lambda r: r.label)])
            wall, cpu, results = _run(build, tokenize_batch, token_work)
            runs["tokenize"][name].append({"seconds": wall, "cpu_seconds": cpu})
            outputs[("tokenize", name)] = [t for r in sorted(results, key=lambda r: r.label) for t in r.tokens]
            print(f"repeat {repeat} {name}: " + ", ".join(
                f"{k} {v[name][-1]['seconds']:.1f}s" for k, v in runs.items()), flush=True)

    docs_per_backend = {b: sum(len(bt.hashes) for _, bt in w) for b, w in embed_work.items()}
    corpus_per_backend: dict[str, int] = defaultdict(int)
    for collection, group in groups.items():
        corpus_per_backend[spec_for(settings, collection).backend] += len({d.content_hash for d in group})
    report: dict[str, Any] = {
        "machine": {"cores": os.cpu_count(), "load_average_before": [round(x, 2) for x in load_before],
                    "load_average_after": [round(x, 2) for x in os.getloadavg()]},
        "fraction": args.fraction, "repeats": args.repeats,
        "workers": pool.worker_count, "documents": {b: docs_per_backend.get(b, len(every)) for b in runs},
        "identical_outputs": {
            b: bool(np.array_equal(outputs[(b, "local")], outputs[(b, "processes")])) if b != "tokenize"
            else outputs[(b, "local")] == outputs[(b, "processes")] for b in runs},
        "stages": {},
    }
    projected = {"local": 0.0, "processes": 0.0}
    for part, by_runner in runs.items():
        entry: dict[str, Any] = {}
        for name, measured in by_runner.items():
            wall = float(np.median([m["seconds"] for m in measured]))
            cpu = float(np.median([m["cpu_seconds"] for m in measured]))
            entry[name] = {"seconds": round(wall, 2), "cpu_seconds": round(cpu, 2), "cpu_use": round(cpu / wall, 2)}
            if part in corpus_per_backend:
                rate = wall / docs_per_backend[part]
                entry[name]["projected_corpus_seconds"] = round(rate * corpus_per_backend[part], 1)
                projected[name] += rate * corpus_per_backend[part]
        entry["speedup"] = round(entry["local"]["seconds"] / entry["processes"]["seconds"], 2)
        report["stages"][part] = entry
    report["projected_embed_seconds"] = {k: round(v, 1) for k, v in projected.items()}
    text = json.dumps(report, indent=2, ensure_ascii=False)
    print(text)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text + "\n", "utf-8")


if __name__ == "__main__":
    main()
