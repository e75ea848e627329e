"""The profile store on PostgreSQL (`YAKSA_DATABASE_URL`): the SQLite store's behaviour tests, run
again on a real server, plus what only a shared database must guarantee: another process (another
host) sees every write and erasure at once, an erasure waits for a turn's write of the same user
and never interleaves with it, and the schema migrations apply once."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import psycopg
import pytest

from tests.memory import test_profile_store as on_sqlite
from tests.memory.test_profile_store import T0, bp, patient
from yaksa.extraction.slots import SlotItem
from yaksa.memory.profile_store import ProfileStore
from yaksa.store import DATABASE_URL_ENV, database_url, postgres
from yaksa.store.profiles import USER_LOCK_SPACE, PostgresProfileDB, user_lock_key

REPO = Path(__file__).resolve().parents[2]

# The SQLite store's tests that say nothing about files: each runs here on PostgreSQL as well.
for _name in ("test_weights_decay_and_faded_facts_leave_the_profile_but_stay_listed",
              "test_a_restated_reading_refreshes_the_stored_one", "test_restatements_do_not_let_a_reading_creep",
              "test_a_new_measurement_outside_tolerance_replaces_the_old_one",
              "test_an_older_statement_does_not_overwrite_a_newer_one",
              "test_duplicates_within_one_turn_and_across_turns_collapse", "test_forget_erases_one_user_only",
              "test_recent_turns_are_chat_messages_oldest_first", "test_bad_turns_are_rejected",
              "test_bad_user_ids_are_rejected", "test_bad_items_and_naive_times_are_rejected",
              "test_two_threads_adding_at_once"):
    globals()[_name.replace("test_", "test_postgres_", 1)] = getattr(on_sqlite, _name)


@pytest.fixture()
def store(postgres_url: str) -> Iterator[ProfileStore]:
    yield ProfileStore(PostgresProfileDB(postgres_url))


def _in_another_process(url: str, code: str) -> str:
    """Run `code` (with `store` open on `url`) in a new interpreter: another worker or host."""
    script = textwrap.dedent(f"""
        from yaksa.memory.profile_store import ProfileStore
        from yaksa.store.profiles import PostgresProfileDB
        from yaksa.extraction.slots import SlotItem
        store = ProfileStore(PostgresProfileDB({url!r}))
    """) + textwrap.dedent(code)
    done = subprocess.run([sys.executable, "-c", script], check=False, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_postgres_profile_and_history_are_shared_and_erased_across_processes(store: ProfileStore,
                                                                             postgres_url: str) -> None:
    store.add("u1", patient())
    store.add_turn("u1", "타이레놀 먹어도 되나요?", "네.")
    out = _in_another_process(postgres_url, """
        print(store.terms("u1"), len(store.recent_turns("u1", 3)))
        store.add("u2", [SlotItem("symptoms", "기침")])
        print(store.forget("u1"))
    """)
    assert out.split("\n")[:2] == ["['당뇨병', '두통'] 2", "True"]
    assert store.to_json("u1") == {"user_id": "u1", "summary": "", "items": [], "history": []}
    assert store.erasure_epoch("u1") == 1
    assert store.terms("u2") == ["기침"]


def test_postgres_a_newer_fact_that_cannot_hold_with_a_stored_one_deletes_it(store: ProfileStore) -> None:
    """The replacement (a DELETE then an INSERT in one write) runs on the server as on SQLite."""
    store.add("u3", [SlotItem("demographics", "gender", "남성")], at=T0)
    assert store.add("u3", [SlotItem("demographics", "pregnancy", "yes")], at=T0 + timedelta(hours=1)) == 2
    assert [(e.item.name, e.item.value) for e in store.items("u3", now=T0 + timedelta(hours=1))] == [
        ("pregnancy", "yes")]


def test_postgres_a_write_of_a_turn_that_began_before_an_erasure_elsewhere_is_refused(store: ProfileStore,
                                                                                       postgres_url: str) -> None:
    store.add("u1", patient(), at=T0)
    epoch = store.erasure_epoch("u1")                                   # a turn starts on this host
    _in_another_process(postgres_url, 'assert store.forget("u1")')      # another host erases the user
    assert store.add("u1", [SlotItem("conditions", "당뇨병")], at=T0, epoch=epoch) == 0
    assert store.add_turn("u1", "당뇨인데 타이레놀 먹어도 되나요", "네", at=T0, epoch=epoch) is False
    assert store.to_json("u1")["items"] == [] and store.recent_turns("u1", 3) == []
    later = store.erasure_epoch("u1")
    assert later == epoch + 1
    assert store.add("u1", [bp("120/80")], at=T0 + timedelta(minutes=1), epoch=later) == 1


def test_postgres_an_erasure_waits_for_a_write_of_the_same_user_and_then_removes_it(store: ProfileStore,
                                                                                    postgres_url: str) -> None:
    """The per-user advisory lock: an erasure that starts while a turn's write transaction of the same
    user is open waits for its commit and then erases what it wrote; another user's write never waits."""
    db = PostgresProfileDB(postgres_url)
    forgot: list[bool] = []
    with db.write(user="u1") as con:   # a turn's write transaction, still open
        con.execute("INSERT INTO profile_items VALUES (?, ?, ?, ?, ?, ?)",
                    ["row-1", "u1", "symptoms", "두통", '{"slot_type": "symptoms", "name": "두통"}', T0.timestamp()])
        eraser = threading.Thread(target=lambda: forgot.append(store.forget("u1")))
        eraser.start()
        time.sleep(0.5)
        assert eraser.is_alive() and not forgot                   # waiting on the user's lock
        started = time.monotonic()
        assert store.add("u2", [SlotItem("symptoms", "기침")], at=T0) == 1
        assert time.monotonic() - started < 0.4                    # another user is not held up
    eraser.join(timeout=10)
    assert forgot == [True]                                       # it saw, and erased, the committed row
    assert store.items("u1", now=T0) == [] and store.terms("u2", now=T0) == ["기침"]


def test_postgres_the_erasure_record_keeps_no_user_id(store: ProfileStore, postgres_url: str) -> None:
    store.add_turn("secret-user-42", "타이레놀 먹어도 되나요", "네", at=T0)
    store.forget("secret-user-42")
    with psycopg.connect(postgres_url) as con:
        rows = con.execute("SELECT user_key, epoch FROM erasures").fetchall()
        assert con.execute("SELECT count(*) FROM conversation_turns").fetchone() == (0,)
    assert len(rows) == 1 and "secret-user-42" not in rows[0][0] and rows[0][1] == 1


def test_postgres_migrations_apply_once_and_a_newer_schema_is_refused(postgres_url: str) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as con:
        applied = postgres.upgrade(con)
        assert applied == [name for _, name, _ in postgres.migrations()] and applied
        assert postgres.upgrade(con) == []                        # a second host starting: nothing to do
        versions = con.execute("SELECT version FROM schema_migrations ORDER BY version").fetchall()
        assert [v for (v,) in versions] == list(range(1, len(applied) + 1))
        con.execute("INSERT INTO schema_migrations (version, name) VALUES (999, '0999_future.sql')")
        with pytest.raises(RuntimeError, match="newer than this code"):
            postgres.upgrade(con)


def test_postgres_hosts_starting_together_apply_the_migrations_once(postgres_url: str) -> None:
    errors: list[BaseException] = []

    def start() -> None:
        try:
            with psycopg.connect(postgres_url, autocommit=True) as con:
                postgres.upgrade(con)
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    with psycopg.connect(postgres_url) as con:
        assert con.execute("SELECT count(*) FROM schema_migrations").fetchone() == (len(postgres.migrations()),)


def test_postgres_database_url_setting() -> None:
    assert database_url({}) is None and database_url({DATABASE_URL_ENV: "  "}) is None
    assert database_url({DATABASE_URL_ENV: "postgresql://u@127.0.0.1/db"}) == "postgresql://u@127.0.0.1/db"
    with pytest.raises(ValueError, match="postgresql://") as caught:
        database_url({DATABASE_URL_ENV: "mysql://user:hunter2@db/x"})
    assert "hunter2" not in str(caught.value)


def test_postgres_user_lock_keys_are_distinct_and_carry_no_id() -> None:
    keys = {user_lock_key(USER_LOCK_SPACE, f"u{i}") for i in range(1000)}
    assert len(keys) == 1000 and all(-(2 ** 63) <= k < 2 ** 63 for k in keys)


def test_postgres_only_an_erasure_waits_for_its_commit_to_reach_disk(postgres_url: str) -> None:
    db = PostgresProfileDB(postgres_url)
    with db.write(user="u1") as con:
        assert con.execute("SHOW synchronous_commit").fetchone() == ("off",)
    with db.write(durable=True, user="u1") as con:
        assert con.execute("SHOW synchronous_commit").fetchone() == ("on",)
    with db.read() as con:
        assert con.execute("SHOW synchronous_commit").fetchone() == ("off",)   # SET LOCAL: that transaction only


def test_postgres_a_failed_write_leaves_nothing_and_the_connection_usable(store: ProfileStore,
                                                                          postgres_url: str) -> None:
    db = PostgresProfileDB(postgres_url)
    with pytest.raises(RuntimeError, match="midway"), db.write(user="u1") as con:
        con.execute("INSERT INTO profile_items VALUES (?, ?, ?, ?, ?, ?)",
                    ["row-1", "u1", "symptoms", "두통", '{"slot_type": "symptoms", "name": "두통"}', T0.timestamp()])
        raise RuntimeError("midway")
    with db.read() as con:
        assert con.execute("SELECT count(*) FROM profile_items").fetchone() == (0,)
    assert store.add("u1", [SlotItem("symptoms", "기침")], at=T0) == 1   # the pooled connections still work


def test_postgres_a_write_holds_the_user_lock_for_two_or_three_messages(store: ProfileStore,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Statements nothing reads travel with the next one or the COMMIT (`yaksa.store.profiles` says why):
    a turn's history write is two messages to the server, a profile update three (were six and five)."""
    sent: list[str] = []
    original = psycopg.ClientCursor.execute

    def counted(self: psycopg.ClientCursor, query: str, *args: object, **kwargs: object) -> object:
        sent.append(str(query))
        return original(self, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.ClientCursor, "execute", counted)
    epoch = store.erasure_epoch("u1")
    assert store.add_turn("u1", "타이레놀 먹어도 되나요", "네", at=T0, epoch=epoch) is True
    assert len(sent) == 2 and sent[0].startswith("BEGIN; SELECT pg_advisory_xact_lock(")
    assert "INSERT INTO conversation_turns" in sent[1] and sent[1].endswith("COMMIT")
    sent.clear()
    assert store.add("u1", [SlotItem("symptoms", "두통")], at=T0, epoch=epoch) == 1
    assert len(sent) == 3 and "INSERT INTO profile_items" in sent[2] and sent[2].endswith("COMMIT")
    assert store.recent_turns("u1", 3)[0] == {"role": "user", "content": "타이레놀 먹어도 되나요"}
    assert store.terms("u1", now=T0) == ["두통"]


def test_postgres_a_deferred_statement_that_fails_leaves_nothing(store: ProfileStore, postgres_url: str) -> None:
    """A statement that fails in the COMMIT's message aborts the whole write, and the pooled connection
    is usable afterwards."""
    db = PostgresProfileDB(postgres_url)
    row = ["row-1", "u1", "symptoms", "두통", '{"slot_type": "symptoms", "name": "두통"}', T0.timestamp()]
    with pytest.raises(psycopg.errors.UniqueViolation), db.write(user="u1") as con:
        con.defer("INSERT INTO profile_items VALUES (?, ?, ?, ?, ?, ?)", row)
        con.defer("INSERT INTO profile_items VALUES (?, ?, ?, ?, ?, ?)", row)   # the same id: refused at COMMIT
    with db.read() as con:
        assert con.execute("SELECT count(*) FROM profile_items").fetchone() == (0,)
    assert store.add("u1", [SlotItem("symptoms", "기침")], at=T0) == 1


def test_postgres_text_with_quotes_and_percent_signs_is_stored_as_written(store: ProfileStore) -> None:
    """The deferred statements carry their values as literals (client-side binding): quoting is psycopg's."""
    question = "타이레놀 '500mg' 100% 먹어도 되나요?; DROP TABLE profile_items; --"
    assert store.add_turn("u1", question, "답 \\ 'quoted' %s", at=T0) is True
    assert store.recent_turns("u1", 1) == [{"role": "user", "content": question},
                                           {"role": "assistant", "content": "답 \\ 'quoted' %s"}]
