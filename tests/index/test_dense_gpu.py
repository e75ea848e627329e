"""FAISS on the GPU or the CPU: the choice, and that a GPU index is written in the CPU format.

This machine's FAISS is the CPU wheel, so the GPU side is stood in for by fakes that record the calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from yaksa.index import dense
from yaksa.index.dense import (
    build_dense_index,
    faiss_gpus,
    load_dense_index,
    save_dense_index,
    search_dense,
    use_faiss_gpu,
)

faiss = dense.faiss


def test_cpu_wheel_or_no_gpu_means_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    if not hasattr(faiss, "StandardGpuResources"):
        assert faiss_gpus() == 0  # the CPU wheel: no GPU symbols at all
    monkeypatch.setattr(faiss, "StandardGpuResources", object, raising=False)
    monkeypatch.setattr(faiss, "get_num_gpus", lambda: 0, raising=False)
    assert faiss_gpus() == 0 and use_faiss_gpu("flat") is False
    index = build_dense_index(np.eye(4, dtype=np.float32))
    assert type(index) is faiss.IndexFlatIP


def test_choice_logic(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(faiss, "StandardGpuResources", object, raising=False)
    monkeypatch.setattr(faiss, "get_num_gpus", lambda: 2, raising=False)
    assert use_faiss_gpu("flat") is True and use_faiss_gpu("flat", True) is True
    assert use_faiss_gpu("flat", False) is False
    assert use_faiss_gpu("hnsw") is False  # no GPU HNSW in FAISS
    with pytest.raises(ValueError, match="only flat indexes"):
        use_faiss_gpu("hnsw", True)
    monkeypatch.setattr(faiss, "get_num_gpus", lambda: 0)
    with pytest.raises(ValueError, match="sees no GPU"):
        use_faiss_gpu("flat", True)


class _FakeGpuIndex:
    """Stands in for a GpuIndexFlatIP: searches through the CPU index it wraps."""

    def __init__(self, cpu: Any) -> None:
        self.cpu = cpu
        self.d = cpu.d

    @property
    def ntotal(self) -> int:
        return self.cpu.ntotal

    def add(self, x: np.ndarray) -> None:
        self.cpu.add(x)

    def search(self, q: np.ndarray, k: int) -> Any:
        return self.cpu.search(q, k)


def test_gpu_index_is_built_searched_and_written_as_cpu(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    calls: list[str] = []
    monkeypatch.setattr(faiss, "StandardGpuResources", lambda: calls.append("resources") or "res", raising=False)
    monkeypatch.setattr(faiss, "get_num_gpus", lambda: 1, raising=False)
    monkeypatch.setattr(faiss, "GpuIndex", _FakeGpuIndex, raising=False)
    monkeypatch.setattr(faiss, "index_cpu_to_gpu",
                        lambda res, dev, idx: calls.append(f"to_gpu:{res}:{dev}") or _FakeGpuIndex(idx), raising=False)
    monkeypatch.setattr(faiss, "index_gpu_to_cpu", lambda idx: calls.append("to_cpu") or idx.cpu, raising=False)
    monkeypatch.setattr(dense, "_gpu_resources", [])
    vectors = np.random.default_rng(0).normal(size=(20, 8)).astype(np.float32)
    index = build_dense_index(vectors)
    assert isinstance(index, _FakeGpuIndex) and calls == ["resources", "to_gpu:res:0"]
    rows, scores = search_dense(index, vectors[3], k=2)
    assert rows[0] == 3 and scores[0] == pytest.approx(1.0, abs=1e-5)
    save_dense_index(index, tmp_path / "dense.faiss")
    assert calls[-1] == "to_cpu"
    back = load_dense_index(tmp_path / "dense.faiss", mmap=False)
    assert type(back) is faiss.IndexFlatIP and back.ntotal == 20  # the CPU format on disk
    build_dense_index(vectors)
    assert calls.count("resources") == 1  # one set of GPU resources per process
    assert type(build_dense_index(vectors, gpu=False)) is faiss.IndexFlatIP
