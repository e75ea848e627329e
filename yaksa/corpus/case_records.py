"""Internal M&M case records → `cases` documents (`mm:<id>`), the critique's own institutional memory.

Why a source of its own: a hospital's morbidity & mortality records are the internal cases the
critique is built around (MTSamples and Synthea notes are narratives, not reviewed cases). A record is
one JSON line: `id`, `title`, optional `specialty` and `lessons`, and the case parts the critique
reads (`summary` required; `timeline`, `findings`, `diagnoses`, `management`, `outcome`), parsed by the
same `parse_case` as a case submitted for critique, so a record reads exactly like a case.

`data/raw/mm-cases/mm_cases.jsonl` holds 20 records written for yaksa (synthetic, no patient data).
"""

from __future__ import annotations

from pathlib import Path

from yaksa.corpus.case import LESSONS_MARK, PARTS, CaseError, parse_case
from yaksa.corpus.document import Document, normalize_text
from yaksa.corpus.rawio import LoadResult, iter_jsonl, list_files, one_line
from yaksa.corpus.rejects import RejectLog

SOURCE = "case_records"
EXTRA_FIELDS = ("id", "title", "specialty", "lessons")


def record_document(rec: dict) -> Document:
    """One record as a document; ValueError (with the reason) when the record is malformed."""
    unknown = sorted(set(rec) - set(PARTS) - set(EXTRA_FIELDS))
    if unknown:
        raise ValueError(f"unknown field(s) {unknown}")
    record_id, title = one_line(rec.get("id")), one_line(rec.get("title"))
    if not record_id:
        raise ValueError("missing id: empty id")
    if not title:
        raise ValueError(f"missing title: record {record_id}")
    lessons = rec.get("lessons") or ""
    if not isinstance(lessons, str):
        # a ValueError like every other bad record: the loader names the file and row from it
        raise ValueError(f"record {record_id}: lessons must be a string")  # noqa: TRY004
    try:
        case = parse_case({k: v for k, v in rec.items() if k in PARTS})
    except CaseError as exc:
        raise ValueError(f"record {record_id}: {exc}") from None
    text = case.text + (f"\n{LESSONS_MARK} {lessons.strip()}" if lessons.strip() else "")
    specialty = one_line(rec.get("specialty"))
    return Document(doc_id=f"mm:{record_id}", collection="cases", source=SOURCE, title=title,
                    section=specialty, text=normalize_text(text), lang="en",
                    metadata={"specialty": specialty, "kind": "mm_record", "diagnoses": case.diagnoses})


def load_with_stats(path: Path, rejects: RejectLog, limit: int = 0) -> LoadResult:
    """Documents plus `records` = JSONL lines read (`limit` counts lines across files)."""
    result = LoadResult()
    for file in list_files(path, ("*.jsonl",)):
        for line_no, rec, error in iter_jsonl(file, limit - result.records if limit else 0):
            result.records += 1
            if rec is None:
                rejects.add(SOURCE, str(file), line_no, error)
                continue
            try:
                doc = record_document(rec)
            except ValueError as exc:
                reason = str(exc)
                rejects.add(SOURCE, str(file), line_no, reason if ":" in reason else f"malformed record: {reason}")
                continue
            result.add(doc, str(file), line_no)
        if limit and result.records >= limit:
            break
    return result


def load(path: Path, rejects: RejectLog, limit: int = 0) -> list[Document]:
    """One `cases` document per M&M record."""
    return load_with_stats(path, rejects, limit).documents
