from __future__ import annotations

import pytest

from tests.fake_openai import FakeOpenAI, Reply
from yaksa.llm.evidence import Citation
from yaksa.llm.offline.extractive import extractive_answer
from yaksa.llm.roles import judge
from yaksa.llm.usage import UsageLedger

QUESTION = "타이레놀과 술을 같이 먹어도 되나요?"


def test_llm_scores_are_weighted(fake_openai: FakeOpenAI, make_client, tylenol: list[Citation]) -> None:
    fake_openai.on("judge-model", Reply.json({"grounding": 1.0, "completeness": 0.5, "accuracy": 0.8,
                                              "missing_info": ["음주량 기준", " "]}))  # fmt: skip
    answer = extractive_answer(QUESTION, tylenol)
    result = judge(make_client(), QUESTION, answer, tylenol, usage=UsageLedger(), profile_terms=["당뇨병"])
    assert result.source == "llm" and result.error is None
    assert result.parts == {"grounding": 1.0, "completeness": 0.5, "accuracy": 0.8}
    assert result.score == pytest.approx(0.4 * 1.0 + 0.3 * 0.5 + 0.3 * 0.8)
    assert result.missing == ["음주량 기준"]
    prompt = fake_openai.requests_for("judge-model")[0]["messages"][1]["content"]
    assert "당뇨병" in prompt and "[문서 3]" in prompt and answer in prompt


@pytest.mark.parametrize("reply", [
    Reply("{grounding: high"),                                                   # not JSON
    Reply.json({"grounding": 7, "completeness": 0.5, "accuracy": 0.5}),          # out of range
    Reply.json({"grounding": 0.5, "completeness": 0.5}),                         # missing key
    Reply.error(500),
])  # fmt: skip
def test_faults_fall_back_to_the_heuristic_judge(fake_openai: FakeOpenAI, make_client, tylenol: list[Citation],
                                                 reply: Reply) -> None:  # fmt: skip
    fake_openai.on("judge-model", reply)
    ledger = UsageLedger()
    answer = extractive_answer(QUESTION, tylenol)
    result = judge(make_client(max_retries=1), QUESTION, answer, tylenol, usage=ledger)
    assert result.source == "heuristic" and result.error
    assert set(result.parts) == {"coverage", "length", "personalisation"} and 0 < result.score <= 1
    assert ledger.records[-1].fallback == "heuristic" and not ledger.records[-1].ok


def test_token_accounting_sums_over_a_turn(fake_openai: FakeOpenAI, make_client, tylenol: list[Citation]) -> None:
    ok = {"grounding": 1, "completeness": 1, "accuracy": 1, "missing_info": []}
    fake_openai.on("judge-model", Reply.json(ok, prompt_tokens=100, completion_tokens=10),
                   Reply.json(ok, prompt_tokens=120, completion_tokens=12))  # fmt: skip
    client = make_client(price_in_per_1k=0.5, price_out_per_1k=1.5)
    ledger = UsageLedger()
    for _ in range(2):
        judge(client, QUESTION, "답 [문서 1]", tylenol, usage=ledger)
    judge(None, QUESTION, "답 [문서 1]", tylenol, usage=ledger)  # offline step: no tokens
    totals = ledger.totals()
    assert (totals["calls"], totals["prompt_tokens"], totals["completion_tokens"]) == (2, 220, 22)
    assert totals["cost"] == pytest.approx(220 / 1000 * 0.5 + 22 / 1000 * 1.5)
    assert totals["fallbacks"] == 1
