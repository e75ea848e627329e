from __future__ import annotations

import pytest

from tests.fake_openai import FakeOpenAI, Reply
from yaksa.llm.client import LLMClient
from yaksa.llm.config import LLMConfig
from yaksa.llm.roles.query_router import MAX_TERMS, route_terms
from yaksa.llm.usage import UsageLedger

QUESTION = "타이레놀이랑 술 같이 먹어도 돼?"


def client_for(fake: FakeOpenAI) -> LLMClient:
    return LLMClient(LLMConfig(base_url=fake.base_url, model="m", role_models={"router": "router-model"},
                               backoff_s=0.0, max_retries=1, timeout_s=5))  # fmt: skip


def test_llm_terms_are_validated_and_cleaned() -> None:
    with FakeOpenAI() as fake:
        fake.on("router-model", Reply.json({"core_terms": ["타이레놀", " 타이레놀 "],
                                            "recall_terms": ["아세트아미노펜", "음주", "간 손상"],
                                            "avoid_terms": []}))  # fmt: skip
        ledger = UsageLedger()
        terms = route_terms(client_for(fake), QUESTION, ledger)
        assert terms.core_terms == ["타이레놀"] and terms.recall_terms == ["아세트아미노펜", "음주", "간 손상"]
        assert (terms.avoid_terms, terms.source, terms.error) == ([], "llm", None)
        request = fake.requests[0]
        assert request["response_format"] == {"type": "json_object"}
        assert request["messages"][1]["content"] == QUESTION
        assert ledger.records[0].role == "router" and ledger.records[0].ok


@pytest.mark.parametrize("reply, error", [
    (Reply.json({"core_terms": [], "recall_terms": ["x"]}), "core_terms must not be empty"),
    (Reply.json({"core_terms": "타이레놀"}), "must be a list of strings"),
    (Reply.json({"core_terms": [f"t{i}" for i in range(MAX_TERMS + 1)]}), "more than"),
    (Reply("core_terms: 타이레놀"), "not valid JSON"),
    (Reply.error(500), "HTTP 500"),
])  # fmt: skip
def test_faults_degrade_to_offline(reply: Reply, error: str) -> None:
    with FakeOpenAI() as fake:
        fake.on("router-model", reply)
        ledger = UsageLedger()
        terms = route_terms(client_for(fake), QUESTION, ledger)
        assert (terms.core_terms, terms.recall_terms, terms.avoid_terms, terms.source) == ([], [], [], "offline")
        assert error in terms.error and ledger.records[-1].fallback == "offline"


def test_offline_and_bad_question() -> None:
    ledger = UsageLedger()
    terms = route_terms(None, QUESTION, ledger)
    assert terms.to_json() == {"core_terms": [], "recall_terms": [], "avoid_terms": [], "source": "offline",
                               "error": None}  # fmt: skip
    assert ledger.records[0].model is None
    with pytest.raises(ValueError, match="question"):
        route_terms(None, "  ", ledger)
