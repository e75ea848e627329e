from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from yaksa.config import load_settings
from yaksa.corpus.document import COLLECTIONS, Document
from yaksa.corpus.ingest import IngestError, read_documents, run_ingest

CHECKOUT_PARENT = Path(__file__).resolve().parents[3]


def _append_duplicates(raw: Path) -> None:
    """A repeated medquad line (same doc_id) and a copy of line 2 under a new qid (same content)."""
    path = raw / "medquad" / "passages.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    second = json.loads(lines[1])
    second["qid"] = "copy-of-line-2"
    path.write_text("\n".join([*lines, lines[0], json.dumps(second)]) + "\n", encoding="utf-8")


def _assert_no_machine_paths(settings, tmp_path: Path) -> None:
    for value in pq.read_table(settings.paths.rejects).column("file").to_pylist():
        assert not value.startswith("/") and str(tmp_path) not in value
    summary_text = settings.paths.ingest_summary.read_text(encoding="utf-8")
    # neither the temp project nor the folder holding the checkout and ../shared may leak in
    assert str(tmp_path) not in summary_text and str(CHECKOUT_PARENT) + "/" not in summary_text


def test_full_build_round_trip(tiny_raw: Path, write_params, tmp_path: Path, capsys):
    _append_duplicates(tiny_raw)
    settings = load_settings(write_params(tiny_raw.parent.parent))
    summary = run_ingest(settings, progress=False)

    docs = read_documents(settings.paths.documents)
    assert len(docs) == summary.total_documents
    assert set(summary.collections) == set(COLLECTIONS)
    order = [COLLECTIONS.index(d.collection) for d in docs]
    assert order == sorted(order)  # grouped by collection, drugs first
    assert len({d.doc_id for d in docs}) == len(docs)
    table = pq.read_table(settings.paths.documents)
    assert table.column_names == list(docs[0].to_row())
    assert docs[0] == Document.from_row(table.slice(0, 1).to_pylist()[0])
    anemo = next(d for d in docs if d.doc_id == "mfds:195900043:efficacy")
    assert anemo.metadata["appearance"]["imprint_front"] == "SJΛ"  # join survived the parquet round trip

    s = summary.sources
    assert (s["medquad"].records, s["medquad"].documents, s["medquad"].rejects) == (42, 40, 2)
    assert (s["mfds_easy_drug"].records, s["mtsamples"].records, s["pubmedqa"].documents) == (20, 15, 20)
    assert s["synthea"].records == s["synthea"].documents > 0
    assert summary.pill_matches >= 1 and summary.empty_sections_skipped > 0

    rejects = pq.read_table(settings.paths.rejects).to_pylist()
    medquad_rejects = [r for r in rejects if r["source"] == "medquad"]
    assert [(r["file"], r["row"]) for r in medquad_rejects] == [("medquad/passages.jsonl", 41),
                                                               ("medquad/passages.jsonl", 42)]
    assert medquad_rejects[0]["reason"].startswith("duplicate doc_id: medquad:0000001_1-1:")
    assert medquad_rejects[1]["reason"] == f"duplicate of {docs_by_source(docs, 'medquad')[1].doc_id}"

    written = json.loads(settings.paths.ingest_summary.read_text(encoding="utf-8"))
    assert written["error"] is None
    assert written["sources"]["medquad"] == {"path": "data/raw/medquad/passages.jsonl", "records": 42,
                                             "documents": 40, "rejects": 2, "reject_rate": round(2 / 42, 6)}
    assert written["total_documents"] == len(docs) and written["collections"] == summary.collections
    assert {"reason": "duplicate doc_id", "count": 1} in written["reject_reasons"]
    _assert_no_machine_paths(settings, tmp_path)
    out = capsys.readouterr().out
    assert "medquad" in out and "collections: drugs" in out and "top reject reasons" in out


def docs_by_source(docs: list[Document], source: str) -> list[Document]:
    return [d for d in docs if d.source == source]


def test_reject_rate_failure_still_writes_rejects(tiny_raw: Path, write_params, tmp_path: Path):
    bad = tiny_raw / "pubmedqa" / "abstracts.jsonl"
    bad.write_text(bad.read_text(encoding="utf-8") + "{broken\n" * 10, encoding="utf-8")
    settings = load_settings(write_params(tiny_raw.parent.parent, max_reject_rate=0.01,
                                          sources={"pubmedqa": "pubmedqa/abstracts.jsonl"}))
    with pytest.raises(IngestError, match=r"reject rate 33\.33% \(10 of 30 input records\) exceeds "
                                          r"ingest\.max_reject_rate 1\.00%; see data/processed/rejects\.parquet"):
        run_ingest(settings, progress=False)
    rejects = pq.read_table(settings.paths.rejects).to_pylist()
    assert [r["row"] for r in rejects] == list(range(21, 31))
    assert {r["file"] for r in rejects} == {"pubmedqa/abstracts.jsonl"}
    assert not settings.paths.documents.exists()
    assert json.loads(settings.paths.ingest_summary.read_text(encoding="utf-8"))["error"].startswith("reject rate")
    _assert_no_machine_paths(settings, tmp_path)


def test_missing_source_skipped_and_empty_rejects_file(tiny_raw: Path, write_params, capsys):
    settings = load_settings(write_params(tiny_raw.parent.parent, limit=5, sources={
        "pubmedqa": "pubmedqa/abstracts.jsonl", "medquad": "nowhere/passages.jsonl"}))
    summary = run_ingest(settings, progress=False)
    assert "medquad: data/raw/nowhere/passages.jsonl not found — skipped" in capsys.readouterr().out
    assert summary.skipped == ["medquad"] and summary.total_documents == 5  # limit_per_source applied
    rejects = pq.read_table(settings.paths.rejects)
    assert rejects.num_rows == 0 and rejects.column_names == ["source", "file", "row", "reason"]


def test_raw_entries_may_be_symlinks(tiny_raw: Path, write_params, tmp_path: Path):
    elsewhere = tmp_path / "elsewhere"
    (tiny_raw / "pubmedqa").rename(elsewhere)
    (elsewhere / "abstracts.jsonl").write_text(
        (elsewhere / "abstracts.jsonl").read_text(encoding="utf-8") + "{broken\n", encoding="utf-8")
    (tiny_raw / "pubmedqa").symlink_to(elsewhere, target_is_directory=True)
    settings = load_settings(write_params(tiny_raw.parent.parent, sources={"pubmedqa": "pubmedqa"}))
    summary = run_ingest(settings, progress=False)
    assert summary.sources["pubmedqa"].documents == 20
    assert pq.read_table(settings.paths.rejects).column("file").to_pylist() == ["pubmedqa/abstracts.jsonl"]


def test_no_documents_is_an_error(tmp_path: Path, write_params):
    project = tmp_path / "p"
    (project / "data" / "raw" / "mt").mkdir(parents=True)
    (project / "data" / "raw" / "mt" / "mt.csv").write_text('0,d,s,n,"  ",k\n', encoding="utf-8")
    settings = load_settings(write_params(project, max_reject_rate=1.0, sources={"mtsamples": "mt/mt.csv"}))
    with pytest.raises(IngestError, match="no documents"):
        run_ingest(settings, progress=False)
    assert pq.read_table(settings.paths.rejects).num_rows == 1


def test_unknown_source_and_bad_header_are_errors(tmp_path: Path, write_params):
    project = tmp_path / "p"
    (project / "data" / "raw").mkdir(parents=True)
    with pytest.raises(IngestError, match="unknown source.*medqad"):
        run_ingest(load_settings(write_params(project, sources={"medqad": "x"})), progress=False)
    (project / "data" / "raw" / "drugs.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(IngestError, match="mfds_easy_drug: cannot read data/raw/drugs.csv: .*header lacks"):
        run_ingest(load_settings(write_params(project, sources={"mfds_easy_drug": "drugs.csv"})), progress=False)


def test_read_documents_errors(tmp_path: Path):
    with pytest.raises(IngestError, match="documents file not found"):
        read_documents(tmp_path / "missing.parquet")
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"not parquet at all")
    with pytest.raises(IngestError, match="not a readable Parquet file"):
        read_documents(junk)
    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"x": [1]}), other)
    with pytest.raises(IngestError, match="missing column"):
        read_documents(other)
