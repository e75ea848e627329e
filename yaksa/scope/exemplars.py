"""The committed scope question sets: what the scope model learns from and is measured on.

Why files and not code: the sets are the specification of "in scope". A reviewer reads and edits
`questions/in_scope.jsonl` and `questions/out_of_scope.jsonl` (one object per line: id, text, lang,
domain, note; `note` is "decoy:<word>" for a non-medical request that carries a drug or health word),
and the model that decides follows them. Each set is split in half by a hash of the id
(`is_held_out`): the scope model is fitted and its threshold chosen on the tuning half only, and
`yaksa eval scope` reports it on the held-out half.

Usage:
    tuning = [q for q in load_questions() if not is_held_out(q.qid)]
    exemplar_set_hash(tuning)   # part of the deciding model's identity
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

from yaksa.split import is_held_out  # noqa: F401 - the scope sets use the one split

IN_SCOPE_FILE = "in_scope.jsonl"
OUT_OF_SCOPE_FILE = "out_of_scope.jsonl"
LANGS = ("ko", "en")
FIELDS = ("id", "text", "lang", "domain", "note")


@dataclass(frozen=True)
class ScopeQuestion:
    qid: str
    text: str
    lang: str
    domain: str
    note: str
    in_scope: bool

    @property
    def decoy(self) -> bool:
        """A drug or health word inside a request the corpus cannot answer."""
        return self.note.startswith("decoy:")


def parse_questions(text: str, in_scope: bool, source: str) -> list[ScopeQuestion]:
    """Parse one JSONL set; ValueError naming the line on anything malformed or duplicated."""
    out: list[ScopeQuestion] = []
    seen_ids: set[str] = set()
    seen_texts: set[str] = set()
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{source}:{n}: malformed JSON: {exc}") from exc
        if not isinstance(row, dict) or any(not isinstance(row.get(f), str) for f in FIELDS):
            raise ValueError(f"{source}:{n}: need string fields {FIELDS}")
        if not row["id"] or not row["text"].strip() or row["lang"] not in LANGS or not row["domain"]:
            raise ValueError(f"{source}:{n}: empty id/text/domain or lang not in {LANGS}")
        if row["id"] in seen_ids or row["text"] in seen_texts:
            raise ValueError(f"{source}:{n}: duplicate id or text {row['id']!r}")
        seen_ids.add(row["id"])
        seen_texts.add(row["text"])
        out.append(ScopeQuestion(row["id"], row["text"].strip(), row["lang"], row["domain"], row["note"], in_scope))
    return out


def load_questions() -> list[ScopeQuestion]:
    """Both packaged sets, in-scope first, in file order."""
    files = resources.files("yaksa.scope").joinpath("questions")
    return [q for name, in_scope in ((IN_SCOPE_FILE, True), (OUT_OF_SCOPE_FILE, False))
            for q in parse_questions(files.joinpath(name).read_text(encoding="utf-8"), in_scope, name)]


def exemplar_set_hash(questions: Sequence[ScopeQuestion]) -> str:
    """A short hash of texts and labels: changes whenever the data the model is fitted on changes."""
    h = hashlib.sha256()
    for q in questions:
        h.update(f"{int(q.in_scope)}\t{q.text}\n".encode())
    return h.hexdigest()[:12]
