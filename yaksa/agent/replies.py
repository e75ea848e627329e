"""Fixed replies for turns that need no evidence: greetings, profile statements, refusals.

Why fixed text: these turns must not call an LLM (a refusal especially: out-of-scope questions
are refused before any LLM call), and they are the same for every user. Whether a message is a
statement at all is decided by `yaksa.extraction.speech_act.message_kind`.
"""

from __future__ import annotations

import re

from yaksa.llm.safety import SAFETY_LINE_EN, SAFETY_LINE_KO

_HANGUL = re.compile(r"[\uac00-\ud7a3]")


def chitchat_reply(text: str) -> str:
    if _HANGUL.search(text) or not text.isascii():
        return ("안녕하세요! 약의 효능, 복용법, 부작용, 상호작용이나 증상에 맞는 일반의약품이 궁금하시면 "
                "편하게 물어보세요.")
    return "Hello! Ask me about a medicine's uses, dosing, side effects or interactions."


def statement_reply(summary: str) -> str:
    remembered = f" 지금까지 기억한 내용: {summary}" if summary else ""
    return (f"말씀하신 내용을 기억해 두고 다음 답변에 반영할게요.{remembered} "
            "궁금한 약이나 증상을 물어보세요.")


def refusal_reply(text: str) -> str:
    if _HANGUL.search(text):
        return ("죄송합니다. 이 질문은 의약품·건강 정보의 범위를 벗어나 답변드리기 어렵습니다. "
                f"약의 효능, 복용법, 부작용, 상호작용에 대해 물어봐 주세요. {SAFETY_LINE_KO}")
    return ("Sorry, this question is outside what I can answer: I cover medicines and health information "
            f"(uses, dosing, side effects, interactions). {SAFETY_LINE_EN}")
