"""A stand-in for the agent that streams like the real one, built on the real searcher and scope stage.

Why a fake: the serving layer is tested against the TurnRunner contract, not the agent's
behaviour. It still does real work: the real scope stage decides whether a question is answered
at all (an out-of-scope one is refused with `blocked` and no `web_query`), greetings get a reply
(before the scope stage) and no `web_query`, an answered question emits `web_query` with its identifiers removed (the real
`yaksa.privacy.redact_identifiers`), then the fake searches the loaded bundle, streams an
extractive answer token by token, cites the hits with their text, and remembers questions per
user; it can also fail mid-stream the way a dropped LLM connection does. `search` is the real
`search_in_scope`, as the production runner's is.
"""

from __future__ import annotations

import re
import threading
import time
from typing import Any

from yaksa.agent.api import EventSink, TurnResult
from yaksa.config import Settings
from yaksa.llm.evidence import Citation
from yaksa.privacy import redact_identifiers
from yaksa.retrieval.loader import LoadedBundle
from yaksa.retrieval.searcher import Searcher
from yaksa.scope.search import search_in_scope
from yaksa.scope.stage import ScopeStage

NODES = ("scope", "classify_intent", "retrieve", "generate_answer", "quality_check")
GREETINGS = frozenset({"안녕하세요", "안녕", "hello", "hi"})
REFUSAL = "약과 건강에 관한 질문에만 답할 수 있습니다."


class LLMStreamError(ConnectionError):
    """What a dropped streaming connection to the LLM endpoint looks like to the runner."""


class FakeRunner:
    def __init__(self, loaded: LoadedBundle, settings: Settings, memory: dict[str, list[str]],
                 fail_after_tokens: int | None = None, failures: int = 1, token_delay: float = 0.0,
                 extra_events: tuple[tuple[str, dict[str, Any]], ...] = ()) -> None:
        self.searcher = Searcher(loaded, settings.retrieval)
        self.scope = ScopeStage(loaded, self.searcher.query_vector, scope_params=settings.scope,
                                cache_dir=settings.paths.embedding_cache,
                                learned_dir=settings.paths.scope_model)
        self.variants = set(settings.agent.variants)
        self.bundle_version: str | None = loaded.version
        self.memory = memory  # shared across reloads, like the persistent ProfileStore
        self.fail_after_tokens = fail_after_tokens  # the first `failures` runs drop after this many tokens
        self.failures = failures
        self.token_delay = token_delay
        self.extra_events = extra_events  # emitted first in every turn: to test a runner that breaks the contract
        self.web_queries: list[str] = []  # what this runner handed to the server for a web search
        self.calls: list[dict[str, Any]] = []  # (question, user_id, variant) of every run
        self._lock = threading.Lock()

    def run(self, question: str, user_id: str, variant: str | None = None,
            on_event: EventSink | None = None, remember: bool = True) -> TurnResult:
        emit = on_event or (lambda _name, _payload: None)
        with self._lock:
            self.calls.append({"question": question, "user_id": user_id, "variant": variant, "remember": remember})
        if variant is not None and variant not in self.variants:
            raise ValueError(f"unknown variant {variant!r}")
        for name, payload in self.extra_events:
            emit(name, payload)
        if question.strip().lower().rstrip("!.?") in GREETINGS:  # a reply, not a question: nothing to search
            return self._result("안녕하세요! 약에 대해 궁금한 점을 물어보세요.", [], blocked=False, nodes=NODES[:1])
        emit("status", {"node": "scope", "state": "start"})
        decision = self.scope.decide(question)
        emit("status", {"node": "scope", "state": "end", "in_scope": decision.in_scope})
        if not decision.in_scope:
            return self._result(REFUSAL, [], blocked=True, nodes=NODES[:1])
        web_query = redact_identifiers(question)
        with self._lock:
            self.web_queries.append(web_query)
        emit("web_query", {"query": web_query})
        emit("status", {"node": NODES[1], "state": "end"})
        emit("status", {"node": "retrieve", "state": "start"})
        hits = self.searcher.search(question, k=3).hits
        emit("status", {"node": "retrieve", "state": "end", "hits": len(hits)})
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
            if remember:
                self.memory.setdefault(user_id, []).append(question)
        return self._result(answer, citations, blocked=False, nodes=NODES)

    def _result(self, answer: str, citations: list[Citation], blocked: bool, nodes: tuple[str, ...]) -> TurnResult:
        return TurnResult(answer=answer, citations=citations, blocked=blocked, bundle_version=self.bundle_version,
                          trace={"nodes": list(nodes), "iterations": 1, "scores": {"quality": 0.8},
                                 "bundle_version": self.bundle_version},
                          verification={"grounded": True})

    def _take_failure(self) -> bool:
        with self._lock:
            self.failures -= 1
            return self.failures >= 0

    def search(self, query: str, k: int | None = None, collections: list[str] | None = None) -> dict[str, Any]:
        return search_in_scope(self.scope, self.searcher, query, k, collections)

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
