"""Greetings and thanks: the words that make a message chit-chat rather than a question.

After lower-casing, joining "thank you" into "thanks" and stripping punctuation and laughter/crying
jamo (ㅎ ㅋ ㅠ ㅜ), a message is chit-chat when it is empty or every word is in CHITCHAT.
"""

from __future__ import annotations

import re

CHITCHAT: frozenset[str] = frozenset({
    "안녕", "안녕하세요", "안녕하십니까", "고마워", "고마워요", "고맙습니다", "감사", "감사합니다",
    "감사해요", "네", "넵", "예", "응", "알겠어요", "알겠습니다", "알았어요", "좋아요", "오케이",
    "수고하세요", "hi", "hello", "hey", "thanks", "thx", "ok", "okay", "bye", "yes", "sure",
})
_NOISE = re.compile(r"[\s\W_ㅎㅋㅠㅜ]+")


def is_chitchat(text: str) -> bool:
    """Whether every word is a greeting or thanks ("네 감사합니다", "ㅎㅎ", "ok thanks"): no search then."""
    words = [w for w in (_NOISE.sub("", w) for w in text.lower().replace("thank you", "thanks").split()) if w]
    return all(w in CHITCHAT for w in words)
