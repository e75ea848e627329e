"""Dense retrieval: FAISS inner product over L2-normalised float32 vectors (i.e. cosine similarity).

Flat (exact) is the default: at ~30k × 384 it answers in ~2 ms on two cores, so approximation buys
nothing yet. HNSW is there for when the corpus outgrows that. Indexes are read memory-mapped
(`IO_FLAG_MMAP_IFC`) so several worker processes share one copy of the vectors.

On a GPU host with a GPU build of FAISS (`faiss-gpu`: `faiss.get_num_gpus() > 0`), flat indexes are
built and searched on the GPU (`gpu=None`, the default, decides; `gpu=False` keeps the CPU). The file
written is always the CPU format (`index_gpu_to_cpu` first), so a bundle built on a GPU host is the
same bundle a CPU host builds and serves. HNSW has no GPU version in FAISS and stays on the CPU.

Usage:
    index = build_dense_index(vectors)             # (n, dim) float32
    rows, scores = search_dense(index, query_vec, k=10)
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from yaksa.atomicio import atomic_write
from yaksa.host import check_faiss_install

check_faiss_install()
import faiss  # after the check: with both wheels installed this import is a coin toss

KINDS: tuple[str, ...] = ("flat", "hnsw")
_gpu_resources: list[object] = []  # one StandardGpuResources per process, made on first GPU use


def faiss_gpus() -> int:
    """GPUs this FAISS build can use: 0 with the CPU wheel (no GPU symbols) or no visible GPU."""
    if not hasattr(faiss, "StandardGpuResources") or not hasattr(faiss, "get_num_gpus"):
        return 0
    try:
        return int(faiss.get_num_gpus())
    except RuntimeError:
        return 0


def use_faiss_gpu(kind: str, gpu: bool | None = None) -> bool:
    """Whether a `kind` index goes on the GPU: only flat ones, and only when FAISS sees a GPU.
    `gpu=None` decides by that; `gpu=True` insists (an error without one); `gpu=False` never."""
    if gpu is False:
        return False
    available = kind == "flat" and faiss_gpus() > 0
    if gpu and not available:
        raise ValueError(f"FAISS on the GPU asked for a {kind!r} index, but "
                         + ("only flat indexes run there" if kind != "flat" else "this FAISS build sees no GPU"))
    return available


def to_gpu(index: faiss.Index) -> faiss.Index:
    """A GPU copy of a CPU index on GPU 0 (the process's shared GPU resources)."""
    if not _gpu_resources:
        _gpu_resources.append(faiss.StandardGpuResources())
    return faiss.index_cpu_to_gpu(_gpu_resources[0], 0, index)


def to_cpu(index: faiss.Index) -> faiss.Index:
    """`index` itself when it is a CPU index, else its CPU copy (the format every bundle file has)."""
    gpu_index = getattr(faiss, "GpuIndex", None)
    return faiss.index_gpu_to_cpu(index) if gpu_index is not None and isinstance(index, gpu_index) else index


def _as_unit_rows(vectors: np.ndarray, what: str) -> np.ndarray:
    """Validate and return a C-contiguous float32 copy with every row scaled to unit length."""
    try:
        arr = np.array(vectors, dtype=np.float32, copy=True, order="C")
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what}: cannot be read as float32: {exc}") from exc
    if arr.ndim != 2:
        raise ValueError(f"{what}: expected a 2-D array (rows × dim), got shape {arr.shape}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{what}: empty array of shape {arr.shape}")
    finite = np.isfinite(arr).all(axis=1)
    if not finite.all():
        raise ValueError(f"{what}: row {int(np.flatnonzero(~finite)[0])} contains NaN or inf")
    norms = np.linalg.norm(arr, axis=1)
    if (norms == 0).any():
        raise ValueError(f"{what}: row {int(np.flatnonzero(norms == 0)[0])} is all zeros (no direction)")
    arr /= norms[:, None]
    return arr


def build_dense_index(
    vectors: np.ndarray, kind: str = "flat", hnsw_m: int = 32, ef_search: int = 64, gpu: bool | None = None
) -> faiss.Index:
    """Index row i of `vectors` as FAISS id i; vectors are normalised so inner product is cosine.
    A flat index lands on the GPU when `use_faiss_gpu` says so (module doc)."""
    if kind not in KINDS:
        raise ValueError(f"unknown FAISS index kind {kind!r}; expected one of {KINDS}")
    arr = _as_unit_rows(vectors, "document vectors")
    dim = arr.shape[1]
    if kind == "flat":
        index: faiss.Index = faiss.IndexFlatIP(dim)
        if use_faiss_gpu(kind, gpu):
            index = to_gpu(index)
    else:
        if hnsw_m < 2 or ef_search < 1:
            raise ValueError(f"HNSW parameters out of range: M={hnsw_m} (>= 2), efSearch={ef_search} (>= 1)")
        index = faiss.IndexHNSWFlat(dim, hnsw_m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efSearch = ef_search  # persisted by write_index
    index.add(arr)
    return index


def save_dense_index(index: faiss.Index, path: Path) -> None:
    """Write to a temp file in the same directory and rename, so `path` is never half-written;
    a GPU index is written in the CPU format."""
    cpu_index = to_cpu(index)
    atomic_write(Path(path), lambda tmp: faiss.write_index(cpu_index, str(tmp)))


def load_dense_index(path: Path, mmap: bool = True) -> faiss.Index:
    """Read an index; memory-map its vectors when this FAISS build supports it for the index type."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: FAISS index file not found")
    if mmap:
        # IO_FLAG_MMAP_IFC maps the codes of flat and HNSW indexes (faiss >= 1.9); the older
        # IO_FLAG_MMAP only applies to IVF lists and would silently read everything into RAM.
        flag = getattr(faiss, "IO_FLAG_MMAP_IFC", None)
        if flag is not None:
            try:
                return faiss.read_index(str(path), flag)
            except RuntimeError:
                pass  # this index type cannot be mapped: fall back to a normal read
    return faiss.read_index(str(path))


def search_dense(index: faiss.Index, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows and cosine scores of the k nearest vectors to one query, best first.

    FAISS pads with -1 when k exceeds what it can return (k > ntotal, or HNSW's beam runs out);
    those slots are dropped rather than passed on as row -1.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    q = np.asarray(query)
    if q.ndim == 1:
        q = q[None, :]
    if q.ndim != 2 or q.shape[0] != 1:
        raise ValueError(f"query: expected one vector of shape (dim,) or (1, dim), got {q.shape}")
    if q.shape[1] != index.d:
        raise ValueError(f"query: dimension {q.shape[1]} does not match the index dimension {index.d}")
    q = _as_unit_rows(q, "query")
    if index.ntotal == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
    scores, rows = index.search(q, min(int(k), index.ntotal))
    keep = rows[0] >= 0
    return rows[0][keep].astype(np.int64), scores[0][keep].astype(np.float32)


def search_dense_many(index: faiss.Index, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, scores), each (n_queries, min(k, ntotal)), for many queries in one FAISS call; a padded slot
    (FAISS's -1) has row -1 and score -inf. Why beside `search_dense`: the scope build asks the corpus about
    tens of thousands of sentence windows, and one call over all of them is a matrix product instead of a
    scan per window (the fp16 candidate search of USE collections took 1.7 ms a query one at a time)."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    q = np.asarray(queries)
    if q.ndim != 2 or q.shape[1] != index.d:
        raise ValueError(f"queries: expected shape (n, {index.d}), got {q.shape}")
    if index.ntotal == 0 or q.shape[0] == 0:
        return np.empty((q.shape[0], 0), dtype=np.int64), np.empty((q.shape[0], 0), dtype=np.float32)
    scores, rows = index.search(_as_unit_rows(q, "queries"), min(int(k), index.ntotal))
    scores = np.where(rows >= 0, scores, -np.inf).astype(np.float32)
    return rows.astype(np.int64), scores
