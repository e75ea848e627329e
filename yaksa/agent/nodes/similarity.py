"""check_similarity and store_response: the semantic response cache at both ends of a turn.

Why only for users with no remembered profile (before this turn): an answer personalised to one user's conditions must
not be served to another, and a generic cached answer would drop this user's personalisation. The
cache key's entities are every concept and demographic slot of the question (drugs, conditions,
symptoms, pregnancy, age group), so "임신 중인데 타이레놀" never hits "타이레놀".

Follow-ups: `resolve_followup` runs first, so the cache only ever sees a standalone question ("페니라민정은
하루에 몇 번 먹어요?"); "그 약은 하루에 몇 번 먹어요?" itself, whose answer depends on whose conversation it
is, is neither looked up nor stored (it is resolved, or the user is asked which drug).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from yaksa.agent.deps import AgentDeps
from yaksa.agent.turn import TurnContext
from yaksa.extraction.speech_act import message_kind
from yaksa.llm.evidence import Citation


def cache_entities(deps: AgentDeps, text: str) -> frozenset[str]:
    """What must match between two questions for one's answer to serve the other."""
    keys = set()
    for item in deps.extractor.extract(text):
        keys.add(item.concept_id or f"{item.slot_type}:{item.name}={item.value}")
    # what the search will be about: two questions whose drugs, symptoms, section intent or population
    # differ ("목이 칼칼해요" / "머리가 지끈지끈 아파요") never share an answer, however close they embed
    focus = deps.searcher.focus_of(text)
    keys |= {f"focus:{focus.mode}", f"intent:{focus.intent.name}"}
    keys |= {f"mention:{m}" for m in focus.linking.mentions} | {f"symptom:{t}" for t in focus.symptoms}
    keys |= {f"population:{g}" for g in focus.population} | {f"route:{focus.route}"}
    return frozenset(keys) | deps.extractor.medications(text)


def _cacheable(state: dict, deps: AgentDeps) -> bool:
    flags = state["flags"]
    return bool(flags.cache and deps.cache is not None and flags.mode == "rag"
                and deps.store_for(flags).view(state["user_id"]).count == 0)


def check_similarity(deps: AgentDeps):
    def run(state: dict, turn: TurnContext) -> dict[str, Any]:
        # decided before this turn's own facts are remembered: they are part of the question
        if not _cacheable(state, deps):
            turn.notes["cache"] = "off"
            return {"cache_hit": False, "cacheable": False}
        if message_kind(state["question"], deps.extractor.extract(state["question"])) == "statement":
            # "와파린을 먹고 있어요" is a fact to remember, not a question a cached answer could serve
            turn.notes["cache"] = "statement"
            return {"cache_hit": False, "cacheable": True}
        hit = deps.cache.lookup(state["question"], deps.cache_version, state["scope"].verdict)
        # never the cached question itself: it is another user's text
        turn.notes["cache"] = {"hit": hit is not None, **({"similarity": round(hit.similarity, 4)} if hit else {})}
        if hit is None:
            return {"cache_hit": False, "cacheable": True}
        a = hit.answer
        return {"cache_hit": True, "answer": a["answer"], "citations": [Citation(**c) for c in a["citations"]],
                "verified": True,
                "verification": a.get("verification"), "blocked": False, "intent": "question"}
    return run


def store_response(deps: AgentDeps):
    def run(state: dict, turn: TurnContext) -> dict[str, Any]:
        stored = False
        if state.get("blocked"):  # an out-of-scope question is kept nowhere, not even in the history
            turn.notes["stored_in_cache"] = stored
            return {}
        # a resolved follow-up is kept as the standalone question ("그럼 타이레놀은 …?", not "그 약은 …?"), so a
        # follow-up to it resolves to the same drug and the generator's history names the drug
        deps.store_for(state["flags"]).add_turn(state["user_id"], state["question"], state.get("answer", ""))
        if (not state.get("cache_hit") and state.get("verified") and not state.get("blocked")
                and state.get("intent") == "question" and state.get("citations") and state.get("cacheable")):
            payload = {"answer": state["answer"], "citations": [asdict(c) for c in state["citations"]],
                       "verification": state.get("verification")}
            # the cache refuses questions holding personal identifiers (yaksa.privacy)
            stored = deps.cache.store(state["question"], payload, deps.cache_version, verified=True,
                                      owner=state["user_id"], scope=state["scope"].verdict)
        turn.notes["stored_in_cache"] = stored
        return {}
    return run
