"""Every LLM path of the agent against the fake OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.fake_openai import FakeOpenAI, Reply
from yaksa.agent.factory import build_runner
from yaksa.config import AgentFlags

QUESTION = "두통에 먹는 약 알려주세요"
GOOD = "두통에 쓰는 약의 효능효과는 근거 문서에 있습니다 [문서 1]\n\n복용 전에 약사나 의사 등 전문가와 꼭 상담하세요."
ROUTER = Reply.json({"core_terms": ["두통"], "recall_terms": ["진통"], "avoid_terms": []})
PASS = Reply.json({"verdict": "PASS", "problems": []})


def judged(score: float, missing: list[str] | None = None) -> Reply:
    return Reply.json({"grounding": score, "completeness": score, "accuracy": score, "missing_info": missing or []},
                      prompt_tokens=10, completion_tokens=5)


def runner_for(loaded, settings, max_iterations: int = 2, **flags):
    base = {"active_retrieval": False, "medcat_enabled": False, "memory_mode": "none", "cache": False}
    agent = replace(settings.agent, variant="test", max_iterations=max_iterations,
                    variants={**settings.agent.variants, "test": AgentFlags(**{**base, **flags})})
    return build_runner(loaded, replace(settings, agent=agent))


def script(fake: FakeOpenAI, judge: list[Reply], rewrites: list[str] | None = None, verifier: list[Reply] | None = None,
           generator: str | Reply = GOOD) -> None:
    fake.on("router-model", ROUTER)
    reply = generator if isinstance(generator, Reply) else Reply(generator, prompt_tokens=10, completion_tokens=5)
    fake.on("generator-model", reply)
    fake.on("verifier-model", *(verifier or [PASS]))
    fake.on("judge-model", *judge)
    fake.on("rewriter-model", *[Reply.json({"query": q}) for q in (rewrites or [QUESTION])])
    fake.on("corrector-model", Reply(GOOD))


def test_llm_judge_json_and_token_accounting(llm_env: FakeOpenAI, loaded, settings) -> None:
    script(llm_env, [judged(0.9)])
    result = runner_for(loaded, settings).run(QUESTION, "u")
    assert result.answer == GOOD and result.trace["generation_source"] == "llm"
    assert result.trace["judgements"][0]["source"] == "llm" and result.trace["scores"] == [0.9]
    assert result.trace["stop_reason"] == "quality"
    ledger = result.trace["llm_calls"]
    roles = [c["role"] for c in ledger["calls"]]
    assert roles == ["router", "generator", "verifier", "judge"]
    assert ledger["totals"]["fallbacks"] == 0
    assert ledger["totals"]["prompt_tokens"] == sum(c["prompt_tokens"] for c in ledger["calls"])
    assert {c["model"] for c in ledger["calls"]} == {"router-model", "generator-model", "verifier-model", "judge-model"}
    assert "진통" in result.trace["retrieval"][0]["expansion"]["added"]  # the router's recall term was searched


def test_verify_fail_then_successful_correction(llm_env: FakeOpenAI, loaded, settings) -> None:
    fail = Reply.json({"verdict": "FAIL", "problems": ["용량이 근거와 다릅니다"]})
    script(llm_env, [judged(0.9)], verifier=[fail, PASS],
           generator="두통에는 1회 7정을 드세요 [문서 1]\n\n복용 전에 약사나 의사 등 전문가와 꼭 상담하세요.")
    result = runner_for(loaded, settings).run(QUESTION, "u")
    rounds = result.trace["verification"]
    assert [r["verdict"] for r in rounds] == ["FAIL", "PASS"]
    assert result.trace["corrections"][0]["source"] == "llm"
    assert result.answer == GOOD and result.verification["verdict"] == "PASS"


def test_corrections_exhausted_fall_back_to_the_extractive_answer(llm_env: FakeOpenAI, loaded, settings) -> None:
    fail = Reply.json({"verdict": "FAIL", "problems": ["근거 없는 주장"]})
    script(llm_env, [judged(0.9)], verifier=[fail])
    result = runner_for(loaded, settings).run(QUESTION, "u")
    assert len(result.trace["verification"]) == settings.agent.max_corrections + 1
    assert result.trace["verification_fallback"]["verdict"] == "PASS"
    assert result.trace["generation_source"] == "extractive" and "전문가와 꼭 상담하세요" in result.answer


@pytest.mark.parametrize(("scores", "rewrites", "max_iterations", "reason"), [
    ([0.9], [QUESTION], 2, "quality"),
    ([0.2, 0.21], [QUESTION], 3, "duplicate_docs"),
    ([0.2, 0.22], ["변비 설사 소화불량 위장약"], 3, "no_improvement"),
    ([0.2, 0.4], ["변비 설사 소화불량 위장약"], 2, "max_iterations"),
])
def test_rewrite_loop_stops_by_each_rule(llm_env: FakeOpenAI, loaded, settings, scores, rewrites, max_iterations,
                                         reason) -> None:
    script(llm_env, [judged(s, ["복용 시간"]) for s in scores], rewrites=rewrites)
    result = runner_for(loaded, settings, max_iterations=max_iterations).run(QUESTION, "u")
    assert result.trace["stop_reason"] == reason
    assert result.trace["scores"] == scores
    assert result.trace["iterations"] == len(scores)
    if len(scores) > 1:
        assert result.trace["rewrites"][0]["source"] == "llm"
        assert result.trace["retrieval"][1]["query"] == rewrites[0]


def test_malformed_json_and_server_errors_degrade_to_fallbacks(llm_env: FakeOpenAI, loaded, settings) -> None:
    script(llm_env, [Reply("{not json")], verifier=[Reply.error(500)])
    result = runner_for(loaded, settings).run(QUESTION, "u")
    assert result.answer and result.citations
    assert result.trace["verification"][0]["source"] == "rule"
    assert result.trace["judgements"][0]["source"] == "heuristic"
    calls = result.trace["llm_calls"]["calls"]
    assert any(c["role"] == "verifier" and not c["ok"] for c in calls)
    assert any(c["role"] == "judge" and c["fallback"] == "heuristic" for c in calls)
    assert result.trace["llm_calls"]["totals"]["fallbacks"] >= 2


def test_generator_outage_streams_the_extractive_answer(llm_env: FakeOpenAI, loaded, settings) -> None:
    script(llm_env, [judged(0.9)], generator=Reply.error(503))
    tokens: list[str] = []
    result = runner_for(loaded, settings).run(QUESTION, "u",
                                              on_event=lambda n, p: tokens.append(p["text"]) if n == "token" else None)
    assert result.trace["generation_source"] == "extractive"
    assert "".join(tokens).strip() == result.answer.strip()


def test_out_of_scope_is_refused_before_any_llm_call(llm_env: FakeOpenAI, loaded, settings) -> None:
    script(llm_env, [judged(0.9)])
    result = runner_for(loaded, settings, query_router=False).run("삼성전자 주가 알려줘", "u")
    assert result.blocked and llm_env.requests == []
