"""Rejected input rows: recorded with where they came from and why, never silently dropped."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Reject:
    source: str
    file: str
    row: int  # 1-based data row (CSV: excluding the header; JSONL: line number; FHIR: entry index)
    reason: str


@dataclass
class RejectLog:
    """Collects rejects from every adapter in one build; the ingest stage writes and judges them."""

    items: list[Reject] = field(default_factory=list)

    def add(self, source: str, file: str, row: int, reason: str) -> None:
        self.items.append(Reject(source=source, file=file, row=row, reason=reason))

    def count(self, source: str | None = None) -> int:
        return sum(1 for r in self.items if source is None or r.source == source)

    def __len__(self) -> int:
        return len(self.items)
