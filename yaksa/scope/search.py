"""Retrieval behind the scope stage: what `/v1/search` and `yaksa search` run.

Why not the bare searcher: the scope decision comes before anything else sees a question, and a
search endpoint is one more place a question goes. An out-of-scope query is not searched; the
result says so, with the decision, and carries no documents.
"""

from __future__ import annotations

from typing import Any

from yaksa.retrieval.searcher import Searcher
from yaksa.scope.crisis import crisis_decision
from yaksa.scope.stage import ScopeStage


def search_in_scope(scope: ScopeStage, searcher: Searcher, query: str, k: int | None = None,
                    collections: list[str] | None = None) -> dict[str, Any]:
    """The search wire format plus `blocked` and `scope`; ValueError on an empty query."""
    if not isinstance(query, str) or not query.strip():
        raise ValueError("query is empty")
    # a crisis query is refused like the agent's turn (yaksa.scope.crisis), before the scope model
    decision = crisis_decision(query) or scope.decide(query)
    if not decision.in_scope:
        return {"query": query.strip(), "blocked": True, "scope": decision.to_json(), "collections": [],
                "results": [], "version": searcher.loaded.version}
    result = searcher.search(query, k=k, collections=collections)
    return {**result.to_json(), "blocked": False, "scope": decision.to_json(), "version": searcher.loaded.version}
