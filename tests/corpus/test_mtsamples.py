from __future__ import annotations

from pathlib import Path

from yaksa.corpus import mtsamples
from yaksa.corpus.mtsamples import format_transcription
from yaksa.corpus.rejects import RejectLog


def test_real_file(shared_data):
    rejects = RejectLog()
    result = mtsamples.load_with_stats(shared_data("mtsamples-first400/mtsamples_first400.csv"), rejects)
    assert result.records == 401 and len(result.documents) == 397
    assert [(r.row, r.reason) for r in rejects.items] == [
        (98, "empty text: sample 97 has no transcription"), (117, "empty text: sample 116 has no transcription"),
        (206, "empty text: sample 205 has no transcription"), (264, "empty text: sample 263 has no transcription")]
    doc = result.documents[0]
    assert doc.doc_id == "mtsamples:0"
    assert (doc.collection, doc.source, doc.lang) == ("cases", "mtsamples", "en")
    assert (doc.title, doc.section) == ("Allergic Rhinitis", "Allergy / Immunology")
    lines = doc.text.splitlines()
    assert lines[0].startswith("SUBJECTIVE: This 23-year-old white female presents with complaint of allergies.")
    assert "MEDICATIONS: Her only medication currently is Ortho Tri-Cyclen and the Allegra." in lines
    assert "Neck: Supple without adenopathy." in lines
    assert doc.metadata["specialty"] == "Allergy / Immunology"
    assert doc.metadata["description"] == "A 23-year-old white female presents with complaint of allergies."
    assert doc.metadata["keywords"][:2] == ["allergy / immunology", "allergic rhinitis"]


def test_limit(shared_data):
    docs = mtsamples.load(shared_data("mtsamples-first400/mtsamples_first400.csv"), RejectLog(), limit=5)
    assert [d.doc_id for d in docs] == [f"mtsamples:{i}" for i in range(5)]


def test_format_transcription():
    raw = "PREOPERATIVE DIAGNOSIS: , Morbid obesity.,POSTOPERATIVE DIAGNOSIS:  ,Same.,PLAN:,1.  Rest.,2.  Fluids."
    assert format_transcription(raw) == (
        "PREOPERATIVE DIAGNOSIS: Morbid obesity.\nPOSTOPERATIVE DIAGNOSIS: Same.\nPLAN: 1. Rest.\n2. Fluids.")
    assert format_transcription("BP 120/80, HR 72, afebrile.") == "BP 120/80, HR 72, afebrile."


def test_bad_rows(tmp_path: Path):
    path = tmp_path / "mt.csv"
    path.write_bytes(
        b'0, Desc., Surgery, Name ,"HISTORY:,  Text\xc2\xa0here.","kw1, kw2"\n'
        b'1, Desc., Surgery, Name ,"   ",kw\n'
        b',Desc., Surgery, Name ,"Some text",kw\n'
        b'3, only, four, columns\n'
        b'4, Desc., Surgery, Name ,"bad \xff byte",kw\n'
    )
    rejects = RejectLog()
    docs = mtsamples.load(path, rejects)
    assert len(docs) == 1 and docs[0].text == "HISTORY: Text here."
    assert docs[0].metadata["keywords"] == ["kw1", "kw2"]
    assert [(r.row, r.reason.split(":")[0]) for r in rejects.items] == [
        (2, "empty text"), (3, "missing id"), (4, "wrong column count"), (5, "invalid UTF-8")]
