from __future__ import annotations

from tests.fake_openai import FakeOpenAI, Reply
from yaksa.llm.evidence import Citation
from yaksa.llm.roles import correct, verify
from yaksa.llm.usage import UsageLedger

QUESTION = "타이레놀은 한 번에 몇 정 먹어요?"
INVENTED = "성인은 1회 1000mg을 복용합니다. [문서 2]\n\n복용 전에 약사나 의사 등 전문가와 꼭 상담하세요."
FIXED = "성인은 1회 1~2정씩 복용합니다. [문서 2]\n\n복용 전에 약사나 의사 등 전문가와 꼭 상담하세요."


def test_llm_fail_then_llm_correction_then_pass(fake_openai: FakeOpenAI, make_client,
                                                tylenol: list[Citation]) -> None:  # fmt: skip
    fake_openai.on("verifier-model",
                   Reply.json({"verdict": "FAIL", "problems": ["용량 1000mg은 문서 2에 없습니다."]}),
                   Reply.json({"verdict": "PASS", "problems": []}))  # fmt: skip
    fake_openai.on("corrector-model", FIXED)
    client, ledger = make_client(), UsageLedger()
    first = verify(client, QUESTION, INVENTED, tylenol, usage=ledger)
    assert first.verdict == "FAIL" and first.source == "llm"
    assert first.problems == ["용량 1000mg은 문서 2에 없습니다.", "문단 1: 근거 문서에 없는 용량/횟수 '1000mg'"]
    fixed = correct(client, QUESTION, INVENTED, tylenol, first.problems, usage=ledger)
    assert (fixed.text, fixed.source) == (FIXED, "llm")
    corrector_prompt = fake_openai.requests_for("corrector-model")[0]["messages"][1]["content"]
    assert "- 용량 1000mg은 문서 2에 없습니다." in corrector_prompt and "[문서 2]" in corrector_prompt
    second = verify(client, QUESTION, fixed.text, tylenol, usage=ledger)
    assert (second.verdict, second.problems) == ("PASS", [])
    assert [r.role for r in ledger.records] == ["verifier", "corrector", "verifier"]


def test_rules_overrule_an_llm_pass(fake_openai: FakeOpenAI, make_client, tylenol: list[Citation]) -> None:
    fake_openai.on("verifier-model", Reply.json({"verdict": "PASS", "problems": []}))
    result = verify(make_client(), QUESTION, INVENTED, tylenol, usage=UsageLedger())
    assert result.verdict == "FAIL" and result.problems == ["문단 1: 근거 문서에 없는 용량/횟수 '1000mg'"]


def test_malformed_verdict_falls_back_to_rules(fake_openai: FakeOpenAI, make_client,
                                              tylenol: list[Citation]) -> None:  # fmt: skip
    fake_openai.on("verifier-model", Reply.json({"verdict": "MAYBE"}))
    ledger = UsageLedger()
    result = verify(make_client(), QUESTION, FIXED, tylenol, usage=ledger)
    assert (result.verdict, result.source) == ("PASS", "rule") and "verdict must be PASS or FAIL" in result.error
    assert ledger.records[0].fallback == "rule" and not ledger.records[0].ok


def test_offline_verify_and_correct(tylenol: list[Citation]) -> None:
    ledger = UsageLedger()
    first = verify(None, QUESTION, INVENTED, tylenol, usage=ledger)
    assert (first.verdict, first.source) == ("FAIL", "rule")
    fixed = correct(None, QUESTION, INVENTED, tylenol, first.problems, usage=ledger)
    assert fixed.source == "rule" and "1000mg" not in fixed.text
    assert verify(None, QUESTION, fixed.text, tylenol, usage=ledger).verdict == "PASS"
    assert [(r.role, r.fallback) for r in ledger.records] == [("verifier", "rule"), ("corrector", "rule"),
                                                              ("verifier", "rule")]  # fmt: skip


def test_corrector_timeout_falls_back_to_rules(fake_openai: FakeOpenAI, make_client,
                                               tylenol: list[Citation]) -> None:  # fmt: skip
    fake_openai.on("corrector-model", Reply.hang(10))
    ledger = UsageLedger()
    fixed = correct(make_client(timeout_s=0.3, max_retries=0), QUESTION, INVENTED, tylenol, ["x"], usage=ledger)
    assert fixed.source == "rule" and "timed out" in fixed.error and "1000mg" not in fixed.text
    assert ledger.records[0].fallback == "rule"
