from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest

from yaksa.extraction.slots import SlotItem
from yaksa.memory.legacy_import import import_legacy, is_duckdb_file, legacy_source
from yaksa.memory.profile_db import is_sqlite_file
from yaksa.memory.profile_store import ProfileStore

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)

# the schema the DuckDB engine wrote (yaksa before the SQLite store)
OLD_ITEMS = """CREATE TABLE profile_items (id VARCHAR PRIMARY KEY, user_id VARCHAR NOT NULL,
    slot_type VARCHAR NOT NULL, name VARCHAR NOT NULL, item VARCHAR NOT NULL, stored_at DOUBLE NOT NULL)"""
OLD_TURNS = """CREATE TABLE conversation_turns (user_id VARCHAR NOT NULL, seq BIGINT NOT NULL,
    question VARCHAR NOT NULL, answer VARCHAR NOT NULL, said_at DOUBLE NOT NULL)"""


def write_old_store(path: Path, with_turns: bool = True) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(path))
    con.execute(OLD_ITEMS)
    for i, item in enumerate([SlotItem("conditions", "당뇨병", concept_id="C0011849"), SlotItem("symptoms", "두통")]):
        con.execute("INSERT INTO profile_items VALUES (?, ?, ?, ?, ?, ?)",
                    [f"id{i}", "u1", item.slot_type, item.name, json.dumps(item.to_json()), T0.timestamp()])
    con.execute("INSERT INTO profile_items VALUES ('id9', 'u2', 'symptoms', '기침', ?, ?)",
                [json.dumps(SlotItem("symptoms", "기침").to_json()), T0.timestamp()])
    if with_turns:
        con.execute(OLD_TURNS)
        con.execute("INSERT INTO conversation_turns VALUES ('u1', 1, '두통약 알려줘', '아세트아미노펜 ...', ?)",
                    [T0.timestamp()])
    con.close()


def test_an_old_duckdb_store_at_the_same_path_is_imported_in_place(tmp_path: Path) -> None:
    path = tmp_path / "memory" / "profiles.duckdb"
    write_old_store(path)
    assert is_duckdb_file(path) and legacy_source(path) == path
    store = ProfileStore(path)
    assert is_sqlite_file(path) and legacy_source(path) is None
    assert store.terms("u1", now=T0) == ["당뇨병", "두통"] and store.terms("u2", now=T0) == ["기침"]
    assert store.recent_turns("u1", 5)[0] == {"role": "user", "content": "두통약 알려줘"}
    # the imported facts behave like any others: erasure reaches them
    assert store.forget("u1") and store.to_json("u1", now=T0)["items"] == []
    assert ProfileStore(path).terms("u2", now=T0) == ["기침"]   # imported once, not again


def test_an_old_duckdb_store_beside_a_new_path_is_imported_and_removed(tmp_path: Path) -> None:
    old = tmp_path / "profiles.duckdb"
    write_old_store(old, with_turns=False)  # stores from before the history table have none
    new = tmp_path / "profiles.sqlite"
    store = ProfileStore(new)
    assert not old.exists() and is_sqlite_file(new)
    assert store.terms("u1", now=T0) == ["당뇨병", "두통"] and store.recent_turns("u1", 5) == []


def test_nothing_to_import_and_an_unreadable_old_store_is_not_dropped(tmp_path: Path) -> None:
    assert import_legacy(tmp_path / "fresh.sqlite") is False
    bad = tmp_path / "broken.duckdb"
    bad.write_bytes(b"\0" * 8 + b"DUCK" + b"\0" * 4096)   # a DuckDB header over garbage
    with pytest.raises(RuntimeError, match="cannot open the old DuckDB profile store"):
        ProfileStore(bad)
    assert is_duckdb_file(bad)   # left for the operator, not replaced by an empty store
