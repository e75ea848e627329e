"""check_similarity and store_response: the semantic response cache at both ends of a turn.

Why only for users with no remembered profile (before this turn): an answer personalised to one user's conditions must
not be served to another, and a generic cached answer would drop this user's personalisation. The
cache key's entities are every concept and demographic slot of the question (drugs, conditions,
symptoms, pregnancy, age group), so "임신 중인데 타이레놀" never hits "타이레놀".

Follow-ups: `resolve_followup` runs first, so the cache only ever sees a standalone question ("페니라민정은
하루에 몇 번 먹어요?"); "그 약은 하루에 몇 번 먹어요?" itself, whose answer depends on whose conversation it
is, is neither looked up nor stored (it is resolved, or the user is asked which drug).

What the trace says of the cache is only whether this turn was served from it (`{"hit": true}`):
not how similar the stored question was, which would tell this user that someone else asked
something close. A hit still announces the question as it may go to a web search (`web_query`):
the turn is an in-scope question like any other, only its answer was already known.

Erasure: every write of the turn (its history row, its cache entry) carries the user's erasure epoch
read when the turn started (`erasure_epoch` in the state), so an erasure during the turn wins
(`yaksa.memory.profile_store`).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from yaksa.agent.analysis import TurnAnalysis, entities_of
from yaksa.agent.deps import AgentDeps
from yaksa.agent.turn import TurnContext
from yaksa.agent.web_query import web_query
from yaksa.llm.evidence import Citation
from yaksa.scope.red_flags import withholds_doses


def cache_entities(deps: AgentDeps, text: str) -> frozenset[str]:
    """The cache's entities of any text (the cache asks this of a cached answer's text, and of a
    question when no turn analysis is at hand); a turn's own question reads `TurnAnalysis.cache_entities`."""
    return entities_of(deps.extractor.extract(text), deps.searcher.focus_of(text), deps.extractor.medications(text))


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
        analysis: TurnAnalysis = state["analysis"]
        if withholds_doses(turn.notes.get("red_flag")):
            # "go now" is answered from cautions only; a like question's cached answer may hold a dose
            turn.notes["cache"] = "red_flag"
            return {"cache_hit": False, "cacheable": False}
        if analysis.cache_speech_act == "statement":
            # "와파린을 먹고 있어요" is a fact to remember, not a question a cached answer could serve
            turn.notes["cache"] = "statement"
            return {"cache_hit": False, "cacheable": True}
        hit = deps.cache.lookup(state["question"], deps.cache_version, state["scope"].verdict,
                                entities=analysis.cache_entities)
        # neither the cached question (another user's text) nor how close it was to this one
        turn.notes["cache"] = {"hit": hit is not None}
        if hit is None:
            return {"cache_hit": False, "cacheable": True}
        query = web_query(state["question"])   # as assemble_context announces it on a miss
        if query:
            turn.emit("web_query", {"query": query})
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
        uid, epoch = state["user_id"], state.get("erasure_epoch")
        deps.store_for(state["flags"]).add_turn(uid, state["question"], state.get("answer", ""), epoch=epoch)
        if (not state.get("cache_hit") and state.get("verified") and not state.get("blocked")
                and state.get("intent") == "question" and state.get("citations") and state.get("cacheable")):
            payload = {"answer": state["answer"], "citations": [asdict(c) for c in state["citations"]],
                       "verification": state.get("verification")}
            # the cache refuses questions holding personal identifiers (yaksa.privacy)
            # checked under the cache's file lock: AgentRunner.forget bumps the epoch before it erases
            # the cache, so an entry stored before the bump is erased after it
            current = None if epoch is None else (lambda: deps.profiles.erasure_epoch(uid) == epoch)
            stored = deps.cache.store(state["question"], payload, deps.cache_version, verified=True,
                                      owner=uid, scope=state["scope"].verdict, still_current=current,
                                      entities=state["analysis"].cache_entities)
        turn.notes["stored_in_cache"] = stored
        return {}
    return run
