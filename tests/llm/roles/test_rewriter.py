from __future__ import annotations

from tests.fake_openai import FakeOpenAI, Reply
from yaksa.llm.roles import rewrite
from yaksa.llm.usage import UsageLedger


def test_llm_rewrite(fake_openai: FakeOpenAI, make_client) -> None:
    fake_openai.on("rewriter-model", Reply.json({"query": "아세트아미노펜  음주 간손상 당뇨병"}))
    result = rewrite(make_client(), "타이레놀 술", ["간손상"], ["당뇨병"], usage=UsageLedger())
    assert (result.query, result.source, result.error) == ("아세트아미노펜 음주 간손상 당뇨병", "llm", None)
    assert "간손상" in fake_openai.requests[0]["messages"][1]["content"]


def test_bad_or_missing_llm_falls_back_to_rules(fake_openai: FakeOpenAI, make_client) -> None:
    fake_openai.on("rewriter-model", Reply.json({"query": ""}))
    ledger = UsageLedger()
    result = rewrite(make_client(), "타이레놀 술", ["간손상"], ["당뇨병"], usage=ledger)
    assert (result.query, result.source) == ("타이레놀 술 간손상 당뇨병", "rule") and "non-empty" in result.error
    offline = rewrite(None, "타이레놀 술", ["간손상"], [], usage=ledger)
    assert (offline.query, offline.source, offline.error) == ("타이레놀 술 간손상", "rule", None)
    assert [r.fallback for r in ledger.records] == ["rule", "rule"]
