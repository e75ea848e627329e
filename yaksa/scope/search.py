"""Retrieval behind the scope stage: what `/v1/search` and `yaksa search` run.

Why not the bare searcher: the scope decision comes before anything else sees a question, and a
search endpoint is one more place a question goes. An out-of-scope query is not searched; the
result says so, with the decision, and carries no documents. A query that needs care now
(`yaksa.scope.red_flags`) is searched even when the scope model would block it, and the result's
`red_flag` field ({"rule", "urgency"}, else null) says so, as the agent's turn puts the advice first.
"""

from __future__ import annotations

from typing import Any

from yaksa.retrieval.searcher import Searcher
from yaksa.scope.crisis import crisis_decision
from yaksa.scope.red_flags import red_flag, red_flag_decision
from yaksa.scope.stage import ScopeStage


def search_in_scope(scope: ScopeStage, searcher: Searcher, query: str, k: int | None = None,
                    collections: list[str] | None = None) -> dict[str, Any]:
    """The search wire format plus `blocked`, `scope` and `red_flag`; ValueError on an empty query."""
    if not isinstance(query, str) or not query.strip():
        raise ValueError("query is empty")
    # a crisis query is refused like the agent's turn (yaksa.scope.crisis), before the scope model
    decision = crisis_decision(query)
    flag = None if decision is not None else red_flag(query)
    if decision is None:
        decision = scope.decide(query)
        if flag is not None:   # care now: searched, never blocked as off-topic (yaksa.scope.red_flags)
            decision = red_flag_decision(flag, decision)
    flag_json = flag.to_json() if flag is not None else None
    if not decision.in_scope:
        return {"query": query.strip(), "blocked": True, "scope": decision.to_json(), "red_flag": flag_json,
                "collections": [], "results": [], "version": searcher.loaded.version}
    result = searcher.search(query, k=k, collections=collections)
    return {**result.to_json(), "blocked": False, "scope": decision.to_json(), "red_flag": flag_json,
            "version": searcher.loaded.version}
