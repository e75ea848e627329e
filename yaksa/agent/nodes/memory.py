"""extract_slots and store_memory: what the user says about themselves, kept across turns.

A message that only states facts about the user and asks nothing ("65세 남성이고 당뇨가 있어요",
"와파린을 먹고 있어요") is a statement: it is remembered and acknowledged without a search. Whether
it asks is decided by meaning (`message_kind`), not by a "?": "판콜에스 하루에 몇 번 먹어요" and
symptom descriptions ("밤에 기침이 심해요") are questions and get an answer. A statement with no
extracted slot (a fact the active extractor cannot see) is answered as a question rather than
acknowledged as remembered. store_memory runs for questions too, so their slots (the symptom of
"배탈 나서 설사해요", the drug of "와파린 먹는데 ...?") are remembered as well.

Each fact is remembered for the person it is about (`attribute_slots`): "5살 아이 해열제 얼마나 먹여요?"
stores a child's age, not the writer's, and the turn sees the profile of the person it is about (a
message that names no one is about whom its own facts are — a pregnancy is the writer's — else continues
with the person the last few messages named, while a fact of someone else is less than an hour old, else the
writer).
"""

from __future__ import annotations

from typing import Any

from yaksa.agent.deps import AgentDeps
from yaksa.agent.replies import statement_reply
from yaksa.agent.turn import TurnContext
from yaksa.extraction.post_reader import attribute_slots, message_subject
from yaksa.lexicon.focus import profile_population
from yaksa.scope.stage import passed_as_a_mind_concern


def extract_slots(deps: AgentDeps):
    def run(state: dict, turn: TurnContext) -> dict[str, Any]:
        flags = state["flags"]
        analysis = state["analysis"]
        slots = analysis.slots
        turn.notes["slots"] = [s.to_json() for s in slots]
        kind = analysis.speech_act
        turn.notes["speech_act"] = kind
        update: dict[str, Any] = {"slots": slots}
        # a cached answer is already chosen; a mental-health concern stated as facts ("감정 기복이 심하고
        # 우울해요": MedCAT reads 우울증) is answered with where to get help, not "I'll remember that"
        # ... nor is a turn that asks which drug is meant (its reply is chosen; its facts are still remembered)
        if state.get("intent") == "clarify":
            return update   # its reply is chosen and no search follows: no statement, no retrieval plan
        if (slots and kind == "statement" and not state.get("cache_hit")
                and not passed_as_a_mind_concern(state.get("scope"))):
            update["intent"] = "statement"
        elif flags.active_retrieval:
            plan = analysis.plan
            update.update(complexity=plan.complexity, k=plan.k)
            turn.notes["plan"] = {"search": plan.search, "complexity": plan.complexity, "k": plan.k}
        return update
    return run


def _conversation_subject(store: Any, user: str) -> str:
    """The person a message naming no one continues with: the one the newest of the last SUBJECT_LOOKBACK messages
    that names someone is about, else whom the latest fact is about (`latest_subject`). Why the messages: one that
    speaks of the writer may store nothing of them ("저는 당뇨가 있는데 감기약 먹어도 되나요?"), and "당뇨 있는데
    타이레놀 먹어도 돼요?" after it, in a conversation that began with a 5-year-old's fever, got children's
    acetaminophen (found as a user, 2026-12-01). Read only while a fact of someone else is recent: after
    CONVERSATION_GAP the writer is the person again."""
    so_far = store.latest_subject(user)
    if so_far == "self":
        return so_far
    asked = [m["content"] for m in store.recent_turns(user, SUBJECT_LOOKBACK) if m.get("role") == "user"]
    named = next((who for q in reversed(asked) if (who := message_subject(q)) is not None), None)
    return named or so_far


SUBJECT_LOOKBACK = 3   # messages


def store_memory(deps: AgentDeps):
    def run(state: dict, turn: TurnContext) -> dict[str, Any]:
        if state["analysis"].case_vignette:
            # an exam's case ("58세 남자가 … 병원에 왔다. 진단은?") is nobody in this conversation: its age and
            # conditions were filed as the writer's, and the writer's own profile is not the case's
            turn.notes["memory"] = {"changed": False, "items": 0, "about": "case"}
            return {"profile_summary": "", "profile_terms": [], "profile_population": profile_population("")}
        store = deps.store_for(state["flags"])
        user = state["user_id"]
        slots = state.get("slots") or []
        # whom the turn is about: the person the message names, else the one its own facts are about
        # ("임신 20주인데 …" after a question about a baby: a pregnancy is the writer's), else the
        # conversation's person so far
        subject = state["analysis"].subject
        so_far = _conversation_subject(store, user) if subject is None else None
        facts = attribute_slots(state["question"], slots, subject=subject or so_far)
        if subject is None:
            stated = {f.about for f in facts}
            subject = stated.pop() if len(stated) == 1 else so_far
        # nothing is written when the user's profile was erased since the turn began (its epoch changed)
        changed = store.add(user, facts, epoch=state.get("erasure_epoch"))
        view = store.view(user, about=subject)
        turn.notes["memory"] = {"changed": changed, "items": view.count, "about": subject}
        # whom the profile describes, read once for the search and the answer (`profile_population`)
        update: dict[str, Any] = {"profile_summary": view.summary, "profile_terms": view.terms,
                                  "profile_population": profile_population(view.summary)}
        if state.get("intent") == "statement":
            update.update(answer=statement_reply(view.summary), citations=[], verified=False)
        return update
    return run
