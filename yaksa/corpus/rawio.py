"""Reading raw source files without crashing on one bad byte or line.

Every adapter reads CSV, JSONL or JSON written by someone else. A single undecodable byte or a
truncated line must become a reject naming the file and row, not an exception that loses the whole
source, and never a silently skipped record. The helpers here do the decoding and parsing; adapters
decide what a good record is.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yaksa.corpus.document import Document, normalize_text

# `surrogateescape` maps each byte that is not valid UTF-8 to one of these code points, so a bad byte
# stays attached to the row it sits in instead of aborting the whole file.
_BAD_BYTES = re.compile("[\udc80-\udcff]")


class SourceFormatError(ValueError):
    """A whole file has the wrong structure (e.g. a CSV header without the expected columns).

    Raised instead of rejecting row by row: every row would fail, and the cause is a misconfigured
    source path, which one clear error explains better than hundreds of rejects.
    """


@dataclass
class LoadResult:
    """What one adapter read: the documents, where each came from, and the counts ingest reports."""

    documents: list[Document] = field(default_factory=list)
    origins: list[tuple[str, int]] = field(default_factory=list)  # (file, row), parallel to documents
    records: int = 0  # input records read; the unit rejects are counted in
    stats: dict[str, int] = field(default_factory=dict)  # adapter-specific counts

    def add(self, doc: Document, file: str, row: int) -> None:
        self.documents.append(doc)
        self.origins.append((file, row))

    def bump(self, key: str, n: int = 1) -> None:
        self.stats[key] = self.stats.get(key, 0) + n


def one_line(value: Any) -> str:
    """Normalise a title or label to a single line: titles are shown in citations and lists."""
    return " ".join(normalize_text(str(value or "")).split())


def has_bad_bytes(values: list[str]) -> bool:
    """True when any field still carries bytes that were not valid UTF-8."""
    return any(_BAD_BYTES.search(v) for v in values)


def list_files(path: Path, patterns: tuple[str, ...], recursive: bool = False) -> list[Path]:
    """The input files under `path` (a file or a directory), sorted so builds are reproducible."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise FileNotFoundError(f"{path}: no such file or directory")
    found: set[Path] = set()
    for pattern in patterns:
        found.update(path.rglob(pattern) if recursive else path.glob(pattern))
    return sorted(p for p in found if p.is_file())


def read_csv(path: Path) -> list[list[str]]:
    """All CSV records of `path`, BOM removed; undecodable bytes survive as surrogates (see
    `has_bad_bytes`) so the caller can reject just the rows that contain them."""
    text = path.read_bytes().decode("utf-8-sig", errors="surrogateescape")
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        return list(reader)
    except csv.Error as exc:
        raise SourceFormatError(f"{path}: line {reader.line_num}: unreadable CSV: {exc}") from exc


def iter_jsonl(path: Path, limit: int = 0) -> Iterator[tuple[int, dict[str, Any] | None, str]]:
    """Yield `(line number, object, "")` per non-blank line, or `(line number, None, reason)` when the
    line is not UTF-8, not JSON, or not a JSON object. Stops after `limit` lines (0 = all)."""
    seen = 0
    with path.open("rb") as fh:
        for line_no, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            seen += 1
            try:
                line = raw.decode("utf-8-sig" if line_no == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                yield line_no, None, f"invalid UTF-8: bad byte at offset {exc.start} of the line"
            else:
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    yield line_no, None, f"malformed JSON: {exc.msg} (column {exc.colno})"
                else:
                    if isinstance(obj, dict):
                        yield line_no, obj, ""
                    else:
                        yield line_no, None, f"not an object: line holds a JSON {type(obj).__name__}"
            if limit and seen >= limit:
                return


def read_json(path: Path) -> tuple[Any, str]:
    """`(parsed JSON, "")`, or `(None, reason)` when the file is not UTF-8 or not valid JSON."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return None, f"invalid UTF-8: bad byte at offset {exc.start} of the file"
    try:
        return json.loads(text), ""
    except json.JSONDecodeError as exc:
        return None, f"malformed JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
