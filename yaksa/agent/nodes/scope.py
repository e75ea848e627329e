"""scope: the first node of every turn. An out-of-scope question is refused here, before the
response cache, the LLM router, memory, web references and search ever see it; a crisis message
(`yaksa.scope.crisis`: suicide or self-harm, a lethal amount, an overdose taken) gets the fixed
crisis reply here, before even the greeting check and under every ablation variant.

A medicine given to or taken by an animal ("개한테 타이레놀 먹여도 되나요?", `yaksa.scope.veterinary`) is refused
next, with where to ask (a veterinarian, an animal hospital now if it was eaten): the labels are people's.

Right after the crisis rules, the red-flag rules (`yaksa.scope.red_flags`, issue 23) recognise a
message that needs care now (a feverish baby under 3 months, chest pain with breathlessness, stroke
signs ...). Such a message is never refused as off-topic, whatever the scope model says: it is
answered, and the runner puts the urgent advice (119, 응급실, a doctor today) first in the final answer
(`yaksa.agent.replies.with_red_flag`), cache hits included; the advice is also the first streamed
token. The trace carries `red_flag: {rule, urgency}`.

A refused question that leaves its drug out ("하루에 몇 번까지 돼요?") right after a cited answer in the
user's own conversation passes as `continues_an_answer` (`resolve_followup` then puts the drug in front
of it): the user's last turn is read for that, and nothing is written. A refused statement of who the
person is and nothing else ("저희 아이가 5살이에요") passes as `describes_the_person`, and the memory node
remembers it.

Why first and not inside retrieval: a cached answer, an LLM call or a Tavily request made before the
decision would already have handed the question to something that should not have it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from yaksa.agent.deps import AgentDeps
from yaksa.agent.followup import follows_an_answer
from yaksa.agent.replies import (
    crisis_reply,
    device_reply,
    harmful_reply,
    red_flag_reply,
    refusal_reply,
    veterinary_reply,
)
from yaksa.agent.turn import TurnContext
from yaksa.scope.crisis import crisis_decision
from yaksa.scope.cues import domain_cues
from yaksa.scope.decision import ScopeDecision
from yaksa.scope.device_command import DEVICE_REASON
from yaksa.scope.harmful import HARMFUL_REASON_PREFIX, harmful_request, is_harmful_refusal
from yaksa.scope.red_flags import red_flag_decision
from yaksa.scope.veterinary import VETERINARY_REASON, about_an_animal

GUARD_OFF = ScopeDecision(True, "guard_off", {}, "none")
CONTINUES_AN_ANSWER = "continues_an_answer"
DESCRIBES_THE_PERSON = "describes_the_person"
PERSON_FACTS = frozenset({"age", "age_group", "gender", "pregnancy", "weight"})   # slot names: who the person is
GREETING = ScopeDecision(True, "greeting", {}, "rules")


def scope(deps: AgentDeps):
    def run(state: dict, turn: TurnContext) -> dict[str, Any]:
        crisis = crisis_decision(state["question"])  # first, under every ablation variant: no flag turns it off
        if crisis is not None:
            turn.notes["scope"] = crisis.to_json()
            return {"scope": crisis, "blocked": True, "intent": "crisis", "citations": [], "verified": False,
                    "answer": crisis_reply(crisis.signals["crisis"], state["question"])}
        harm = harmful_request(state["question"])  # under every ablation variant too: in the topic, out of bounds
        if harm is not None:
            decision = ScopeDecision(False, f"{HARMFUL_REASON_PREFIX}{harm.rule}", {"harmful_request": harm.rule},
                                     "rules:harmful")
            turn.notes["scope"] = decision.to_json()
            return {"scope": decision, "blocked": True, "intent": "out_of_scope", "citations": [], "verified": False,
                    "answer": harmful_reply(state["question"])}
        if about_an_animal(state["question"]):  # before the red flags: a pet that ate pills needs a vet, not 119
            decision = ScopeDecision(False, VETERINARY_REASON, {"veterinary": True}, "rules:veterinary")
            turn.notes["scope"] = decision.to_json()
            return {"scope": decision, "blocked": True, "intent": "out_of_scope", "citations": [], "verified": False,
                    "answer": veterinary_reply(state["question"])}
        analysis = state["analysis"]
        flag = analysis.red_flag  # second, under every ablation variant: care now comes before the answer
        if flag is not None:
            turn.notes["red_flag"] = flag.to_json()
            turn.emit("token", {"text": red_flag_reply(flag, state["question"]) + "\n\n", "iteration": 0})
            decision = deps.scope.decide(state["question"]) if state["flags"].scope else GUARD_OFF
            decision = red_flag_decision(flag, decision)
            turn.notes["scope"] = decision.to_json()
            return {"scope": decision, "blocked": False}
        if analysis.greeting:
            # "안녕하세요", "고마워요": a fixed friendly reply, no search, no LLM, nothing stored; the
            # greeting is not a question the scope model should refuse
            turn.notes["scope"] = GREETING.to_json()
            return {"scope": GREETING, "blocked": False, "greeting": True}
        decision = deps.scope.decide(state["question"]) if state["flags"].scope else GUARD_OFF
        if not decision.in_scope and _continues_an_answer(deps, state, decision):
            decision = ScopeDecision(True, CONTINUES_AN_ANSWER, {**decision.signals, "refused_by": decision.reason},
                                     "rules:followup")
        elif not decision.in_scope and _describes_the_person(state, decision):
            decision = ScopeDecision(True, DESCRIBES_THE_PERSON, {**decision.signals, "refused_by": decision.reason},
                                     "rules:followup")
        turn.notes["scope"] = decision.to_json()
        if decision.in_scope:
            return {"scope": decision, "blocked": False}
        return {"scope": decision, "blocked": True, "intent": "out_of_scope", "citations": [], "verified": False,
                "answer": _refusal_reply(decision.reason)(state["question"])}
    return run


# refusals whose reply says what cannot be done instead of "off-topic" (a harmful request's, by its prefix,
# besides); the conversation never overturns them (`_may_be_reconsidered`)
_OWN_REPLY: dict[str, Callable[[str], str]] = {DEVICE_REASON: device_reply}


def _refusal_reply(reason: str) -> Callable[[str], str]:
    """The reply a refusal with this reason gets: a harmful request's, a device command's, else off-topic."""
    if is_harmful_refusal(reason):
        return harmful_reply
    return _OWN_REPLY.get(reason, refusal_reply)


def _may_be_reconsidered(decision: ScopeDecision, question: str) -> bool:
    """A refusal the conversation may overturn (`_continues_an_answer`, `_describes_the_person`): never a
    harmful request's or a device command's ("약 먹을 시간 되면 알려줘" after an answer about a drug still asks
    for an alarm), nor one of a question naming another domain's cue."""
    return not (is_harmful_refusal(decision.reason) or decision.reason in _OWN_REPLY or domain_cues(question))


def _continues_an_answer(deps: AgentDeps, state: dict, decision: ScopeDecision) -> bool:
    """A refused question that leaves its drug out ("하루에 몇 번까지 돼요?"), names no other domain's cue, and
    follows a cited answer in this user's conversation: it is about that answer's drug, not off-topic.
    Only then is the history read; a harmful request stays refused."""
    if not _may_be_reconsidered(decision, state["question"]):
        return False
    if not state["analysis"].leaves_its_drug_out:
        return False
    history = deps.store_for(state["flags"]).recent_turns(state["user_id"], 1)
    return follows_an_answer(history)


def _describes_the_person(state: dict, decision: ScopeDecision) -> bool:
    """A refused statement of who the person is and nothing else ("저희 아이가 5살이에요", "저 14살이고
    여자예요": an age, sex, pregnancy or weight; the turn's slots, its speech act a statement): the person a
    pharmacist's answer is for. An age names nothing medical, so the scope model refused it as small talk
    and it was never remembered: the next question got adults' doses, and in the dialogue study a persona's
    opening "저 14살이고 여자예요" was lost. None of the 3,000 shared non-medical questions nor of our 387
    out-of-scope ones is such a statement (counted 2026-11-30). A harmful request or another domain's cue
    stays refused. Passed, the memory node remembers it and says so (a statement gets no search)."""
    analysis = state["analysis"]
    if not _may_be_reconsidered(decision, state["question"]):
        return False
    return analysis.speech_act == "statement" and any(s.name in PERSON_FACTS for s in analysis.slots)
