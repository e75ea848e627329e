"""Build benchmark: per-stage throughput and peak memory for a cold build, then a warm rebuild; or
the embed stage on each task runner.

    python benchmarks/build.py                  # full corpus from data/raw (run `yaksa link-data` and
                                                # `yaksa build synthea` first, or `dvc repro`)
    python benchmarks/build.py --limit 200      # quick look on a subset
    python benchmarks/build.py --runners --limit 60   # embed stage: in process, 1 and 2 local Dask workers

It works in `benchmarks/results/build-work/` (its own processed data, embedding cache and indexes,
reading the project's data/raw), so the served bundle is never touched. The cold pass starts from
empty caches; the warm pass repeats ingest → index with the caches the cold pass left, which is what a
nightly rebuild with unchanged sources costs. Both run in the same process, side by side.

`--runners` ingests (without the Synthea notes, which ignore `--limit`) and tokenizes once, then
embeds the same documents from an empty embedding cache with each runner in turn, in the same
process: the local runner (this process, every core), and the Prefect flow on a local Dask cluster
of 1 and of 2 single-threaded workers (each worker loads its own models; the time includes that and
the cluster start). Task sizes are the params file's (`build.embed_batches_per_task`). It also
checks that every runner wrote the same vectors, byte for byte.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import Any, Self

import psutil
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from yaksa.host import configure_offline_env

configure_offline_env()

from yaksa.config import BuildParams, load_settings
from yaksa.pipeline.stages import run_stage

STAGES = ("ingest", "tokenize", "embed", "index")


class PeakRSS:
    """Samples this process's resident memory while a stage runs (ru_maxrss only ever grows)."""

    def __init__(self, interval: float = 0.05) -> None:
        self.interval = interval
        self.peak = 0
        self._stop = threading.Event()
        self._proc = psutil.Process()

    def __enter__(self) -> Self:
        self.peak = self._proc.memory_info().rss
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._proc.memory_info().rss)
            time.sleep(self.interval)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def make_workspace(params_path: Path, work: Path, limit: int, synthea: bool = True) -> Path:
    params = yaml.safe_load(params_path.read_text("utf-8"))
    raw = (params_path.parent / params["paths"]["raw"]).resolve()
    params["paths"] = {
        "raw": str(Path(*([".."] * len(work.relative_to(ROOT).parts))) / raw.relative_to(ROOT)),
        "processed": "processed",
        "indexes": "indexes",
        "embedding_cache": "cache/embeddings",
    }
    params["ingest"]["limit_per_source"] = limit
    if not synthea:  # the Synthea notes ignore limit_per_source: all ~5,500 notes of the 80 patients
        params["sources"]["synthea"] = ""
    work.mkdir(parents=True, exist_ok=True)
    out = work / "params.yaml"
    out.write_text(yaml.safe_dump(params, allow_unicode=True, sort_keys=False), "utf-8")
    return out


def documents_in(params: Path) -> list[Any]:
    from yaksa.corpus.ingest import read_documents

    return read_documents(load_settings(params).paths.documents)


def run_pass(params: Path, label: str) -> list[dict[str, Any]]:
    settings = load_settings(params)
    rows: list[dict[str, Any]] = []
    docs = 0
    for stage in STAGES:
        with PeakRSS() as mem:
            t0 = time.perf_counter()
            summary = run_stage(stage, settings, progress=False)
            seconds = time.perf_counter() - t0
        if stage == "ingest":
            docs = int(sum(summary.get("collections", {}).values()) or summary.get("documents", 0))
        work = {"tokenize": summary.get("tokenized"), "embed": summary.get("embedded")}.get(stage, docs)
        rows.append(
            {
                "pass": label,
                "stage": stage,
                "seconds": round(seconds, 2),
                "documents": docs,
                "processed": work,
                "docs_per_s": round((work or 0) / seconds, 1) if seconds > 0 else None,
                "peak_rss_mb": round(mem.peak / 2**20),
                "summary": summary,
            }
        )
        print(f"  {label:5s} {stage:9s} {seconds:8.1f} s  processed={work}  peak={mem.peak / 2**20:.0f} MB", flush=True)
    return rows


RUNNERS: tuple[tuple[str, BuildParams], ...] = (
    ("local (in process)", BuildParams()),
    ("dask, 1 worker", BuildParams(runner="dask", workers=1)),
    ("dask, 2 workers", BuildParams(runner="dask", workers=2)),
)


def _vectors_digest(directory: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(directory.glob("*.npy")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def run_runners(params: Path) -> list[dict[str, Any]]:
    from flows.build_index import build_flow

    settings = load_settings(params)
    for stage in ("ingest", "tokenize"):
        run_stage(stage, settings, progress=False)
    rows: list[dict[str, Any]] = []
    for label, build in RUNNERS:
        shutil.rmtree(settings.paths.embedding_cache, ignore_errors=True)
        shutil.rmtree(settings.paths.embeddings, ignore_errors=True)
        t0 = time.perf_counter()
        if build.runner == "local":
            summary = run_stage("embed", settings, progress=False)
        else:
            summary = build_flow(build)(params=str(params), stages=["embed"], publish=False)["embed"]
        seconds = time.perf_counter() - t0
        rows.append({
            "runner": label,
            "seconds": round(seconds, 1),
            "embedded": summary["embedded"],
            "docs_per_s": round(summary["embedded"] / seconds, 1),
            "vectors_sha256": _vectors_digest(settings.paths.embeddings),
        })
        print(f"  {label:20s} {seconds:7.1f} s  embedded={summary['embedded']}", flush=True)
    base = rows[0]["seconds"]
    for r in rows:
        r["speedup_vs_local"] = round(base / r["seconds"], 2)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description="cold vs warm build benchmark")
    parser.add_argument("--params", type=Path, default=ROOT / "params.yaml")
    parser.add_argument("--limit", type=int, default=0, help="records per source (0 = all)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "build.json")
    parser.add_argument("--runners", action="store_true", help="the embed stage on each task runner instead")
    args = parser.parse_args()
    work = ROOT / "benchmarks" / "results" / "build-work"
    shutil.rmtree(work, ignore_errors=True)
    params = make_workspace(args.params.resolve(), work, args.limit, synthea=not args.runners)
    if args.runners:
        print("embed stage from an empty embedding cache, per runner:", flush=True)
        rows = run_runners(params)
        docs = len(documents_in(params))
        out = args.out.with_name("build_runners.json")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"documents": docs, "limit_per_source": args.limit, "runs": rows}, indent=2), "utf-8")
        print(f"\n{docs} documents ({args.limit} records per source)\n")
        print("| runner | seconds | embedded | docs/s | vs local | same vectors |")
        print("|---|---:|---:|---:|---:|---|")
        for r in rows:
            same = "yes" if r["vectors_sha256"] == rows[0]["vectors_sha256"] else "NO"
            print(f"| {r['runner']} | {r['seconds']} | {r['embedded']} | {r['docs_per_s']} | "
                  f"{r['speedup_vs_local']}x | {same} |")
        return
    print("cold build (empty token and embedding caches):")
    cold = run_pass(params, "cold")
    print("warm rebuild (same sources, caches from the cold build):")
    warm = run_pass(params, "warm")
    cold_total = sum(r["seconds"] for r in cold)
    warm_total = sum(r["seconds"] for r in warm)
    result = {
        "documents": cold[0]["documents"],
        "cold_total_s": round(cold_total, 1),
        "warm_total_s": round(warm_total, 1),
        "warm_over_cold": round(warm_total / cold_total, 3),
        "stages": cold + warm,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, ensure_ascii=False, indent=2, default=str), "utf-8")
    print("\n| pass | stage | seconds | processed docs | docs/s | peak RSS MB |")
    print("|---|---|---:|---:|---:|---:|")
    for r in cold + warm:
        print(f"| {r['pass']} | {r['stage']} | {r['seconds']} | {r['processed']} | {r['docs_per_s']} | {r['peak_rss_mb']} |")
    print(f"\n{result['documents']} documents: cold {cold_total:.0f} s, warm {warm_total:.0f} s "
          f"(warm/cold = {result['warm_over_cold']})")


if __name__ == "__main__":
    main()
