"""Personas from a hand-made FHIR bundle: what is kept (active, latest, mapped), what is skipped and counted,
and the packaged Korean mapping table's consistency with the project lexicon."""

from __future__ import annotations

import csv
import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest

import yaksa.lexicon
from yaksa.evaluation.dialogues.personas import (
    Allergy,
    Coded,
    MappingError,
    load_mapping,
    load_personas,
    load_personas_with_stats,
    parse_mapping,
)

SNOMED, RXNORM, LOINC = "http://snomed.info/sct", "http://www.nlm.nih.gov/research/umls/rxnorm", "http://loinc.org"
PID = "patient-1"


def _concept(system: str, code: str, display: str) -> dict[str, Any]:
    return {"coding": [{"system": system, "code": code, "display": display}]}


def _status(code: str) -> dict[str, Any]:
    return {"coding": [{"code": code}]}


def condition(code: str, display: str, onset: str, status: str = "active", abated: str | None = None) -> dict:
    r = {"resourceType": "Condition", "id": f"c-{code}-{onset}", "clinicalStatus": _status(status),
         "verificationStatus": _status("confirmed"), "code": _concept(SNOMED, code, display),
         "onsetDateTime": f"{onset}T10:00:00+00:00"}
    if abated:
        r["abatementDateTime"] = f"{abated}T10:00:00+00:00"
    return r


def med(code: str, display: str, status: str, authored: str) -> dict:
    return {"resourceType": "MedicationRequest", "id": f"m-{code}-{authored}", "status": status, "intent": "order",
            "medicationCodeableConcept": _concept(RXNORM, code, display), "authoredOn": f"{authored}T10:00:00+00:00"}


def obs(code: str, display: str, when: str, value: float, unit: str) -> dict:
    return {"resourceType": "Observation", "id": f"o-{code}-{when}", "status": "final",
            "code": _concept(LOINC, code, display), "effectiveDateTime": f"{when}T10:00:00+00:00",
            "valueQuantity": {"value": value, "unit": unit}}


def bp(when: str, systolic: float, diastolic: float) -> dict:
    return {"resourceType": "Observation", "id": f"bp-{when}", "status": "final",
            "code": _concept(LOINC, "85354-9", "Blood pressure panel"), "effectiveDateTime": f"{when}T10:00:00+00:00",
            "component": [{"code": _concept(LOINC, "8480-6", "Systolic"), "valueQuantity": {"value": systolic, "unit": "mm[Hg]"}},
                          {"code": _concept(LOINC, "8462-4", "Diastolic"), "valueQuantity": {"value": diastolic, "unit": "mm[Hg]"}}]}


def encounter(start: str) -> dict:
    return {"resourceType": "Encounter", "id": f"e-{start}", "period": {"start": f"{start}T09:00:00+00:00"}}


def bundle(resources: list[dict]) -> dict:
    return {"resourceType": "Bundle", "type": "collection",
            "entry": [{"fullUrl": f"urn:uuid:{r.get('id')}", "resource": r} for r in resources]}


def patient_resources() -> list[dict]:
    """A 34-year-old pregnant woman (born 1990-03-15, latest encounter 2024-06-10) with hypertension."""
    return [
        {"resourceType": "Patient", "id": PID, "gender": "female", "birthDate": "1990-03-15"},
        encounter("2020-01-01"), encounter("2024-06-10"), encounter("2023-02-02"),
        condition("59621000", "Essential hypertension (disorder)", "2019-05-01"),
        condition("59621000", "Essential hypertension (disorder)", "2021-05-01"),       # repeated: one fact
        condition("195967001", "Asthma (disorder)", "2010-01-01", "resolved", "2015-01-01"),  # resolved
        condition("160903007", "Full-time employment (finding)", "2012-01-01"),           # ignored on purpose
        condition("999999001", "Made-up disorder (disorder)", "2018-01-01"),              # unmapped
        condition("72892002", "Normal pregnancy (finding)", "2024-03-01"),                # pregnancy, not a condition
        condition("44054006", "Diabetes mellitus type 2 (disorder)", "2025-01-01"),       # after the latest encounter
        med("308136", "amLODIPine 2.5 MG Oral Tablet", "active", "2019-05-01"),
        med("314076", "lisinopril 10 MG Oral Tablet", "stopped", "2018-01-01"),           # not active
        med("999999002", "Made-up pill 1 MG Oral Tablet", "active", "2020-01-01"),         # unmapped
        {"resourceType": "AllergyIntolerance", "id": "a1", "clinicalStatus": _status("active"),
         "verificationStatus": _status("confirmed"), "category": ["medication"], "code": _concept(RXNORM, "1191", "Aspirin")},
        bp("2020-01-01", 121.6, 79.4), bp("2024-06-10", 151.2, 94.8),
        obs("4548-4", "Hemoglobin A1c", "2023-02-02", 6.1, "%"), obs("4548-4", "Hemoglobin A1c", "2021-02-02", 5.4, "%"),
        obs("2339-0", "Glucose", "2023-02-02", 104.26, "mg/dL"), obs("39156-5", "BMI", "2024-06-10", 27.31, "kg/m2"),
    ]


def write_bundle(directory: Path, name: str, resources: list[dict]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(json.dumps(bundle(resources)), encoding="utf-8")
    return path


def test_persona_from_a_hand_made_bundle(tmp_path: Path) -> None:
    write_bundle(tmp_path / "fhir", "Jane_Doe.json", patient_resources())
    personas, stats = load_personas_with_stats(tmp_path / "fhir")
    assert len(personas) == 1
    p = personas[0]
    assert (p.pid, p.age, p.sex, p.pregnant, p.as_of) == (PID, 34, "female", True, "2024-06-10")
    assert p.conditions == (Coded("59621000", "Essential hypertension (disorder)", "고혈압"),)
    assert p.medications == (Coded("308136", "amLODIPine 2.5 MG Oral Tablet", "암로디핀"),)
    assert p.allergies == (Allergy("1191", "Aspirin", "아스피린", "medication"),)
    assert p.vitals["blood_pressure"] == ("151/95", "mmHg")          # the most recent panel, rounded
    assert p.vitals["bmi"] == (27.3, "kg/m2")
    assert p.labs == {"glucose": (104.3, "mg/dL"), "hba1c": (6.1, "%")}   # 2023 HbA1c, not the 2021 one
    assert stats.unmapped_facts == 2
    assert {(kind, code) for kind, code, _ in stats.unmapped} == {("conditions", "999999001"),
                                                                  ("medications", "999999002")}
    assert stats.ignored == {"conditions": 1}


def test_age_is_taken_at_the_latest_encounter_not_today(tmp_path: Path) -> None:
    resources = [{"resourceType": "Patient", "id": "old", "gender": "male", "birthDate": "1940-07-01"},
                 encounter("2000-06-30"), encounter("1990-01-01")]
    write_bundle(tmp_path, "old.json", resources)
    (p,) = load_personas(tmp_path)
    assert (p.age, p.as_of, p.pregnant) == (59, "2000-06-30", False)


def test_unreadable_and_patientless_bundles_are_skipped_and_reported(tmp_path: Path) -> None:
    write_bundle(tmp_path, "a.json", patient_resources())
    write_bundle(tmp_path, "b.json", [encounter("2020-01-01")])
    (tmp_path / "c.json").write_text("{not json", encoding="utf-8")
    personas, stats = load_personas_with_stats(tmp_path)
    assert len(personas) == 1 and stats.files == 3 and len(stats.skipped_files) == 2
    assert stats.summary()["skipped_files"] == 2
    assert len(load_personas_with_stats(tmp_path, limit=1)[0]) == 1


def test_load_personas_logs_the_unmapped_count(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    write_bundle(tmp_path, "a.json", patient_resources())
    with caplog.at_level(logging.WARNING, logger="yaksa.evaluation.dialogues.personas"):
        load_personas(tmp_path)
    assert any("2 fact(s) of 2 code(s) not in the Korean mapping" in r.getMessage() for r in caplog.records)


def test_a_custom_mapping_matches_by_english_name_and_ignores_on_purpose(tmp_path: Path) -> None:
    mapping = parse_mapping({
        "conditions": {"Made-up disorder (disorder)": {"korean": "가짜병"}},
        "medications": {"308136": {"korean": "노바스크"}},
        "ignore": {"conditions": {"59621000": "Essential hypertension (disorder)"}},
        "pregnancy": ["72892002"],
    })
    write_bundle(tmp_path, "a.json", patient_resources())
    personas, stats = load_personas_with_stats(tmp_path, mapping)
    assert [c.korean for c in personas[0].conditions] == ["가짜병"]
    assert [m.korean for m in personas[0].medications] == ["노바스크"]
    assert personas[0].allergies == ()                                # no allergies table: unmapped
    assert stats.ignored == {"conditions": 1}
    assert {code for _, code, _ in stats.unmapped} == {"160903007", "999999002", "1191"}


def test_a_mapping_file_path_is_accepted(tmp_path: Path) -> None:
    table = tmp_path / "m.yaml"
    table.write_text("conditions:\n  '59621000': {korean: 혈압 높음}\npregnancy: ['72892002']\n", encoding="utf-8")
    write_bundle(tmp_path / "fhir", "a.json", patient_resources())
    (p,) = load_personas(tmp_path / "fhir", table)
    assert p.conditions[0].korean == "혈압 높음" and p.pregnant


@pytest.mark.parametrize("data, message", [
    ({"conditions": {"1": {"english": "x"}}}, "non-empty 'korean'"),
    ({"conditions": {"1": {"korean": "x", "slot": "labs"}}}, "slot must be one of"),
    ({"medications": {"1": {"korean": "x", "route": "rectal"}}}, "route must be one of"),
    ({"conditions": {"1": {"korean": "x", "caution": "고혈압"}}}, "list of regex strings"),
    ({"conditions": {"1": {"korean": "x", "typo": 1}}}, "unknown field"),
    ({"ignore": {"labs": {"1": "x"}}}, "ignore.labs"),
    ([], "top level"),
])
def test_malformed_mappings_are_rejected(data: Any, message: str) -> None:
    with pytest.raises(MappingError, match=re.escape(message)):
        parse_mapping(data)


def test_a_missing_mapping_file_is_a_mapping_error(tmp_path: Path) -> None:
    with pytest.raises(MappingError, match="cannot read"):
        load_mapping(tmp_path / "absent.yaml")


def _lexicon_ids() -> set[str]:
    path = Path(yaksa.lexicon.__file__).parent / "data" / "lexicon_ko.csv"
    with path.open(encoding="utf-8") as fh:
        return {row["concept_id"] for row in csv.DictReader(fh)}


def test_the_packaged_mapping_is_consistent() -> None:
    """Every wording takes Korean particles, every caution compiles, every concept is a lexicon id."""
    mapping = load_mapping()
    lexicon = _lexicon_ids()
    for kind in ("conditions", "medications", "allergies"):
        for key, entry in getattr(mapping, kind).items():
            assert re.search(r"[가-힣]$", entry.korean), f"{kind}[{key}]: {entry.korean!r} must end in Hangul"
            assert entry.concept is None or entry.concept in lexicon, f"{kind}[{key}]: unknown {entry.concept}"
            for pattern in entry.caution:
                re.compile(pattern)
    assert "72892002" in mapping.pregnancy
    assert mapping.entry("conditions", "59621000", "").korean == "고혈압"
    assert mapping.entry("medications", "", "Warfarin Sodium 5 MG Oral Tablet").korean == "와파린"
    assert mapping.ignored("conditions", "160903007", "")
