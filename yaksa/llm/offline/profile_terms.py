"""Profile words as the drug labels spell them, so cautions can be matched to the user.

Why aliases: a profile says "노인" or "75세" while MFDS labels say "고령자"; a profile says "임신"
while labels say "임부". Without this small map a 주의사항 sentence written for exactly this user
would be missed by a plain word match. Only label vocabulary that really differs is listed.
"""

from __future__ import annotations

import re

from yaksa.memory.profile_summary import PERSON_LABELS
from yaksa.text.lexical import terms

ELDERLY_AGE = 65
_AGE = re.compile(r"(\d{1,3})\s*(?:세|살|years?[ -]old)", re.IGNORECASE)
_ALIASES: dict[str, tuple[str, ...]] = {
    "노인": ("고령자",),
    "고령": ("고령자", "노인"),
    "임신": ("임부",),
    "임부": ("임신",),
    "수유": ("수유부",),
    "어린이": ("소아", "유아"),
    "소아": ("어린이",),
    "영아": ("신생아", "개월"),   # "만 3개월 미만의 영아", "생후 1개월 미만"
    "elderly": ("older", "aged"),
    "pregnant": ("pregnancy",),
    "pregnancy": ("pregnant",),
}


# The summary's own labels are not facts about the user; and current symptoms are why they take a
# medicine, not a caution for them (a side-effect list naming 두통 is no warning for a headache).
_SYMPTOMS = re.compile(r"증상:[^.]*\.?")
_LABEL_WORDS = frozenset({"질환", "복용", "증상", "최근", "검사", "결과", "방금", "시간", *PERSON_LABELS.values()})
# a sex alone is no caution: "여성" matched the labels' "임신하고 있을 가능성이 있는 여성", and a 35-year-old woman asking
# about an ointment had its pregnancy caution quoted first, headed as about her (2026-12-02)
_SEX_WORDS = frozenset({"여성", "남성", "여자", "남자", "female", "male", "woman", "man"})
# generic heads of compound condition names: alone they match any label's "의식장애" or "시각장애", so the
# whole name is the term ("공황장애", "간장애")
_GENERIC_HEADS = ("장애", "증후군")
_COMPOUND = re.compile(rf"[가-힣]+(?:{'|'.join(_GENERIC_HEADS)})")
# a direction makes the condition: the analyser reads "고혈압" as 고 + 혈압, and 혈압 alone is in the
# labels' "혈압저하" and "저혈압", the opposite condition; so the whole word is the term
_DIRECTED = re.compile(r"[고저](?:혈압|혈당|지혈증)")


def profile_terms(summary: str) -> list[str]:
    """Content words of a profile summary (its labels, current symptoms and a sex alone left out), plus "고령자"
    when it states an age of 65 or more."""
    facts = _SYMPTOMS.sub(" ", summary)
    found = [t for t in terms(facts) if t not in _LABEL_WORDS and t not in _GENERIC_HEADS and t not in _SEX_WORDS
             ] if facts.strip() else []
    found += [m.group(0) for m in _COMPOUND.finditer(facts) if m.group(0) not in found]
    directed = list(dict.fromkeys(m.group(0) for m in _DIRECTED.finditer(facts)))
    found = [t for t in found if t not in {d[1:] for d in directed}] + [d for d in directed if d not in found]
    if any(int(m.group(1)) >= ELDERLY_AGE for m in _AGE.finditer(summary)) and "고령자" not in found:
        found.append("고령자")
    return found


def with_aliases(words: list[str]) -> list[str]:
    """`words` followed by their label spellings, de-duplicated."""
    out: list[str] = []
    for w in words:
        for v in (w, *_ALIASES.get(w.lower(), ())):
            if v not in out:
                out.append(v)
    return out
