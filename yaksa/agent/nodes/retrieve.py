"""retrieve: hybrid search for this round, and the out-of-scope refusal.

The guard only acts on the first round: a rewritten query is ours, not the user's, and the user's
question was already judged in scope. A refused question never reaches an LLM.
"""

from __future__ import annotations

from typing import Any

from yaksa.agent.api import Citation
from yaksa.agent.deps import AgentDeps
from yaksa.agent.replies import refusal_reply
from yaksa.agent.turn import TurnContext


def retrieve(deps: AgentDeps):
    def run(state: dict, turn: TurnContext) -> dict[str, Any]:
        flags = state["flags"]
        router = state.get("router") or {}
        result = deps.searcher.search(state["search_query"], k=state.get("k") or deps.searcher.params.k,
                                      recall_terms=router.get("recall_terms", ()),
                                      avoid_terms=router.get("avoid_terms", ()))
        iteration = state.get("iteration", 0)
        turn.notes.setdefault("retrieval", []).append({
            "query": state["search_query"], "collections": result.collections, "blocked": result.blocked,
            "guard": result.guard, "timings_ms": result.timings_ms,
            "expansion": result.expansion.to_json() if result.expansion else None,
            "doc_ids": [h.doc_id for h in result.hits]})
        if flags.oos_guard and result.blocked and iteration == 0:
            return {"blocked": True, "guard": result.guard, "citations": [], "verified": False,
                    "answer": refusal_reply(state["question"])}
        citations = [Citation(n=i, doc_id=h.doc_id, collection=h.collection, title=h.title, section=h.section,
                              text=h.text, score=round(h.score, 6), metadata=h.metadata)
                     for i, h in enumerate(result.hits, start=1)]
        ids = [*state.get("doc_ids_by_iteration", []), [c.doc_id for c in citations]]
        return {"blocked": False, "guard": result.guard, "citations": citations, "doc_ids_by_iteration": ids}
    return run
