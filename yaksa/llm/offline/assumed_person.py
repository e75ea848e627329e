"""Whom an answer took a message naming no one to be about, said first.

Why: Korean drops its subjects, and a follow-up that names no one ("주말에 등산 갔다가 진드기에 물린 것 같은데 …
타이레놀 먹어도 되나요?") is answered for the person the conversation is about (`yaksa.agent.nodes.memory`): after
"68세 아버지가 …" the father's 고령자 caution came first, and the answer did not say whose it took the question to be
(found as a user, 2026-12-02). Whether that was right only the writer knows, so the answer says whom it assumed and
asks to be told otherwise. A message that names its person, and a long post (read for its own person), assume no one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from yaksa.extraction.post_reader import PostReading
from yaksa.lexicon.focus import find_population, profile_population
from yaksa.llm.safety import SAFETY_PHRASE
from yaksa.memory.profile_summary import described_person

# how a population is said when the summary keeps no demographics of the person ("(자녀) 증상: 구토.")
_POPULATION_KO = {"infant": "영아", "child": "아이", "elderly": "어르신", "pregnant": "임신 중",
                  "breastfeeding": "수유 중"}


def assumed_person(question: str, post: PostReading | None, profile_summary: str,
                   remembered: Sequence[str] | None = None) -> str:
    """The remembered person an answer to `question` is for, in the summary's words ("부모, 68세 남성"), when the
    question names no one and that person is one the labels single out (`profile_population`: a child, an older
    adult, a pregnancy or nursing); "" otherwise. `remembered`: as the memory node read it (None: read here)."""
    if post is not None and post.long:
        return ""
    population = tuple(profile_population(profile_summary) if remembered is None else remembered)
    if not population or find_population(question):
        return ""
    return described_person(profile_summary) or ", ".join(_POPULATION_KO.get(g, g) for g in population)


# how the note opens, the person's words in the brackets after it: the rule verifier reads those words as the
# user's own (an age is no dose the labels must state: "(자녀, 5세)" failed it as an unsupported "5세")
NOTE_OPENING_KO = "앞서 알려 주신 정보("
NOTE_OPENING_EN = "This is answered for what you told me earlier ("
# (anywhere: the source notice, "타이레놀은 자료에 없어 …", is put before it in the same paragraph after verification)
_TOLD = re.compile(rf"(?:{re.escape(NOTE_OPENING_KO)}|{re.escape(NOTE_OPENING_EN)})[^)]*\)")


def without_told_person(paragraph: str) -> str:
    """`paragraph` (or a whole answer) without the person's words an assumed-person note quotes: the user's own,
    not a claim the cited labels must bear out."""
    return _TOLD.sub("", paragraph, count=1)


def assumed_person_note(who: str, korean: bool) -> str:
    """Said first: whom the answer is for, and to say so if the question was about someone else. It carries the
    consult phrase, which keeps it past the rule verifier (a paragraph without a citation must carry it)."""
    if korean:
        return (f"{NOTE_OPENING_KO}{who})를 기준으로 답합니다. 다른 분에 대해 물으신 거라면 그분의 나이와 임신·수유 여부를 "
                f"함께 알려 주세요. 약은 약사나 의사 등 {SAFETY_PHRASE}.")
    return (f"{NOTE_OPENING_EN}{who}). If you are asking about someone else, tell me their age and whether they are "
            f"pregnant or nursing. Please consult a pharmacist or doctor ({SAFETY_PHRASE}).")
