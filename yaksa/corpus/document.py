"""The one document schema every source adapter produces.

Every later stage (tokenize, embed, index, retrieval, the agent's citations) reads this shape, so
adapters differ only in how they parse their source, never in what they emit.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Any

COLLECTIONS: tuple[str, ...] = ("drugs", "health", "literature", "cases")


def normalize_text(text: str) -> str:
    """NFC-normalise, turn NBSP/BOM/zero-width characters into plain spaces, trim each line.

    The MFDS CSV carries a BOM and `\\xa0` between words; left in, they split tokens and make two
    copies of the same sentence hash differently.
    """
    text = unicodedata.normalize("NFC", text)
    for bad in ("\ufeff", "\u200b", "\u200c", "\u200d"):
        text = text.replace(bad, "")
    text = text.replace("\xa0", " ").replace("\r\n", "\n").replace("\r", "\n")
    lines = [" ".join(line.split()) for line in text.split("\n")]
    # collapse runs of blank lines to one blank line
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()


def content_hash(title: str, section: str, text: str) -> str:
    """sha256 over exactly what gets embedded and indexed: a change to any of it re-embeds."""
    payload = f"{title}\x1f{section}\x1f{text}".encode()
    return hashlib.sha256(payload).hexdigest()


@dataclass(frozen=True)
class Document:
    doc_id: str
    collection: str
    source: str
    title: str
    section: str
    text: str
    lang: str
    metadata: dict[str, Any] = field(default_factory=dict)
    content_hash: str = ""

    def __post_init__(self) -> None:
        if self.collection not in COLLECTIONS:
            raise ValueError(f"unknown collection {self.collection!r}; expected one of {COLLECTIONS}")
        if not self.content_hash:
            object.__setattr__(self, "content_hash", content_hash(self.title, self.section, self.text))

    @property
    def index_text(self) -> str:
        """The text that BM25 and the embedder see: title and section carry most of the signal for
        short drug sections ("타이레놀정 — 부작용")."""
        head = " ".join(p for p in (self.title, self.section) if p)
        return f"{head}\n{self.text}" if head else self.text

    def to_row(self) -> dict[str, Any]:
        row = asdict(self)
        row["metadata"] = json.dumps(self.metadata, ensure_ascii=False, sort_keys=True)
        return row

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Document:
        data = dict(row)
        meta = data.get("metadata") or "{}"
        data["metadata"] = json.loads(meta) if isinstance(meta, str) else dict(meta)
        return cls(**data)
