"""A fake OpenAI-compatible chat server on 127.0.0.1 for tests: scripted replies and faults.

Why a real HTTP server rather than a mocked SDK: the real `openai` client (timeouts, retries,
JSON mode, SSE streaming with a usage chunk) is what runs in production, so that is what tests run.

    with FakeOpenAI() as fake:                       # or the `fake_openai` fixture below
        fake.on("judge-model", Reply.json({"grounding": 1, ...}))   # by model name ...
        fake.on("You verify", Reply.error(500))      # ... or by text in the system prompt
        fake.push("plain reply")                     # the default queue (used when no rule matches)
        client = LLMClient(LLMConfig(base_url=fake.base_url, model="m"))
        fake.requests                                # every request body received, in order

A rule's replies are used in order and its last reply repeats (so `on(x, Reply.error(500))` fails
every call); the default queue is consumed (each reply once), then `default` (if set) repeats.
With nothing scripted the server answers HTTP 500 "no scripted reply", which fails the test loudly.
Faults: `Reply.error(status)`, `Reply.hang(seconds)` (sleep past the client timeout),
`Reply("{not json")` (malformed JSON content), `Reply(..., cut_after=n)` (a stream that breaks
after n chunks).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

import pytest


@dataclass(frozen=True)
class Reply:
    """One scripted answer to a chat completion request."""

    content: str = ""
    status: int = 200
    delay_s: float = 0.0
    prompt_tokens: int | None = None      # default: ~characters / 4 of the request messages
    completion_tokens: int | None = None  # default: ~characters / 4 of `content`
    cut_after: int | None = None          # streaming only: drop the connection after this many chunks

    @classmethod
    def json(cls, data: Any, **kwargs: Any) -> Reply:
        return cls(json.dumps(data, ensure_ascii=False), **kwargs)

    @classmethod
    def error(cls, status: int = 500, message: str = "fake server error") -> Reply:
        return cls(message, status=status)

    @classmethod
    def hang(cls, seconds: float) -> Reply:
        return cls("too late", delay_s=seconds)


Responder = Callable[[dict[str, Any]], Reply | str | None]


def _as_reply(reply: Reply | str) -> Reply:
    return reply if isinstance(reply, Reply) else Reply(reply)


def _system_text(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content", "")) for m in body.get("messages", []) if m.get("role") == "system")


class FakeOpenAI:
    """`POST /v1/chat/completions` (JSON and SSE streaming) with scripted replies and faults."""

    def __init__(self, responder: Responder | None = None, default: Reply | str | None = None) -> None:
        self.requests: list[dict[str, Any]] = []
        self.default = None if default is None else _as_reply(default)
        self._responder = responder
        self._rules: list[tuple[str, list[Reply]]] = []
        self._queue: list[Reply] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    # scripting -------------------------------------------------------------------------------
    def push(self, *replies: Reply | str) -> FakeOpenAI:
        """Queue replies for requests no rule matches, used once each in order."""
        with self._lock:
            self._queue.extend(_as_reply(r) for r in replies)
        return self

    def on(self, match: str, *replies: Reply | str) -> FakeOpenAI:
        """Answer requests whose model equals `match` or whose system prompt contains it."""
        if not replies:
            raise ValueError("on() needs at least one reply")
        with self._lock:
            self._rules.append((match, [_as_reply(r) for r in replies]))
        return self

    def _choose(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            if self._responder is not None:
                chosen = self._responder(body)
                if chosen is not None:
                    return _as_reply(chosen)
            system = _system_text(body)
            for match, replies in self._rules:
                if body.get("model") == match or match in system:
                    return replies.pop(0) if len(replies) > 1 else replies[0]
            if self._queue:
                return self._queue.pop(0)
            return self.default or Reply.error(500, "no scripted reply for this request")

    def requests_for(self, model: str) -> list[dict[str, Any]]:
        with self._lock:
            return [r for r in self.requests if r.get("model") == model]

    # lifecycle -------------------------------------------------------------------------------
    def close(self) -> None:
        self._stop.set()  # wakes handlers sleeping in Reply.hang
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # HTTP ------------------------------------------------------------------------------------
    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send_json(404, {"error": {"message": f"no route {self.path}"}})
                    return
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError:
                    self._send_json(400, {"error": {"message": "request body is not JSON"}})
                    return
                reply = fake._choose(body)
                if reply.delay_s and fake._stop.wait(reply.delay_s):
                    return
                try:
                    if reply.status != 200:
                        self._send_json(reply.status, {"error": {"message": reply.content, "type": "fake"}})
                    elif body.get("stream"):
                        self._stream(body, reply)
                    else:
                        self._send_json(200, _completion(body, reply))
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass

            def _send_json(self, status: int, data: dict[str, Any]) -> None:
                raw = json.dumps(data, ensure_ascii=False).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def _stream(self, body: dict[str, Any], reply: Reply) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                pieces = [reply.content[i : i + 4] for i in range(0, len(reply.content), 4)]
                for i, piece in enumerate(pieces):
                    if reply.cut_after is not None and i >= reply.cut_after:
                        self.wfile.flush()
                        self.connection.shutdown(2)  # mid-stream break, no [DONE]
                        return
                    self._event(_chunk(body, {"content": piece} if i else {"role": "assistant", "content": piece}))
                self._event(_chunk(body, {}, finish="stop"))
                if (body.get("stream_options") or {}).get("include_usage"):
                    self._event({**_chunk(body, {}), "choices": [], "usage": _usage(body, reply)})
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

            def _event(self, data: dict[str, Any]) -> None:
                self.wfile.write(b"data: " + json.dumps(data, ensure_ascii=False).encode("utf-8") + b"\n\n")
                self.wfile.flush()

        return Handler


def _usage(body: dict[str, Any], reply: Reply) -> dict[str, int]:
    chars = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
    prompt = reply.prompt_tokens if reply.prompt_tokens is not None else chars // 4 + 1
    completion = reply.completion_tokens if reply.completion_tokens is not None else len(reply.content) // 4 + 1
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": body.get("model", ""),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.content},
                     "finish_reason": "stop"}],
        "usage": _usage(body, reply),
    }  # fmt: skip


def _chunk(body: dict[str, Any], delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": body.get("model", ""),
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }  # fmt: skip


@pytest.fixture()
def fake_openai() -> Iterator[FakeOpenAI]:
    """A running fake server, closed after the test (import this fixture into a conftest.py)."""
    with FakeOpenAI() as fake:
        yield fake
