"""The critique's LLM roles (analyst, validator, critic) with the real `LLMClient` against the fake
OpenAI-compatible server: parsed values, what the request carried, and every way a reply is refused."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.fake_openai import FakeOpenAI, Reply, fake_openai  # noqa: F401 - the fixture, used below
from yaksa.corpus.case import parse_case
from yaksa.critique.analysis import ClinicalAnalysis, analyse_case
from yaksa.critique.evidence import Claim, Evidence
from yaksa.critique.llm_roles import (
    MAX_LIST_ITEMS,
    llm_analysis,
    llm_critique,
    llm_validate,
    load_prompts,
)
from yaksa.critique.validation import PASS_CONFIDENCE, CandidateCase
from yaksa.llm.client import LLMClient
from yaksa.llm.config import LLMConfig
from yaksa.llm.errors import LLMOutputError, LLMUnavailable
from yaksa.llm.usage import UsageLedger

CASE = parse_case({
    "summary": "68-year-old man on post-operative day 3 after a right total hip replacement came to the emergency "
               "department with sudden pleuritic chest pain and shortness of breath.",
    "findings": "HR 118, BP 128/76, RR 24, SpO2 88% on room air. Unilateral left calf swelling and tenderness.",
    "diagnoses": "anxiety / musculoskeletal chest pain",
    "management": "Given lorazepam and ibuprofen, reassured and discharged home.",
    "outcome": "Returned 36 hours later in cardiac arrest; CT pulmonary angiography showed massive bilateral "
               "pulmonary embolism. He died despite thrombolysis.",
})
MISSED_PE = CandidateCase(
    "case-pe-missed", 0.81, "Missed pulmonary embolism after arthroplasty",
    "A 71-year-old woman developed dyspnoea and chest pain five days after knee arthroplasty. Her tachycardia and "
    "hypoxia were attributed to anxiety and the diagnosis of pulmonary embolism was missed. CT pulmonary "
    "angiography the next day confirmed bilateral pulmonary embolism; she was treated with heparin and recovered.")
CROHN = CandidateCase(
    "case-crohn", 0.74, "Crohn disease flare",
    "A 24-year-old woman with known Crohn disease presented with crampy abdominal pain and diarrhoea. She was "
    "treated with prednisolone and discharged home with gastroenterology follow-up.")
WELLS = Evidence("PMID:10744147", "Derivation of a simple clinical model to categorize patients' probability of PE",
                 "Patients with a Wells score above 4 are PE likely and should proceed to CT pulmonary angiography; "
                 "D-dimer testing is reserved for patients in whom PE is unlikely.", 1.0, "pubmed")
ESC = Evidence("doc:literature:esc-pe-2019", "2019 ESC Guidelines for acute pulmonary embolism",
               "Anticoagulation should be started without delay in patients with high clinical probability of PE "
               "while diagnostic work-up is in progress. Thromboprophylaxis after hip replacement prevents "
               "venous thromboembolism.", 0.9, "literature")
CRITIC_ROLES = ("analyst", "validator", "critic")


@pytest.fixture()
def client(fake_openai: FakeOpenAI) -> LLMClient:  # noqa: F811 - the imported fixture
    """The real client on the fake server; one model per role ("<role>-model"), one retry, no backoff."""
    return LLMClient(LLMConfig(base_url=fake_openai.base_url, model="default-model",
                               role_models={r: f"{r}-model" for r in CRITIC_ROLES},
                               max_retries=1, backoff_s=0.0, timeout_s=5.0))


@pytest.fixture(scope="module")
def offline() -> ClinicalAnalysis:
    return analyse_case(CASE, None)


def _only_request(fake: FakeOpenAI, model: str) -> tuple[str, str]:
    """(system prompt, user message) of the one JSON-mode request `model` received."""
    requests = fake.requests_for(model)
    assert len(requests) == 1
    body = requests[0]
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body["response_format"] == {"type": "json_object"}
    return body["messages"][0]["content"], body["messages"][1]["content"]


# ------------------------------------------------------------------------------------------ analyst

ANALYST_REPLY = {
    "diagnoses": ["panic attack", "musculoskeletal chest pain"],
    "should_consider": ["pulmonary thromboembolism", "deep vein thrombosis"],
    "priorities": ["Calculate the Wells score", "Wells score and CT pulmonary angiography"],
    "risk_patterns": [
        {"diagnosis": "pulmonary thromboembolism", "criteria_met": ["post-operative", "SpO2 88%"], "considered": False},
        {"diagnosis": "deep vein thrombosis", "criteria_met": ["unilateral calf swelling", "recent hip surgery"],
         "considered": False},
    ],
    "search_terms": ["missed pulmonary embolism after hip arthroplasty", "pulmonary embolism"],
}


def test_analysis_merges_the_model_reading_into_the_offline_analysis(fake_openai: FakeOpenAI,  # noqa: F811
                                                                     client: LLMClient,
                                                                     offline: ClinicalAnalysis) -> None:
    fake_openai.on("analyst-model", Reply.json(ANALYST_REPLY))
    ledger = UsageLedger()
    merged = llm_analysis(client, CASE, offline, ledger)

    assert merged.diagnoses == ("panic attack", "musculoskeletal chest pain")
    assert merged.diagnosis_ids == ("text:panic attack", "text:musculoskeletal chest pain")  # offline id reused
    # the offline "pulmonary embolism" is the same rule diagnosis as the model's synonym: listed once
    assert merged.should_consider == ("pulmonary thromboembolism", "deep vein thrombosis")
    # the rule match is kept as is; "pulmonary thromboembolism" is its synonym, so only DVT is added
    assert merged.risk_patterns[0] == offline.risk_patterns[0]
    assert merged.risk_patterns[0].diagnosis_id == "rule:pulmonary_embolism"
    dvt = merged.risk_patterns[1]
    assert len(merged.risk_patterns) == 2
    assert (dvt.pattern_id, dvt.diagnosis, dvt.diagnosis_id, dvt.source) == (
        "llm:deep_vein_thrombosis", "deep vein thrombosis", "text:deep vein thrombosis", "llm")
    assert (dvt.criteria_met, dvt.criteria_total, dvt.considered, dvt.score) == (
        ("unilateral calf swelling", "recent hip surgery"), 2, False, 1.0)
    assert merged.should_consider_ids == {"rule:pulmonary_embolism": "pulmonary embolism",
                                          "text:deep vein thrombosis": "deep vein thrombosis"}
    assert merged.priorities[:2] == ("Calculate the Wells score", "Wells score and CT pulmonary angiography")
    assert merged.priorities[2:] == offline.priorities[1:]  # the shared one once
    assert merged.search_terms == ("missed pulmonary embolism after hip arthroplasty", "pulmonary embolism",
                                   "anxiety", "musculoskeletal chest pain", "recent surgery or immobilisation",
                                   "pleuritic chest pain", "hypoxia", "tachycardia")
    assert merged.concepts == offline.concepts

    system, user = _only_request(fake_openai, "analyst-model")
    assert system == load_prompts()["analyst"] and "risk_patterns" in system
    assert "SpO2 88% on room air" in user and "Diagnoses: anxiety / musculoskeletal chest pain" in user
    assert "- pulmonary embolism: recent surgery or immobilisation, pleuritic chest pain" in user
    assert "NOT considered" in user
    assert [(r.role, r.model, r.ok) for r in ledger.records] == [("analyst", "analyst-model", True)]


def test_analysis_without_model_diagnoses_keeps_the_offline_ones(fake_openai: FakeOpenAI,  # noqa: F811
                                                                 client: LLMClient,
                                                                 offline: ClinicalAnalysis) -> None:
    reply = {**ANALYST_REPLY, "diagnoses": [], "should_consider": [], "risk_patterns": []}
    fake_openai.on("analyst-model", Reply.json(reply))
    merged = llm_analysis(client, CASE, offline, UsageLedger())
    assert merged.diagnoses == offline.diagnoses and merged.diagnosis_ids == offline.diagnosis_ids
    assert merged.should_consider == ("pulmonary embolism",)  # the rule-backed one is never dropped
    assert merged.risk_patterns == offline.risk_patterns


@pytest.mark.parametrize(("reply", "message"), [
    (Reply("{not json"), "not valid JSON"),
    (Reply.json({**ANALYST_REPLY, "search_terms": "pulmonary embolism"}), "search_terms must be a list"),
    (Reply.json({**ANALYST_REPLY, "diagnoses": ["anxiety", "  "]}), "diagnoses[1] must be a non-empty string"),
    (Reply.json({**ANALYST_REPLY, "priorities": [f"step {i}" for i in range(MAX_LIST_ITEMS + 1)]}),
     f"the limit is {MAX_LIST_ITEMS}"),
    (Reply.json({**ANALYST_REPLY, "risk_patterns": [{"diagnosis": "DVT", "criteria_met": ["calf"],
                                                     "considered": "no"}]}), "considered must be true or false"),
    (Reply.json({**ANALYST_REPLY, "risk_patterns": [{"diagnosis": "DVT", "criteria_met": [],
                                                     "considered": False}]}), "criteria_met must not be empty"),
    (Reply.json({k: v for k, v in ANALYST_REPLY.items() if k != "should_consider"}), "should_consider"),
])
def test_malformed_analysis_is_an_output_error(fake_openai: FakeOpenAI, client: LLMClient,  # noqa: F811
                                               offline: ClinicalAnalysis, reply: Reply, message: str) -> None:
    fake_openai.on("analyst-model", reply)
    ledger = UsageLedger()
    with pytest.raises(LLMOutputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        llm_analysis(client, CASE, offline, ledger)
    assert [(r.role, r.ok) for r in ledger.records] == [("analyst", False)]


# ---------------------------------------------------------------------------------------- validator


def _validator_reply(cases: list[dict], confidence: float = 0.8) -> Reply:
    return Reply.json({"is_valid": True, "confidence": confidence,
                       "reason": "One case shares the missed pulmonary embolism.", "cases": cases})


KEEP_PE = {"doc_id": "case-pe-missed", "keep": True, "reason": "Same missed diagnosis after arthroplasty."}
DROP_CROHN = {"doc_id": "case-crohn", "keep": False, "reason": "Crohn disease: shares only the word pain."}


def test_validation_keeps_what_the_model_kept(fake_openai: FakeOpenAI, client: LLMClient,  # noqa: F811
                                              offline: ClinicalAnalysis) -> None:
    fake_openai.on("validator-model", _validator_reply([KEEP_PE, DROP_CROHN]))
    ledger = UsageLedger()
    verdict = llm_validate(client, offline, [MISSED_PE, CROHN], ledger)
    assert verdict.passed and verdict.is_valid and verdict.confidence == 0.8 >= PASS_CONFIDENCE
    assert verdict.kept == [MISSED_PE]
    assert verdict.reason == "One case shares the missed pulmonary embolism."
    assert verdict.per_case == [
        {"doc_id": "case-pe-missed", "title": MISSED_PE.title, "score": 0.81, "keep": True,
         "reason": "Same missed diagnosis after arthroplasty.", "source": "llm"},
        {"doc_id": "case-crohn", "title": "Crohn disease flare", "score": 0.74, "keep": False,
         "reason": "Crohn disease: shares only the word pain.", "source": "llm"},
    ]
    assert verdict.to_dict()["kept"] == ["case-pe-missed"]
    system, user = _only_request(fake_openai, "validator-model")
    assert system == load_prompts()["validator"] and "surface similarity" in system
    assert "Should have been considered: pulmonary embolism" in user
    assert "[1] doc_id: case-pe-missed | title: Missed pulmonary embolism after arthroplasty | similarity 0.810" in user
    assert "[2] doc_id: case-crohn" in user and "treated with prednisolone" in user
    assert [(r.role, r.model, r.ok) for r in ledger.records] == [("validator", "validator-model", True)]


def test_low_confidence_or_unjudged_cases_do_not_pass(fake_openai: FakeOpenAI, client: LLMClient,  # noqa: F811
                                                      offline: ClinicalAnalysis) -> None:
    fake_openai.on("validator-model", _validator_reply([KEEP_PE], confidence=0.3),
                   _validator_reply([DROP_CROHN]))
    low = llm_validate(client, offline, [MISSED_PE, CROHN], UsageLedger())
    assert low.kept == [MISSED_PE] and not low.passed  # 0.3 < PASS_CONFIDENCE
    assert low.per_case[1]["reason"] == "not judged by the validator" and not low.per_case[1]["keep"]
    none_kept = llm_validate(client, offline, [MISSED_PE, CROHN], UsageLedger())
    assert none_kept.kept == [] and not none_kept.is_valid and not none_kept.passed


def test_invented_doc_id_is_an_output_error(fake_openai: FakeOpenAI, client: LLMClient,  # noqa: F811
                                            offline: ClinicalAnalysis) -> None:
    fake_openai.on("validator-model", _validator_reply([KEEP_PE, {**DROP_CROHN, "doc_id": "case-invented"}]))
    ledger = UsageLedger()
    with pytest.raises(LLMOutputError, match="'case-invented' is not one of the candidates"):
        llm_validate(client, offline, [MISSED_PE, CROHN], ledger)
    assert not ledger.records[0].ok


@pytest.mark.parametrize(("reply", "message"), [
    (Reply("```json\n{\"is_valid\": true,"), "not valid JSON"),
    (_validator_reply([KEEP_PE], confidence=1.5), "confidence must be a number in"),
    (_validator_reply([KEEP_PE, KEEP_PE]), "judged twice"),
    (_validator_reply([{**KEEP_PE, "keep": "yes"}]), "keep must be true or false"),
])
def test_malformed_validation_is_an_output_error(fake_openai: FakeOpenAI, client: LLMClient,  # noqa: F811
                                                 offline: ClinicalAnalysis, reply: Reply, message: str) -> None:
    fake_openai.on("validator-model", reply)
    with pytest.raises(LLMOutputError, match=message):
        llm_validate(client, offline, [MISSED_PE, CROHN], UsageLedger())


def test_no_candidates_makes_no_call(fake_openai: FakeOpenAI, client: LLMClient,  # noqa: F811
                                     offline: ClinicalAnalysis) -> None:
    verdict = llm_validate(client, offline, [], UsageLedger())
    assert (verdict.is_valid, verdict.passed, verdict.kept) == (False, False, [])
    assert fake_openai.requests == []


# -------------------------------------------------------------------------------------------- critic

GOOD_DX = {"text": "Post-operative pleuritic chest pain with SpO2 88% and tachycardia was attributed to anxiety; "
                   "the Wells score was not applied.", "refs": ["PMID:10744147"]}
GOOD_TX = {"text": "Anticoagulation was not started while the diagnosis was uncertain.", "refs": ["[3]"]}
GOOD_PREVENTION = {"text": "A similar case shows the same anchoring on anxiety after arthroplasty.",
                   "refs": ["case:case-pe-missed", "doc:literature:esc-pe-2019"]}
UNKNOWN_REF = {"text": "Thromboprophylaxis was omitted.", "refs": ["PMID:99999999"]}
NO_REF = {"text": "Discharge criteria for chest pain were not followed.", "refs": []}
INVENTED_DOSE = {"text": "Enoxaparin 40 mg daily prevents this.", "refs": ["doc:literature:esc-pe-2019"]}
CASE_NUMBER_IN_PREVENTION = {"text": "Do not discharge patients with SpO2 88%.", "refs": ["PMID:10744147"]}


def test_critique_keeps_cited_claims_and_drops_the_rest(fake_openai: FakeOpenAI, client: LLMClient,  # noqa: F811
                                                        offline: ClinicalAnalysis) -> None:
    fake_openai.on("critic-model", Reply.json({
        "diagnostic_errors": [GOOD_DX, UNKNOWN_REF],
        "treatment_errors": [GOOD_TX, NO_REF],
        "prevention": [GOOD_PREVENTION, INVENTED_DOSE, CASE_NUMBER_IN_PREVENTION],
    }))
    ledger = UsageLedger()
    critique = llm_critique(client, CASE, offline, [MISSED_PE], [WELLS, ESC], ledger)
    assert critique == {
        "diagnostic_errors": [Claim("diagnostic_errors", GOOD_DX["text"], ("PMID:10744147",))],
        "treatment_errors": [Claim("treatment_errors", GOOD_TX["text"], ("doc:literature:esc-pe-2019",))],
        "what_went_well": [],  # missing from the reply: empty
        "prevention": [Claim("prevention", GOOD_PREVENTION["text"],
                             ("case:case-pe-missed", "doc:literature:esc-pe-2019"))],
    }
    system, user = _only_request(fake_openai, "critic-model")
    assert system == load_prompts()["critic"] and "Never invent doses" in system and "blame" in system
    assert "[1] case:case-pe-missed (internal case) — Missed pulmonary embolism after arthroplasty" in user
    assert "[2] PMID:10744147 (pubmed) — Derivation of a simple clinical model" in user
    assert "[3] doc:literature:esc-pe-2019 (literature)" in user
    assert "Given lorazepam and ibuprofen" in user and "Should have been considered: pulmonary embolism" in user
    assert [(r.role, r.model, r.ok) for r in ledger.records] == [("critic", "critic-model", True)]


def test_critique_with_no_valid_claim_is_an_output_error(fake_openai: FakeOpenAI, client: LLMClient,  # noqa: F811
                                                         offline: ClinicalAnalysis) -> None:
    fake_openai.on("critic-model", Reply.json({"diagnostic_errors": [UNKNOWN_REF, NO_REF],
                                               "prevention": [INVENTED_DOSE, "not an object"]}))
    ledger = UsageLedger()
    with pytest.raises(LLMOutputError, match="no valid cited claim") as caught:
        llm_critique(client, CASE, offline, [MISSED_PE], [WELLS, ESC], ledger)
    assert "unknown source(s) ['PMID:99999999']" in str(caught.value) and "['40 mg']" in str(caught.value)
    assert not ledger.records[0].ok


def test_critique_section_of_the_wrong_type_is_an_output_error(fake_openai: FakeOpenAI,  # noqa: F811
                                                               client: LLMClient,
                                                               offline: ClinicalAnalysis) -> None:
    fake_openai.on("critic-model", Reply.json({"diagnostic_errors": [GOOD_DX], "prevention": "see above"}))
    with pytest.raises(LLMOutputError, match="prevention must be a list of claims"):
        llm_critique(client, CASE, offline, [], [WELLS], UsageLedger())


def test_critique_without_sources_makes_no_call(fake_openai: FakeOpenAI, client: LLMClient,  # noqa: F811
                                                offline: ClinicalAnalysis) -> None:
    with pytest.raises(LLMOutputError, match="no sources to cite"):
        llm_critique(client, CASE, offline, [], [], UsageLedger())
    assert fake_openai.requests == []


# ------------------------------------------------------------------------------------- unavailable


@pytest.mark.parametrize(("role", "call"), [
    ("analyst", lambda c, a, u: llm_analysis(c, CASE, a, u)),
    ("validator", lambda c, a, u: llm_validate(c, a, [MISSED_PE], u)),
    ("critic", lambda c, a, u: llm_critique(c, CASE, a, [MISSED_PE], [WELLS], u)),
])
def test_repeated_http_500_is_unavailable(fake_openai: FakeOpenAI, client: LLMClient,  # noqa: F811
                                          offline: ClinicalAnalysis, role: str,
                                          call: Callable[[LLMClient, ClinicalAnalysis, UsageLedger], object]) -> None:
    fake_openai.on(f"{role}-model", Reply.error(500))
    ledger = UsageLedger()
    with pytest.raises(LLMUnavailable, match="HTTP 500"):
        call(client, offline, ledger)
    assert len(fake_openai.requests_for(f"{role}-model")) == 2  # the first try and one retry
    assert [(r.role, r.attempts, r.ok) for r in ledger.records] == [(role, 2, False)]
