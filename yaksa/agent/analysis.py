"""TurnAnalysis: what one turn's message says, worked out once and read by every node.

Why one object: the red-flag rules, the greeting check, the slot extractor (MedCAT), the speech act,
the retrieval plan, the focus (named drug, symptom, section intent, population) and the cache key's
entities are each asked for by two to four nodes (scope, resolve_followup, check_similarity,
classify_intent, extract_slots, retrieve, store_response, the cache itself). Recomputed, the extractor
ran up to four times a turn and the focus three. Here each is a cached property: computed the first
time a node needs it, never again for the same question, and not at all for a turn that never asks
(a refused or greeting turn extracts nothing).

A follow-up resolved to a standalone question ("그 약은…?" → "페니라민정은…?") gets a fresh analysis of
the new text (`for_question`) that keeps the red flag read from what the user actually wrote.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from yaksa.agent.followup import elliptical
from yaksa.extraction.post_reader import message_subject, question_kind
from yaksa.extraction.speech_act import message_kind
from yaksa.lexicon.prescription_classes import prescription_classes_named
from yaksa.lexicon.redose import asks_to_redose_after_vomiting
from yaksa.retrieval.active import RetrievalPlan, retrieval_plan
from yaksa.scope.red_flags import ReadMessage, RedFlag, load_table, read_message
from yaksa.scope.when_to_go import rules_asked, watch_rules

if TYPE_CHECKING:
    from yaksa.agent.deps import AgentDeps
    from yaksa.config import AgentFlags
    from yaksa.extraction.slots import SlotItem
    from yaksa.lexicon.focus import Focus

_UNREAD = object()


class TurnAnalysis:
    """The analysis of one question under one turn's flags; every field is computed at most once."""

    def __init__(self, question: str, deps: AgentDeps, flags: AgentFlags, *, flag: object = _UNREAD) -> None:
        self.question = question
        self._deps = deps
        self._flags = flags
        if flag is not _UNREAD:
            self.__dict__["red_flag"] = flag

    def for_question(self, question: str) -> TurnAnalysis:
        """The analysis of the standalone question a follow-up resolved to; the red flag and the watch signs stay
        the message's (a rewrite carrying the last turn's fever would repeat them)."""
        resolved = TurnAnalysis(question, self._deps, self._flags, flag=self.red_flag)
        resolved.__dict__["watch_rules"] = self.watch_rules
        return resolved

    @cached_property
    def message(self) -> ReadMessage:
        """The message as the red-flag table reads it (terms, ages, temperatures), read once for the
        red-flag check and the fever-care question."""
        return read_message(self.question)

    @cached_property
    def red_flag(self) -> RedFlag | None:
        """Care now (or soon), read from the message as written (`yaksa.scope.red_flags`)."""
        return load_table().check(self.message)

    @cached_property
    def case_vignette(self) -> bool:
        """A clinical case already in care, as an exam writes it (`red_flags.in_care_vignette`): someone else's,
        not the writer's; it raises no red flag and the profile memory neither keeps nor reads it."""
        return self.message.in_care()

    @cached_property
    def fever_rules(self) -> tuple[RedFlag, ...] | None:
        """The fever rules a question about when a fever needs a doctor is answered from
        (`yaksa.scope.when_to_go.rules_asked`), or None."""
        return rules_asked(self.message)

    @cached_property
    def watch_rules(self) -> tuple[RedFlag, ...] | None:
        """For a feverish child whose message meets no red-flag rule and asks something else, the fever rules
        said after the answer (`yaksa.scope.when_to_go.watch_rules`); None otherwise."""
        return None if self.red_flag is not None else watch_rules(self.message)

    @cached_property
    def leaves_its_drug_out(self) -> bool:
        """An `elliptical` question ("하루에 몇 번까지 돼요?") whose focus names no drug, symptom or drug class:
        it continues the conversation's drug (read by the scope node and by `resolve_followup`)."""
        # "약 먹고 10분 만에 토했어요 다시 먹어도 되나요?" is answered the same whatever the drug (`redose_care`)
        if not elliptical(self.question) or asks_to_redose_after_vomiting(self.question):
            return False
        focus = self.focus
        # "혈압약 먹는데 자몽 먹어도 되나요?" names its medicine by a prescription class (read as the condition 고혈압):
        # it was asked which medicine it meant
        return (focus.mode == "general" and not focus.linking.named and not focus.classes
                and not prescription_classes_named(self.question))

    @cached_property
    def question_kind(self) -> str:
        """medicine | care | other (`yaksa.extraction.post_reader.question_kind`)."""
        return question_kind(self.question)

    @cached_property
    def first_plan(self) -> RetrievalPlan:
        """The plan from the text alone: no search means a greeting or thanks (`yaksa.retrieval.active`)."""
        return retrieval_plan(self.question)

    @property
    def greeting(self) -> bool:
        return not self.first_plan.search

    @cached_property
    def slots(self) -> list[SlotItem]:
        """The profile's extractor (MedCAT + regex, or regex only) on the question."""
        return self._deps.extractor_for(self._flags).extract(self.question)

    @cached_property
    def subject(self) -> str | None:
        """Whom the message is about (`yaksa.extraction.post_reader.message_subject`): a relative, the
        writer, or None when it does not say."""
        return message_subject(self.question)

    @cached_property
    def speech_act(self) -> str:
        """"question" or "statement" (facts to remember, nothing asked), from the slots."""
        return message_kind(self.question, self.slots)

    @cached_property
    def plan(self) -> RetrievalPlan:
        """The plan once the slot count is known (k = 3 / 8 / 15)."""
        return retrieval_plan(self.question, slot_count=len(self.slots))

    @cached_property
    def cache_slots(self) -> list[SlotItem]:
        """The shared extractor's slots: the cache key must not depend on a turn's profile."""
        if self._deps.extractor_for(self._flags) is self._deps.extractor:
            return self.slots
        return self._deps.extractor.extract(self.question)

    @cached_property
    def cache_speech_act(self) -> str:
        return self.speech_act if self.cache_slots is self.slots else message_kind(self.question, self.cache_slots)

    @cached_property
    def focus(self) -> Focus:
        """What the question is about against this bundle's products (`yaksa.lexicon.focus`)."""
        return self._deps.searcher.focus_of(self.question)

    @cached_property
    def cache_entities(self) -> frozenset[str]:
        """What must match between two questions for one's cached answer to serve the other."""
        return entities_of(self.cache_slots, self.focus, self._deps.extractor.medications(self.question))


def entities_of(slots: list[SlotItem], focus: Focus, medications: frozenset[str]) -> frozenset[str]:
    """The response cache's entities: every concept and demographic slot, and what the search will be
    about: two questions whose drugs, symptoms, section intent or population differ ("목이 칼칼해요" /
    "머리가 지끈지끈 아파요") never share an answer, however close they embed."""
    keys = {item.concept_id or f"{item.slot_type}:{item.name}={item.value}" for item in slots}
    keys |= {f"focus:{focus.mode}", f"intent:{focus.intent.name}"}
    keys |= {f"mention:{m}" for m in focus.linking.mentions} | {f"symptom:{t}" for t in focus.symptoms}
    keys |= {f"population:{g}" for g in focus.population} | {f"route:{focus.route}"}
    return frozenset(keys) | medications
