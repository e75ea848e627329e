"""Loading a benchmark script as a module (the scripts are not a package: each runs on its own)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_script(name: str) -> ModuleType:
    """`benchmarks/<name>.py` imported as the module `name`."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def gpu_corpus() -> ModuleType:
    """benchmarks/gpu_corpus.py (packs what the GPU benchmarks read)."""
    return load_script("gpu_corpus")
