"""scope: the first node of every turn. An out-of-scope question is refused here, before the
response cache, the LLM router, memory, web references and search ever see it.

Why first and not inside retrieval: a cached answer, an LLM call or a Tavily request made before the
decision would already have handed the question to something that should not have it.
"""

from __future__ import annotations

from typing import Any

from yaksa.agent.deps import AgentDeps
from yaksa.agent.replies import refusal_reply
from yaksa.agent.turn import TurnContext
from yaksa.scope.decision import ScopeDecision

GUARD_OFF = ScopeDecision(True, "guard_off", {}, "none")


def scope(deps: AgentDeps):
    def run(state: dict, turn: TurnContext) -> dict[str, Any]:
        decision = deps.scope.decide(state["question"]) if state["flags"].oos_guard else GUARD_OFF
        turn.notes["scope"] = decision.to_json()
        if decision.in_scope:
            return {"scope": decision, "blocked": False}
        return {"scope": decision, "blocked": True, "intent": "out_of_scope", "citations": [], "verified": False,
                "answer": refusal_reply(state["question"])}
    return run
