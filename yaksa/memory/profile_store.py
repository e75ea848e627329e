"""What the agent remembers about each user, persisted in SQLite so it survives restarts.

Why SQLite (`yaksa.memory.profile_db`): a single file the operator can inspect with SQL, transactional
(a crash mid-turn never leaves half a profile), and in WAL mode shared by several server worker
processes that each keep one connection open, so a profile read or write costs well under a
millisecond instead of a connection per operation. One table `profile_items` (id, user_id,
slot_type, name, item JSON of the SlotItem, stored_at as Unix seconds), and the user's recent
conversation turns beside it (`yaksa.memory.history`): every worker sees the same history, and
`forget` erases facts and turns together in one transaction, seen by every worker's next read.

Why erasure epochs: `forget` (DELETE /v1/profile) may run while a turn of the same user is still
working; that turn must not write the user's facts, history or cache entry back after the erasure.
`forget` bumps the user's epoch in the same transaction that deletes (table `erasures`, keyed by a
hash of the user id, a row kept `ERASURE_KEPT_S` after the erasure: far longer than any turn, then
dropped so no record of the erasure stays). A turn reads `erasure_epoch` when it starts and passes
it to `add` and `add_turn`, which write nothing (logged, without the user's text) when the epoch
changed, checked inside their own write transaction; the cache store gets the same check under its
file lock. `NullProfileStore` keeps one process-wide count of erasures instead (it stores no ids).

A profile file written by the earlier DuckDB engine is imported once on open
(`yaksa.memory.legacy_import`), never dropped.

Each `add` is one write transaction: read the user's rows, merge (see `yaksa.memory.dedup`), write.

Decay (see `yaksa.memory.decay`) is applied when reading: `items`, `summary` and `terms` show only
facts whose weight is still above the floor; faded facts stay on disk until `forget`, and
`to_json` lists them (marked inactive) so a user sees everything that is remembered.

Usage::

    store = open_profile_store("persistent", Path("data/memory/profiles.sqlite"))
    store.add("u1", extracted_items)
    store.summary("u1")   # "65세 남성. 질환: 당뇨병. 최근 혈압 150/95 mmHg (방금)."
    store.add_turn("u1", "타이레놀 먹어도 되나요?", "네, 1회 500 mg까지 ...")
    store.recent_turns("u1", 3)   # [{"role": "user", ...}, {"role": "assistant", ...}]
    epoch = store.erasure_epoch("u1")                  # when a turn starts
    store.add("u1", items, epoch=epoch)                # a no-op once "u1" was erased since
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from yaksa.config import MEMORY_MODES
from yaksa.extraction.slots import SLOT_TYPES, SlotItem
from yaksa.memory import history
from yaksa.memory.decay import decay_weight
from yaksa.memory.dedup import contradicts, merge, supersedes
from yaksa.memory.entry import ProfileEntry
from yaksa.memory.legacy_import import import_legacy
from yaksa.memory.profile_db import Connection, ProfileDatabase, ProfileDB
from yaksa.memory.profile_summary import render_summary

log = logging.getLogger(__name__)

MAX_TURNS_KEPT = 20      # conversation turns kept per user; the generator is shown fewer (history_turns)
# a message that names no one continues the person of a fact stated this recently (`latest_subject`)
CONVERSATION_GAP = timedelta(hours=1)
# The one rule for a user id, for the library, the CLI and the service (which answers 400 with USER_ID_RULE):
# a key for files, SQL rows and log-free metrics, never free text a person might put their name in
USER_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}")
USER_ID_RULE = "1-64 characters of letters, digits, '_', '.', '@' or '-'"
_TERM_SLOTS = ("conditions", "medications", "symptoms")
ERASURE_KEPT_S = 24 * 3600.0   # how long an erasure's epoch is remembered (module doc)


def validate_user_id(user_id: str) -> str:
    """`user_id` when it follows USER_ID (the one rule); ValueError naming the rule otherwise."""
    if not isinstance(user_id, str) or not USER_ID.fullmatch(user_id):
        raise ValueError(f"user_id must be {USER_ID_RULE}")
    return user_id


def _erasure_key(uid: str) -> str:
    return hashlib.sha256(b"yaksa-erasure\0" + uid.encode("utf-8")).hexdigest()


def _epoch(con: Connection, uid: str) -> int:
    row = con.execute("SELECT epoch FROM erasures WHERE user_key = ?", [_erasure_key(uid)]).fetchone()
    return int(row[0]) if row else 0


def _check_epoch(epoch: int | None) -> int | None:
    if epoch is not None and (isinstance(epoch, bool) or not isinstance(epoch, int)):
        raise TypeError(f"epoch must be an int or None, got {type(epoch).__name__}")
    return epoch


def _still_current(con: Connection, uid: str, epoch: int | None, what: str) -> bool:
    """Whether a turn that began at erasure `epoch` may still write (None: no turn, always)."""
    if epoch is None or _epoch(con, uid) == epoch:
        return True
    log.info("profile store: %s not written: the user's profile was erased after the turn began", what)
    return False


def _instant(when: datetime | None) -> datetime:
    if when is None:
        return datetime.now(UTC)
    if not isinstance(when, datetime):
        raise TypeError(f"expected a datetime, got {type(when).__name__}")
    if when.tzinfo is None or when.utcoffset() is None:
        raise ValueError(f"datetime must be timezone-aware, got naive {when.isoformat()}")
    return when


def _entry(item_json: str, stored_at: float, now: datetime) -> ProfileEntry:
    item = SlotItem.from_json(json.loads(item_json))
    when = datetime.fromtimestamp(stored_at, UTC)
    # A fact stored after `now` (clock skew between workers, or a past `now`) counts as fresh.
    hours = max(0.0, (now - when).total_seconds() / 3600)
    return ProfileEntry(item=item, stored_at=when, weight=decay_weight(item.slot_type, hours))


@dataclass(frozen=True)
class ProfileView:
    summary: str
    terms: list[str]
    count: int


def _terms(entries: Sequence[ProfileEntry]) -> list[str]:
    names = [e.item.name for slot in _TERM_SLOTS for e in entries if e.item.slot_type == slot]
    return list(dict.fromkeys(names))


class ProfileStore:
    """Per-user profile facts and recent turns in one SQLite file (a path), or in any
    `ProfileDatabase` (PostgreSQL shared by several hosts); safe across threads and processes."""

    def __init__(self, path: Path | ProfileDatabase, max_turns: int = MAX_TURNS_KEPT) -> None:
        if history.check_turn_count(max_turns, "max_turns") < 1:
            raise ValueError(f"max_turns must be >= 1, got {max_turns}")
        self.max_turns = max_turns
        self._db: ProfileDatabase
        if isinstance(path, str | Path):
            self.path: Path | None = Path(path)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            import_legacy(self.path)
            self._db = ProfileDB(self.path)
        else:
            self.path, self._db = None, path

    def close(self) -> None:
        """Close this process's connection (reopened on the next operation)."""
        self._db.close()

    def erasure_epoch(self, user_id: str) -> int:
        """How many times `user_id` was erased lately (module doc); a turn reads it when it starts."""
        uid = validate_user_id(user_id)
        with self._db.read() as con:
            return _epoch(con, uid)

    def add(self, user_id: str, items: Sequence[SlotItem], at: datetime | None = None,
            epoch: int | None = None) -> int:
        """Remember `items` as stated at `at` (default now); returns how many rows were added or updated.

        A fact the profile already holds is refreshed in place (newest value and time); a fact
        older than the stored one (`at` before its stored time) does not overwrite it. A fact that cannot
        be true with a stored one of the same person (`contradicts`: a man, a pregnancy) replaces it when
        newer and is dropped when older. With `epoch`
        (the turn's `erasure_epoch`) nothing is written when the user was erased since.
        """
        uid = validate_user_id(user_id)
        when = _instant(at).timestamp()
        _check_epoch(epoch)
        for item in items:
            if not isinstance(item, SlotItem):
                raise TypeError(f"items must be SlotItem instances, got {type(item).__name__}")
        if not items:
            return 0
        touched: set[str] = set()
        with self._db.write(user=uid) as con:
            if not _still_current(con, uid, epoch, "facts"):
                return 0
            rows = con.execute(
                "SELECT id, item, stored_at FROM profile_items WHERE user_id = ?", [uid]).fetchall()
            stored = [[rid, SlotItem.from_json(json.loads(js)), ts] for rid, js, ts in rows]
            for new in items:
                contradicted = [row for row in stored if contradicts(new, row[1])]
                if any(when < row[2] for row in contradicted):
                    continue            # a newer statement already says otherwise
                for row in contradicted:
                    con.defer("DELETE FROM profile_items WHERE id = ?", [row[0]])
                    stored.remove(row)
                    touched.add(row[0])
                match = next((row for row in stored if supersedes(new, row[1])), None)
                if match is None:
                    rid = uuid.uuid4().hex
                    con.defer("INSERT INTO profile_items VALUES (?, ?, ?, ?, ?, ?)",
                              [rid, uid, new.slot_type, new.name, json.dumps(new.to_json()), when])
                    stored.append([rid, new, when])
                elif when >= match[2]:
                    rid, merged = match[0], merge(match[1], new)
                    con.defer("UPDATE profile_items SET name = ?, item = ?, stored_at = ? WHERE id = ?",
                              [merged.name, json.dumps(merged.to_json()), when, rid])
                    match[1:] = [merged, when]
                else:
                    continue
                touched.add(rid)
        return len(touched)

    def _entries(self, uid: str, now: datetime) -> list[ProfileEntry]:
        with self._db.read() as con:
            rows = con.execute(
                "SELECT item, stored_at FROM profile_items WHERE user_id = ?", [uid]).fetchall()
        entries = [_entry(js, ts, now) for js, ts in rows]
        return sorted(entries, key=lambda e: (SLOT_TYPES.index(e.item.slot_type), -e.weight, e.item.name))

    def items(self, user_id: str, now: datetime | None = None) -> list[ProfileEntry]:
        """Active facts (weight above the floor at `now`), by slot type, then heaviest first."""
        return [e for e in self._entries(validate_user_id(user_id), _instant(now)) if e.active]

    def summary(self, user_id: str, now: datetime | None = None) -> str:
        """The active profile in Korean sentences for the prompt; "" when nothing is remembered."""
        when = _instant(now)
        return render_summary(self.items(user_id, when), when)

    def terms(self, user_id: str, now: datetime | None = None) -> list[str]:
        """Names of active conditions, medications and symptoms, for query rewriting."""
        return _terms(self.items(user_id, now))

    def view(self, user_id: str, now: datetime | None = None, about: str | None = None) -> ProfileView:
        """Summary, terms and item count from one read: an agent turn needs all three. With `about`
        (a person, `SlotItem.about`) only that person's facts: a turn about the writer is not answered
        with their child's age, nor a turn about the child with the writer's pregnancy."""
        when = _instant(now)
        entries = [e for e in self.items(user_id, when) if about is None or e.item.about == about]
        return ProfileView(render_summary(entries, when), _terms(entries), len(entries))

    def latest_subject(self, user_id: str, now: datetime | None = None) -> str:
        """Whom the user's most recently stated active fact is about, if stated within CONVERSATION_GAP
        ("self" otherwise): the person a message that names no one continues with ("저희 아이가 5살이에요" →
        "기침도 해요"). A question the next day ("하루에 몇 번 먹어요?") is the writer's again."""
        when = _instant(now)
        entries = [e for e in self.items(user_id, when) if when - e.stored_at <= CONVERSATION_GAP]
        return max(entries, key=lambda e: e.stored_at).item.about if entries else "self"

    def add_turn(self, user_id: str, question: str, answer: str, at: datetime | None = None,
                 epoch: int | None = None) -> bool:
        """Remember one question/answer turn (the question without personal identifiers), keeping the
        newest `max_turns` of the user's turns; False (nothing written) when `epoch` is given and the
        user was erased since."""
        uid = validate_user_id(user_id)
        history.check_turn(question, answer)
        when = _instant(at).timestamp()
        _check_epoch(epoch)
        with self._db.write(user=uid) as con:
            if not _still_current(con, uid, epoch, "turn"):
                return False
            history.insert_turn(con, uid, question, answer, when, self.max_turns)
        return True

    def recent_turns(self, user_id: str, turns: int) -> list[dict[str, str]]:
        """The last `turns` turns as chat messages, oldest first (user, assistant, user, ...)."""
        uid = validate_user_id(user_id)
        if history.check_turn_count(turns, "turns") == 0:
            return []
        with self._db.read() as con:
            return history.recent_messages(con, uid, turns)

    def forget(self, user_id: str) -> bool:
        """Erase every fact and conversation turn of `user_id` and bump their erasure epoch, in one
        transaction (a turn that began before writes nothing after); False when nothing was stored."""
        uid = validate_user_id(user_id)
        key, now = _erasure_key(uid), time.time()
        with self._db.write(durable=True, user=uid) as con:
            (count,) = con.execute("SELECT count(*) FROM profile_items WHERE user_id = ?", [uid]).fetchone()
            con.execute("DELETE FROM profile_items WHERE user_id = ?", [uid])
            count += history.delete_turns(con, uid)
            con.execute("DELETE FROM erasures WHERE erased_at < ? AND user_key != ?", [now - ERASURE_KEPT_S, key])
            con.execute("INSERT INTO erasures VALUES (?, 1, ?) ON CONFLICT (user_key) DO UPDATE "
                        "SET epoch = erasures.epoch + 1, erased_at = excluded.erased_at", [key, now])
        if count:
            self._db.checkpoint()   # no copy of the erased rows left beside the tables (WAL, dead tuples)
        return count > 0

    def to_json(self, user_id: str, now: datetime | None = None) -> dict[str, Any]:
        """Everything stored about the user: facts, faded ones included (marked inactive), the summary
        and the kept conversation turns."""
        uid = validate_user_id(user_id)
        when = _instant(now)
        entries = self._entries(uid, when)
        return {"user_id": uid, "summary": render_summary(entries, when),
                "items": [e.to_json() for e in entries], "history": self.recent_turns(uid, self.max_turns)}


class NullProfileStore:
    """`memory_mode: none` (ablation): same interface as ProfileStore, remembers nothing.

    Turns included (`add_turn` is a no-op, `recent_turns` is empty): an in-process history would
    differ between workers and survive an erasure in all but the worker that served it.
    Its erasure epoch is one count of this process's erasures, of any user (it keeps no ids): a
    turn running across any erasure stores no cache entry.
    """

    def __init__(self) -> None:
        self._erasures = 0
        self._lock = threading.Lock()

    def erasure_epoch(self, user_id: str) -> int:
        validate_user_id(user_id)
        return self._erasures

    def add(self, user_id: str, items: Sequence[SlotItem], at: datetime | None = None,
            epoch: int | None = None) -> int:
        validate_user_id(user_id)
        _instant(at)
        _check_epoch(epoch)
        return 0

    def items(self, user_id: str, now: datetime | None = None) -> list[ProfileEntry]:
        validate_user_id(user_id)
        return []

    def summary(self, user_id: str, now: datetime | None = None) -> str:
        validate_user_id(user_id)
        return ""

    def terms(self, user_id: str, now: datetime | None = None) -> list[str]:
        validate_user_id(user_id)
        return []

    def view(self, user_id: str, now: datetime | None = None, about: str | None = None) -> ProfileView:
        validate_user_id(user_id)
        return ProfileView("", [], 0)

    def latest_subject(self, user_id: str, now: datetime | None = None) -> str:
        validate_user_id(user_id)
        return "self"

    def add_turn(self, user_id: str, question: str, answer: str, at: datetime | None = None,
                 epoch: int | None = None) -> bool:
        validate_user_id(user_id)
        history.check_turn(question, answer)
        _instant(at)
        _check_epoch(epoch)
        return False

    def recent_turns(self, user_id: str, turns: int) -> list[dict[str, str]]:
        validate_user_id(user_id)
        history.check_turn_count(turns, "turns")
        return []

    def forget(self, user_id: str) -> bool:
        validate_user_id(user_id)
        with self._lock:
            self._erasures += 1
        return False

    def to_json(self, user_id: str, now: datetime | None = None) -> dict[str, Any]:
        return {"user_id": validate_user_id(user_id), "summary": "", "items": [], "history": []}


def open_profile_store(memory_mode: str, path: Path) -> ProfileStore | NullProfileStore:
    """The store for a `memory_mode` setting: "persistent" (SQLite at `path`) or "none"."""
    if memory_mode == "persistent":
        return ProfileStore(path)
    if memory_mode == "none":
        return NullProfileStore()
    raise ValueError(f"memory_mode must be one of {MEMORY_MODES}, got {memory_mode!r}")
