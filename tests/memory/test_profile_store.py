from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from yaksa.extraction.slots import SlotItem
from yaksa.memory import profile_db
from yaksa.memory.profile_store import NullProfileStore, ProfileStore, open_profile_store

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
REPO = Path(__file__).resolve().parents[2]


def bp(value: str) -> SlotItem:
    return SlotItem("vitals", "blood_pressure", value, "mmHg", text=value)


def patient() -> list[SlotItem]:
    return [SlotItem("demographics", "age", 65), SlotItem("demographics", "gender", "남성"),
            SlotItem("conditions", "당뇨병", concept_id="C0011849"), SlotItem("symptoms", "두통"),
            bp("150/95")]


@pytest.fixture()
def store(tmp_path: Path) -> ProfileStore:
    return ProfileStore(tmp_path / "memory" / "profiles.sqlite")


def test_profile_carries_across_turns_and_restarts(store: ProfileStore) -> None:
    assert store.add("u1", patient(), at=T0) == 5
    assert store.add("u1", [SlotItem("medications", "메트포르민")], at=T0 + timedelta(hours=1)) == 1
    reopened = ProfileStore(store.path)
    now = T0 + timedelta(hours=2)
    assert reopened.summary("u1", now=now) == (
        "65세 남성. 질환: 당뇨병. 복용 중인 약: 메트포르민. 증상: 두통. 최근 혈압 150/95 mmHg (2시간 전).")
    assert reopened.terms("u1", now=now) == ["당뇨병", "메트포르민", "두통"]
    assert [e.item.slot_type for e in reopened.items("u1", now=now)] == [
        "demographics", "demographics", "conditions", "symptoms", "medications", "vitals"]
    assert reopened.items("someone-else") == []


def test_weights_decay_and_faded_facts_leave_the_profile_but_stay_listed(store: ProfileStore) -> None:
    store.add("u1", patient(), at=T0)
    now = T0 + timedelta(hours=31)                  # vitals: exp(-3.1) < 0.05
    weights = {e.item.name: e.weight for e in store.items("u1", now=now)}
    assert weights["두통"] == pytest.approx(0.5379, abs=1e-4)      # exp(-0.02 * 31)
    assert weights["당뇨병"] == pytest.approx(0.9695, abs=1e-4)    # exp(-0.001 * 31)
    assert weights["age"] == 1.0
    assert "blood_pressure" not in weights
    assert "혈압" not in store.summary("u1", now=now)
    listed = {e["name"]: e for e in store.to_json("u1", now=now)["items"]}
    assert listed["blood_pressure"]["active"] is False and listed["blood_pressure"]["value"] == "150/95"
    # Mentioning it again refreshes it.
    store.add("u1", [bp("150/95")], at=now)
    assert "최근 혈압 150/95 mmHg (방금)" in store.summary("u1", now=now)


def test_a_restated_reading_refreshes_the_stored_one(store: ProfileStore) -> None:
    store.add("u1", [bp("150/95")], at=T0)
    assert store.add("u1", [bp("153/97")], at=T0 + timedelta(hours=1)) == 1
    (entry,) = store.items("u1", now=T0 + timedelta(hours=1))
    assert entry.item.value == "150/95" and entry.stored_at == T0 + timedelta(hours=1)


def test_restatements_do_not_let_a_reading_creep(store: ProfileStore) -> None:
    # Each restatement is within 5 mmHg of the stored 150/95, which stays; 158/95 is 8 off: a new reading.
    for hour, value in enumerate(["150/95", "154/95", "155/99", "158/95"]):
        store.add("u1", [bp(value)], at=T0 + timedelta(hours=hour))
    (entry,) = store.items("u1", now=T0 + timedelta(hours=3))
    assert entry.item.value == "158/95" and entry.stored_at == T0 + timedelta(hours=3)


def test_a_new_measurement_outside_tolerance_replaces_the_old_one(store: ProfileStore) -> None:
    store.add("u1", [bp("150/95")], at=T0)
    store.add("u1", [bp("170/100")], at=T0 + timedelta(hours=1))
    assert [e.item.value for e in store.items("u1", now=T0 + timedelta(hours=1))] == ["170/100"]


def test_an_older_statement_does_not_overwrite_a_newer_one(store: ProfileStore) -> None:
    store.add("u1", [bp("170/100")], at=T0 + timedelta(hours=1))
    assert store.add("u1", [bp("150/95")], at=T0) == 0
    assert [e.item.value for e in store.items("u1", now=T0 + timedelta(hours=1))] == ["170/100"]


def test_a_fact_that_cannot_hold_with_a_stored_one_replaces_it_when_newer(store: ProfileStore) -> None:
    """"58세 남성" then "임신 중이에요": the newer statement wins, not "58세 남성 임신 중"; an older one is dropped."""
    store.add("u1", [SlotItem("demographics", "age", 58), SlotItem("demographics", "gender", "남성")], at=T0)
    assert store.add("u1", [SlotItem("demographics", "pregnancy", "yes")], at=T0 + timedelta(hours=1)) == 2
    assert store.summary("u1", now=T0 + timedelta(hours=1)) == "58세 임신 중."
    assert store.add("u1", [SlotItem("demographics", "gender", "male")], at=T0 + timedelta(minutes=30)) == 0
    assert store.summary("u1", now=T0 + timedelta(hours=1)) == "58세 임신 중."
    store.add("u1", [SlotItem("demographics", "gender", "남자")], at=T0 + timedelta(hours=2))
    assert store.summary("u1", now=T0 + timedelta(hours=2)) == "58세 남성."


def test_duplicates_within_one_turn_and_across_turns_collapse(store: ProfileStore) -> None:
    assert store.add("u1", [SlotItem("symptoms", "두통"), SlotItem("symptoms", "두 통")], at=T0) == 1
    store.add("u1", [SlotItem("demographics", "age", 66)], at=T0)
    store.add("u1", [SlotItem("demographics", "age", 67)], at=T0 + timedelta(days=1))
    names = [(e.item.name, e.item.value) for e in store.items("u1", now=T0 + timedelta(days=1))]
    assert names == [("age", 67), ("두통", None)]


def test_forget_erases_one_user_only(store: ProfileStore) -> None:
    store.add("u1", patient(), at=T0)
    store.add_turn("u1", "타이레놀 먹어도 되나요?", "네.", at=T0)
    store.add("u2", [SlotItem("symptoms", "기침")], at=T0)
    store.add_turn("u2", "기침약 추천해 주세요", "덱스트로메토르판 ...", at=T0)
    assert store.forget("u1") is True
    assert store.forget("u1") is False
    assert store.to_json("u1") == {"user_id": "u1", "summary": "", "items": [], "history": []}
    assert store.terms("u2", now=T0) == ["기침"]
    assert [m["content"] for m in store.recent_turns("u2", 3)] == ["기침약 추천해 주세요", "덱스트로메토르판 ..."]


def test_recent_turns_are_chat_messages_oldest_first(store: ProfileStore) -> None:
    for i in range(4):
        store.add_turn("u1", f"질문 {i}", f"답변 {i}", at=T0 + timedelta(minutes=i))
    assert store.recent_turns("u1", 2) == [
        {"role": "user", "content": "질문 2"}, {"role": "assistant", "content": "답변 2"},
        {"role": "user", "content": "질문 3"}, {"role": "assistant", "content": "답변 3"}]
    assert len(store.recent_turns("u1", 10)) == 8
    assert store.recent_turns("u1", 0) == [] and store.recent_turns("u2", 3) == []
    # Same instant: insertion order decides; an older `at` sorts before newer turns.
    store.add_turn("u2", "a", "1", at=T0)
    store.add_turn("u2", "b", "2", at=T0)
    store.add_turn("u2", "earlier", "0", at=T0 - timedelta(hours=1))
    assert [m["content"] for m in store.recent_turns("u2", 3) if m["role"] == "user"] == ["earlier", "a", "b"]


def test_history_is_trimmed_on_insert_and_shown_in_the_profile(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path / "p.sqlite", max_turns=3)
    for i in range(5):
        store.add_turn("u1", f"질문 {i}", f"답변 {i}", at=T0 + timedelta(minutes=i))
    assert [m["content"] for m in store.recent_turns("u1", 10)][::2] == ["질문 2", "질문 3", "질문 4"]
    assert [m["content"] for m in store.to_json("u1")["history"]][::2] == ["질문 2", "질문 3", "질문 4"]
    with pytest.raises(ValueError, match="max_turns"):
        ProfileStore(tmp_path / "p.sqlite", max_turns=0)


def test_history_is_shared_by_workers_and_survives_restarts(store: ProfileStore) -> None:
    other_worker = ProfileStore(store.path)
    store.add_turn("u1", "타이레놀 먹어도 되나요?", "네.", at=T0)
    assert other_worker.recent_turns("u1", 3)[0]["content"] == "타이레놀 먹어도 되나요?"
    assert other_worker.forget("u1") and store.recent_turns("u1", 3) == []


def test_identifiers_are_not_kept_in_the_history(store: ProfileStore) -> None:
    store.add_turn("dave", "제 이름은 홍길동이고 010-1234-5678 인데 65세 남성 당뇨 환자가 이부프로펜 먹어도 되나요?",
                   "이부프로펜은 ...", at=T0)
    (question, _) = store.recent_turns("dave", 1)
    assert question["content"] == "65세 남성 당뇨 환자가 이부프로펜 먹어도 되나요?"
    assert "홍길동" not in store.path.read_bytes().decode("utf-8", "replace")


@pytest.mark.parametrize(("call", "error"), [
    (lambda s: s.add_turn("u1", "  ", "답"), ValueError),
    (lambda s: s.add_turn("u1", "질문", None), TypeError),
    (lambda s: s.add_turn("", "질문", "답"), ValueError),
    (lambda s: s.add_turn("u1", "질문", "답", at=datetime(2026, 1, 1)), ValueError),
    (lambda s: s.recent_turns("u1", -1), ValueError),
    (lambda s: s.recent_turns("u1", True), ValueError),
])
def test_bad_turns_are_rejected(store: ProfileStore, call, error: type[Exception]) -> None:
    with pytest.raises(error):
        call(store)
    with pytest.raises(error):
        call(NullProfileStore())


@pytest.mark.parametrize("user_id", ["", "   ", "x" * 129, "a\nb", None])
def test_bad_user_ids_are_rejected(store: ProfileStore, user_id: str) -> None:
    with pytest.raises(ValueError, match="user_id"):
        store.add(user_id, [SlotItem("symptoms", "두통")])


def test_bad_items_and_naive_times_are_rejected(store: ProfileStore) -> None:
    with pytest.raises(TypeError, match="SlotItem"):
        store.add("u1", [{"slot_type": "symptoms", "name": "두통"}])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="timezone-aware"):
        store.add("u1", [SlotItem("symptoms", "두통")], at=datetime(2026, 1, 1))
    assert store.items("u1") == []


def test_two_threads_adding_at_once(store: ProfileStore) -> None:
    def work(user: str) -> None:
        for i in range(8):
            store.add(user, [SlotItem("medications", f"약{i:02d}"), SlotItem("symptoms", "두통")], at=T0)

    threads = [threading.Thread(target=work, args=(u,)) for u in ("u1", "u1", "u2")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(store.items("u1", now=T0)) == 9
    assert len(store.items("u2", now=T0)) == 9


def _hold_write_lock(path: Path, seconds: float) -> subprocess.Popen:
    """Another process holding the database's write lock for `seconds` (as a busy worker would)."""
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sqlite3, time
            con = sqlite3.connect({str(path)!r}, isolation_level=None)
            con.execute("BEGIN IMMEDIATE")
            print("locked", flush=True)
            time.sleep({seconds})
            con.execute("COMMIT")
            con.close()
        """)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    return holder


def test_waits_for_another_process_holding_the_write_lock(store: ProfileStore) -> None:
    holder = _hold_write_lock(store.path, 0.5)
    try:
        assert store.add("u1", [SlotItem("symptoms", "두통")], at=T0) == 1
    finally:
        holder.wait(timeout=30)
    assert store.terms("u1", now=T0) == ["두통"]


def test_a_lock_held_too_long_is_a_timeout_not_a_hang(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(profile_db, "LOCK_WAIT_SECONDS", 0.2)
    store = ProfileStore(tmp_path / "p.sqlite")
    holder = _hold_write_lock(store.path, 3)
    try:
        with pytest.raises(TimeoutError, match="locked by another process"):
            store.add("u1", [SlotItem("symptoms", "두통")], at=T0)
        assert store.items("u1", now=T0) == []   # readers are not blocked by the writer (WAL)
    finally:
        holder.wait(timeout=30)


def test_an_erasure_is_seen_at_once_by_another_process(store: ProfileStore) -> None:
    other = ProfileStore(store.path)   # a second worker's store would hold its own connection like this
    store.add("u1", patient(), at=T0)
    store.add_turn("u1", "타이레놀 먹어도 되나요?", "네.", at=T0)
    assert other.view("u1", now=T0).count == 5
    script = textwrap.dedent(f"""
        from pathlib import Path
        from yaksa.memory.profile_store import ProfileStore
        assert ProfileStore(Path({str(store.path)!r})).forget("u1")
    """)
    assert subprocess.run([sys.executable, "-c", script], check=False, cwd=REPO).returncode == 0
    assert other.view("u1", now=T0).count == 0 and other.recent_turns("u1", 5) == []
    assert store.to_json("u1", now=T0)["items"] == []


def test_a_connection_is_not_shared_across_fork(store: ProfileStore) -> None:
    store.add("u1", [SlotItem("symptoms", "두통")], at=T0)
    pid = os.fork()
    if pid == 0:   # the child must open its own connection, not use the parent's
        code = 0
        try:
            store.add("u1", [SlotItem("symptoms", "기침")], at=T0)
        except BaseException:  # noqa: BLE001 - any failure in the forked child is the exit code
            code = 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert store.terms("u1", now=T0) == ["기침", "두통"]


def test_two_worker_processes_writing_the_same_file(store: ProfileStore) -> None:
    script = textwrap.dedent(f"""
        import sys
        from datetime import UTC, datetime
        from pathlib import Path
        from yaksa.extraction.slots import SlotItem
        from yaksa.memory.profile_store import ProfileStore
        s = ProfileStore(Path({str(store.path)!r}))
        for i in range(10):
            s.add(sys.argv[1], [SlotItem("medications", f"약{{i}}")], at=datetime(2026, 3, 1, tzinfo=UTC))
    """)
    workers = [subprocess.Popen([sys.executable, "-c", script, u], cwd=REPO) for u in ("w1", "w2")]
    assert [w.wait(timeout=60) for w in workers] == [0, 0]
    assert len(store.items("w1", now=T0)) == 10 and len(store.items("w2", now=T0)) == 10


def test_memory_mode_none_remembers_nothing(tmp_path: Path) -> None:
    null = open_profile_store("none", tmp_path / "p.sqlite")
    assert isinstance(null, NullProfileStore)
    assert null.add("u1", patient()) == 0
    assert null.items("u1") == [] and null.summary("u1") == "" and null.terms("u1") == []
    assert null.forget("u1") is False and null.to_json("u1")["items"] == []
    null.add_turn("u1", "타이레놀 먹어도 되나요?", "네.")
    assert null.recent_turns("u1", 3) == [] and null.to_json("u1")["history"] == []
    assert not (tmp_path / "p.sqlite").exists()
    with pytest.raises(ValueError, match="user_id"):
        null.summary("")
    assert isinstance(open_profile_store("persistent", tmp_path / "p.sqlite"), ProfileStore)
    with pytest.raises(ValueError, match="memory_mode"):
        open_profile_store("sometimes", tmp_path / "p.sqlite")


def test_view_reads_summary_terms_and_count_at_once(tmp_path) -> None:
    store = ProfileStore(tmp_path / "p.sqlite")
    store.add("u", [SlotItem("conditions", "당뇨병", concept_id="YK:CON:diabetes", text="당뇨"),
                    SlotItem("demographics", "age", 65.0, text="65세")])
    view = store.view("u")
    assert view.count == 2 and view.terms == ["당뇨병"] and view.summary == store.summary("u")
    assert NullProfileStore().view("u").count == 0


# -- issue 22 (6): erasure epochs ---------------------------------------------------------------------

def test_a_write_of_a_turn_that_began_before_an_erasure_is_refused(store: ProfileStore) -> None:
    assert store.erasure_epoch("u1") == 0
    store.add("u1", patient(), at=T0)
    epoch = store.erasure_epoch("u1")                  # a turn starts
    other = ProfileStore(store.path)                    # another worker erases the user meanwhile
    assert other.forget("u1") and other.erasure_epoch("u1") == epoch + 1
    assert store.add("u1", [SlotItem("conditions", "당뇨병")], at=T0, epoch=epoch) == 0
    assert store.add_turn("u1", "당뇨인데 타이레놀 먹어도 되나요", "네", at=T0, epoch=epoch) is False
    assert store.to_json("u1")["items"] == [] and store.recent_turns("u1", 3) == []
    later = store.erasure_epoch("u1")                  # a turn that starts after the erasure writes
    assert store.add("u1", [SlotItem("conditions", "당뇨병")], at=T0, epoch=later) == 1
    assert store.add_turn("u1", "당뇨인데 타이레놀 먹어도 되나요", "네", at=T0, epoch=later) is True
    assert store.add("u1", [bp("120/80")], at=T0) == 1                            # no epoch: unconditional
    assert store.forget("u1") is True and store.forget("u1") is False
    assert store.erasure_epoch("u1") == epoch + 3 and store.erasure_epoch("u2") == 0
    with pytest.raises(TypeError, match="epoch"):
        store.add("u1", [bp("120/80")], epoch="1")  # type: ignore[arg-type]


def test_the_erasure_record_keeps_no_user_id_and_is_dropped_after_a_day(store: ProfileStore,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlite3
    import time

    from yaksa.memory import profile_store

    store.add_turn("secret-user-42", "타이레놀 먹어도 되나요", "네", at=T0)
    store.forget("secret-user-42")
    con = sqlite3.connect(store.path)
    rows = con.execute("SELECT user_key, epoch FROM erasures").fetchall()
    assert len(rows) == 1 and "secret-user-42" not in rows[0][0] and rows[0][1] == 1
    assert con.execute("PRAGMA user_version").fetchone()[0] == profile_db.SCHEMA_VERSION == 2
    later = time.time() + profile_store.ERASURE_KEPT_S + 60
    monkeypatch.setattr(profile_store.time, "time", lambda: later)
    store.forget("someone-else")
    assert [r[1] for r in con.execute("SELECT user_key, epoch FROM erasures").fetchall()] == [1]
    assert store.erasure_epoch("secret-user-42") == 0
    con.close()


def test_a_version_1_database_gains_the_erasures_table(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.sqlite"
    con = sqlite3.connect(path)
    for statement in profile_db.SCHEMA.split("CREATE TABLE IF NOT EXISTS erasures")[0].split(";"):
        if statement.strip():
            con.execute(statement)
    con.execute("INSERT INTO conversation_turns VALUES ('u1', 1, 'q', 'a', 0)")
    con.execute("PRAGMA user_version=1")
    con.commit()
    con.close()
    store = ProfileStore(path)
    assert store.erasure_epoch("u1") == 0 and store.forget("u1") and store.erasure_epoch("u1") == 1


def test_memory_off_counts_erasures_for_the_process_only() -> None:
    null = NullProfileStore()
    assert null.erasure_epoch("u1") == 0
    assert null.forget("u2") is False
    assert null.erasure_epoch("u1") == 1                # any erasure: it keeps no ids
    assert null.add("u1", patient(), epoch=0) == 0 and null.add_turn("u1", "q", "a", epoch=1) is False


def test_history_keeps_no_identifier_the_answer_echoes(tmp_path: Path) -> None:
    """Issue 22: the answer is kept redacted too, and without the name the question introduced."""
    store = ProfileStore(tmp_path / "p.sqlite")
    store.add_turn("u1", "제 이름은 홍길동이고 010-1234-5678 인데 두통약 알려주세요",
                   "홍길동님, 010 1234 5678 번호로 연락드릴게요. 두통에는 아세트아미노펜 [문서 1].")
    kept = " ".join(m["content"] for m in store.recent_turns("u1", 1))
    assert "홍길동" not in kept and "5678" not in kept and "아세트아미노펜" in kept


def test_a_relatives_facts_are_kept_apart_from_the_writers(store: ProfileStore) -> None:
    """A child's age neither replaces the writer's nor shows in a view of the writer."""
    store.add("mum", [SlotItem("demographics", "age", 35)], at=T0)
    child = [SlotItem("demographics", "age", 5, about="child"), SlotItem("symptoms", "발열", about="child")]
    assert store.add("mum", child, at=T0 + timedelta(minutes=1)) == 2
    now = T0 + timedelta(minutes=2)
    assert store.summary("mum", now=now) == "35세. (자녀) 5세. 증상: 발열."
    assert store.view("mum", now=now, about="self").summary == "35세."
    assert store.view("mum", now=now, about="child").summary == "(자녀) 5세. 증상: 발열."
    assert store.view("mum", now=now, about="child").terms == ["발열"]
    assert store.latest_subject("mum", now=now) == "child"
    assert store.latest_subject("mum", now=now + timedelta(days=1)) == "self"   # the next day: the writer
    assert store.latest_subject("nobody") == "self"


def test_about_must_be_a_known_person() -> None:
    with pytest.raises(ValueError, match="about"):
        SlotItem("demographics", "age", 5, about="neighbour")
