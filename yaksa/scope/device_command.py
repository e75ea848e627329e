"""A command to a phone or a home assistant: "내일 건강검진 일정 캘린더에 추가해줘", "약 먹을 시간 되면 알려줘".

Why: the team's test has assistant commands from a source we may not read (ParaKQC). Of 18 commands we wrote
that name a word of health (ours, not blind), 6 passed the stage on that word (검진 0.92, 병원 0.97, 체중 0.98)
and would have been answered from drug labels. What they ask is an action of the device (send, add, record,
play, switch, set, call, guide), which no pharmacist and no label does. The action verbs below end none of
the 1,218 shared exam stems, 3 of the 4,986 shared posts (all long: "…가르켜주세요"), none of our 594 in-scope
questions (counted 2026-11-30), so only a short message ending in one is refused.

A short question on a home device's state ("현관문 잠겼어?", "에어컨 켜져 있어?", "냉장고 문 열려 있는지 확인해줘")
is refused the same way, unless it names a complaint ("에어컨 켜져 있는 방에서 자면 목이 아파요?"). With it,
29 of 3i4K's texts and one of ours match, and none of the 4,986 shared posts, the 1,218 exam stems, our
in-scope questions or any other in-scope source (counted 2026-11-30); of 30 home-assistant questions we wrote
(ours, not blind), the model alone refused 29, and let "화장실 불 꺼져 있니" through (화장실).
"""

from __future__ import annotations

import re

from yaksa.lexicon.focus import describes_a_body_complaint, everyday_symptoms

DEVICE_REASON = "scope_model:device_command"
MAX_CHARS = 60      # a command is one short sentence; a post that ends so is read by the model
# an action of the device, asked for at the end of the message ("…추가해줘", "불 좀 켜 줘", "길 안내해 주세요")
_ACTION = (r"(?:보내|추가해|기록해|저장해|등록해|예약해|재생해|실행해|설정해|맞춰|(?<![가-힣])틀어|(?<![가-힣])켜|(?<![가-힣])꺼"
           r"|잠가|잠궈|닫아"   # not 낮춰: "밀크씨슬 간 수치 낮춰줘요?" asks what it does
           r"|전화\s*(?:해|걸어)|길\s*(?:좀\s*)?(?:안내해|알려))")
_COMMAND = re.compile(_ACTION + r"\s*(?:줘|주세요|줄래|줄래요|줘요|주라|줄\s*수\s*있어)\s*[.!?~]*\s*$")
# a reminder asked of the device: "약 먹을 시간 되면 알려줘", "7시에 알림 맞춰줘"
_REMINDER = re.compile(r"(?:시간\s*(?:되면|이\s*되면|에)|(?:알람|알림)(?:을|를)?\s*(?:좀\s*)?)"
                       r"[가-힣\s]{0,6}?(?:알려|울려|맞춰|설정해|해)\s*(?:줘|주세요|줄래)\s*[.!?~]*\s*$")


# a home device's state, asked at the end ("화장실 세면대에 물 틀어져있는지 확인 해줄수있니", "현관문 잠겼어?", "에어컨
# 켜져 있어?"): a home assistant's question (3i4K's, by the writer of ParaKQC). 화장실 is a medical word (its
# visits), so the model passed the first left out of the fit (P 0.90).
_DEVICE = (r"(?<![가-힣])(?:불|전등|조명|에어컨|보일러|히터|난방|온풍기|선풍기|tv|티비|텔레비전|세탁기|건조기|청소기|공기청정기"
           r"|가습기|제습기|가스|밸브|가스레인지|인덕션|오븐|전자레인지|수도|물|문|현관문|창문|방문|냉장고|냉동실|냉장실"
           r"|전기장판|전원|컴퓨터|노트북|충전기|커튼|블라인드)")
_STATE = r"(?:켜져|꺼져|틀어져|잠겨|잠겼|열려|열렸|닫혀|닫혔|켜졌|꺼졌|돌아가|돌아갔|작동)"
_DEVICE_STATE = re.compile(
    _DEVICE + r"(?:이|가|은|는|을|를|도)?\s*(?:다\s*|잘\s*|아직\s*)?" + _STATE
    # asked: a question's ending or mark, or "…인지 확인해 줘 / 봐 줘" (a statement "문이 잠겼어요" is not)
    + r"\s*(?:(?:있어|있나|어|나요|어요)\s*\?|있니|있냐|있나요|니|냐|(?:있는지|는지)\s*(?:확인|봐|알려)[가-힣\s]{0,10})"
    r"\s*[.!?~]*\s*$")


def device_command(question: str) -> bool:
    """Whether `question` is a short command for a device's action, or a short question on a home device's
    state (module doc)."""
    text = question.strip()
    if len(text) > MAX_CHARS:
        return False
    if _COMMAND.search(text) or _REMINDER.search(text):
        return True
    # a complaint beside it is the writer's ("에어컨 켜져 있는 방에서 자면 목이 아파요"), not the house's
    return bool(_DEVICE_STATE.search(text.lower())) and not (everyday_symptoms(text) or describes_a_body_complaint(text))
