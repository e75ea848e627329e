"""classify_intent: does this turn need a search at all, and how many passages (active retrieval)?

Greetings and acknowledgements get a fixed reply with no search and no LLM call. Otherwise the
complexity rules of `yaksa.retrieval.active` choose k = 3 / 8 / 15; the plan is refined by
`extract_slots` once the slot count is known. With `active_retrieval` off every question searches
with the configured `retrieval.k`.
"""

from __future__ import annotations

from typing import Any

from yaksa.agent.deps import AgentDeps
from yaksa.agent.replies import chitchat_reply
from yaksa.agent.turn import TurnContext


def classify_intent(deps: AgentDeps):
    def run(state: dict, turn: TurnContext) -> dict[str, Any]:
        flags = state["flags"]
        if not flags.active_retrieval:
            turn.notes["plan"] = {"intent": "question", "k": deps.searcher.params.k}
            return {"intent": "question", "complexity": "fixed", "k": deps.searcher.params.k}
        plan = state["analysis"].first_plan
        turn.notes["plan"] = {"search": plan.search, "complexity": plan.complexity, "k": plan.k}
        if not plan.search:
            return {"intent": "chitchat", "complexity": plan.complexity, "k": 0,
                    "answer": chitchat_reply(state["question"]), "citations": [], "verified": False}
        return {"intent": "question", "complexity": plan.complexity, "k": plan.k}
    return run
