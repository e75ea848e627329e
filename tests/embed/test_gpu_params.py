"""params.gpu.yaml: the same build as params.yaml except the embedder, and options the backend takes."""

from __future__ import annotations

import inspect
from pathlib import Path

import yaml

from yaksa.config import load_settings
from yaksa.embed.base import embedder_class

ROOT = Path(__file__).resolve().parents[2]


def test_only_the_embedder_differs_from_params_yaml() -> None:
    base = yaml.safe_load((ROOT / "params.yaml").read_text("utf-8"))
    gpu = yaml.safe_load((ROOT / "params.gpu.yaml").read_text("utf-8"))
    assert set(base) == set(gpu)
    for section in base:
        if section == "embed":
            continue
        if section == "build":  # one GPU: the batches in one process (a pool would load a model per process)
            own = {"embed_batches_per_task", "runner"}
            assert gpu[section]["runner"] == "local"
            assert {k: v for k, v in gpu[section].items() if k not in own} == \
                   {k: v for k, v in base[section].items() if k not in own}
            continue
        assert gpu[section] == base[section], f"params.gpu.yaml section {section!r} drifted from params.yaml"


def test_every_collection_uses_bge_m3_with_options_the_backend_accepts() -> None:
    settings = load_settings(ROOT / "params.gpu.yaml")
    assert settings.embed.default == "bge_m3" and not settings.embed.per_collection
    options = settings.embed.options_for("bge_m3")
    inspect.signature(embedder_class("bge_m3")).bind(**options)  # a typo here would raise
    assert options["model"] == "$YAKSA_BGE_M3_MODEL" and options["dtype"] == "auto"
