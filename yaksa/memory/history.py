"""A user's recent conversation turns, stored in the profile database beside their facts.

Why there and not in process memory: the server runs several worker processes and a user's next
turn may land on any of them, and erasing a user (`ProfileStore.forget`) must reach what they said
as well as what was extracted from it. One table `conversation_turns` (user_id, seq, question,
answer, said_at as Unix seconds); `seq` orders turns stated at the same instant. Only the newest `keep`
turns per user are kept (trimmed on insert): the generator sees a few, and older ones are just
personal data at rest.

Why the question is stored redacted (`yaksa.privacy.redact_identifiers`): a name or phone number
adds nothing to the next answer's context, so it is not kept on disk at all.

These functions take an open connection, SQLite or PostgreSQL (the table is created with the others
in `yaksa.memory.profile_db` and the `yaksa.store` migrations); `ProfileStore` owns connecting, locking and transactions.
"""

from __future__ import annotations

from yaksa.memory.profile_db import Connection, WriteConnection
from yaksa.privacy import find_identifiers, redact_identifiers


def check_turn(question: str, answer: str) -> None:
    """Reject a turn that cannot be stored: a blank question, a non-string answer."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError(f"question must be a non-empty string, got {question!r}")
    if not isinstance(answer, str):
        raise TypeError(f"answer must be a string, got {type(answer).__name__}")


def check_turn_count(turns: int, what: str) -> int:
    """`turns` if it is an integer >= 0 (not a bool), else a ValueError naming `what`."""
    if isinstance(turns, bool) or not isinstance(turns, int) or turns < 0:
        raise ValueError(f"{what} must be an integer >= 0, got {turns!r}")
    return turns


def _redacted_answer(answer: str, question: str) -> str:
    """The answer as kept: without identifiers, nor the names the question introduced (an LLM that
    greets "홍길동님" echoes a name no pattern would recognise in the answer alone)."""
    names = {question[i.start:i.end] for i in find_identifiers(question) if i.kind == "name"}
    kept = redact_identifiers(answer)
    for name in sorted(names, key=len, reverse=True):
        kept = kept.replace(name, "")
    return kept


def insert_turn(con: WriteConnection, user_id: str, question: str, answer: str,
                at: float, keep: int) -> None:
    """Append one turn and drop the user's turns beyond the newest `keep` (call inside a transaction).
    Both statements are deferred (nothing reads their results): the new turn's number is computed by
    the INSERT itself, so on PostgreSQL they travel with the COMMIT."""
    con.defer("INSERT INTO conversation_turns SELECT ?, coalesce(max(seq), 0) + 1, ?, ?, ? "
              "FROM conversation_turns WHERE user_id = ?",
              [user_id, redact_identifiers(question), _redacted_answer(answer, question), at, user_id])
    con.defer("""
        DELETE FROM conversation_turns WHERE user_id = ? AND seq NOT IN (
            SELECT seq FROM conversation_turns WHERE user_id = ? ORDER BY said_at DESC, seq DESC LIMIT ?)
    """, [user_id, user_id, keep])


def recent_messages(con: Connection, user_id: str, turns: int) -> list[dict[str, str]]:
    """The last `turns` turns as chat messages, oldest first: user, assistant, user, assistant, ..."""
    rows = con.execute("""
        SELECT question, answer FROM (
            SELECT question, answer, said_at, seq FROM conversation_turns WHERE user_id = ?
            ORDER BY said_at DESC, seq DESC LIMIT ?) AS recent
        ORDER BY said_at, seq
    """, [user_id, turns]).fetchall()
    return [m for q, a in rows for m in ({"role": "user", "content": q}, {"role": "assistant", "content": a})]


def delete_turns(con: Connection, user_id: str) -> int:
    """Erase the user's turns; how many there were."""
    (count,) = con.execute("SELECT count(*) FROM conversation_turns WHERE user_id = ?", [user_id]).fetchone()
    con.execute("DELETE FROM conversation_turns WHERE user_id = ?", [user_id])
    return int(count)
