"""assemble_context: the search query for this round and the conversation the generator sees.

Round one searches the question as asked (with the LLM router's terms when an endpoint is
configured), and the question as it may go to a web search is announced (`web_query` event: the
asking part only, without personal identifiers); later rounds search the query that `refine` rewrote from the judge's missing
information and the profile. The prompt itself (system principles, profile, evidence, history,
question under a token budget) is assembled by `yaksa.llm.context` once evidence exists.
"""

from __future__ import annotations

from typing import Any

from yaksa.agent.deps import AgentDeps
from yaksa.agent.turn import TurnContext
from yaksa.agent.web_query import web_query
from yaksa.retrieval.query_router import route_terms


def assemble_context(deps: AgentDeps):
    def run(state: dict, turn: TurnContext) -> dict[str, Any]:
        flags = state["flags"]
        update: dict[str, Any] = {
            "history": deps.store_for(flags).recent_turns(state["user_id"], deps.params.history_turns)}
        if flags.mode == "llm":
            return update
        if not state.get("search_query"):  # round one of an in-scope question
            update["search_query"] = state["question"]
            query = web_query(state["question"])
            if query:
                turn.emit("web_query", {"query": query})
            if flags.query_router and deps.llm is not None:
                terms = route_terms(deps.llm, state["question"], turn.ledger)
                update["router"] = terms.to_json()
        turn.notes["search_query"] = update.get("search_query", state.get("search_query"))
        return update
    return run
