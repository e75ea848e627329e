"""benchmarks/gpu.py --quick on this CPU machine: every step runs (or says why not) and the JSON is whole."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("torch")
pytest.importorskip("transformers")


def test_quick_run_on_cpu(tmp_path: Path) -> None:
    out = tmp_path / "gpu.json"
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "benchmarks/gpu.py", "--quick", "--device", "cpu", "--out", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads(out.read_text("utf-8"))
    assert data["errors"] == {}
    steps = data["steps"]
    assert {"tokenise", "corpus_e5_small_float32", "query_e5_small", "corpus_bge_m3_float32", "query_bge_m3",
            "flat_search", "cpu_ratio_e5_small"} <= set(steps)
    run = steps["corpus_bge_m3_float32"]
    assert run["texts"] == 300 and run["tokens"] > 0 and run["seconds"] > 0 and 0 <= run["padding_overhead"] < 1
    assert steps["query_e5_small"]["p50_ms"] > 0 and steps["query_e5_small"]["cuda_graphs"] is False
    assert "query_e5_small_cuda_graphs" not in steps  # graphs need CUDA
    assert steps["flat_search"]["random_at_scale"]["vectors"] == 20_000
    assert "half_precision" in data["skipped"]  # no CUDA: fp16/bf16 are refused, not faked
    assert data["environment"]["device"] == "cpu" and data["environment"]["corpus"] == "synthetic"


def test_budget_skips_steps_and_still_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "gpu.json"
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "benchmarks/gpu.py", "--quick", "--device", "cpu", "--budget-s", "0",
                           "--out", str(out)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads(out.read_text("utf-8"))
    assert data["steps"] == {} and "tokenise" in data["skipped"] and "needs ~" in data["skipped"]["tokenise"]


def test_corpus_file_is_required_outside_quick(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "benchmarks/gpu.py", "--device", "cpu", "--out", str(tmp_path / "x.json")],
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    assert proc.returncode != 0 and "--corpus is required" in proc.stderr
