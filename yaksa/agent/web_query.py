"""What of a user's message may go to a third-party web search (Tavily).

Why a narrow rewrite: the web search is a third party. It gets the asking part of the message only
(`question_part`: no statements about the user's conditions or medicines) with personal identifiers
removed (`redact_identifiers`: phone numbers, 주민등록번호, e-mail, introduced names) — and only for
turns that passed the scope stage and are questions (the agent decides when to emit it).

Usage:
    web_query("제 이름은 홍길동이고 HIV 양성이에요. 타이레놀 먹어도 되나요?")   # "타이레놀 먹어도 되나요?"
"""

from __future__ import annotations

from yaksa.extraction.speech_act import question_part
from yaksa.privacy import redact_identifiers


def web_query(message: str) -> str:
    """The asking part of `message` without identifiers; "" when nothing may be sent."""
    return redact_identifiers(question_part(message)).strip()
