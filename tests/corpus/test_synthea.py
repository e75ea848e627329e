from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from yaksa.corpus import synthea
from yaksa.corpus.rejects import RejectLog

from .conftest import SYNTHEA_REFERENCE_DATE, SYNTHEA_SEED


def note_texts(out: Path) -> dict[str, str]:
    texts = {}
    for file in sorted((out / "fhir").glob("*.json")):
        for entry in json.loads(file.read_text(encoding="utf-8"))["entry"]:
            res = entry["resource"]
            if res["resourceType"] == "DocumentReference":
                texts[res["id"]] = base64.b64decode(res["content"][0]["attachment"]["data"]).decode()
    return texts


def test_same_seed_same_patients_in_two_processes_and_atomic_replace(synthea_dir: Path, tmp_path: Path):
    """The fixture ran in one process; two worker processes must write the very same files."""
    out = tmp_path / "run2"
    (out / "fhir").mkdir(parents=True)
    (out / "fhir" / "stale.json").write_text("{}", encoding="utf-8")  # from an older run: must disappear
    n = synthea.generate(out, 2, SYNTHEA_SEED, "Massachusetts", reference_date=SYNTHEA_REFERENCE_DATE, processes=2)
    assert n == 2
    assert sorted(p.name for p in (out / "fhir").iterdir()) == sorted(p.name for p in (synthea_dir / "fhir").iterdir())
    first, second = note_texts(synthea_dir), note_texts(out)
    assert first and first == second
    # with the reference date pinned, whole bundles are byte-identical, not just the notes
    for a in (synthea_dir / "fhir").iterdir():
        assert a.read_bytes() == (out / "fhir" / a.name).read_bytes()
    assert [p.name for p in tmp_path.iterdir()] == ["run2"]  # no temp or backup directory left


def test_unknown_state_fails_and_leaves_nothing(tmp_path: Path):
    with pytest.raises(ValueError, match="unknown Synthea state 'Narnia'"):
        synthea.generate(tmp_path / "out", 1, 1, "Narnia")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match="patients must be >= 1"):
        synthea.generate(tmp_path / "out", 0, 1, "Massachusetts")
    with pytest.raises(ValueError, match="processes must be >= 1"):
        synthea.generate(tmp_path / "out", 1, 1, "Massachusetts", processes=0)


def test_load_notes(synthea_dir: Path):
    rejects = RejectLog()
    result = synthea.load_with_stats(synthea_dir, rejects)
    assert not rejects.items
    assert result.stats["files"] == 2 and result.records == len(result.documents) > 2
    assert len({d.metadata["patient_id"] for d in result.documents}) == 2
    doc = result.documents[0]
    assert re.fullmatch(r"synthea:[0-9a-f-]{36}", doc.doc_id)
    assert (doc.collection, doc.source, doc.lang) == ("cases", "synthea", "en")
    assert doc.section == "History and physical note"
    assert "# Chief Complaint" in doc.text
    cc = doc.text.split("# Chief Complaint\n", 1)[1].split("\n\n", 1)[0]
    assert doc.title == "; ".join(line.lstrip("- ") for line in cc.splitlines())
    assert set(doc.metadata) == {"patient_id", "gender", "birth_date", "date", "encounter"}
    assert doc.metadata["gender"] in ("male", "female")
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", doc.metadata["birth_date"])
    assert doc.metadata["encounter"] and not doc.metadata["encounter"].startswith("urn:")


def test_limit_counts_patient_files(synthea_dir: Path):
    result = synthea.load_with_stats(synthea_dir, RejectLog(), limit=1)
    assert result.stats["files"] == 1
    assert len({d.metadata["patient_id"] for d in result.documents}) == 1


def _doc_ref(ref_id: str, data: str | None) -> dict:
    content = [{"attachment": {"contentType": "text/plain", "data": data}}] if data is not None else []
    return {"resource": {"resourceType": "DocumentReference", "id": ref_id,
                         "type": {"coding": [{"system": "http://loinc.org", "code": "34117-2",
                                              "display": "History and physical note"}]},
                         "date": "2020-01-01T00:00:00+00:00", "content": content,
                         "context": {"encounter": [{"reference": "urn:uuid:enc-1"}]}}}


def test_bad_bundles(tmp_path: Path):
    note = base64.b64encode(b"2020-01-01\n\n# History of Present Illness\nWell.").decode()
    patient = {"resource": {"resourceType": "Patient", "id": "p1", "gender": "female", "birthDate": "1990-02-03"}}
    bundle = {"resourceType": "Bundle", "entry": [
        patient, _doc_ref("good", note), _doc_ref("nodata", None), _doc_ref("badb64", "!!!not base64!!!"),
        _doc_ref("", note), _doc_ref("notutf8", base64.b64encode(b"\xff\xfe").decode()),
        _doc_ref("blank", base64.b64encode(b"  \n ").decode())]}
    (tmp_path / "a.json").write_text(json.dumps(bundle), encoding="utf-8")
    (tmp_path / "b.json").write_text('{"resourceType": "Bundle", "entry": [', encoding="utf-8")
    (tmp_path / "c.json").write_text(json.dumps({"resourceType": "Bundle", "entry": [_doc_ref("orphan", note)]}),
                                     encoding="utf-8")
    rejects = RejectLog()
    result = synthea.load_with_stats(tmp_path, rejects)
    assert [d.doc_id for d in result.documents] == ["synthea:good"]
    doc = result.documents[0]
    assert doc.title == "History and physical note"  # no Chief Complaint section: the LOINC display
    assert doc.metadata == {"patient_id": "p1", "gender": "female", "birth_date": "1990-02-03",
                            "date": "2020-01-01T00:00:00+00:00", "encounter": "enc-1"}
    got = [(Path(r.file).name, r.row, r.reason.split(":")[0]) for r in rejects.items]
    assert got == [("a.json", 3, "missing data"), ("a.json", 4, "undecodable note"), ("a.json", 5, "missing id"),
                   ("a.json", 6, "undecodable note"), ("a.json", 7, "empty text"),
                   ("b.json", 0, "malformed JSON"), ("c.json", 1, "no Patient")]
    assert "entry[2] DocumentReference nodata" in rejects.items[0].reason
    assert result.records == 8  # 6 notes in a.json, unreadable b.json, 1 note in c.json
