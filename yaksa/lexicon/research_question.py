"""Whether an English question reads like a research question (a study's question, not a person's).

Why in the lexicon: routing (`yaksa.retrieval.routing`) sends a research question to the abstracts as well
as MedQuAD, and an English question naming a product of the labels ("What are the side effects of naproxen?")
to the labels, unless it asks what studies found ("Is caffeine associated with miscarriage?"): both read the
same words, so they are written once here.

Usage:
    is_research_question("Is statin use associated with diabetes?")   # True
    is_research_question("Can I take ibuprofen?")                      # False
    asks_what_studies_found("Is caffeine associated with miscarriage?")  # True
"""

from __future__ import annotations

import re

# words that name research or its findings, and a title-style question ("Cigarettes and cinema: does ...")
STUDY = re.compile(
    r"\bassociat(ed|ion)\b"
    r"|\b(trials?|study|studies|randomi[sz]ed|meta-analys[ie]s|cohort|evidence)\b"
    r"|^[^?]{8,}:\s*\S",
    re.IGNORECASE,
)
RESEARCH = re.compile(rf"^\s*(does|do|did)\b|\beffects? of\b|{STUDY.pattern}", re.IGNORECASE)
# A yes/no question that is not about the asker ("Is the INR reliable?", "Are bipolar disorders
# underdiagnosed ...?") reads like a study's question; "Can I take ...?" and "Is X inherited?"
# (a MedQuAD question type) do not.
YES_NO = re.compile(r"^\s*(is|are|was|were|should|can|could|will|would|has|have)\b", re.IGNORECASE)
PERSONAL = re.compile(r"\b(i|i'm|my|me|we|our|us|you|your|it okay|ok to|safe to)\b|\binherited\b", re.IGNORECASE)


def is_research_question(question: str) -> bool:
    """Does `question` read like a research question: it starts "Does/Do/Did", asks the effect(s) of something,
    names research (`STUDY`), or is a yes/no question not about the asker?"""
    return bool(RESEARCH.search(question) or (YES_NO.search(question) and not PERSONAL.search(question)))


def asks_what_studies_found(question: str) -> bool:
    """Does `question` ask what research found (an association, a trial, the evidence), which a label does not say?"""
    return STUDY.search(question) is not None
