"""Semantic response cache: reuse a verified answer for a question that means the same thing.

Why the guards: embeddings cannot tell "타이레놀 먹어도 되나요" from "타이레놀 먹으면 안 되나요"
(cosine ~0.99 with multilingual-e5) nor always one drug from another ("게보린" ~0.88). A hit
therefore needs all of: cosine >= `threshold` (FAISS IndexFlatIP over L2-normalised query vectors),
the same polarity signature (`yaksa.memory.polarity`), exactly the same entities (the `entities`
callable, e.g. drug names found in the query), and the same index bundle version. Only answers that
passed verification are stored, and answers built on another bundle are dropped as soon as a new
version is seen (on `lookup`, `store` or `set_bundle_version`).

Eviction is least-recently-used beyond `max_size` (a hit counts as a use). The cache is persisted as
one `.npz` file (`vectors`: float32 (n, dim); `meta`: UTF-8 JSON with the bundle version, the LRU
clock and the entries), written atomically on every store and reloaded on start. Several worker
processes each keep their own copy and reload the file when another one has rewritten it; recency
refreshed by hits is written with the next store. An unreadable file, or vectors of another
dimension (the embedder changed), empties the cache with a warning: it holds derived data only.

`answer` is an opaque JSON-able dict; with `style_variation=True` the string under its "answer" key
is lightly reworded on each hit (`yaksa.memory.style`).
"""

from __future__ import annotations

import copy
import json
import logging
import threading
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import faiss
import numpy as np

from yaksa.atomicio import atomic_write
from yaksa.memory.polarity import Polarity, question_polarity
from yaksa.memory.style import vary_style

log = logging.getLogger(__name__)
FORMAT_VERSION = 1


@dataclass(frozen=True)
class CacheHit:
    query: str                 # the cached question that matched
    answer: dict[str, Any]     # a copy of the stored answer (reworded when style variation is on)
    similarity: float
    bundle_version: str


@dataclass
class _Entry:
    query: str
    answer: dict[str, Any]
    polarity: Polarity
    entities: frozenset[str]
    last_used: int

    def to_json(self) -> dict[str, Any]:
        return {"query": self.query, "answer": self.answer, "cues": sorted(self.polarity.cues),
                "negators": self.polarity.negators, "entities": sorted(self.entities),
                "last_used": self.last_used}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> _Entry:
        return cls(query=data["query"], answer=data["answer"],
                   polarity=Polarity(frozenset(data["cues"]), int(data["negators"])),
                   entities=frozenset(data["entities"]), last_used=int(data["last_used"]))


def _normalise(query: str) -> str:
    return " ".join(query.split())


def _require_text(value: str, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty string, got {value!r}")
    return value


class ResponseCache:
    """Verified answers keyed by question meaning; thread-safe.

    Usage::

        cache = ResponseCache(Path("data/cache/responses.npz"), embedder.embed_query, drug_names)
        hit = cache.lookup(question, loaded.version)
        if hit is None:
            result = run_agent(question)
            cache.store(question, result_json, loaded.version, verified=result_passed)
    """

    def __init__(self, path: Path | None, embed: Callable[[str], np.ndarray],
                 entities: Callable[[str], frozenset[str]], threshold: float = 0.85,
                 max_size: int = 512, style_variation: bool = False) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        if max_size < 1:
            raise ValueError(f"max_size must be >= 1, got {max_size}")
        self.path = None if path is None else Path(path)
        self._embed, self._entities = embed, entities
        self.threshold, self.max_size, self.style_variation = threshold, max_size, style_variation
        self._lock = threading.Lock()
        self._entries: list[_Entry] = []
        self._vectors = np.zeros((0, 0), dtype=np.float32)
        self._index: faiss.IndexFlatIP | None = None
        self._version: str | None = None
        self._clock = 0
        self._stamp: tuple[int, int, int] | None = None
        with self._lock:
            self._reload_if_changed()

    @property
    def bundle_version(self) -> str | None:
        return self._version

    def __len__(self) -> int:
        return len(self._entries)

    # -- public operations -------------------------------------------------------------------

    def lookup(self, query: str, bundle_version: str) -> CacheHit | None:
        """The stored answer for a question meaning the same as `query` under `bundle_version`, or None."""
        _require_text(query, "query")
        _require_text(bundle_version, "bundle_version")
        vector, polarity, entities = self._key(query)
        with self._lock:
            self._reload_if_changed()
            self._switch_version(bundle_version)
            if self._index is None or vector.shape[0] != self._vectors.shape[1]:
                return None
            scores, ids = self._index.search(vector[None, :], len(self._entries))
            hit: CacheHit | None = None
            for score, i in zip(scores[0], ids[0], strict=True):
                if score < self.threshold:
                    break
                entry = self._entries[i]
                if entry.polarity == polarity and entry.entities == entities:
                    self._clock += 1
                    entry.last_used = self._clock
                    hit = CacheHit(entry.query, copy.deepcopy(entry.answer), float(score), bundle_version)
                    break
        if hit is not None and self.style_variation and isinstance(hit.answer.get("answer"), str):
            text = hit.answer["answer"]
            hit.answer["answer"] = vary_style(text, seed=query, protected=self._entities(text) | entities)
        return hit

    def store(self, query: str, answer: dict[str, Any], bundle_version: str, verified: bool) -> bool:
        """Remember a verified `answer` to `query`; False (nothing stored) when it was not verified."""
        _require_text(query, "query")
        _require_text(bundle_version, "bundle_version")
        if not isinstance(answer, dict):
            raise TypeError(f"answer must be a dict, got {type(answer).__name__}")
        try:
            json.dumps(answer, ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"answer must be JSON-serialisable: {exc}") from exc
        if not verified:
            return False
        vector, polarity, entities = self._key(query)
        with self._lock:
            self._reload_if_changed()
            self._switch_version(bundle_version, persist=False)
            if self._entries and vector.shape[0] != self._vectors.shape[1]:
                log.warning("response cache: query vectors changed dimension; emptying the cache")
                self._set_entries([], np.zeros((0, 0), dtype=np.float32))
            self._clock += 1
            entry = _Entry(_normalise(query), copy.deepcopy(answer), polarity, entities, self._clock)
            keep = [i for i, e in enumerate(self._entries) if e.query != entry.query]
            entries = [self._entries[i] for i in keep] + [entry]
            vectors = np.vstack([self._vectors[keep].reshape(len(keep), vector.shape[0]), vector[None, :]])
            if len(entries) > self.max_size:
                order = np.argsort([e.last_used for e in entries], kind="stable")[-self.max_size:]
                order.sort()
                entries, vectors = [entries[i] for i in order], vectors[order]
            self._set_entries(entries, vectors)
            self._persist()
        return True

    def set_bundle_version(self, bundle_version: str) -> None:
        """Declare the index bundle now served; a different one than the cache's empties it."""
        _require_text(bundle_version, "bundle_version")
        with self._lock:
            self._reload_if_changed()
            self._switch_version(bundle_version)

    # -- internals (called with the lock held, except _key) ------------------------------------

    def _key(self, query: str) -> tuple[np.ndarray, Polarity, frozenset[str]]:
        vector = np.asarray(self._embed(query), dtype=np.float32)
        if vector.ndim == 2 and vector.shape[0] == 1:
            vector = vector[0]
        norm = float(np.linalg.norm(vector)) if vector.ndim == 1 else 0.0
        if vector.ndim != 1 or not np.isfinite(norm) or norm == 0.0:
            raise ValueError(f"embed(query) must return one finite non-zero vector, got shape {vector.shape}")
        return vector / norm, question_polarity(query), frozenset(self._entities(query))

    def _switch_version(self, bundle_version: str, persist: bool = True) -> None:
        if self._version == bundle_version:
            return
        if self._entries:
            log.info("response cache: bundle %s -> %s, dropping %d answers",
                     self._version, bundle_version, len(self._entries))
        self._version = bundle_version
        self._set_entries([], np.zeros((0, 0), dtype=np.float32))
        if persist:
            self._persist()

    def _set_entries(self, entries: list[_Entry], vectors: np.ndarray) -> None:
        self._entries, self._vectors = entries, np.ascontiguousarray(vectors, dtype=np.float32)
        self._index = None
        if entries:
            self._index = faiss.IndexFlatIP(self._vectors.shape[1])
            self._index.add(self._vectors)

    def _file_stamp(self) -> tuple[int, int, int] | None:
        try:
            st = self.path.stat()  # type: ignore[union-attr]
        except FileNotFoundError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def _persist(self) -> None:
        if self.path is None:
            return
        meta = {"format": FORMAT_VERSION, "bundle_version": self._version, "clock": self._clock,
                "entries": [e.to_json() for e in self._entries]}
        meta_bytes = np.frombuffer(json.dumps(meta, ensure_ascii=False).encode("utf-8"), dtype=np.uint8)

        def write(tmp: Path) -> None:
            with open(tmp, "wb") as fh:
                np.savez(fh, vectors=self._vectors, meta=meta_bytes)

        atomic_write(self.path, write)
        self._stamp = self._file_stamp()

    def _reload_if_changed(self) -> None:
        if self.path is None:
            return
        stamp = self._file_stamp()
        if stamp is None or stamp == self._stamp:
            return
        self._stamp = stamp
        try:
            with np.load(self.path, allow_pickle=False) as data:
                meta = json.loads(data["meta"].tobytes().decode("utf-8"))
                vectors = np.asarray(data["vectors"], dtype=np.float32)
            if meta.get("format") != FORMAT_VERSION:
                raise ValueError(f"format {meta.get('format')!r}, expected {FORMAT_VERSION}")
            entries = [_Entry.from_json(e) for e in meta["entries"]]
            if len(entries) != (vectors.shape[0] if entries else 0):
                raise ValueError(f"{len(entries)} entries but {vectors.shape[0]} vectors")
        except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile) as exc:
            log.warning("response cache %s is unreadable (%s); starting empty", self.path, exc)
            return
        self._version, self._clock = meta["bundle_version"], max(self._clock, int(meta["clock"]))
        self._set_entries(entries, vectors)
