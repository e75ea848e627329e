from __future__ import annotations

import pytest

from tests.fake_openai import FakeOpenAI, Reply
from yaksa.llm.client import LLMClient, client_from_env, parse_json_reply
from yaksa.llm.config import LLMConfig
from yaksa.llm.errors import LLMOutputError, LLMUnavailable
from yaksa.llm.usage import UsageLedger

MESSAGES = [{"role": "system", "content": "You answer."}, {"role": "user", "content": "두통약 알려줘"}]


def need_ok(data: dict) -> str:
    if data.get("ok") is not True:
        raise ValueError("ok must be true")
    return "valid"


def test_chat_uses_role_model_and_records_usage(fake_openai: FakeOpenAI, make_client) -> None:
    fake_openai.on("generator-model", Reply("타이레놀은 두통에 씁니다.", prompt_tokens=30, completion_tokens=12))
    client: LLMClient = make_client(price_in_per_1k=1.0, price_out_per_1k=2.0)
    ledger = UsageLedger()
    assert client.chat("generator", MESSAGES, usage=ledger) == "타이레놀은 두통에 씁니다."
    body = fake_openai.requests[0]
    assert body["model"] == "generator-model" and body["messages"] == MESSAGES and body["temperature"] == 0.0
    (rec,) = ledger.records
    assert (rec.role, rec.model, rec.prompt_tokens, rec.completion_tokens, rec.attempts, rec.ok) == (
        "generator", "generator-model", 30, 12, 1, True)
    assert rec.cost == pytest.approx(30 / 1000 * 1.0 + 12 / 1000 * 2.0)


def test_chat_json_requests_json_mode_and_strips_fences(fake_openai: FakeOpenAI, make_client) -> None:
    fake_openai.push('```json\n{"ok": true}\n```')
    assert make_client().chat_json("judge", MESSAGES, need_ok, usage=UsageLedger()) == "valid"
    assert fake_openai.requests[0]["response_format"] == {"type": "json_object"}


@pytest.mark.parametrize("content, message", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "must be an object"),
    ('{"ok": false}', "failed validation: ok must be true"),
])  # fmt: skip
def test_chat_json_bad_output_is_an_output_error(fake_openai: FakeOpenAI, make_client, content: str,
                                                 message: str) -> None:  # fmt: skip
    fake_openai.push(content)
    ledger = UsageLedger()
    with pytest.raises(LLMOutputError, match=message):
        make_client().chat_json("judge", MESSAGES, need_ok, usage=ledger)
    (rec,) = ledger.records
    assert not rec.ok and "LLMOutputError" in rec.error and rec.completion_tokens > 0  # tokens were still spent


def test_server_errors_are_retried_with_exponential_backoff(fake_openai: FakeOpenAI) -> None:
    fake_openai.push(Reply.error(500), Reply.error(503), "다행히 세 번째에 성공")
    sleeps: list[float] = []
    client = LLMClient(LLMConfig(base_url=fake_openai.base_url, model="m", max_retries=2, backoff_s=0.5),
                       sleep=sleeps.append)  # fmt: skip
    ledger = UsageLedger()
    assert client.chat("generator", MESSAGES, usage=ledger) == "다행히 세 번째에 성공"
    assert sleeps == [0.5, 1.0] and len(fake_openai.requests) == 3
    assert ledger.records[0].attempts == 3 and ledger.records[0].ok


def test_retries_exhausted_raise_unavailable(fake_openai: FakeOpenAI, make_client) -> None:
    fake_openai.on("m", Reply.error(500, "model crashed"))
    ledger = UsageLedger()
    with pytest.raises(LLMUnavailable, match=r"after 3 attempt\(s\): HTTP 500"):
        make_client(model="m", role_models={}, max_retries=2).chat("verifier", MESSAGES, usage=ledger)
    assert len(fake_openai.requests) == 3 and ledger.records[0].attempts == 3


def test_rate_limit_is_retried_but_client_errors_are_not(fake_openai: FakeOpenAI, make_client) -> None:
    fake_openai.push(Reply.error(429, "slow down"), "ok")
    assert make_client(max_retries=1).chat("router", MESSAGES, usage=UsageLedger()) == "ok"
    fake_openai.push(Reply.error(400, "bad request"))
    with pytest.raises(LLMUnavailable, match="HTTP 400"):
        make_client(max_retries=3).chat("router", MESSAGES, usage=UsageLedger())
    assert len(fake_openai.requests) == 3  # 429 + ok, then a single 400


def test_timeout_raises_unavailable(fake_openai: FakeOpenAI, make_client) -> None:
    fake_openai.push(Reply.hang(10))
    ledger = UsageLedger()
    with pytest.raises(LLMUnavailable, match="timed out"):
        make_client(timeout_s=0.3, max_retries=0).chat("judge", MESSAGES, usage=ledger)
    assert ledger.records[0].error.startswith("LLMUnavailable")


def test_unreachable_server_raises_unavailable() -> None:
    with FakeOpenAI() as fake:
        url = fake.base_url
    client = LLMClient(LLMConfig(base_url=url, model="m", max_retries=0, timeout_s=2))
    with pytest.raises(LLMUnavailable, match="Connection"):
        client.chat("judge", MESSAGES, usage=UsageLedger())


def test_stream_emits_tokens_and_counts_usage(fake_openai: FakeOpenAI, make_client) -> None:
    answer = "이 약은 두통, 치통에 사용합니다. [문서 1]"
    fake_openai.push(Reply(answer, prompt_tokens=50, completion_tokens=20))
    tokens: list[str] = []
    ledger = UsageLedger()
    text = make_client().stream("generator", MESSAGES, usage=ledger, on_token=tokens.append, max_tokens=300)
    assert text == answer and "".join(tokens) == answer and len(tokens) > 3
    body = fake_openai.requests[0]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["max_tokens"] == 300
    assert (ledger.records[0].prompt_tokens, ledger.records[0].completion_tokens) == (50, 20)


def test_stream_broken_mid_way_raises_unavailable(fake_openai: FakeOpenAI, make_client) -> None:
    fake_openai.push(Reply("이 약은 두통, 치통에 사용합니다.", cut_after=2))
    tokens: list[str] = []
    with pytest.raises(LLMUnavailable, match="stream broke after 2 chunks"):
        make_client().stream("generator", MESSAGES, usage=UsageLedger(), on_token=tokens.append)
    assert len(tokens) == 2


def test_client_needs_an_endpoint() -> None:
    with pytest.raises(ValueError, match="YAKSA_LLM_BASE_URL"):
        LLMClient(LLMConfig())


def test_client_from_env(monkeypatch: pytest.MonkeyPatch, fake_openai: FakeOpenAI) -> None:
    monkeypatch.delenv("YAKSA_LLM_BASE_URL", raising=False)
    assert client_from_env() is None
    monkeypatch.setenv("YAKSA_LLM_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("YAKSA_LLM_MODEL", "served-model")
    client = client_from_env()
    assert client is not None and client.config.model_for("judge") == "served-model"


def test_parse_json_reply_plain_object() -> None:
    assert parse_json_reply(' {"ok": true} ', need_ok) == "valid"
