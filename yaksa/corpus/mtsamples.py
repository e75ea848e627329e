"""MTSamples transcriptions → `cases` documents (case narratives for the M&M critique path).

The file has no header row (columns: index, description, medical_specialty, sample_name,
transcription, keywords), and its transcriptions lost their line breaks: sections run together as
"...allergies.,MEDICATIONS: , Her only...". `format_transcription` puts the breaks back so a cited
case reads like a note and headings start lines.
"""

from __future__ import annotations

import re
from pathlib import Path

from yaksa.corpus.document import Document, normalize_text
from yaksa.corpus.rawio import LoadResult, has_bad_bytes, list_files, one_line, read_csv
from yaksa.corpus.rejects import RejectLog

SOURCE = "mtsamples"
N_COLUMNS = 6

# ",HEADING:," / ",HEADING: ," / "HEADING:  ," at the start: an upper-case heading set off by commas.
_HEADING = re.compile(r"(?:^|,)\s*([A-Z][A-Z0-9 /&()'#\-]*[A-Z0-9)])\s*:\s*,?\s*")
# Remaining line breaks were flattened to "," right after a sentence: "Clear.,Neck:  Supple".
_FLAT_BREAK = re.compile(r"(?<=[.:]),(?=[A-Za-z0-9])")


def format_transcription(raw: str) -> str:
    """",SUBJECTIVE:,  This 23-year-old ....,MEDICATIONS: , Her only..." → one heading per line."""
    text = _HEADING.sub(lambda m: f"\n{m.group(1)}: ", raw)
    text = _FLAT_BREAK.sub("\n", text)
    return normalize_text(text)


def load_with_stats(path: Path, rejects: RejectLog, limit: int = 0) -> LoadResult:
    """Documents plus `records` = CSV rows read (`limit` counts rows across files)."""
    result = LoadResult()
    for file in list_files(path, ("*.csv",)):
        for row_no, row in enumerate(read_csv(file), start=1):
            if not row:
                continue
            result.records += 1
            _row_document(file, row_no, row, rejects, result)
            if limit and result.records >= limit:
                return result
    return result


def _row_document(file: Path, row_no: int, row: list[str], rejects: RejectLog, result: LoadResult) -> None:
    if len(row) != N_COLUMNS:
        rejects.add(SOURCE, str(file), row_no, f"wrong column count: expected {N_COLUMNS}, got {len(row)}")
        return
    if has_bad_bytes(row):
        rejects.add(SOURCE, str(file), row_no, "invalid UTF-8: undecodable bytes in row")
        return
    index, description, specialty, name, transcription, keywords = row
    index = one_line(index)
    if not index:
        rejects.add(SOURCE, str(file), row_no, "missing id: empty index column")
        return
    text = format_transcription(transcription)
    if not text:
        rejects.add(SOURCE, str(file), row_no, f"empty text: sample {index} has no transcription")
        return
    specialty = one_line(specialty)
    doc = Document(
        doc_id=f"mtsamples:{index}", collection="cases", source=SOURCE,
        title=one_line(name), section=specialty, text=text, lang="en",
        metadata={
            "description": one_line(description),
            "specialty": specialty,
            "keywords": [k for k in (one_line(x) for x in keywords.split(",")) if k],
        },
    )
    result.add(doc, str(file), row_no)


def load(path: Path, rejects: RejectLog, limit: int = 0) -> list[Document]:
    """One `cases` document per transcription from the header-less MTSamples CSV (or a directory)."""
    return load_with_stats(path, rejects, limit).documents
