"""A stand-in for the agent that streams like the real one, built on the real searcher.

Why a fake: the serving layer is tested against the TurnRunner contract, not the agent's
behaviour. It still does real work: it searches the loaded bundle, streams an extractive answer
token by token, cites the hits with their text, and remembers questions per user; it can also
fail mid-stream the way a dropped LLM connection does.
"""

from __future__ import annotations

import re
import threading
import time
from typing import Any

from yaksa.agent.api import Citation, EventSink, TurnResult
from yaksa.config import Settings
from yaksa.retrieval.loader import LoadedBundle
from yaksa.retrieval.searcher import Searcher

NODES = ("classify_intent", "retrieve", "generate_answer", "quality_check")


class LLMStreamError(ConnectionError):
    """What a dropped streaming connection to the LLM endpoint looks like to the runner."""


class FakeRunner:
    def __init__(self, loaded: LoadedBundle, settings: Settings, memory: dict[str, list[str]],
                 fail_after_tokens: int | None = None, failures: int = 1, token_delay: float = 0.0) -> None:
        self.searcher = Searcher(loaded, settings.retrieval)
        self.bundle_version: str | None = loaded.version
        self.memory = memory  # shared across reloads, like the persistent ProfileStore
        self.fail_after_tokens = fail_after_tokens  # the first `failures` runs drop after this many tokens
        self.failures = failures
        self.token_delay = token_delay
        self._lock = threading.Lock()

    def run(self, question: str, user_id: str, profile: str | None = None,
            on_event: EventSink | None = None) -> TurnResult:
        emit = on_event or (lambda _name, _payload: None)
        if profile not in (None, "full", "baseline"):
            raise ValueError(f"unknown profile {profile!r}")
        emit("status", {"node": NODES[0], "state": "end"})
        emit("status", {"node": "retrieve", "state": "start"})
        result = self.searcher.search(question, k=3)
        emit("status", {"node": "retrieve", "state": "end", "hits": len(result.hits)})
        hits = result.hits
        first = " ".join(hits[0].text.split())[:60] if hits else ""
        answer = f"{hits[0].title}: {first} [문서 1]. 전문가와 꼭 상담하세요." if hits else "자료가 없습니다."
        emit("status", {"node": "generate_answer", "state": "start"})
        for i, token in enumerate(re.findall(r"\S+\s*", answer)):
            if i == self.fail_after_tokens and self._take_failure():
                raise LLMStreamError("connection to the LLM endpoint dropped mid-stream")
            emit("token", {"text": token})
            if self.token_delay:
                time.sleep(self.token_delay)
        citations = [Citation(n=i, doc_id=h.doc_id, collection=h.collection, title=h.title, section=h.section,
                              text=h.text, score=h.score, metadata=h.metadata) for i, h in enumerate(hits, 1)]
        emit("citations", {"ignored": True})  # final-state events are derived by the server
        emit("done", {"ignored": True})
        with self._lock:
            self.memory.setdefault(user_id, []).append(question)
        return TurnResult(answer=answer, citations=citations, blocked=result.blocked,
                          bundle_version=self.bundle_version,
                          trace={"nodes": list(NODES), "iterations": 1, "scores": {"quality": 0.8},
                                 "bundle_version": self.bundle_version},
                          verification={"grounded": True})

    def _take_failure(self) -> bool:
        with self._lock:
            self.failures -= 1
            return self.failures >= 0

    def profile(self, user_id: str) -> dict[str, Any]:
        with self._lock:
            questions = list(self.memory.get(user_id, []))
        return {"items": [{"slot_type": "symptoms", "text": q} for q in questions],
                "summary": f"{len(questions)} questions"}

    def forget(self, user_id: str) -> bool:
        with self._lock:
            return self.memory.pop(user_id, None) is not None


def fake_factory(memory: dict[str, list[str]] | None = None, **options: Any):
    """A RunnerFactory for `create_app(runner_factory=...)`; `options` go to FakeRunner."""
    shared = {} if memory is None else memory
    return lambda loaded, settings: FakeRunner(loaded, settings, shared, **options)
