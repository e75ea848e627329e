"""assemble_context: the search query for this round and the conversation the generator sees.

Round one searches the question as asked (with the LLM router's terms when an endpoint is
configured); a long post is read first (`yaksa.extraction.post_reader`: its question sentences, the
person it is about, symptoms, medicines and what was tried) and searched by its questions and those
facts, not by its first 400 characters; the reading travels in the state (`post`) to retrieval, the
generator's prompt and the extractive answer, so the turn reads the post once. And the question as it may go to a web search is announced (`web_query` event: the
asking part only, without personal identifiers); later rounds search the query that `refine` rewrote from the judge's missing
information and the profile. The prompt itself (system principles, profile, evidence, history,
question under a token budget) is assembled by `yaksa.llm.context` once evidence exists.
"""

from __future__ import annotations

from typing import Any

from yaksa.agent.deps import AgentDeps
from yaksa.agent.turn import TurnContext
from yaksa.agent.web_query import web_query
from yaksa.extraction.post_reader import read_post
from yaksa.llm.roles.query_router import route_terms


def assemble_context(deps: AgentDeps):
    def run(state: dict, turn: TurnContext) -> dict[str, Any]:
        flags = state["flags"]
        update: dict[str, Any] = {
            "history": deps.store_for(flags).recent_turns(state["user_id"], deps.params.history_turns)}
        post = state.get("post")
        if post is None:  # round one: the message is read once per turn
            catalog = deps.searcher.catalog
            post = read_post(state["question"], catalog.link if catalog is not None else None,
                             state.get("slots") or ())
            update["post"] = post
            if post.long:
                turn.notes["post"] = post.to_json()
        if flags.mode == "llm":
            return update
        if not state.get("search_query"):  # round one of an in-scope question
            update["search_query"] = post.search_query()
            query = web_query(state["question"])
            if query:
                turn.emit("web_query", {"query": query})
            if flags.query_router and deps.llm is not None:
                terms = route_terms(deps.llm, state["question"], turn.ledger)
                update["router"] = terms.to_json()
        turn.notes["search_query"] = update.get("search_query", state.get("search_query"))
        return update
    return run
