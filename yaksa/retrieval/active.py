"""Decide whether a chat turn needs retrieval at all, and how many passages to fetch.

Why: "고마워요" or "ok" should not trigger a search (wasted latency, and irrelevant passages invite
the model to lecture), and a multi-part question needs more context than a one-slot lookup.

Rules, applied in order:
  1. Chit-chat -> RetrievalPlan(search=False, complexity="none", k=0). The message is chit-chat
     when, after lower-casing, joining "thank you" into "thanks" and stripping punctuation and
     laughter/crying jamo (ㅎ ㅋ ㅠ ㅜ), it is empty or every word is a greeting/acknowledgement
     in `yaksa.lexicon.chitchat.CHITCHAT` ("안녕하세요", "네 감사합니다", "ㅎㅎ", "ok thanks").
  2. complex (k=15) when any of: slot_count >= 3; more than LONG_CHARS non-space characters;
     two or more "?"; a conjunction: a word in CONJUNCTIONS ("그리고", "및", "and", ...) or a
     word ending in "하고"/"이랑" that joins two things ("타이레놀하고 이부프로펜"), i.e. is not
     followed by an auxiliary verb ("복용하고 싶어요", "먹고 있어요" are not conjunctions).
  3. simple (k=3) when slot_count <= 1 and at most SHORT_CHARS non-space characters.
  4. moderate (k=8) otherwise.

Usage:
    retrieval_plan("고마워요")                       # search=False
    retrieval_plan("타이레놀 용량", slot_count=1)      # simple, k=3
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from yaksa.lexicon.chitchat import is_chitchat

CONJUNCTIONS: frozenset[str] = frozenset({"그리고", "및", "또한", "and", "also", "plus"})
JOINING_SUFFIXES: tuple[str, ...] = ("하고", "이랑")
AUXILIARY_STARTS: tuple[str, ...] = ("싶", "있", "계", "나서", "난")
SHORT_CHARS = 20
LONG_CHARS = 60
K_BY_COMPLEXITY: dict[str, int] = {"simple": 3, "moderate": 8, "complex": 15}


@dataclass(frozen=True)
class RetrievalPlan:
    search: bool
    complexity: str  # "none" (no search), "simple", "moderate" or "complex"
    k: int


def _has_conjunction(words: list[str]) -> bool:
    for i, word in enumerate(words):
        bare = re.sub(r"\W+$", "", word.lower())
        if bare in CONJUNCTIONS:
            return True
        joins = bare.endswith(JOINING_SUFFIXES) and bare not in JOINING_SUFFIXES and i + 1 < len(words)
        if joins and not words[i + 1].startswith(AUXILIARY_STARTS):
            return True
    return False


def retrieval_plan(question: str, slot_count: int = 0) -> RetrievalPlan:
    """Search or not, and k, from the question text and the number of filled slots (drug, dose...)."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError(f"question must be a non-empty string, got {question!r}")
    if isinstance(slot_count, bool) or not isinstance(slot_count, int) or slot_count < 0:
        raise ValueError(f"slot_count must be an integer >= 0, got {slot_count!r}")
    if is_chitchat(question):
        return RetrievalPlan(search=False, complexity="none", k=0)
    length = len(re.sub(r"\s+", "", question))
    words = question.split()
    if slot_count >= 3 or length > LONG_CHARS or question.count("?") >= 2 or _has_conjunction(words):
        complexity = "complex"
    elif slot_count <= 1 and length <= SHORT_CHARS:
        complexity = "simple"
    else:
        complexity = "moderate"
    return RetrievalPlan(search=True, complexity=complexity, k=K_BY_COMPLEXITY[complexity])
