"""A command to a phone or a home assistant: "내일 건강검진 일정 캘린더에 추가해줘", "약 먹을 시간 되면 알려줘".

Why: the team's test has assistant commands from a source we may not read (ParaKQC). Of 18 commands we wrote
that name a word of health (ours, not blind), 6 passed the stage on that word (검진 0.92, 병원 0.97, 체중 0.98)
and would have been answered from drug labels. What they ask is an action of the device (send, add, record,
play, switch, set, call, guide), which no pharmacist and no label does. The action verbs below end none of
the 1,218 shared exam stems, 3 of the 4,986 shared posts (all long: "…가르켜주세요"), none of our 594 in-scope
questions (counted 2026-11-30), so only a short message ending in one is refused.
"""

from __future__ import annotations

import re

DEVICE_REASON = "scope_model:device_command"
MAX_CHARS = 60      # a command is one short sentence; a post that ends so is read by the model
# an action of the device, asked for at the end of the message ("…추가해줘", "불 좀 켜 줘", "길 안내해 주세요")
_ACTION = (r"(?:보내|추가해|기록해|저장해|등록해|예약해|재생해|실행해|설정해|맞춰|(?<![가-힣])틀어|(?<![가-힣])켜|(?<![가-힣])꺼"
           r"|전화\s*(?:해|걸어)|길\s*(?:좀\s*)?(?:안내해|알려))")
_COMMAND = re.compile(_ACTION + r"\s*(?:줘|주세요|줄래|줄래요|줘요|주라|줄\s*수\s*있어)\s*[.!?~]*\s*$")
# a reminder asked of the device: "약 먹을 시간 되면 알려줘", "7시에 알림 맞춰줘"
_REMINDER = re.compile(r"(?:시간\s*(?:되면|이\s*되면|에)|(?:알람|알림)(?:을|를)?\s*(?:좀\s*)?)"
                       r"[가-힣\s]{0,6}?(?:알려|울려|맞춰|설정해|해)\s*(?:줘|주세요|줄래)\s*[.!?~]*\s*$")


def device_command(question: str) -> bool:
    """Whether `question` is a short command for a device's action (module doc)."""
    text = question.strip()
    return len(text) <= MAX_CHARS and bool(_COMMAND.search(text) or _REMINDER.search(text))
