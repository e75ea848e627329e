from __future__ import annotations

import json
from pathlib import Path

from yaksa.corpus import medquad
from yaksa.corpus.rejects import RejectLog


def test_subset_documents(shared_data):
    rejects = RejectLog()
    result = medquad.load_with_stats(shared_data("medquad/passages.jsonl"), rejects, limit=300)
    assert result.records == 300 and len(result.documents) == 300 and not rejects.items
    doc = result.documents[0]
    assert doc.doc_id == "medquad:0000001_1-1:Adult-Acute-Lymphoblastic-Leukemia"
    assert (doc.collection, doc.source, doc.lang) == ("health", "medquad", "en")
    assert doc.title == "Adult Acute Lymphoblastic Leukemia" and doc.section == "information"
    assert doc.text.startswith("Key Points\n- Adult acute lymphoblastic leukemia (ALL) is a type of cancer")
    assert "                    " not in doc.text  # the XML indentation is gone
    assert doc.metadata == {
        "qid": "0000001_1-1", "qtype": "information", "focus": "Adult Acute Lymphoblastic Leukemia",
        "cuis": ["C0751606"], "semantic_group": "Disorders", "subset": "1_CancerGov_QA",
        "url": "https://www.cancer.gov/types/leukemia/patient/adult-all-treatment-pdq"}


def test_repeated_qids_get_distinct_doc_ids(shared_data):
    # CancerGov's 0000013_2 document holds seven topics that all number their questions 0000013_2-1..
    docs = medquad.load(shared_data("medquad/passages.jsonl"), RejectLog(), limit=300)
    same_qid = [d for d in docs if d.metadata["qid"] == "0000013_2-1"]
    assert len(same_qid) == 7
    assert len({d.doc_id for d in same_qid}) == 7
    assert "medquad:0000013_2-1:Polycythemia-Vera" in {d.doc_id for d in same_qid}


def test_every_dev_gold_maps_to_one_document(shared_data):
    """The whole file (about 1 s): ids are unique and each dev question's gold answer resolves."""
    docs = medquad.load(shared_data("medquad/passages.jsonl"), RejectLog())
    ids = {d.doc_id for d in docs}
    assert len(docs) == 16407 and len(ids) == 16407
    with shared_data("medquad/dev_questions.jsonl").open(encoding="utf-8") as fh:
        questions = [json.loads(line) for line in fh]
    assert all(medquad.doc_id_for(q["gold_doc"], q["focus"]) in ids for q in questions)


def test_doc_id_for():
    assert medquad.doc_id_for("0000381-1", "fragile X syndrome") != medquad.doc_id_for("0000381-1", "Fragile X Syndrome")
    assert medquad.doc_id_for("0000199-12", "") == "medquad:0000199-12:no-focus"


def test_bad_lines(tmp_path: Path):
    good = {"qid": "q1", "qtype": "symptoms", "answer": "Fever\xa0and  cough.", "focus": "Flu", "cuis": ["C1"]}
    lines = [
        json.dumps(good),
        "",  # blank lines are not records
        '{"qid": "q2", "answer": "trunc',
        json.dumps({**good, "qid": "q3", "answer": "   \n  "}),
        json.dumps({**good, "qid": "", "answer": "text"}),
        json.dumps(["not", "an", "object"]),
    ]
    path = tmp_path / "passages.jsonl"
    path.write_bytes("\n".join(lines).encode() + b'\n{"qid": "q4", "answer": "\xff"}\n')
    rejects = RejectLog()
    result = medquad.load_with_stats(path, rejects)
    assert [d.doc_id for d in result.documents] == ["medquad:q1:Flu"]
    assert result.documents[0].text == "Fever and cough."
    assert result.records == 6
    assert [(r.row, r.reason.split(":")[0]) for r in rejects.items] == [
        (3, "malformed JSON"), (4, "empty text"), (5, "missing id"), (6, "not an object"), (7, "invalid UTF-8")]
    assert all(r.file == str(path) for r in rejects.items)
