"""Internal M&M case records → `cases` documents: the committed records read cleanly, bad ones are rejected by line."""

from __future__ import annotations

import json
from pathlib import Path

from yaksa.corpus import case_records
from yaksa.corpus.rejects import RejectLog

REPO = Path(__file__).resolve().parents[2]
RECORDS = REPO / "data" / "raw" / "mm-cases" / "mm_cases.jsonl"


def test_the_committed_records_all_become_case_documents() -> None:
    rejects = RejectLog()
    result = case_records.load_with_stats(RECORDS, rejects)
    assert result.records == 20 and len(result.documents) == 20 and not rejects.items
    doc = next(d for d in result.documents if d.doc_id == "mm:2024-001")
    assert doc.collection == "cases" and doc.source == "case_records" and doc.section == "Orthopaedics"
    assert doc.title == "Missed pulmonary embolism after total knee replacement"
    # the record reads like a submitted case (same labelled parts), followed by its lessons
    assert doc.text.startswith("Summary: 72-year-old woman") and "\nManagement: " in doc.text
    assert "Lessons: Unexplained tachycardia" in doc.text
    assert "massive pulmonary embolism" in doc.metadata["diagnoses"]


def test_malformed_records_are_rejected_with_their_line(tmp_path: Path) -> None:
    good = {"id": "x1", "title": "A case", "summary": "A 50-year-old man with chest pain."}
    lines = [json.dumps(good), "{not json", json.dumps({**good, "id": ""}), json.dumps({**good, "id": "x2", "summary": ""}),
             json.dumps({**good, "id": "x3", "ward": "7B"}), json.dumps({**good, "id": "x4", "title": ""}),
             json.dumps({**good, "id": "x5", "outcome": 3})]
    path = tmp_path / "records.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    rejects = RejectLog()
    result = case_records.load_with_stats(path, rejects)
    assert [d.doc_id for d in result.documents] == ["mm:x1"] and result.records == 7
    reasons = {r.row: r.reason for r in rejects.items}
    assert set(reasons) == {2, 3, 4, 5, 6, 7}
    assert reasons[3].startswith("missing id") and "summary is required" in reasons[4]
    assert "unknown field(s) ['ward']" in reasons[5] and reasons[6].startswith("missing title")
    assert "case.outcome must be a string" in reasons[7]
