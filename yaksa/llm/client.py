"""One client for every LLM role, over the `openai` SDK and any OpenAI-compatible endpoint.

Why our own retry loop instead of the SDK's: the SDK retries are invisible to the trace and cannot
tell us how many attempts a step took; here every call is one `UsageLedger` record with its attempts,
tokens, cost and error. Retried: timeouts, connection errors, HTTP 5xx and 429, with exponential
backoff. Not retried: other 4xx (the request itself is wrong; trying again cannot help).

    client = client_from_env()            # None when YAKSA_LLM_BASE_URL is unset (offline)
    ledger = UsageLedger()
    text = client.chat("generator", [{"role": "user", "content": "..."}], usage=ledger)
    data = client.chat_json("judge", messages, validate=parse_scores, usage=ledger)
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any, TypeVar

import httpx
import openai

from yaksa.llm.config import LLMConfig
from yaksa.llm.errors import LLMOutputError, LLMUnavailable
from yaksa.llm.tokens import estimate_tokens
from yaksa.llm.usage import CallRecord, UsageLedger

T = TypeVar("T")
Messages = list[dict[str, str]]
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL | re.IGNORECASE)


def _retryable(exc: Exception) -> bool:
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    return isinstance(exc, openai.APIStatusError) and (exc.status_code >= 500 or exc.status_code == 429)


def _describe(exc: Exception) -> str:
    if isinstance(exc, openai.APITimeoutError):
        return "request timed out"
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {exc.message}"
    return f"{type(exc).__name__}: {exc}"


def parse_json_reply(text: str, validate: Callable[[dict[str, Any]], T]) -> T:
    """Parse a JSON-object reply (``` fences allowed) and validate it; any failure is `LLMOutputError`."""
    match = _FENCE.match(text)
    body = match.group(1) if match else text.strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise LLMOutputError(f"reply is not valid JSON ({exc.msg} at char {exc.pos}): {body[:120]!r}") from None
    if not isinstance(data, dict):
        raise LLMOutputError(f"reply JSON must be an object, got {type(data).__name__}")
    try:
        return validate(data)
    except (ValueError, TypeError, KeyError) as exc:
        raise LLMOutputError(f"reply JSON failed validation: {exc}") from None


class LLMClient:
    """Chat, JSON chat and streaming chat for the roles in `ROLES`, each call recorded in a ledger."""

    def __init__(self, config: LLMConfig, sleep: Callable[[float], None] = time.sleep) -> None:
        if not config.configured:
            raise ValueError("LLMClient needs a configured endpoint (YAKSA_LLM_BASE_URL); offline, pass None")
        self.config = config
        self._sleep = sleep
        self._client = openai.OpenAI(
            base_url=config.base_url, api_key=config.api_key, timeout=config.timeout_s, max_retries=0
        )

    def chat(self, role: str, messages: Messages, *, usage: UsageLedger, temperature: float = 0.0,
             max_tokens: int | None = None) -> str:  # fmt: skip
        """The reply text of one chat completion."""
        model = self.config.model_for(role)
        with usage.call(role, model) as record:
            return self._complete(record, messages, temperature=temperature, max_tokens=max_tokens)

    def chat_json(self, role: str, messages: Messages, validate: Callable[[dict[str, Any]], T], *,
                  usage: UsageLedger, temperature: float = 0.0) -> T:  # fmt: skip
        """A JSON-mode reply parsed and passed through `validate` (which raises ValueError when wrong)."""
        model = self.config.model_for(role)
        with usage.call(role, model) as record:
            text = self._complete(record, messages, temperature=temperature,
                                  response_format={"type": "json_object"})  # fmt: skip
            return parse_json_reply(text, validate)

    def stream(self, role: str, messages: Messages, *, usage: UsageLedger, on_token: Callable[[str], None],
               temperature: float = 0.0, max_tokens: int | None = None) -> str:  # fmt: skip
        """Stream the reply through `on_token`; returns the full text.

        Retries only before the first token: once text reached the caller it cannot be taken back, so
        a break mid-stream raises `LLMUnavailable` and the caller decides (the generator falls back).
        """
        model = self.config.model_for(role)
        with usage.call(role, model) as record:
            stream = self._with_retries(record, lambda: self._client.chat.completions.create(
                model=model, messages=messages, temperature=temperature, max_tokens=max_tokens,
                stream=True, stream_options={"include_usage": True}))  # fmt: skip
            parts: list[str] = []
            finished = False
            try:
                for chunk in stream:
                    if chunk.usage is not None:
                        self._account(record, chunk.usage.prompt_tokens, chunk.usage.completion_tokens)
                    for choice in chunk.choices:
                        if choice.delta and choice.delta.content:
                            parts.append(choice.delta.content)
                            on_token(choice.delta.content)
                        finished = finished or choice.finish_reason is not None
            except (openai.APIError, httpx.HTTPError) as exc:  # httpx errors escape the SDK mid-stream
                raise LLMUnavailable(f"stream broke after {len(parts)} chunks: {_describe(exc)}") from exc
            if not finished:  # the connection closed before the server said the reply was complete
                raise LLMUnavailable(f"stream broke after {len(parts)} chunks: no finish_reason received")
            text = "".join(parts)
            if record.prompt_tokens == 0 and record.completion_tokens == 0:  # server sent no usage chunk
                self._account(record, sum(estimate_tokens(m["content"]) for m in messages), estimate_tokens(text))
            return text

    def _complete(self, record: CallRecord, messages: Messages, **kwargs: Any) -> str:
        kwargs = {k: v for k, v in kwargs.items() if v is not None}
        resp = self._with_retries(record, lambda: self._client.chat.completions.create(
            model=record.model, messages=messages, **kwargs))  # fmt: skip
        if not resp.choices:
            raise LLMOutputError("reply has no choices")
        text = resp.choices[0].message.content or ""
        if resp.usage is not None:
            self._account(record, resp.usage.prompt_tokens, resp.usage.completion_tokens)
        else:
            self._account(record, sum(estimate_tokens(m["content"]) for m in messages), estimate_tokens(text))
        if not text.strip():
            raise LLMOutputError("reply is empty")
        return text

    def _with_retries(self, record: CallRecord, request: Callable[[], T]) -> T:
        attempt = 0
        while True:
            attempt += 1
            record.attempts = attempt
            try:
                return request()
            except (openai.APIConnectionError, openai.APIStatusError) as exc:
                if not _retryable(exc) or attempt > self.config.max_retries:
                    raise LLMUnavailable(
                        f"{record.role} call to {self.config.base_url} failed after {attempt} "
                        f"attempt(s): {_describe(exc)}"
                    ) from exc
                self._sleep(self.config.backoff_s * 2 ** (attempt - 1))

    def _account(self, record: CallRecord, prompt_tokens: int, completion_tokens: int) -> None:
        record.prompt_tokens, record.completion_tokens = int(prompt_tokens), int(completion_tokens)
        record.cost = self.config.cost(record.prompt_tokens, record.completion_tokens)


def client_from_env() -> LLMClient | None:
    """The configured client, or None offline (every role then uses its fallback)."""
    config = LLMConfig.from_env()
    return LLMClient(config) if config.configured else None
