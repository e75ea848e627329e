"""resolve_followup: a question that refers back ("그 약은 하루에 몇 번 먹어요?") becomes a standalone
question about the drug it means, or the user is asked which drug (see `yaksa.agent.followup`).

Why here, after `scope` and before `check_similarity`: an out-of-scope message is refused before its
history is read, and the shared response cache must only ever see the standalone question, never
"그 약은 …", whose answer depends on whose conversation it is. Every later node (cache, search,
generation, verification) works on the standalone `question`, and the history keeps it too, so a
follow-up to a follow-up ("그 약은 하루에 몇 번?" … "그거 와파린이랑 같이 먹어도 돼요?") still means the same drug. A pointer with nothing earlier to point at is answered as asked when the message
itself names a drug or a drug class ("이거 먹고 운전해도 됨? 감기약임"), else the user is asked which drug.

A question that leaves its drug out ("하루에 몇 번까지 돼요?", "부작용은요?": `TurnAnalysis.leaves_its_drug_out`) is read
the same way, the drug put in front of it; one with nothing earlier to continue asks which drug, as a pointer
does ("임신 20주인데 먹어도 돼요?" as a first message: an antacid's dose was the answer to a guess). The person it
states is still remembered: a clarifying turn goes through extract_slots and store_memory (`yaksa.agent.graph`).
"""

from __future__ import annotations

from typing import Any

from yaksa.agent.deps import AgentDeps
from yaksa.agent.followup import clarify_reply, referring_expression, resolve
from yaksa.agent.turn import TurnContext
from yaksa.extraction.post_reader import is_long


def resolve_followup(deps: AgentDeps):
    def run(state: dict, turn: TurnContext) -> dict[str, Any]:
        question = state["question"]
        pointer = referring_expression(question)
        implicit = pointer is None and state["analysis"].leaves_its_drug_out
        if pointer is None and not implicit:   # most questions: no history read at all
            return {}
        history = deps.store_for(state["flags"]).recent_turns(state["user_id"], deps.params.history_turns)
        catalog = deps.searcher.catalog
        resolution = resolve(question, history, catalog.link if catalog is not None else None, implicit=implicit)
        turn.notes["followup"] = resolution.to_json()
        if not resolution.refers_back:
            return {}
        if resolution.resolved:
            return {"question": resolution.question, "analysis": state["analysis"].for_question(resolution.question)}
        if is_long(question):
            # a long post tells its own story ("이번에도 역시 …" is not a pointer to an earlier answer):
            # it is read as a whole (assemble_context), never answered with "which drug do you mean?"
            return {}
        focus = state["analysis"].focus
        if not resolution.candidates and (focus.linking.named or focus.classes):
            # "이거 먹고 운전해도 됨? 감기약임": nothing earlier, but the message says what it is about
            return {}
        # no referent, or several: ask which drug rather than answer about a guess
        reply = clarify_reply(resolution, first_message=not history)
        return {"intent": "clarify", "answer": reply, "citations": [], "verified": False}
    return run

