"""verify and correct: PASS/FAIL on the answer, then up to `max_corrections` repair rounds.

Why a last resort after the rounds run out: an answer that still fails verification may carry an
unsupported dose, so it is replaced by the extractive answer, which copies the evidence verbatim and
so passes the rule checks by construction; the trace records that this happened.
"""

from __future__ import annotations

from typing import Any

from yaksa.agent.deps import AgentDeps
from yaksa.agent.turn import TurnContext
from yaksa.llm.extractive import extractive_answer
from yaksa.llm.roles import correct, verify
from yaksa.llm.rule_verifier import verify_rules


def verify_answer(deps: AgentDeps):
    def run(state: dict, turn: TurnContext) -> dict[str, Any]:
        citations = state.get("citations") or []
        v = verify(deps.llm, state["question"], state["answer"], citations, usage=turn.ledger)
        log = turn.notes.setdefault("verification", [])
        log.append(v.to_json())
        turn.emit("verification", {"round": len(log), **v.to_json()})
        if v.verdict == "PASS":
            return {"verified": True, "verification": {**v.to_json(), "rounds": len(log)}}
        if state.get("corrections", 0) < deps.params.max_corrections:
            return {"verified": False, "verification": {**v.to_json(), "rounds": len(log)}}
        fallback = extractive_answer(state["question"], citations, state.get("profile_summary", ""))
        final = verify_rules(fallback, citations)
        turn.notes["verification_fallback"] = {"reason": "corrections exhausted", "verdict": final.verdict}
        return {"answer": fallback, "generation_source": "extractive", "verified": final.verdict == "PASS",
                "verification": {**final.to_json(), "rounds": len(log), "replaced_by_extractive": True}}
    return run


def needs_correction(state: dict, deps: AgentDeps) -> bool:
    return not state.get("verified") and state.get("corrections", 0) < deps.params.max_corrections \
        and not (state.get("verification") or {}).get("replaced_by_extractive")


def correct_answer(deps: AgentDeps):
    def run(state: dict, turn: TurnContext) -> dict[str, Any]:
        problems = (state.get("verification") or {}).get("problems", [])
        fixed = correct(deps.llm, state["question"], state["answer"], state.get("citations") or [], problems,
                        usage=turn.ledger)
        turn.notes.setdefault("corrections", []).append({"source": fixed.source, "error": fixed.error})
        return {"answer": fixed.text, "corrections": state.get("corrections", 0) + 1}
    return run
