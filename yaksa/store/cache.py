"""The response cache in PostgreSQL: every host stores into and erases from one table, and each
process answers lookups from its own in-memory copy of its bundle's rows.

Why not pgvector: the server extension is not packaged everywhere (not on the machines this was
built on), and it is not needed: a bundle holds at most `max_size` entries (512), which FAISS's flat
index searches in microseconds. So each process keeps the rows of the bundle it serves in memory
(the same `_Entry` list and FAISS index as the file cache, `yaksa.memory.response_cache`, whose
guards, lookup and eviction rules are all reused) and a lookup only asks the database whether
anything changed: one round trip reading `cache_state` (~0.2 ms on loopback; README figures).

Why that is enough to never serve an erased entry: every mutation (a store, an erasure, an eviction
or expiry) runs in one transaction that first locks the `cache_state` row, so mutations of every
host are serialised, row ids are handed out in commit order, and each mutation that deletes rows
bumps `removals` before it commits. A lookup reads `removals`: when it differs from what this
process loaded, it reloads the bundle's rows; otherwise it appends the rows with ids above the
newest it holds. An erasure (`forget_user`) has committed before DELETE /v1/profile answers, so
every lookup that starts after it, on any host, sees the new count and drops the erased rows.

Why erasure still wins a race: `store` calls `still_current` (the profile store's erasure epoch
check) after taking that lock, and `forget_user` takes the same lock; the profile erasure bumps the
epoch before `forget_user` runs, so an entry is either refused or stored before the erasure deletes it.

Recency for eviction is what this process saw: loaded rows rank by store order (their ids), hits
served here move an entry up. The salt (entry ids, content signatures) is the database's, one for
every host. Of the bundles, the newest `cache_file.KEEP_FILES` (by their newest row) keep their rows.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Callable
from typing import Any

import numpy as np
import psycopg

from yaksa.memory.cache_file import KEEP_FILES
from yaksa.memory.cache_guard import signature
from yaksa.memory.profile_store import validate_user_id
from yaksa.memory.response_cache import DEFAULT_TTL_S, ResponseCache, _Entry
from yaksa.store import postgres

log = logging.getLogger(__name__)
_LOCK = "SELECT 1 FROM cache_state FOR UPDATE"   # every mutation of the cache, on every host, takes it first
# One round trip per lookup: the state, and the bundle's rows this process lacks: those above the
# newest it holds, or all of them when `removals` moved (module doc).
_SYNC = """
SELECT s.removals, s.salt, e.id, e.entry, e.vector FROM cache_state s
LEFT JOIN cache_entries e ON e.bundle_version = %(bundle)s
    AND e.id > CASE WHEN s.removals = %(removals)s AND s.salt = %(salt)s THEN %(newest)s ELSE 0 END
ORDER BY e.id
"""


class PostgresResponseCache(ResponseCache):
    """`ResponseCache` whose entries live in the PostgreSQL database at `url` (module doc)."""

    def __init__(self, url: str, embed: Callable[[str], np.ndarray], entities: Callable[[str], frozenset[str]],
                 threshold: float = 0.85, max_size: int = 512, style_variation: bool = False,
                 ttl_s: float = DEFAULT_TTL_S, clock: Callable[[], float] | None = None) -> None:
        extra = {} if clock is None else {"clock": clock}
        super().__init__(None, embed, entities, threshold=threshold, max_size=max_size,
                         style_variation=style_variation, ttl_s=ttl_s, **extra)
        self.url = url
        self._ids: list[int] = []          # row id of each entry, aligned with self._entries
        self._removals: int | None = None  # cache_state.removals when this copy was loaded
        self._newest = 0                   # the newest row id held
        postgres.pool(url)                 # connects and upgrades the schema now

    # -- public operations that differ from the file cache ----------------------------------------

    def store(self, query: str, answer: dict[str, Any], bundle_version: str, verified: bool,
              owner: str, scope: str, still_current: Callable[[], bool] | None = None,
              entities: frozenset[str] | None = None) -> bool:
        """As `ResponseCache.store`, in one transaction holding the cache's lock (module doc)."""
        admitted = self._storable(query, answer, bundle_version, verified, owner, scope, entities)
        if admitted is None:
            return False
        owner, scope, (vector, polarity, entities) = admitted
        with self._lock:
            try:
                with postgres.connection(self.url) as con, postgres.transaction(con, _LOCK):
                    if still_current is not None and not still_current():
                        log.info("response cache: not stored (the owner's profile was erased during the turn)")
                        return False
                    self._sync(con, bundle_version)
                    removed = self._insert(con, query, answer, bundle_version, owner, scope,
                                           vector, polarity, entities)
                    if removed:
                        con.execute("UPDATE cache_state SET removals = removals + 1")
            except BaseException:
                self._removals = None   # reload the committed state at the next lookup
                raise
        # the new row (and any removal) reaches this process's copy at its next lookup, as any host's
        return True

    def owned_by(self, user_id: str) -> int:
        """How many entries `user_id` created, over every bundle (as every host sees them)."""
        uid = validate_user_id(user_id)
        with postgres.connection(self.url) as con:
            return int(con.execute("SELECT count(*) FROM cache_entries WHERE owner = %s", [uid]).fetchone()[0])

    def forget_user(self, user_id: str) -> int:
        """Erase every entry `user_id` created, of every bundle, for every host (module doc); how many.
        The commit waits until it is on disk (`postgres.DURABLE`): an erasure never comes back."""
        uid = validate_user_id(user_id)
        with self._lock:
            with postgres.connection(self.url) as con, postgres.transaction(con, postgres.DURABLE, _LOCK):
                erased = con.execute("DELETE FROM cache_entries WHERE owner = %s", [uid]).rowcount
                if erased:
                    con.execute("UPDATE cache_state SET removals = removals + 1")
            if self._version is not None:
                self._use(self._version)
        return max(0, erased)

    # -- internals (with self._lock held) ---------------------------------------------------------

    def _insert(self, con: psycopg.Connection, query: str, answer: dict[str, Any], bundle_version: str,
                owner: str, scope: str, vector: np.ndarray, polarity: Any, entities: frozenset[str]) -> int:
        """Write the entry (replacing one for the same question) and drop the bundle's expired rows,
        least recently used rows past `max_size` and bundles past the newest `KEEP_FILES`; how many
        rows were deleted."""
        now = self._now()
        if self._entries and vector.shape[0] != self._vectors.shape[1]:
            log.warning("response cache: query vectors changed dimension; emptying the bundle's cache")
            self._set_entries([], np.zeros((0, 0), dtype=np.float32))
            self._ids = []
        first_of_bundle = not self._entries
        entry = _Entry(self._entry_id(query), copy.deepcopy(answer), polarity, entities, owner, scope,
                       0, signature(query, self._salt), now)
        # expired rows and rows of another vector dimension go; the same question's entry is replaced
        # under a new id, so every process's next lookup fetches it and drops the one it held (`_sync`)
        removed = con.execute(
            "DELETE FROM cache_entries WHERE bundle_version = %s AND (stored_at < %s OR length(vector) <> %s)",
            [bundle_version, now - self.ttl_s, 4 * vector.shape[0]]).rowcount
        con.execute(
            "INSERT INTO cache_entries (bundle_version, entry_id, owner, entry, vector, stored_at) "
            "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (bundle_version, entry_id) DO UPDATE SET "
            "id = nextval(pg_get_serial_sequence('cache_entries', 'id')), owner = excluded.owner, "
            "entry = excluded.entry, vector = excluded.vector, stored_at = excluded.stored_at",
            [bundle_version, entry.entry_id, owner, json.dumps(entry.to_json(), ensure_ascii=False),
             np.ascontiguousarray(vector, dtype=np.float32).tobytes(), now])
        kept = [(e.last_used, rid) for e, rid in zip(self._entries, self._ids, strict=True)
                if e.entry_id != entry.entry_id and e.stored_at >= now - self.ttl_s]
        if len(kept) + 1 > self.max_size:
            victims = [rid for _, rid in sorted(kept)[:len(kept) + 1 - self.max_size]]
            removed += con.execute("DELETE FROM cache_entries WHERE id = ANY(%s)", [victims]).rowcount
        if first_of_bundle:
            removed += con.execute(
                "DELETE FROM cache_entries WHERE bundle_version NOT IN (SELECT bundle_version FROM cache_entries "
                "GROUP BY bundle_version ORDER BY max(id) DESC LIMIT %s)", [KEEP_FILES]).rowcount
        return removed

    def _use(self, bundle_version: str, force: bool = False) -> None:
        """Bring this process's copy of `bundle_version`'s rows up to date (module doc)."""
        with postgres.connection(self.url) as con:
            self._sync(con, bundle_version)

    def _sync(self, con: psycopg.Connection, bundle_version: str) -> None:
        if self._version != bundle_version:
            if self._entries:
                log.info("response cache: bundle %s -> %s", self._version, bundle_version)
            self._version, self._removals = bundle_version, None
        rows = con.execute(_SYNC, {"bundle": bundle_version, "removals": self._removals, "salt": self._salt,
                                   "newest": self._newest}).fetchall()
        removals, salt = rows[0][0], rows[0][1]
        if removals != self._removals or salt != self._salt:
            recency = {e.entry_id: e.last_used for e in self._entries}
            self._set_entries([], np.zeros((0, 0), dtype=np.float32))
            self._ids, self._newest, self._salt, self._removals = [], 0, salt, removals
        else:
            recency = {}
        rows = [row for row in rows if row[2] is not None]
        if not rows:
            return
        entries, ids = list(self._entries), list(self._ids)
        vectors = list(self._vectors) if self._entries else []
        held = {e.entry_id: i for i, e in enumerate(entries)}
        for _, _, rid, data, blob in rows:
            try:
                entry = _Entry.from_json(json.loads(data))
                vector = np.frombuffer(blob, dtype=np.float32)
            except (KeyError, TypeError, ValueError) as exc:
                log.warning("response cache: row %d is unreadable (%s); skipped", rid, exc)
                continue
            if vectors and vector.shape[0] != vectors[0].shape[0]:
                log.warning("response cache: row %d has another vector dimension; skipped", rid)
                continue
            entry.last_used = max(rid, recency.get(entry.entry_id, 0))
            if entry.entry_id in held:        # the same question stored again (`_insert`): replaced
                i = held[entry.entry_id]
                entries[i], ids[i], vectors[i] = entry, rid, vector
            else:
                held[entry.entry_id] = len(entries)
                entries.append(entry)
                ids.append(rid)
                vectors.append(vector)
        self._newest = max(self._newest, rows[-1][2])
        self._clock = max(self._clock, self._newest)
        if entries:
            self._set_entries(entries, np.vstack(vectors))
        self._ids = ids
