"""Semantic response cache: reuse a verified answer for a question that means the same thing.

Why the guards: embeddings cannot tell "타이레놀 먹어도 되나요" from "타이레놀 먹으면 안 되나요"
(cosine ~0.99 with multilingual-e5) nor always one drug from another ("게보린" ~0.88). A hit
therefore needs all of: cosine >= `threshold` (FAISS IndexFlatIP over L2-normalised query vectors),
the same polarity signature (`yaksa.memory.polarity`), exactly the same entities (the `entities`
callable, e.g. drug names found in the query), the same scope verdict string it was stored under
(e.g. "in_scope:<scope model id>", so a changed scope model never serves old verdicts) and the
same index bundle version: each bundle's answers live in their own file, and a lookup or store
under a version reads and writes only that version's (an answer is only valid for the documents it
was built on).

Why the abuse guards (`yaksa.memory.cache_guard`): entries are shared by all users, so one user's
abnormal message must not become another's answer. A question over 300 characters or a repetitive
one (a sentence said three times, mostly repeated 4-grams) is neither stored nor served; an answer
over 2,500 characters is not stored; a hit also needs the two questions to be close in *content*
(similar length, most character bigrams shared), not only in the vector, which sees "X" and "X X X
... X" as the same. An entry expires `ttl_s` (7 days by default) after it was stored, whatever its
hits: a hit never refreshes it, so a bad answer cannot live on by being served.

Why erasure wins a race: `store` takes `still_current`, a check the caller makes against the
profile store's erasure epoch (`yaksa.memory.profile_store`); it runs under the exclusive file lock,
so an erasure either bumped the epoch before it (the entry is refused) or its `forget_user`, which
the erasure runs after bumping the epoch, takes the lock after the entry is written and erases it.

Why the privacy rules: entries are shared by all users. `store` refuses a question carrying a
personal identifier (`yaksa.privacy.has_identifiers`: a name, phone, 주민등록번호, e-mail or card
number) or an answer text that carries one, and unverified answers. The question text is never
kept: an entry holds its vector, its guards, the answer, the `owner` who asked, when it was
stored, an `entry_id` (a keyed hash of the question, the key being a random salt kept in the file,
so an id cannot be turned back into words by guessing) and its content signature (bucketed keyed
hashes of its character bigrams and its length, `cache_guard.signature`). A `CacheHit` carries only that id, the similarity and the
answer, so nothing in a hit reveals another user's words. `forget_user` erases a user's entries.

Multi-process (`yaksa.memory.cache_file`): several server workers share the persisted files, one
per bundle version, so a worker moving to a new bundle never empties the cache of a worker still
on the old one, and a rollback finds the old bundle's answers again. Every mutation (store,
eviction, forget_user) holds an exclusive `fcntl.flock`, reloads the file, mutates, and replaces it
atomically; so an erasure by one worker is never undone by another worker's later store. A lookup
reloads when its file changed (one `stat`: mtime, size, inode), so no worker serves an erased entry
after its next lookup. Recency refreshed by hits is kept in memory, merged on reload, and written
with the next mutation. `forget_user` rewrites every bundle's file.

Eviction is least-recently-used beyond `max_size` per bundle. An unreadable file, one of another
format, or vectors of another dimension (the embedder changed) counts as empty, with a warning: it
holds derived data only. Until told a bundle version (`set_bundle_version`, or the version passed
to `lookup`/`store`), a cache opens the most recently written bundle file.

`answer` is an opaque JSON-able dict; with `style_variation=True` the string under its "answer" key
is lightly reworded on each hit (`yaksa.memory.style`).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import hmac
import json
import logging
import secrets
import threading
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import faiss
import numpy as np

from yaksa.memory import cache_file
from yaksa.memory.cache_guard import Signature, abnormal_answer, abnormal_question, content_match, signature
from yaksa.memory.polarity import Polarity, question_polarity
from yaksa.memory.profile_store import validate_user_id
from yaksa.memory.style import vary_style
from yaksa.privacy import has_identifiers

log = logging.getLogger(__name__)
ENTRY_ID_CHARS = 16
DEFAULT_TTL_S = 7 * 24 * 3600.0


@dataclass(frozen=True)
class CacheHit:
    entry_id: str              # keyed hash of the stored question: stable, not reversible to text
    similarity: float
    answer: dict[str, Any]     # a copy of the stored answer (reworded when style variation is on)
    bundle_version: str


@dataclass
class _Entry:
    entry_id: str
    answer: dict[str, Any]
    polarity: Polarity
    entities: frozenset[str]
    owner: str
    scope: str
    last_used: int
    signature: Signature
    stored_at: float           # Unix seconds: the entry expires `ttl_s` later

    def to_json(self) -> dict[str, Any]:
        return {"entry_id": self.entry_id, "answer": self.answer, "cues": sorted(self.polarity.cues),
                "negators": self.polarity.negators, "entities": sorted(self.entities),
                "owner": self.owner, "scope": self.scope, "last_used": self.last_used,
                "signature": self.signature.to_json(), "stored_at": self.stored_at}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> _Entry:
        return cls(entry_id=data["entry_id"], answer=data["answer"],
                   polarity=Polarity(frozenset(data["cues"]), int(data["negators"])),
                   entities=frozenset(data["entities"]), owner=data["owner"], scope=data["scope"],
                   last_used=int(data["last_used"]), signature=Signature.from_json(data["signature"]),
                   stored_at=float(data["stored_at"]))


def _require_text(value: str, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty string, got {value!r}")
    return value


def _require_scope(scope: str) -> str:
    if not isinstance(scope, str):
        raise TypeError(f"scope must be a string, got {type(scope).__name__}")
    return scope.strip()


class ResponseCache:
    """Verified answers keyed by question meaning; safe across threads and worker processes.

    Usage::

        cache = ResponseCache(Path("data/cache/responses.npz"), embedder.embed_query, drug_names)
        cache.set_bundle_version(loaded.version)   # reads data/cache/responses.<version>.npz
        hit = cache.lookup(question, loaded.version, scope="in_scope:oos-v3")
        if hit is None:
            result = run_agent(question)
            cache.store(question, result_json, loaded.version, verified=result_passed,
                        owner=user_id, scope="in_scope:oos-v3")
        cache.forget_user(user_id)       # on DELETE /v1/profile/<user_id>

    `clock` (Unix seconds) is for tests of expiry.
    """

    def __init__(self, path: Path | None, embed: Callable[[str], np.ndarray],
                 entities: Callable[[str], frozenset[str]], threshold: float = 0.85,
                 max_size: int = 512, style_variation: bool = False, ttl_s: float = DEFAULT_TTL_S,
                 clock: Callable[[], float] = time.time) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        if max_size < 1:
            raise ValueError(f"max_size must be >= 1, got {max_size}")
        if not ttl_s > 0:
            raise ValueError(f"ttl_s must be > 0, got {ttl_s}")
        self.path = None if path is None else Path(path)
        self._embed, self._entities = embed, entities
        self.threshold, self.max_size, self.style_variation = threshold, max_size, style_variation
        self.ttl_s, self._now = float(ttl_s), clock
        self._lock = threading.Lock()
        self._entries: list[_Entry] = []
        self._vectors = np.zeros((0, 0), dtype=np.float32)
        self._index: faiss.IndexFlatIP | None = None
        self._version: str | None = None
        self._salt = secrets.token_hex(16)
        self._clock = 0
        self._stamp: tuple[int, ...] | None = None
        if self.path is not None:
            with cache_file.locked(self.path):
                cache_file.remove_single_file(self.path)
            with self._lock:
                for newest in cache_file.bundle_files(self.path)[:1]:
                    try:
                        contents = cache_file.read(newest)
                    except cache_file.CacheFileError as exc:
                        log.warning("response cache %s is unreadable (%s); starting empty", newest, exc)
                        continue
                    if contents is not None:
                        self._use(contents.bundle_version)

    @property
    def bundle_version(self) -> str | None:
        return self._version

    def __len__(self) -> int:
        return len(self._entries)

    # -- public operations -------------------------------------------------------------------

    def lookup(self, query: str, bundle_version: str, scope: str,
               entities: frozenset[str] | None = None) -> CacheHit | None:
        """The stored answer for a question meaning the same as `query`, stored under the same
        `bundle_version` and `scope`, not expired, and close to `query` in content as well as in
        meaning; None otherwise (and always for an empty scope or an abnormal question). `entities`:
        the query's entities when the caller has them already (the agent's turn analysis)."""
        _require_text(query, "query")
        _require_text(bundle_version, "bundle_version")
        scope = _require_scope(scope)
        if not scope or abnormal_question(query) is not None:
            return None
        vector, polarity, entities = self._key(query, entities)
        with self._lock:
            self._use(bundle_version)
            if self._index is None or vector.shape[0] != self._vectors.shape[1]:
                return None
            scores, ids = self._index.search(vector[None, :], len(self._entries))
            hit: CacheHit | None = None
            content: Signature | None = None   # under the file's salt, so computed after _use
            oldest = self._now() - self.ttl_s
            for score, i in zip(scores[0], ids[0], strict=True):
                if score < self.threshold:
                    break
                entry = self._entries[i]
                if entry.scope != scope or entry.polarity != polarity or entry.entities != entities:
                    continue
                if entry.stored_at < oldest:
                    continue
                if content is None:
                    content = signature(query, self._salt)
                if content_match(entry.signature, content):
                    self._clock += 1
                    entry.last_used = self._clock
                    hit = CacheHit(entry.entry_id, float(score), copy.deepcopy(entry.answer), bundle_version)
                    break
        if hit is not None and self.style_variation and isinstance(hit.answer.get("answer"), str):
            text = hit.answer["answer"]
            hit.answer["answer"] = vary_style(text, seed=query, protected=self._entities(text) | entities)
        return hit

    def store(self, query: str, answer: dict[str, Any], bundle_version: str, verified: bool,
              owner: str, scope: str, still_current: Callable[[], bool] | None = None,
              entities: frozenset[str] | None = None) -> bool:
        """Remember `owner`'s verified `answer` to `query` under `scope`; False (nothing stored) when
        it was not verified, the scope is empty, the question or answer text has an identifier, the
        question is abnormal or the answer too long (`cache_guard`), or `still_current()`, called
        under the exclusive file lock, says the owner was erased since the turn began. `entities`: as
        for `lookup`."""
        admitted = self._storable(query, answer, bundle_version, verified, owner, scope, entities)
        if admitted is None:
            return False
        owner, scope, (vector, polarity, entities) = admitted
        with self._lock, self._file_lock():
            if still_current is not None and not still_current():
                log.info("response cache: not stored (the owner's profile was erased during the turn)")
                return False
            self._use(bundle_version, force=True)
            if self._entries and vector.shape[0] != self._vectors.shape[1]:
                log.warning("response cache: query vectors changed dimension; emptying the cache")
                self._set_entries([], np.zeros((0, 0), dtype=np.float32))
            self._clock += 1
            now = self._now()
            entry = _Entry(self._entry_id(query), copy.deepcopy(answer), polarity, entities, owner, scope,
                           self._clock, signature(query, self._salt), now)
            keep = [i for i, e in enumerate(self._entries)
                    if e.entry_id != entry.entry_id and e.stored_at >= now - self.ttl_s]   # expired: dropped
            entries = [self._entries[i] for i in keep] + [entry]
            vectors = np.vstack([self._vectors[keep].reshape(len(keep), vector.shape[0]), vector[None, :]])
            if len(entries) > self.max_size:
                order = np.argsort([e.last_used for e in entries], kind="stable")[-self.max_size:]
                order.sort()
                entries, vectors = [entries[i] for i in order], vectors[order]
            self._set_entries(entries, vectors)
            self._persist()
        return True

    def _storable(self, query: str, answer: dict[str, Any], bundle_version: str, verified: bool, owner: str,
                  scope: str, entities: frozenset[str] | None = None,
                  ) -> tuple[str, str, tuple[np.ndarray, Polarity, frozenset[str]]] | None:
        """The checks `store` makes before it takes any lock (its doc): the owner, the scope and the
        question's key when the answer may be stored; None when it may not; errors for bad input."""
        _require_text(query, "query")
        _require_text(bundle_version, "bundle_version")
        owner = validate_user_id(owner)
        scope = _require_scope(scope)
        if not isinstance(answer, dict):
            raise TypeError(f"answer must be a dict, got {type(answer).__name__}")
        try:
            json.dumps(answer, ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"answer must be JSON-serialisable: {exc}") from exc
        text = answer.get("answer")
        if not verified or not scope or has_identifiers(query) or (isinstance(text, str) and has_identifiers(text)):
            return None
        abnormal = abnormal_question(query) or abnormal_answer(text)
        if abnormal is not None:
            log.info("response cache: not stored (%s)", abnormal)
            return None
        return owner, scope, self._key(query, entities)

    def owned_by(self, user_id: str) -> int:
        """How many entries `user_id` created, over every bundle's file (as every worker sees them)."""
        uid = validate_user_id(user_id)
        with self._lock, self._file_lock():
            if self.path is None:
                return sum(1 for e in self._entries if e.owner == uid)
            count = 0
            for path in cache_file.bundle_files(self.path):
                contents = self._read_or_warn(path)
                count += sum(1 for e in (contents.entries if contents else []) if e.get("owner") == uid)
            return count

    def forget_user(self, user_id: str) -> int:
        """Erase every entry `user_id` created, in every bundle's file every worker reads; how many
        were erased. A file that cannot be read is deleted: what it holds cannot be checked."""
        uid = validate_user_id(user_id)
        with self._lock, self._file_lock():
            if self.path is None:
                keep = [i for i, e in enumerate(self._entries) if e.owner != uid]
                erased = len(self._entries) - len(keep)
                self._set_entries([self._entries[i] for i in keep], self._vectors[keep])
                return erased
            erased = 0
            for path in cache_file.bundle_files(self.path):
                try:
                    contents = cache_file.read(path)
                except cache_file.CacheFileError as exc:
                    log.warning("response cache %s is unreadable (%s); deleting it", path, exc)
                    path.unlink(missing_ok=True)
                    continue
                if contents is None:
                    continue
                keep = [i for i, e in enumerate(contents.entries) if e.get("owner") != uid]
                if len(keep) < len(contents.entries):
                    erased += len(contents.entries) - len(keep)
                    contents.entries = [contents.entries[i] for i in keep]
                    contents.vectors = contents.vectors[keep] if keep else np.zeros((0, 0), dtype=np.float32)
                    cache_file.write(path, contents, durable=True)
            self._reload(force=True)
        return erased

    def set_bundle_version(self, bundle_version: str) -> None:
        """Declare the index bundle now served: lookups and stores use that bundle's answers."""
        _require_text(bundle_version, "bundle_version")
        with self._lock:
            self._use(bundle_version)

    # -- internals (called with self._lock held, except _key) ---------------------------------

    def _key(self, query: str, entities: frozenset[str] | None = None) -> tuple[np.ndarray, Polarity, frozenset[str]]:
        vector = np.asarray(self._embed(query), dtype=np.float32)
        if vector.ndim == 2 and vector.shape[0] == 1:
            vector = vector[0]
        norm = float(np.linalg.norm(vector)) if vector.ndim == 1 else 0.0
        if vector.ndim != 1 or not np.isfinite(norm) or norm == 0.0:
            raise ValueError(f"embed(query) must return one finite non-zero vector, got shape {vector.shape}")
        return vector / norm, question_polarity(query), frozenset(self._entities(query) if entities is None else entities)

    def _entry_id(self, query: str) -> str:
        text = " ".join(query.split()).encode("utf-8")
        return hmac.new(self._salt.encode("ascii"), text, hashlib.sha256).hexdigest()[:ENTRY_ID_CHARS]

    def _file_lock(self) -> contextlib.AbstractContextManager[None]:
        """Exclusive across processes for mutations; a no-op for an in-memory cache."""
        return nullcontext() if self.path is None else cache_file.locked(self.path)

    def _use(self, bundle_version: str, force: bool = False) -> None:
        """Serve `bundle_version`'s answers: load its file when the version changes, else reload the
        file when it changed on disk (always with `force`, which mutations use under the file lock)."""
        if self._version == bundle_version:
            self._reload(force=force)
            return
        if self._entries:
            log.info("response cache: bundle %s -> %s", self._version, bundle_version)
        self._version = bundle_version
        self._set_entries([], np.zeros((0, 0), dtype=np.float32))   # another bundle's: not merged
        self._reload(force=True)

    def _set_entries(self, entries: list[_Entry], vectors: np.ndarray) -> None:
        self._entries, self._vectors = entries, np.ascontiguousarray(vectors, dtype=np.float32)
        self._index = None
        if entries:
            self._index = faiss.IndexFlatIP(self._vectors.shape[1])
            self._index.add(self._vectors)

    def _file(self) -> Path | None:
        if self.path is None or self._version is None:
            return None
        return cache_file.bundle_file(self.path, self._version)

    def _persist(self) -> None:
        path = self._file()
        if path is None:
            return
        created = not path.exists()
        contents = cache_file.CacheContents(self._version or "", self._salt, self._clock,
                                            [e.to_json() for e in self._entries], self._vectors)
        cache_file.write(path, contents, durable=False)
        self._stamp = cache_file.stamp(path)
        if created:
            cache_file.prune(self.path, keep=path)  # type: ignore[arg-type]

    def _read_or_warn(self, path: Path) -> cache_file.CacheContents | None:
        try:
            return cache_file.read(path)
        except cache_file.CacheFileError as exc:
            log.warning("response cache %s is unreadable (%s); treating it as empty", path, exc)
            return None

    def _reload(self, force: bool = False) -> None:
        """Adopt the bundle file's contents when it changed (module doc). The file is the truth: a
        missing or unreadable one means an empty cache."""
        path = self._file()
        if path is None:
            return
        stamp = cache_file.stamp(path)
        if stamp == self._stamp and not force:
            return
        self._stamp = stamp
        recency = {e.entry_id: e.last_used for e in self._entries}
        self._set_entries([], np.zeros((0, 0), dtype=np.float32))
        contents = self._read_or_warn(path) if stamp is not None else None
        if contents is None:
            return
        try:
            if contents.bundle_version != self._version:
                raise cache_file.CacheFileError(f"holds bundle {contents.bundle_version!r}, not {self._version!r}")
            entries = [_Entry.from_json(e) for e in contents.entries]
        except (cache_file.CacheFileError, KeyError, TypeError, ValueError) as exc:
            log.warning("response cache %s is unreadable (%s); treating it as empty", path, exc)
            return
        for e in entries:   # hits this process served since the file was written still count
            e.last_used = max(e.last_used, recency.get(e.entry_id, 0))
        self._salt, self._clock = contents.salt, max(self._clock, contents.clock)
        self._set_entries(entries, contents.vectors)
