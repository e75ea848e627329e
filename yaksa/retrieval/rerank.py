"""Second-stage rerankers behind one small protocol, chosen by a config key.

Why a protocol and a factory: production runs a cross-encoder (e.g. bge-reranker-v2-m3) on a GPU,
while offline no reranker weights exist and the system must still run, so `none` keeps the
first-stage order. Every backend returns `(passage index, score)` pairs, best first (ties: lower
index first), after a `min_score` filter and `top_k` cut.

Model backends score on a sigmoid scale in [0, 1], so one `min_score` (the pharmacist design uses
0.005) and one out-of-scope threshold mean the same thing for every model. Cross-encoders cost
seconds per query on CPU, so more than `max_candidates` (at most 50) passages is refused rather
than silently slow. torch, sentence-transformers and FlagEmbedding are imported only when a model
backend is built: serving with `none` never loads them.

Usage:
    rr = make_reranker("cross_encoder", {"model": "/models/bge-reranker-v2-m3"})
    rr.rerank("타이레놀 부작용", ["간 손상 주의 ...", "소화불량 ..."], top_k=5)  # -> [(0, 0.93)]
    make_reranker("none").rerank("q", ["a", "b"], scores=[0.03, 0.01])      # -> [(0, 0.03), (1, 0.01)]
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from yaksa.config import RERANKERS

MAX_CANDIDATES = 50
DEFAULT_MIN_SCORE = 0.005  # on sigmoid-normalised scores
KINDS: tuple[str, ...] = RERANKERS  # the config validates the same names


@runtime_checkable
class Reranker(Protocol):
    """What the retrieval pipeline needs from a reranker."""

    name: str

    def identity(self) -> dict[str, Any]:
        """Plain-JSON description (kind, model, thresholds) for response metadata and run params."""
        ...

    def rerank(
        self,
        query: str,
        passages: Sequence[str],
        top_k: int | None = None,
        scores: Sequence[float] | None = None,
    ) -> list[tuple[int, float]]:
        """(index into passages, score), best first, filtered by min_score and cut to top_k.

        `scores` are the first-stage scores; only the `none` backend uses them.
        """
        ...


def _check_settings(min_score: float | None, max_candidates: int) -> None:
    if min_score is not None and (
        isinstance(min_score, bool) or not isinstance(min_score, (int, float)) or not math.isfinite(min_score)
    ):
        raise ValueError(f"min_score must be a finite number or None, got {min_score!r}")
    if isinstance(max_candidates, bool) or not isinstance(max_candidates, int) or not (
        1 <= max_candidates <= MAX_CANDIDATES
    ):
        raise ValueError(f"max_candidates must be an integer in 1..{MAX_CANDIDATES}, got {max_candidates!r}")


def _check_request(query: str, passages: Sequence[str], top_k: int | None, max_candidates: int) -> None:
    if not isinstance(query, str) or not query.strip():
        raise ValueError(f"query must be a non-empty string, got {query!r}")
    if isinstance(passages, str) or not all(isinstance(p, str) for p in passages):
        raise ValueError("passages must be a sequence of strings")
    if len(passages) > max_candidates:
        raise ValueError(
            f"passages: {len(passages)} candidates exceed the reranker cap of {max_candidates}; "
            "fetch fewer first-stage candidates"
        )
    if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1):
        raise ValueError(f"top_k must be a positive integer or None, got {top_k!r}")


def _select(scores: Sequence[float], min_score: float | None, top_k: int | None) -> list[tuple[int, float]]:
    """Sort by score (ties: lower index), drop scores below min_score, keep top_k."""
    pairs = [(i, float(s)) for i, s in enumerate(scores) if min_score is None or s >= min_score]
    pairs.sort(key=lambda p: (-p[1], p[0]))
    return pairs if top_k is None else pairs[:top_k]


def _resolve_device(device: str) -> str:
    """'auto' picks the first CUDA device when there is one: rerankers are too slow on CPU to prefer it."""
    if device != "auto":
        return device
    import torch  # lazy: only model backends need torch

    return "cuda" if torch.cuda.is_available() else "cpu"


class NoReranker:
    """Keeps the first-stage order and scores; without scores, a passage at rank r gets 1/r.

    1/r keeps "scores descend along the list" true without inventing relevance. min_score defaults
    to None here because first-stage scores (RRF, BM25) are not on the sigmoid scale.
    """

    name = "none"

    def __init__(self, min_score: float | None = None, max_candidates: int = MAX_CANDIDATES) -> None:
        _check_settings(min_score, max_candidates)
        self.min_score = min_score
        self.max_candidates = max_candidates

    def identity(self) -> dict[str, Any]:
        return {"kind": self.name, "min_score": self.min_score, "max_candidates": self.max_candidates}

    def rerank(
        self,
        query: str,
        passages: Sequence[str],
        top_k: int | None = None,
        scores: Sequence[float] | None = None,
    ) -> list[tuple[int, float]]:
        _check_request(query, passages, top_k, self.max_candidates)
        if scores is None:
            scores = [1.0 / r for r in range(1, len(passages) + 1)]
        elif len(scores) != len(passages):
            raise ValueError(f"scores: {len(scores)} scores for {len(passages)} passages")
        kept = [(i, float(s)) for i, s in enumerate(scores) if self.min_score is None or s >= self.min_score]
        return kept if top_k is None else kept[:top_k]


class _ModelReranker:
    """Shared request handling for the model backends; subclasses implement `_score`."""

    name = ""

    def __init__(self, model: str, device: str, min_score: float | None, max_candidates: int,
                 batch_size: int, max_length: int) -> None:
        _check_settings(min_score, max_candidates)
        if not isinstance(model, str) or not model:
            raise ValueError(f"model must be a local path or hub name, got {model!r}")
        for label, value in (("batch_size", batch_size), ("max_length", max_length)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{label} must be a positive integer, got {value!r}")
        self.model = model
        self.device = _resolve_device(device)
        self.min_score = min_score
        self.max_candidates = max_candidates
        self.batch_size = batch_size
        self.max_length = max_length

    def identity(self) -> dict[str, Any]:
        return {"kind": self.name, "model": self.model, "device": self.device, "min_score": self.min_score,
                "max_candidates": self.max_candidates, "max_length": self.max_length}

    def _score(self, pairs: list[tuple[str, str]]) -> list[float]:
        raise NotImplementedError

    def rerank(
        self,
        query: str,
        passages: Sequence[str],
        top_k: int | None = None,
        scores: Sequence[float] | None = None,  # ignored: the model re-scores by design
    ) -> list[tuple[int, float]]:
        _check_request(query, passages, top_k, self.max_candidates)
        if not passages:
            return []
        return _select(self._score([(query, p) for p in passages]), self.min_score, top_k)


class CrossEncoderReranker(_ModelReranker):
    """sentence-transformers CrossEncoder with a sigmoid on its single logit."""

    name = "cross_encoder"

    def __init__(self, model: str, device: str = "auto", min_score: float | None = DEFAULT_MIN_SCORE,
                 max_candidates: int = MAX_CANDIDATES, batch_size: int = 16, max_length: int = 512) -> None:
        super().__init__(model, device, min_score, max_candidates, batch_size, max_length)
        import torch
        from sentence_transformers import CrossEncoder

        # An explicit sigmoid: some rerankers save an identity activation, which would leave raw
        # logits and make min_score / the out-of-scope threshold mean something else per model.
        self._ce = CrossEncoder(model, device=self.device, max_length=max_length, activation_fn=torch.nn.Sigmoid())
        if self._ce.num_labels != 1:
            raise ValueError(f"model {model!r} has {self._ce.num_labels} labels; a reranker needs exactly 1")
        # a model cannot read past its position embeddings: long label sections would crash it
        positions = getattr(self._ce.model.config, "max_position_embeddings", None)
        if positions and self._ce.max_length > positions:
            self._ce.max_length = positions

    def _score(self, pairs: list[tuple[str, str]]) -> list[float]:
        out = self._ce.predict(pairs, batch_size=self.batch_size, show_progress_bar=False, convert_to_numpy=True)
        return [float(s) for s in out.reshape(-1)]


class FlagRerankerBackend(_ModelReranker):
    """FlagEmbedding FlagReranker (bge-reranker family) with normalize=True (sigmoid), fp16 on CUDA."""

    name = "flag"

    def __init__(self, model: str, device: str = "auto", min_score: float | None = DEFAULT_MIN_SCORE,
                 max_candidates: int = MAX_CANDIDATES, batch_size: int = 16, max_length: int = 512) -> None:
        super().__init__(model, device, min_score, max_candidates, batch_size, max_length)
        from FlagEmbedding import FlagReranker

        # One explicit device: with devices=None FlagEmbedding starts a process pool over every GPU.
        self._fr = FlagReranker(model, use_fp16=self.device.startswith("cuda"), devices=[self.device],
                                normalize=True, batch_size=batch_size, max_length=max_length)

    def _score(self, pairs: list[tuple[str, str]]) -> list[float]:
        return [float(s) for s in self._fr.compute_score(pairs)]


_BACKENDS: dict[str, type] = {"none": NoReranker, "cross_encoder": CrossEncoderReranker,
                              "flag": FlagRerankerBackend}


def make_reranker(kind: str, options: Mapping[str, Any] | None = None) -> Reranker:
    """Build the backend named by `kind` from config `options` (its constructor's keyword arguments).

    Unknown kinds and option names are refused here, at startup, not at the first query.
    """
    if kind not in _BACKENDS:
        raise ValueError(f"kind: unknown reranker {kind!r}; expected one of {KINDS}")
    cls = _BACKENDS[kind]
    opts = dict(options or {})
    params = {n: p for n, p in inspect.signature(cls.__init__).parameters.items() if n != "self"}
    unknown = sorted(set(opts) - set(params))
    if unknown:
        raise ValueError(f"options: unknown option(s) {unknown} for reranker {kind!r}; allowed: {list(params)}")
    missing = [n for n, p in params.items() if p.default is inspect.Parameter.empty and n not in opts]
    if missing:
        raise ValueError(f"options: reranker {kind!r} needs option(s) {missing}")
    return cls(**opts)
