"""AgentRunner: one turn of the pharmacist agent, end to end, as the `TurnRunner` callers expect.

Why a runner around the graph: callers want a finished `TurnResult` (answer, citations, blocked,
trace) plus events while it runs; the graph only knows state updates. The runner validates input,
creates the per-turn context, invokes the compiled graph, and turns the final state and the
context's logs into the result and the closing events (`answer`, `citations`, `done`).
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from typing import Any

from yaksa.agent.analysis import TurnAnalysis
from yaksa.agent.api import MAX_QUESTION_CHARS, EventSink, TurnResult, result_events
from yaksa.agent.deps import AgentDeps
from yaksa.agent.graph import build_graph
from yaksa.agent.replies import with_red_flag, with_watch_signs
from yaksa.agent.turn import TurnContext
from yaksa.config import AgentFlags
from yaksa.embed.base import query_window_note
from yaksa.llm.context import evidence_blocks, section_budgets
from yaksa.memory.profile_store import validate_user_id
from yaksa.scope.search import search_in_scope
from yaksa.scope.when_to_go import opens_the_answer
from yaksa.text.user_input import normalize_user_text


class AgentRunner:
    """Runs turns of the agent.

    `enforce_safety` (the default, and always so in the service and the CLI): the scope stage and
    verification run whatever the ablation variant says, and variants with nothing to verify (mode `llm`) are
    refused. Only the evaluation code builds a runner without it, to measure what the guard and
    verification are worth; no client request can turn them off.
    """

    def __init__(self, deps: AgentDeps, enforce_safety: bool = True) -> None:
        self.deps = deps
        self.enforce_safety = enforce_safety
        self.graph = build_graph(deps)   # compiled once, reused by every turn and thread

    @property
    def bundle_version(self) -> str:
        return self.deps.bundle_version

    def run(self, question: str, user_id: str, variant: str | None = None,
            on_event: EventSink | None = None, *, deadline_s: float | None = None,
            cancel: threading.Event | None = None, remember: bool = True) -> TurnResult:
        """One turn. `deadline_s` (seconds from now) and `cancel` (set it to stop the turn) are checked
        before each node starts: TurnDeadlineExceeded / TurnCancelled (yaksa.agent.api) instead of a result.
        `remember=False` runs the turn with memory and the cache off (the service's admin key)."""
        question = normalize_user_text(question, "question")  # NFC etc.: before any rule reads it
        if len(question) > MAX_QUESTION_CHARS:
            raise ValueError(f"question is {len(question)} characters; the limit is {MAX_QUESTION_CHARS}")
        user_id = validate_user_id(user_id)
        name = variant or self.deps.params.variant
        flags = self._flags(name)
        if not remember:  # the operator's (admin key's) turns: no profile read or written, no cache entry made
            flags = replace(flags, memory_mode="none", cache=False)
        turn = TurnContext(on_event=on_event, cancel=cancel,
                           deadline=None if deadline_s is None else time.monotonic() + deadline_s)
        window = query_window_note(self.deps.searcher.loaded.embedders.values(), question.strip())
        if window is not None:  # the question's embedding reads only its head (yaksa.embed.base)
            turn.notes["query_window"] = window
        start = time.perf_counter()
        state: dict[str, Any] = self.graph.invoke(
            {"question": question.strip(), "user_id": user_id, "variant": name, "flags": flags,
             "analysis": TurnAnalysis(question.strip(), self.deps, flags),
             # read as the turn starts: an erasure after this makes the turn's writes no-ops
             "erasure_epoch": self.deps.profiles.erasure_epoch(user_id)},
            turn,
        )
        total_ms = round((time.perf_counter() - start) * 1000, 3)
        result = TurnResult(
            # a message that needs care now gets the urgent advice first (yaksa.scope.red_flags)
            # ... and a feverish child's answer says when the fever needs a doctor (yaksa.scope.when_to_go)
            answer=with_red_flag(self._with_watch_signs(state, turn, question), turn.notes.get("red_flag"), question),
            citations=list(state.get("citations") or []),
            blocked=bool(state.get("blocked")),
            bundle_version=self.bundle_version,
            trace=self._trace(state, turn, name, total_ms),
            verification=state.get("verification"),
            profile_summary=state.get("profile_summary", ""),
            contexts=self._contexts(state),
        )
        for name, payload in result_events(result):
            turn.emit(name, payload)
        turn.emit("done", {"bundle_version": self.bundle_version, "total_ms": total_ms,
                           "iterations": result.trace["iterations"], "stop_reason": result.trace["stop_reason"]})
        return result

    @staticmethod
    def _with_watch_signs(state: dict[str, Any], turn: TurnContext, question: str) -> str:
        """The answer, with a feverish child's watch signs when it quotes labels (`with_watch_signs`); a refused,
        urgent or care-only turn keeps its own reply."""
        answer = state.get("answer", "")
        if state.get("blocked") or turn.notes.get("red_flag") or not state.get("citations"):
            return answer
        rules = state["analysis"].watch_rules
        if rules:
            turn.notes["watch_signs"] = [f.rule_id for f in rules]
        return with_watch_signs(answer, rules, question,
                                first=opens_the_answer(rules, state["analysis"].focus.population))

    def _flags(self, name: str) -> AgentFlags:
        flags = self.deps.params.flags(name)
        if not self.enforce_safety:
            return flags
        if flags.mode != "rag":
            raise ValueError(f"variant {name!r} answers without evidence, so it cannot be verified; "
                             "it runs only in the evaluation code")
        return replace(flags, scope=True, verify=True)

    def _contexts(self, state: dict[str, Any]) -> list[str]:
        """What the generator saw; a cache hit never ran it, so its citations are rendered the same way."""
        if state.get("contexts"):
            return list(state["contexts"])
        budget = section_budgets(self.deps.params.context_tokens)["evidence"]
        return evidence_blocks(state.get("citations") or [], budget)

    def search(self, query: str, k: int | None = None, collections: list[str] | None = None) -> dict[str, Any]:
        """Retrieval only (`/v1/search`): the scope stage first, then the agent's own searcher."""
        query = normalize_user_text(query, "query")
        result = search_in_scope(self.deps.scope, self.deps.searcher, query, k, collections)
        window = query_window_note(self.deps.searcher.loaded.embedders.values(), query.strip())
        if window is not None:  # the query's embedding read only its head (yaksa.embed.base)
            result["query_window"] = window
        return result

    def _trace(self, state: dict, turn: TurnContext, variant: str, total_ms: float) -> dict[str, Any]:
        return {
            "variant": variant,
            "intent": state.get("intent"),
            "complexity": state.get("complexity"),
            "k": state.get("k"),
            "nodes": turn.nodes,
            "iterations": len(state.get("judgements") or []),
            "scores": [j["score"] for j in state.get("judgements") or []],
            "judgements": state.get("judgements") or [],
            "stop_reason": state.get("stop_reason") or None,
            "cache_hit": bool(state.get("cache_hit")),
            "generation_source": state.get("generation_source"),
            "timings_ms": {**turn.timings_ms, "total": total_ms},
            "llm_calls": turn.ledger.to_json(),
            **turn.notes,
        }

    def profile(self, user_id: str) -> dict[str, Any]:
        return self.deps.profiles.to_json(validate_user_id(user_id))

    def forget(self, user_id: str) -> bool:
        """Erase the user's profile, conversation history and the cache entries their questions made.

        All three live in files every worker process reads (with `YAKSA_DATABASE_URL`, in the database
        every host reads), so the erasure reaches every worker of every host. The profile store's
        erasure (which bumps the user's erasure epoch) comes first: a turn still running then writes
        nothing, and a cache entry it stored before the bump is erased by `forget_user`."""
        uid = validate_user_id(user_id)
        forgotten = self.deps.profiles.forget(uid)
        erased_cache = self.deps.cache.forget_user(uid) if self.deps.cache is not None else 0
        return forgotten or erased_cache > 0
