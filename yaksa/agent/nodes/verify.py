"""verify and correct: PASS/FAIL on the answer, then up to `max_corrections` repair rounds.

Why a last resort after the rounds run out: an answer that still fails verification may carry an
unsupported dose, so it is replaced by the extractive answer, which copies the evidence verbatim and
so passes the rule checks by construction; the trace records that this happened.
"""

from __future__ import annotations

from typing import Any

from yaksa.agent.deps import AgentDeps
from yaksa.agent.replies import nothing_relevant_reply
from yaksa.agent.source_notice import about_focus, no_evidence
from yaksa.agent.turn import TurnContext
from yaksa.llm.offline.extractive import extractive_answer
from yaksa.llm.offline.rule_verifier import verify_rules
from yaksa.llm.roles import correct, verify
from yaksa.retrieval.relevance import check_relevance


def _restrict_to_focus(state: dict, turn: TurnContext) -> dict[str, Any] | None:
    """Relevance first: cited documents must be about the asked drug or symptom. When some are not,
    the answer is rebuilt (extractively) from those that are; when none is, the turn says so."""
    focus, citations = state.get("focus"), state.get("citations") or []
    if focus is None or not citations:
        return None
    verdict = check_relevance(focus, [(c.title, c.section, c.text, c.metadata) for c in citations])
    turn.notes.setdefault("relevance", []).append(verdict.to_json())
    if verdict.relevant:
        return None
    kept = about_focus(focus, citations)
    if len(kept) == len(citations):   # every document is about the focus; only the intent is missed
        return None
    if not kept:
        text = (no_evidence(focus) if focus.mode == "drug"
                else nothing_relevant_reply(state["question"], focus, state.get("post")))
        return {"answer": text, "citations": [], "generation_source": "relevance", "verified": False,
                "verification": {"verdict": "FAIL", "problems": verdict.problems, "relevance": verdict.to_json()}}
    answer = extractive_answer(state["question"], kept, state.get("profile_summary", ""), post=state.get("post"),
                               remembered=state.get("profile_population", ()), child_age=state.get("child_age"))
    final = verify_rules(answer, kept)
    return {"answer": answer, "citations": kept, "generation_source": "extractive",
            "verified": final.verdict == "PASS",
            "verification": {**final.to_json(), "relevance": verdict.to_json(), "restricted_to_focus": True}}


def verify_answer(deps: AgentDeps):
    def run(state: dict, turn: TurnContext) -> dict[str, Any]:
        restricted = _restrict_to_focus(state, turn)
        if restricted is not None:
            return restricted
        citations = state.get("citations") or []
        v = verify(deps.llm, state["question"], state["answer"], citations, usage=turn.ledger)
        log = turn.notes.setdefault("verification", [])
        log.append(v.to_json())
        turn.emit("verification", {"round": len(log), **v.to_json()})
        if v.verdict == "PASS":
            return {"verified": True, "verification": {**v.to_json(), "rounds": len(log)}}
        if state.get("corrections", 0) < deps.params.max_corrections:
            return {"verified": False, "verification": {**v.to_json(), "rounds": len(log)}}
        fallback = extractive_answer(state["question"], citations, state.get("profile_summary", ""),
                                     post=state.get("post"), remembered=state.get("profile_population", ()),
                                     child_age=state.get("child_age"))
        final = verify_rules(fallback, citations)
        turn.notes["verification_fallback"] = {"reason": "corrections exhausted", "verdict": final.verdict}
        return {"answer": fallback, "generation_source": "extractive", "verified": final.verdict == "PASS",
                "verification": {**final.to_json(), "rounds": len(log), "replaced_by_extractive": True}}
    return run


def needs_correction(state: dict, deps: AgentDeps) -> bool:
    return not state.get("verified") and state.get("corrections", 0) < deps.params.max_corrections \
        and not (state.get("verification") or {}).get("replaced_by_extractive") \
        and not (state.get("verification") or {}).get("relevance")  # rebuilt from the evidence, or nothing to cite


def correct_answer(deps: AgentDeps):
    def run(state: dict, turn: TurnContext) -> dict[str, Any]:
        problems = (state.get("verification") or {}).get("problems", [])
        fixed = correct(deps.llm, state["question"], state["answer"], state.get("citations") or [], problems,
                        usage=turn.ledger)
        turn.notes.setdefault("corrections", []).append({"source": fixed.source, "error": fixed.error})
        return {"answer": fixed.text, "corrections": state.get("corrections", 0) + 1}
    return run
