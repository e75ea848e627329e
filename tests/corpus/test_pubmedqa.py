from __future__ import annotations

import json
from pathlib import Path

from yaksa.corpus import pubmedqa
from yaksa.corpus.rejects import RejectLog


def test_subset_documents(shared_data):
    rejects = RejectLog()
    result = pubmedqa.load_with_stats(shared_data("pubmedqa/abstracts.jsonl"), rejects, limit=20)
    assert result.records == 20 and len(result.documents) == 20 and not rejects.items
    doc = result.documents[0]
    assert doc.doc_id == "pubmed:21645374"
    assert (doc.collection, doc.source, doc.lang, doc.title, doc.section) == (
        "literature", "pubmedqa", "en", "", "abstract")
    parts = doc.text.split("\n\n")
    assert len(parts) == 2
    assert parts[0].startswith("BACKGROUND: Programmed cell death (PCD) is the regulated death")
    assert parts[1].startswith("RESULTS: ")
    assert doc.metadata["year"] == "2011" and doc.metadata["labels"] == ["BACKGROUND", "RESULTS"]
    assert "Apoptosis" in doc.metadata["meshes"]


def test_dev_gold_pmids_resolve(shared_data):
    ids = {d.doc_id for d in pubmedqa.load(shared_data("pubmedqa/abstracts.jsonl"), RejectLog())}
    assert len(ids) == 1000
    with shared_data("pubmedqa/dev_questions.jsonl").open(encoding="utf-8") as fh:
        assert all(f"pubmed:{json.loads(line)['gold_doc']}" in ids for line in fh)


def test_bad_lines(tmp_path: Path):
    good = {"pmid": "1", "contexts": ["A\xa0first.", "  ", "Second."], "labels": ["AIM", "X"], "meshes": [],
            "year": "2001"}
    path = tmp_path / "abstracts.jsonl"
    path.write_text("\n".join([
        json.dumps(good),
        json.dumps({**good, "pmid": "2", "contexts": []}),
        json.dumps({**good, "pmid": None}),
        json.dumps({**good, "pmid": "4", "contexts": "not a list"}),
        "{broken",
    ]) + "\n", encoding="utf-8")
    rejects = RejectLog()
    docs = pubmedqa.load(path, rejects)
    assert len(docs) == 1
    assert docs[0].text == "AIM: A first.\n\nSecond."  # third context has no label; blank context dropped
    assert [(r.row, r.reason.split(":")[0]) for r in rejects.items] == [
        (2, "empty text"), (3, "missing id"), (4, "malformed record"), (5, "malformed JSON")]
