"""scope: the first node of every turn. An out-of-scope question is refused here, before the
response cache, the LLM router, memory, web references and search ever see it; a crisis message
(`yaksa.scope.crisis`: suicide or self-harm, a lethal amount, an overdose taken) gets the fixed
crisis reply here, before even the greeting check and under every profile.

Why first and not inside retrieval: a cached answer, an LLM call or a Tavily request made before the
decision would already have handed the question to something that should not have it.
"""

from __future__ import annotations

from typing import Any

from yaksa.agent.deps import AgentDeps
from yaksa.agent.replies import crisis_reply, refusal_reply
from yaksa.agent.turn import TurnContext
from yaksa.retrieval.active import retrieval_plan
from yaksa.scope.crisis import crisis_decision
from yaksa.scope.decision import ScopeDecision

GUARD_OFF = ScopeDecision(True, "guard_off", {}, "none")
GREETING = ScopeDecision(True, "greeting", {}, "rules")


def scope(deps: AgentDeps):
    def run(state: dict, turn: TurnContext) -> dict[str, Any]:
        crisis = crisis_decision(state["question"])  # first, under every profile: no flag turns it off
        if crisis is not None:
            turn.notes["scope"] = crisis.to_json()
            return {"scope": crisis, "blocked": True, "intent": "crisis", "citations": [], "verified": False,
                    "answer": crisis_reply(crisis.signals["crisis"], state["question"])}
        if not retrieval_plan(state["question"]).search:
            # "안녕하세요", "고마워요": a fixed friendly reply, no search, no LLM, nothing stored; the
            # greeting is not a question the scope model should refuse
            turn.notes["scope"] = GREETING.to_json()
            return {"scope": GREETING, "blocked": False, "greeting": True}
        decision = deps.scope.decide(state["question"]) if state["flags"].oos_guard else GUARD_OFF
        turn.notes["scope"] = decision.to_json()
        if decision.in_scope:
            return {"scope": decision, "blocked": False}
        return {"scope": decision, "blocked": True, "intent": "out_of_scope", "citations": [], "verified": False,
                "answer": refusal_reply(state["question"])}
    return run
