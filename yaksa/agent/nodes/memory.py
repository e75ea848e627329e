"""extract_slots and store_memory: what the user says about themselves, kept across turns.

A message that carries profile facts but asks nothing ("65세 남성이고 당뇨가 있어요") is a
statement: it is remembered and acknowledged without a search.
"""

from __future__ import annotations

from typing import Any

from yaksa.agent.deps import AgentDeps
from yaksa.agent.replies import is_question, statement_reply
from yaksa.agent.turn import TurnContext
from yaksa.retrieval.active import retrieval_plan


def extract_slots(deps: AgentDeps):
    def run(state: dict, turn: TurnContext) -> dict[str, Any]:
        flags = state["flags"]
        slots = deps.extractor_for(flags).extract(state["question"])
        turn.notes["slots"] = [s.to_json() for s in slots]
        update: dict[str, Any] = {"slots": slots}
        if slots and not is_question(state["question"]):
            update["intent"] = "statement"
        elif flags.active_retrieval:
            plan = retrieval_plan(state["question"], slot_count=len(slots))
            update.update(complexity=plan.complexity, k=plan.k)
            turn.notes["plan"] = {"search": plan.search, "complexity": plan.complexity, "k": plan.k}
        return update
    return run


def store_memory(deps: AgentDeps):
    def run(state: dict, turn: TurnContext) -> dict[str, Any]:
        store = deps.store_for(state["flags"])
        changed = store.add(state["user_id"], state.get("slots") or [])
        view = store.view(state["user_id"])
        turn.notes["memory"] = {"changed": changed, "items": view.count}
        update: dict[str, Any] = {"profile_summary": view.summary, "profile_terms": view.terms}
        if state.get("intent") == "statement":
            update.update(answer=statement_reply(view.summary), citations=[], verified=False)
        return update
    return run
