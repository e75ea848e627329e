"""Offline validation of retrieved cases: shared diagnoses (not surface text), actionable lessons, reasons."""

from __future__ import annotations

import pytest

from tests.critique.test_analysis import POST_OP_PE, TOY_CONCEPTS
from yaksa.corpus.case import Case
from yaksa.critique.analysis import analyse_case
from yaksa.critique.validation import (
    PASS_CONFIDENCE,
    CandidateCase,
    ValidationVerdict,
    actionable_content,
    misleading_flags,
    validate_cases,
)

CROHN = CandidateCase(
    "case-crohn", 14.2, "Crohn disease flare",
    "A 24-year-old woman with known Crohn disease presented with crampy abdominal pain, diarrhoea and weight loss. "
    "Colonoscopy showed terminal ileal ulceration. She was treated with prednisolone, later started on "
    "infliximab, and discharged home with gastroenterology follow-up.")
H_PYLORI = CandidateCase(
    "case-hpylori", 13.0, "H. pylori gastritis",
    "A 45-year-old man had three months of epigastric pain and dyspepsia. Endoscopy showed antral gastritis and "
    "the biopsy was positive for Helicobacter pylori. He was treated with clarithromycin, amoxicillin and "
    "omeprazole, and the pain resolved at follow-up.")
FELINE = CandidateCase(
    "case-feline", 12.5, "Feline calicivirus",
    "Feline calicivirus is a common respiratory pathogen of cats. Infected kittens develop fever, oral ulcers and "
    "pneumonia, and outbreaks in shelters cause high mortality. Treatment is supportive and vaccination "
    "reduces disease severity.")
MISSED_PE = CandidateCase(
    "case-pe-missed", 9.1, "Missed pulmonary embolism after arthroplasty",
    "A 71-year-old woman developed dyspnoea and chest pain five days after knee arthroplasty. Her tachycardia "
    "and hypoxia were attributed to anxiety and the diagnosis of pulmonary embolism was missed. She returned "
    "the next day; CT pulmonary angiography confirmed bilateral pulmonary embolism and she was treated with "
    "heparin, then apixaban. She recovered and was discharged.")
PE_BLEED = CandidateCase(
    "case-pe-bleed", 8.0, "Pulmonary embolism: bleeding on anticoagulation",
    "A 60-year-old man with acute pulmonary embolism after a long-haul flight was started on enoxaparin. On day "
    "four he developed a rectal bleeding complication with a haemoglobin drop, anticoagulation was paused, and "
    "he was managed with transfusion; outcome: discharged on apixaban after two weeks.")
PE_DEFINITION = CandidateCase(
    "case-pe-def", 7.0, "What is pulmonary embolism",
    "Pulmonary embolism is a blockage of one of the pulmonary arteries in the lungs. In most cases it is caused "
    "by blood clots that travel to the lungs from deep veins in the legs or, rarely, from veins in other parts "
    "of the body.")
COSTOCHONDRITIS = CandidateCase(
    "case-costo", 10.0, "Chest wall pain",
    "A 35-year-old man had sharp chest pain reproduced by palpation of the costal cartilages. He was diagnosed "
    "with costochondritis, treated with ibuprofen, and the pain resolved at follow-up two weeks later.")


@pytest.fixture(scope="module")
def patient():
    return analyse_case(POST_OP_PE)


def test_unrelated_cases_are_all_dropped_with_reasons(patient) -> None:
    verdict = validate_cases(patient, [CROHN, H_PYLORI, FELINE])
    assert isinstance(verdict, ValidationVerdict)
    assert not verdict.passed and not verdict.is_valid
    assert verdict.confidence == 0.0 and verdict.kept == []
    reasons = {v["doc_id"]: v["reason"] for v in verdict.per_case}
    assert "no shared diagnosis" in reasons["case-crohn"] and "surface similarity only" in reasons["case-crohn"]
    assert "pulmonary embolism" in reasons["case-hpylori"]
    assert reasons["case-feline"].startswith("non-human subject (cats, feline, kittens)")
    assert "case-crohn" in verdict.reason and "none of 3 cases" in verdict.reason


def test_missed_pe_case_is_kept_and_passes(patient) -> None:
    verdict = validate_cases(patient, [MISSED_PE])
    assert verdict.passed and verdict.kept == [MISSED_PE]
    assert verdict.confidence >= PASS_CONFIDENCE
    case = verdict.per_case[0]
    assert case["reason"].startswith("shares diagnosis pulmonary embolism (the diagnosis that should have been considered)")
    assert "missed or delayed diagnosis" in case["actionable"] and "management" in case["actionable"]
    # strength = 0.5 * 1.0 (shared id) + 0.5 * min(1, 0.35 * 1 lesson + 0.2 * 2 context) = 0.875; one of one kept
    assert case["strength"] == pytest.approx(0.875)
    assert verdict.confidence == pytest.approx(0.875)


def test_two_of_three_relevant_cases_are_kept(patient) -> None:
    verdict = validate_cases(patient, [CROHN, MISSED_PE, PE_BLEED])
    assert verdict.passed
    assert [c.doc_id for c in verdict.kept] == ["case-pe-missed", "case-pe-bleed"]
    strengths = [v["strength"] for v in verdict.per_case if v["keep"]]
    assert verdict.confidence == pytest.approx(round(sum(strengths) / 2 * (0.5 + 0.5 * 2 / 3), 3))
    assert "2 of 3 cases kept" in verdict.reason and "dropped case-crohn" in verdict.reason
    assert "complications" in verdict.per_case[2]["actionable"]


def test_one_strong_case_among_many_still_passes(patient) -> None:
    verdict = validate_cases(patient, [CROHN, H_PYLORI, FELINE, MISSED_PE])
    assert len(verdict.kept) == 1 and verdict.passed
    assert verdict.confidence == pytest.approx(0.875 * (0.5 + 0.5 / 4), abs=1e-3)


def test_shared_diagnosis_without_actionable_content_is_dropped(patient) -> None:
    verdict = validate_cases(patient, [PE_DEFINITION])
    assert not verdict.passed
    assert "but has no actionable content" in verdict.per_case[0]["reason"]


def test_shared_symptom_alone_is_not_a_match() -> None:
    patient = analyse_case(POST_OP_PE, TOY_CONCEPTS)
    verdict = validate_cases(patient, [COSTOCHONDRITIS], TOY_CONCEPTS)
    case = verdict.per_case[0]
    assert not case["keep"] and case["shared_symptoms"] == ["chest pain"]
    assert "shares only symptoms (chest pain)" in case["reason"]


def test_concept_ids_are_compared_when_the_table_is_given() -> None:
    patient = analyse_case(POST_OP_PE, TOY_CONCEPTS)
    verdict = validate_cases(patient, [CROHN, MISSED_PE], TOY_CONCEPTS)
    crohn, pe = verdict.per_case
    assert crohn["reason"].startswith("no shared diagnosis (crohn disease vs pulmonary embolism")
    assert pe["keep"] and "pulmonary embolism" in pe["shared_diagnoses"]
    assert verdict.passed


def test_no_candidates_is_invalid(patient) -> None:
    verdict = validate_cases(patient, [])
    assert not verdict.passed and verdict.reason == "no candidate cases to validate"


def test_actionable_content_respects_negation() -> None:
    lessons, context = actionable_content("She recovered without complications and was discharged on day 3.")
    assert lessons == [] and context == ["outcome"]
    lessons, _ = actionable_content("Delayed diagnosis led to a fatal outcome; the patient died on day 2.")
    assert lessons == ["missed or delayed diagnosis", "death"]


def test_misleading_flags() -> None:
    rabies = ("A 30-year-old man was bitten by a stray dog in rural Asia and did not receive post-exposure "
              "prophylaxis. Six weeks later the patient developed hydrophobia and agitation and died.")
    assert misleading_flags(rabies) == []
    assert misleading_flags("PE case.") == ["too little text to judge (< 20 words)"]


def test_actionable_content_reads_revisions_drug_harm_and_returns() -> None:
    lessons, _ = actionable_content("Initial: viral gastroenteritis. Final: perforated appendicitis with abscess. "
                                    "He returned 36 hours later.")
    assert lessons == ["complications", "missed or delayed diagnosis", "readmission"]
    assert actionable_content("Severe drug-induced hyperkalaemia.")[0] == ["adverse events"]


def test_a_diagnosis_named_only_as_the_alternative_is_not_shared() -> None:
    """The Crohn record's lesson says "rather than acute appendicitis": that is not an appendicitis case."""
    patient = analyse_case(Case(summary="Migratory right lower quadrant pain, fever.",
                                diagnoses="acute appendicitis"))
    crohn = CandidateCase("mm:crohn", 0.7, "Crohn ileitis",
                          "22-year-old man with weeks of right lower quadrant pain, diarrhoea and weight loss; "
                          "colonoscopy showed Crohn disease, treated with budesonide and followed up. Chronic pain "
                          "with weight loss points to inflammatory bowel disease rather than acute appendicitis.")
    verdict = validate_cases(patient, [crohn])
    assert not verdict.kept and "no shared diagnosis" in verdict.per_case[0]["reason"]
