from __future__ import annotations

from tests.fake_openai import FakeOpenAI, Reply
from yaksa.llm.context import assemble_prompt
from yaksa.llm.evidence import Citation
from yaksa.llm.offline.extractive import extractive_answer
from yaksa.llm.roles import generate
from yaksa.llm.usage import UsageLedger

QUESTION = "타이레놀은 하루에 몇 번 먹어요?"
LLM_ANSWER = "1회 1~2정씩 1일 3~4회 복용합니다 [문서 2].\n\n복용 전에 약사나 의사 등 전문가와 꼭 상담하세요."


def test_streams_the_llm_answer(fake_openai: FakeOpenAI, make_client, tylenol: list[Citation]) -> None:
    fake_openai.on("generator-model", Reply(LLM_ANSWER, prompt_tokens=900, completion_tokens=60))
    prompt = assemble_prompt(QUESTION, tylenol, "당뇨병")
    tokens: list[str] = []
    ledger = UsageLedger()
    result = generate(make_client(), prompt, usage=ledger, on_token=tokens.append)
    assert (result.text, result.source, result.error) == (LLM_ANSWER, "llm", None)
    assert "".join(tokens) == LLM_ANSWER and result.prompt_tokens_by_section == prompt.tokens_by_section
    request = fake_openai.requests[0]
    assert request["messages"] == prompt.messages and request["max_tokens"] == prompt.max_tokens
    assert ledger.totals()["prompt_tokens"] == 900 and ledger.totals()["fallbacks"] == 0


def test_offline_streams_the_extractive_answer(tylenol: list[Citation]) -> None:
    prompt = assemble_prompt(QUESTION, tylenol, "75세")
    tokens: list[str] = []
    ledger = UsageLedger()
    result = generate(None, prompt, usage=ledger, on_token=tokens.append)
    assert result.source == "extractive" and result.error is None
    assert result.text == extractive_answer(QUESTION, tylenol, "75세") == "".join(tokens) and len(tokens) > 2
    # one piece per sentence (or citation, or paragraph), not per word: each is an SSE event
    assert len(tokens) < len(result.text.split()) / 3
    assert all(t.rstrip().endswith((".", "!", "?", "]")) or "\n" not in t for t in tokens[:-1])
    assert [(r.role, r.model, r.fallback) for r in ledger.records] == [("generator", None, "extractive")]


def test_server_error_falls_back_and_is_recorded(fake_openai: FakeOpenAI, make_client,
                                                 tylenol: list[Citation]) -> None:  # fmt: skip
    fake_openai.on("generator-model", Reply.error(502, "bad gateway"))
    ledger = UsageLedger()
    result = generate(make_client(max_retries=1), assemble_prompt(QUESTION, tylenol), usage=ledger)
    assert result.source == "extractive" and "HTTP 502" in result.error and "[문서 2]" in result.text
    (record,) = ledger.records
    assert (record.ok, record.attempts, record.fallback) == (False, 2, "extractive")


def test_broken_stream_falls_back(fake_openai: FakeOpenAI, make_client, tylenol: list[Citation]) -> None:
    fake_openai.on("generator-model", Reply(LLM_ANSWER, cut_after=3))
    tokens: list[str] = []
    result = generate(make_client(), assemble_prompt(QUESTION, tylenol), usage=UsageLedger(), on_token=tokens.append)
    assert result.source == "extractive" and "stream broke" in result.error
    assert "".join(tokens).endswith(result.text)  # the fallback text follows the partial stream
