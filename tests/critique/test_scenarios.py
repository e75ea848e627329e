"""The design's four critique scenarios, end to end on the tiny bundle's real M&M case records, at the
calibrated threshold from params.yaml; then the same agent with its LLM roles on the fake OpenAI server.

The tiny project holds the repository's M&M records except the two pulmonary embolism ones
(`tests.conftest.TINY_LEFT_OUT_MM`), so the PE patient meets only unrelated cases.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fake_openai import FakeOpenAI, Reply, fake_openai  # noqa: F401 - the fixture
from yaksa.config import Settings, load_settings
from yaksa.corpus.case import parse_case
from yaksa.critique.agent import CritiqueAgent, CritiqueResult
from yaksa.critique.factory import build_critique_agent
from yaksa.llm.client import LLMClient
from yaksa.llm.config import LLMConfig
from yaksa.retrieval.loader import load_published

NO_SIMILAR_CASE = {  # a dermatology follow-up: nothing in the M&M records is like it
    "summary": "45-year-old man with an itchy scaly rash on both elbows for six months, treated with an emollient.",
    "outcome": "Improved at review.",
}
MENINGITIS = {  # one relevant record (2024-013) among the hits
    "summary": "19-year-old student with severe headache, vomiting, photophobia and fever since this morning.",
    "findings": "Temperature 39.1 C, neck stiffness, a non-blanching rash on the legs, HR 126.",
    "diagnoses": "migraine; viral illness",
    "management": "Given antiemetics and analgesia and sent home; no antibiotics, no lumbar puncture.",
    "outcome": "Returned in septic shock 8 hours later and needed intensive care.",
}
POSTOP_SEPSIS = {  # three hits, two of them sepsis records
    "summary": "55-year-old man on day 4 after a Whipple procedure with rigors, abdominal pain and confusion.",
    "findings": "Temperature 39.2 C, HR 126, BP 92/58, RR 26, rising white cell count and CRP.",
    "diagnoses": "postoperative atelectasis",
    "management": "Chest physiotherapy and paracetamol; blood cultures and CT were delayed for 18 hours.",
    "outcome": "CT showed an infected collection; prolonged ICU admission.",
}
PE_AFTER_COLECTOMY = {  # the design's PE patient: its hits are GI and other unrelated records
    "summary": "58-year-old man on day 5 after a laparoscopic right hemicolectomy, with upper abdominal discomfort, "
               "nausea, sudden shortness of breath and pleuritic chest pain.",
    "findings": "HR 121, RR 26, SpO2 88% on room air, right calf swollen and tender; abdomen soft, bowel sounds present.",
    "diagnoses": "postoperative ileus; gastritis",
    "management": "Nil by mouth, intravenous fluids and a proton pump inhibitor; thromboprophylaxis was not prescribed.",
    "outcome": "Collapsed the next morning; CT pulmonary angiography showed bilateral pulmonary emboli.",
}


@pytest.fixture(scope="module")
def settings(tiny_project: Path) -> Settings:
    return load_settings(tiny_project / "params.yaml")


@pytest.fixture(scope="module")
def loaded(settings: Settings):
    bundle = load_published(settings.paths.indexes)
    yield bundle
    bundle.close()


@pytest.fixture(scope="module")
def agent(loaded, settings: Settings, monkeypatch_module) -> CritiqueAgent:
    return build_critique_agent(loaded, settings)


@pytest.fixture(scope="module")
def monkeypatch_module():
    """No LLM or PubMed endpoint from the environment: these scenarios are the offline agent's."""
    with pytest.MonkeyPatch.context() as mp:
        for name in ("YAKSA_LLM_BASE_URL", "YAKSA_PUBMED_BASE_URL", "NCBI_EMAIL"):
            mp.delenv(name, raising=False)
        yield mp


def run(agent: CritiqueAgent, case: dict[str, Any]) -> CritiqueResult:
    return agent.run(parse_case(case))


def _above(result: CritiqueResult) -> list[dict[str, Any]]:
    return [c for c in result.internal if c["above_threshold"]]


def _kept(result: CritiqueResult) -> list[str]:
    return [c["doc_id"] for c in result.internal if c["kept"]]


def _cited(result: CritiqueResult) -> set[str]:
    return {r for claims in result.critique.values() for c in claims for r in c.refs}


def test_the_threshold_is_the_calibrated_one(agent: CritiqueAgent) -> None:
    assert agent.params.internal_threshold == pytest.approx(0.59)


def test_no_internal_case_above_the_threshold_is_external_only(agent: CritiqueAgent) -> None:
    result = run(agent, NO_SIMILAR_CASE)
    assert result.retrieval_mode == "external_only"
    assert result.internal and not _above(result), result.internal   # there were hits, none similar enough
    assert result.validation is None and "validation" not in result.trace["steps"]
    assert result.external                                             # literature still answers


def test_one_relevant_case_that_validates_is_hybrid_with_one(agent: CritiqueAgent) -> None:
    result = run(agent, MENINGITIS)
    assert result.retrieval_mode == "hybrid", result.internal
    assert _kept(result) == ["mm:2024-013"]
    assert result.validation is not None and result.validation.passed
    assert result.validation.confidence >= 0.5
    assert result.external                                             # hybrid is always both
    assert "case:mm:2024-013" in _cited(result)
    assert result.verification["verdict"] == "PASS", result.verification


def test_three_cases_two_valid_is_hybrid_with_two(agent: CritiqueAgent) -> None:
    result = run(agent, POSTOP_SEPSIS)
    assert result.retrieval_mode == "hybrid", result.internal
    assert len(_above(result)) == 3
    assert sorted(_kept(result)) == ["mm:2024-003", "mm:2024-004"]
    dropped = next(c for c in result.internal if not c["kept"])
    assert "no shared diagnosis" in dropped["reason"]                  # the third is surface similarity only
    assert {"case:mm:2024-003", "case:mm:2024-004"} & _cited(result)
    assert result.verification["verdict"] == "PASS", result.verification


def test_pe_patient_with_unrelated_hits_is_external_only_after_validation(agent: CritiqueAgent) -> None:
    result = run(agent, PE_AFTER_COLECTOMY)
    assert result.retrieval_mode == "external_only_after_validation", result.internal
    above = _above(result)
    assert len(above) == 3 and "mm:2024-008" in {c["doc_id"] for c in above}   # H. pylori gastritis, as in the design
    assert not _kept(result)
    assert result.validation is not None and not result.validation.passed
    assert not any(r.startswith("case:") for r in _cited(result))      # discarded cases are never cited
    assert "pulmonary embolism" in [m.diagnosis for m in result.analysis.risk_patterns]
    assert result.external and result.verification["verdict"] == "PASS"


# ------------------------------------------------------------------------------------- LLM roles


@pytest.fixture()
def llm_agent(loaded, settings: Settings, fake_openai: FakeOpenAI) -> CritiqueAgent:  # noqa: F811
    client = LLMClient(LLMConfig(base_url=fake_openai.base_url, model="default-model",
                                 role_models={r: f"{r}-model" for r in ("analyst", "validator", "critic")},
                                 max_retries=0, backoff_s=0.0, timeout_s=5.0))
    return build_critique_agent(loaded, settings, llm=client)


ANALYST = {"diagnoses": ["migraine", "viral illness"], "should_consider": ["bacterial meningitis"],
           "priorities": ["Give parenteral antibiotics without delay"],
           "risk_patterns": [{"diagnosis": "meningococcal septicaemia", "criteria_met": ["non-blanching rash"],
                              "considered": False}],
           "search_terms": ["missed bacterial meningitis", "meningococcal disease"]}


def test_llm_roles_drive_the_critique(llm_agent: CritiqueAgent, fake_openai: FakeOpenAI) -> None:  # noqa: F811
    fake_openai.on("analyst-model", Reply.json(ANALYST))
    fake_openai.on("validator-model", Reply.json({
        "is_valid": True, "confidence": 0.9, "reason": "Same missed meningitis.",
        "cases": [{"doc_id": "mm:2024-013", "keep": True, "reason": "missed meningococcal meningitis"}]}))
    # "1": the first numbered source, which is the kept internal case
    fake_openai.on("critic-model", Reply.json({
        "diagnostic_errors": [{"text": "Bacterial meningitis was not considered despite fever, neck stiffness "
                                       "and a rash.", "refs": ["1"]}],
        "prevention": [{"text": "Give antibiotics before imaging.", "refs": ["[99]"]}]}))
    result = llm_agent.run(parse_case(MENINGITIS))
    assert result.retrieval_mode == "hybrid" and _kept(result) == ["mm:2024-013"]
    assert result.validation is not None and result.validation.per_case[0]["source"] == "llm"
    assert "meningococcal septicaemia" in result.analysis.should_consider
    claims = result.critique["diagnostic_errors"]
    assert [c.refs for c in claims] == [("case:mm:2024-013",)]       # the number resolved to the case
    assert result.critique["prevention"] == []                       # the claim citing [99] was dropped
    assert result.trace["llm_calls"] == 3
    assert [c["role"] for c in result.trace["llm"]["calls"]] == ["analyst", "validator", "critic"]
    assert result.verification["verdict"] == "PASS"


def test_each_failing_role_falls_back_to_its_offline_step(llm_agent: CritiqueAgent, agent: CritiqueAgent,
                                                          fake_openai: FakeOpenAI) -> None:  # noqa: F811
    fake_openai.on("analyst-model", Reply("{not json"))
    fake_openai.on("validator-model", Reply.error(500))
    fake_openai.on("critic-model", Reply.json({"diagnostic_errors": [{"text": "uncited"}]}))
    offline = run(agent, MENINGITIS)
    result = llm_agent.run(parse_case(MENINGITIS))
    assert result.retrieval_mode == offline.retrieval_mode == "hybrid"
    assert _kept(result) == _kept(offline)
    assert result.critique == offline.critique                        # the extractive critique
    calls = result.trace["llm"]["calls"]
    assert {c["role"]: c["fallback"] for c in calls} == {"analyst": "offline", "validator": "offline",
                                                          "critic": "offline"}
    assert all(not c["ok"] and c["error"] for c in calls)

