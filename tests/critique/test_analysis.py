"""Offline clinical analysis: high-risk patterns, the should-consider diagnosis, concepts, rule validation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from yaksa.corpus.case import Case
from yaksa.critique.analysis import (
    CONCEPTS_FILE,
    RULES_PATH,
    ConceptIndex,
    RulesError,
    analyse_case,
    load_concept_names,
    load_rules,
    match_patterns,
    parse_rules,
    stated_diagnoses,
)

REPO = Path(__file__).resolve().parents[2]
CONCEPTS_DIR = REPO / "data" / "processed" / "concepts"


Vignette = Case  # the analysis reads only the parts and `text`


POST_OP_PE = Vignette(
    summary="68-year-old man on post-operative day 3 after a right total hip replacement came to the emergency "
            "department with sudden pleuritic chest pain and shortness of breath.",
    findings="HR 118, BP 128/76, RR 24, SpO2 88% on room air, temperature 36.9 C. Unilateral left calf swelling "
             "and tenderness. No haemoptysis. ECG: sinus tachycardia.",
    diagnoses="anxiety / musculoskeletal chest pain",
    management="Given lorazepam and ibuprofen, reassured and discharged home.",
    outcome="Returned 36 hours later in cardiac arrest; CT pulmonary angiography showed massive bilateral "
            "pulmonary embolism. He died despite thrombolysis.",
)
SEPSIS = Vignette(
    summary="78-year-old woman from a nursing home with two days of dysuria and new confusion.",
    findings="Temperature 38.9 C, HR 112, RR 26, BP 92/54. Disoriented to time and place. Urine dipstick "
             "positive for nitrites and leukocytes.",
    diagnoses="urinary tract infection",
    management="Oral nitrofurantoin and discharged back to the nursing home.",
)
BENIGN = Vignette(
    summary="30-year-old man with two days of sore throat, runny nose and mild cough.",
    findings="Afebrile, HR 78, BP 122/80, RR 14, SpO2 99% on room air. Mild pharyngeal erythema, no exudate.",
    diagnoses="viral upper respiratory tract infection",
    management="Paracetamol, fluids and rest; advised to return if symptoms worsen.",
)
TOY_CONCEPTS = {
    "pulmonary embolism": ("C0034065", "condition"),
    "chest pain": ("C0008031", "condition"),  # a finding the MedQuAD table types as condition
    "anxiety": ("C0860603", "condition"),
    "crohn disease": ("C0010346", "condition"),
    "flu": ("C0021400", "condition"),  # shorter than 4 characters: never matched
    "warfarin": ("YK:DRUG:warfarin", "medication"),
    "호흡곤란": ("YK:SYM:dyspnea", "symptom"),
}


def test_post_operative_chest_pain_called_anxiety_flags_pulmonary_embolism() -> None:
    analysis = analyse_case(POST_OP_PE)

    assert analysis.diagnoses == ("anxiety", "musculoskeletal chest pain")
    assert analysis.should_consider == ("pulmonary embolism",)
    pe = analysis.risk_patterns[0]
    assert pe.pattern_id == "pulmonary_embolism" and not pe.considered
    assert {"recent surgery or immobilisation", "pleuritic chest pain", "hypoxia", "tachycardia",
            "signs of deep vein thrombosis"} <= set(pe.criteria_met)
    assert "haemoptysis" not in pe.criteria_met  # "No haemoptysis" is negated
    assert pe.criteria_total == 8 and pe.diagnosis_id == "rule:pulmonary_embolism"
    assert "Wells PS" in pe.source and "ESC" in pe.source
    assert analysis.priorities[0] == "Wells score and CT pulmonary angiography"
    assert analysis.search_terms[:3] == ("pulmonary embolism", "anxiety", "musculoskeletal chest pain")
    assert "hypoxia" in analysis.search_terms


def test_a_worked_up_diagnosis_is_not_reported_as_missed() -> None:
    treated = Vignette(summary=POST_OP_PE.summary, findings=POST_OP_PE.findings,
                       diagnoses="acute pulmonary embolism",
                       management="CT pulmonary angiography confirmed a segmental embolus; started on heparin.")
    ruled_out = Vignette(summary=POST_OP_PE.summary, findings=POST_OP_PE.findings,
                         management="Pulmonary embolism was ruled out by CT pulmonary angiography; treated for pneumonia.")
    for case in (treated, ruled_out):
        analysis = analyse_case(case)
        assert analysis.risk_patterns[0].pattern_id == "pulmonary_embolism"
        assert analysis.risk_patterns[0].considered
        assert analysis.should_consider == ()


def test_a_diagnosis_made_later_or_called_missed_is_not_stated() -> None:
    plain = Vignette(summary=(
        "A 55-year-old woman, two weeks after knee arthroplasty, had pleuritic chest pain, SpO2 90% and HR 110. "
        "She was diagnosed with costochondritis and discharged. She returned two days later and was diagnosed "
        "with pulmonary embolism. The diagnosis of pulmonary embolism was missed at the first visit."))
    analysis = analyse_case(plain)
    assert analysis.diagnoses == ("costochondritis",)
    assert analysis.should_consider == ("pulmonary embolism",)


def test_sepsis_by_qsofa_when_uti_is_the_stated_diagnosis() -> None:
    analysis = analyse_case(SEPSIS)
    assert analysis.should_consider == ("sepsis",)
    sepsis = analysis.risk_patterns[0]
    assert set(sepsis.criteria_met) == {"suspected infection", "respiratory rate 22 or more", "altered mentation",
                                        "systolic blood pressure 100 or less"}
    assert "Sepsis-3" in sepsis.source and "Singer" in sepsis.source
    assert any("lactate" in p for p in analysis.priorities)
    assert analysis.search_terms[0] == "sepsis"


def test_benign_case_fires_no_pattern() -> None:
    analysis = analyse_case(BENIGN)
    assert analysis.risk_patterns == ()
    assert analysis.should_consider == () and analysis.priorities == ()
    assert analysis.diagnoses == ("viral upper respiratory tract infection",)
    assert analysis.search_terms == ("viral upper respiratory tract infection",)


def test_negated_findings_do_not_meet_criteria() -> None:
    text = ("Post-operative day 2 after hip replacement. Denies pleuritic chest pain. No calf swelling, no "
            "haemoptysis, no shortness of breath. HR 72, SpO2 98% on room air.")
    assert match_patterns(text) == []


def test_korean_case_and_particles() -> None:
    case = Vignette(summary="65세 남성, 고관절 수술 후 3일째 갑자기 호흡곤란과 흉막성 흉통이 생김. 산소포화도 87%, "
                            "심박수 122. 불안으로 진단되어 퇴원함.")
    analysis = analyse_case(case, TOY_CONCEPTS)
    assert analysis.should_consider == ("pulmonary embolism",)
    assert "불안" in analysis.diagnoses
    assert [h.concept_id for h in analysis.concepts.symptoms] == ["YK:SYM:dyspnea"]  # 호흡곤란과 → 호흡곤란


def test_concept_names_give_ids_and_keep_findings_apart_from_diagnoses() -> None:
    analysis = analyse_case(POST_OP_PE, TOY_CONCEPTS)
    assert analysis.risk_patterns[0].diagnosis_id == "C0034065"
    assert analysis.diagnosis_ids == ("C0860603", "text:musculoskeletal chest pain")
    assert {h.concept_id for h in analysis.concepts.diagnoses} == {"C0860603", "C0034065"}
    assert [h.name for h in analysis.concepts.symptoms] == ["chest pain"]
    index = ConceptIndex(TOY_CONCEPTS)
    assert index.find("Flu-like illness, on warfarin, no Crohn disease").diagnoses == ()  # short, drug, negated
    assert [h.name for h in index.find("Known Crohn's disease.").diagnoses] == ["crohn disease"]


def test_to_json_round_trips() -> None:
    data = json.loads(analyse_case(POST_OP_PE).to_json())
    assert data["should_consider"] == ["pulmonary embolism"]
    assert data["risk_patterns"][0]["criteria_met_count"] == len(data["risk_patterns"][0]["criteria_met"])
    assert set(data["concepts"]) == {"diagnoses", "symptoms"}


def test_shipped_rules_are_complete_and_cited() -> None:
    rules = load_rules()
    ids = {p.id for p in rules.patterns}
    assert 10 <= len(ids) <= 14
    assert {"pulmonary_embolism", "sepsis", "acute_coronary_syndrome", "aortic_dissection", "stroke",
            "subarachnoid_haemorrhage", "meningitis", "ectopic_pregnancy", "appendicitis",
            "diabetic_ketoacidosis", "gi_bleeding", "testicular_torsion"} <= ids
    assert all(p.priorities and len(p.source) > 40 and any(ch.isdigit() for ch in p.source) for p in rules.patterns)


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda e: e.pop("source"), "missing keys ['source']"),
    (lambda e: e["criteria"].update({"bad": ["(unclosed"]}), "criteria['bad']: invalid regex"),
    (lambda e: e.update(min_criteria=99), "min_criteria"),
    (lambda e: e.update(required=["nope"]), "required: ['nope']"),
    (lambda e: e["diagnosis"].pop("synonyms"), "diagnosis.synonyms"),
])
def test_bad_rules_entry_is_named(mutate, message) -> None:
    data = yaml.safe_load(RULES_PATH.read_text(encoding="utf-8"))
    mutate(data["patterns"]["sepsis"])
    with pytest.raises(RulesError, match=r"pattern 'sepsis'") as err:
        parse_rules(data)
    assert message in str(err.value)


def test_bad_rules_file_on_load(tmp_path: Path) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text("patterns: {}\n", encoding="utf-8")
    with pytest.raises(RulesError, match="rules.yaml: needs a non-empty 'patterns'"):
        load_rules(path)


def test_stated_diagnoses_split_and_clean() -> None:
    case = Vignette(summary="Impression: possible costochondritis, anxiety. He was discharged.",
                    diagnoses="1. Hypertension\n2. Type 2 diabetes")
    assert stated_diagnoses(case) == ["Hypertension", "Type 2 diabetes", "costochondritis", "anxiety"]


@pytest.mark.skipif(not (CONCEPTS_DIR / CONCEPTS_FILE).is_file(), reason="concept table not built")
def test_real_concept_table() -> None:
    from yaksa.extraction.build import CONCEPTS_CSV

    assert CONCEPTS_FILE == CONCEPTS_CSV
    names = load_concept_names(CONCEPTS_DIR)
    cid, ctype = names["pulmonary embolism"]
    assert ctype == "condition" and cid.startswith("C")
    analysis = analyse_case(POST_OP_PE, names)
    assert analysis.risk_patterns[0].diagnosis_id == cid
    assert "chest pain" in {h.name for h in analysis.concepts.symptoms}
    assert "chest pain" not in {h.name for h in analysis.concepts.diagnoses}


TEXTBOOK = {
    "acute_coronary_syndrome": "58-year-old diabetic smoker with crushing substernal chest pressure radiating to the left "
                               "arm, diaphoresis and nausea. ECG showed ST depression in V4-V6.",
    "aortic_dissection": "62-year-old man with abrupt severe chest pain described as tearing, radiating to the back. "
                         "Blood pressure differential between arms of 30 mmHg.",
    "stroke": "74-year-old woman found at 07:00 with left facial droop, left arm weakness and slurred speech; "
              "last known well at 22:00.",
    "subarachnoid_haemorrhage": "45-year-old woman with a sudden severe headache during exercise, the worst headache "
                                "of her life, with vomiting and neck stiffness.",
    "meningitis": "19-year-old student with fever 39.4 C, headache, photophobia, neck stiffness and a petechial rash "
                  "on the legs; drowsy.",
    "ectopic_pregnancy": "27-year-old woman with left lower quadrant pain and vaginal spotting; missed period 7 weeks "
                         "ago; positive urine pregnancy test; shoulder tip pain.",
    "appendicitis": "16-year-old boy with periumbilical pain that migrated to the right lower quadrant, anorexia, "
                    "vomiting, rebound tenderness, temperature 38.1 C and WBC 15.2.",
    "diabetic_ketoacidosis": "22-year-old with type 1 diabetes, vomiting and abdominal pain for a day; glucose 482 "
                             "mg/dL, urine ketones 3+, pH 7.12, bicarbonate 9, Kussmaul breathing.",
    "gi_bleeding": "70-year-old man on warfarin and ibuprofen with melena for two days, HR 112, BP 88/50, "
                   "haemoglobin 7.9 g/dL.",
    "testicular_torsion": "14-year-old boy woke from sleep with sudden left testicular pain and vomiting; the testis "
                          "was high-riding with absent cremasteric reflex.",
}


@pytest.mark.parametrize("pattern_id", sorted(TEXTBOOK))
def test_each_pattern_fires_alone_on_its_textbook_presentation(pattern_id: str) -> None:
    fired = match_patterns(TEXTBOOK[pattern_id])
    assert [p.id for p, _ in fired] == [pattern_id]
    pattern, met = fired[0]
    assert len(met) >= pattern.min_criteria + 1 and set(pattern.required) <= set(met)
