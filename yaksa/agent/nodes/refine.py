"""refine and quality_check: judge the answer, rewrite the query, decide whether to search again.

The judge is the LLM (grounding 0.4, completeness 0.3, accuracy 0.3) when the profile asks for it
and an endpoint answers, else the heuristic (evidence coverage 0.4, length 0.3, personalisation 0.3).
The best-scoring answer of all rounds is the one returned, so a worse retry never replaces it.
"""

from __future__ import annotations

from typing import Any

from yaksa.agent.deps import AgentDeps
from yaksa.agent.source_notice import with_notice
from yaksa.agent.strategies import make_strategy
from yaksa.agent.turn import TurnContext
from yaksa.llm.roles import judge, rewrite


def refine(deps: AgentDeps):
    def run(state: dict, turn: TurnContext) -> dict[str, Any]:
        flags = state["flags"]
        client = deps.llm if flags.judge == "llm" else None
        terms = state.get("profile_terms") or []
        j = judge(client, state["question"], state["answer"], state.get("citations") or [], usage=turn.ledger,
                  profile_terms=terms)
        judgements = [*state.get("judgements", []), j.to_json()]
        turn.emit("status", {"node": "refine", "phase": "score", "score": j.score, "iteration": len(judgements)})
        best = state.get("best")
        if best is None or j.score > best["score"]:
            best = {"score": j.score, "answer": state["answer"], "citations": state.get("citations") or [],
                    "verified": state.get("verified", False), "verification": state.get("verification"),
                    "generation_source": state.get("generation_source"), "contexts": state.get("contexts") or []}
        update: dict[str, Any] = {"judgements": judgements, "best": best}
        if flags.dynamic_query and j.missing:
            r = rewrite(deps.llm, state["question"], j.missing, terms, usage=turn.ledger)
            update["search_query"] = r.query
            turn.notes.setdefault("rewrites", []).append(r.to_json())
        return update
    return run


def quality_check(deps: AgentDeps):
    def run(state: dict, turn: TurnContext) -> dict[str, Any]:
        flags = state["flags"]
        strategy = make_strategy(flags.refine_strategy, deps.params)
        scores = [j["score"] for j in state.get("judgements", [])]
        reason = strategy.stop_reason(scores, state.get("doc_ids_by_iteration", []))
        turn.notes.setdefault("quality", []).append({"strategy": strategy.name, "scores": scores, "stop": reason})
        if reason is None:
            return {"iteration": state.get("iteration", 0) + 1, "stop_reason": ""}
        best = state["best"]
        return {"stop_reason": reason, "answer": with_notice(best["answer"], state.get("focus"), best["citations"]),
                "citations": best["citations"],
                "verified": best["verified"], "verification": best["verification"],
                "generation_source": best["generation_source"], "contexts": best["contexts"]}
    return run
