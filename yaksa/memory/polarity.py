"""The polarity of a question, so the cache never answers "may I?" with the answer to "must I not?".

Why: sentence embeddings barely see negation. With multilingual-e5, "타이레놀 먹어도 되나요" and
"타이레놀 먹으면 안 되나요" are ~0.99 similar, and GPTCache issue 694 reports 0.83-0.9997 for
negated pairs in English. In a pharmacy the two questions have opposite answers.

The signature is deliberately coarse and strict: the set of cue classes a question contains
(permission "먹어도 되나요 / can I", prohibition "먹으면 안 되나요 / 피해야 / 금기 / avoid",
obligation "먹어야 하나요 / do I need to") plus the number of negators (안, 않, 못, 없, 지 말; not,
n't, never, no). Two questions share a cached answer only when their signatures are equal, so a
paraphrase with the same framing ("먹어도 돼요?") still hits, while a double negation ("안 먹으면 안
되나요", 2 negators) does not match a single one. A false miss costs one answer; a false hit could
cost a patient.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CUES: dict[str, re.Pattern[str]] = {
    "permission": re.compile(
        r"도\s*(?:되|돼|됩|괜찮|상관)|괜찮|가능|안전"
        r"|\b(?:can|may|could)\s+(?:i|you|we)\b|\bis\s+it\s+(?:ok|okay|safe|fine|alright)\b"
        r"|\b(?:safe|ok|okay)\s+to\b|\ballowed\b"),
    "prohibition": re.compile(
        r"(?:면|서는|선)\s*안\s*(?:되|돼|됩|된)|지\s*(?:말|마)|피해야|피하(?:세|십|는|라|고|면|나|야|도)"
        r"|금기|금지|삼가|위험"
        r"|\bshould(?:\s+(?:i|you|we))?\s+not\b|\bshouldn'?t\b|\bmust\s*not\b|\bmustn'?t\b|\bavoid"
        r"|contraindicat|\bunsafe\b|\bdangerous\b|\bnot\s+(?:be\s+)?(?:safe|ok|okay|allowed)\b"),
    "obligation": re.compile(
        r"(?:어|아|여|해)야\s*(?:하|해|할|합|되|돼|됩)"
        r"|\bmust\s+(?:i|you|we)\b|\bdo\s+(?:i|you|we)\s+(?:need|have)\s+to\b|\bhave\s+to\b|\bneed\s+to\b"),
}
_NEGATORS: tuple[re.Pattern[str], ...] = (
    re.compile(r"(?<![가-힣])안(?=\s|먹|좋|맞|하|해|써|쓰|들|$)"),  # 안 먹다 (not 안전, 불안, 안녕)
    re.compile(r"안(?=\s*(?:되|돼|됩|된))"),                         # 먹으면안되나요
    re.compile(r"않"),
    re.compile(r"(?<!잘)못(?=\s|먹|하|해|자|가|쓰|써|마|$)"),         # 못 먹다 (not 잘못)
    re.compile(r"없"),
    re.compile(r"지\s*(?:말|마)"),
    re.compile(r"\bnot\b|n't\b|\bcannot\b|\bnever\b|\bno\b|\bwithout\b"),
)


@dataclass(frozen=True)
class Polarity:
    """Comparable signature of how a question is framed; equal signatures may share an answer."""

    cues: frozenset[str]
    negators: int


def question_polarity(text: str) -> Polarity:
    """The polarity signature of a Korean or English question."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    norm = " ".join(text.casefold().replace("’", "'").split())
    cues = frozenset(name for name, pattern in _CUES.items() if pattern.search(norm))
    starts = {m.start() for pattern in _NEGATORS for m in pattern.finditer(norm)}
    return Polarity(cues=cues, negators=len(starts))
