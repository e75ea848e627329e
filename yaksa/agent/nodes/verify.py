"""verify and correct: PASS/FAIL on the answer, then up to `max_corrections` repair rounds.

Why a last resort after the rounds run out: an answer that still fails verification may carry an
unsupported dose, so it is replaced by the extractive answer, which copies the evidence verbatim and
so passes the rule checks by construction; the trace records that this happened.
"""

from __future__ import annotations

from typing import Any

from yaksa.agent.deps import AgentDeps
from yaksa.agent.replies import (
    cause_care_reply,
    post_care_reply,
    prescription_class_reply,
    symptom_care_reply,
)
from yaksa.agent.source_notice import NO_RELEVANT_EVIDENCE, about_focus, no_evidence
from yaksa.agent.turn import TurnContext
from yaksa.lexicon.focus import describes_a_body_complaint
from yaksa.lexicon.prescription_classes import prescription_classes_named
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
                else _nothing_relevant(state["question"], focus, state.get("post")))
        return {"answer": text, "citations": [], "generation_source": "relevance", "verified": False,
                "verification": {"verdict": "FAIL", "problems": verdict.problems, "relevance": verdict.to_json()}}
    answer = extractive_answer(state["question"], kept, state.get("profile_summary", ""), post=state.get("post"),
                               remembered=state.get("profile_population", ()), child_age=state.get("child_age"))
    final = verify_rules(answer, kept)
    return {"answer": answer, "citations": kept, "generation_source": "extractive",
            "verified": final.verdict == "PASS",
            "verification": {**final.to_json(), "relevance": verdict.to_json(), "restricted_to_focus": True}}


def _nothing_relevant(question: str, focus: Any, post: Any = None) -> str:
    """The reply when no found label is about the asked symptom: for a Korean question naming a prescription medicine
    by its class ("혈압약 먹는데 어지러워요"), that the data has no label of it and the complaint may be its, for the
    prescriber to hear (`replies.prescription_class_reply`); for a short one asking the cause or where to go ("…
    4일동안 지속되고 있습니다. 어디 병원을 가봐야되는건가요?", a real post told only "the data has nothing"), that
    an examination answers it (`replies.cause_care_reply`); for one telling how the body feels, that no label treats
    it and where to be seen (`replies.symptom_care_reply`), and for a long post asking nothing of a medicine its
    questions for a doctor (`replies.post_care_reply`); else that the data has nothing that answers it."""
    classes = prescription_classes_named(question) if focus.lang == "ko" else ()
    if classes:
        return prescription_class_reply(classes, a_complaint=True)
    if focus.lang != "ko":
        return NO_RELEVANT_EVIDENCE
    if post is not None and post.long:   # a long post asking nothing of a medicine: its questions for a doctor, named
        asks_of_a_medicine = any(q.kind == "medicine" for q in post.questions)
        return NO_RELEVANT_EVIDENCE if asks_of_a_medicine else post_care_reply(post, focus.population)
    if post is not None and post.asks_cause:
        return cause_care_reply(question, focus.population)
    if describes_a_body_complaint(question):   # "… 어지럽고 가슴이 답답합니다" and nothing asked
        return symptom_care_reply(question, focus.population)
    return NO_RELEVANT_EVIDENCE


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
