"""A medicine past its expiry date, and whether it may still be taken: "유통기한 지난 타이레놀 먹어도 되나요?".

Why: asked as a user on the full bundle (2026-11-30), it got a paracetamol tablet's storage section ("실온에서
보관하십시오"), which answers nothing it asked. Of the 29,153 documents only three eye drops' cautions say what to
do past the date ("사용기한을 초과한 것은 사용하지 않고"); a label's expiry date is printed on its pack, not in the
text. The reply says so, what the date means and where an expired medicine goes
(`yaksa.agent.replies.expiry_care_reply`).

What counts: an expiry word (유통기한, 사용기한, 유효기간) said to be past ("지난", "지났는데", "넘은", "넘었어요")
and a question about taking or using it, or about what to do with it. Korean only.
"""

from __future__ import annotations

import re

_PAST_EXPIRY = re.compile(r"(?:유통|사용|유효)\s*기(?:한|간)(?:이|을|은)?\s*(?:\S+\s+){0,2}(?:지난|지났|지나|넘은|넘었|넘긴|넘어|초과)")
_ASKED = re.compile(r"(?:먹어도|먹여도|드셔도|복용해도|써도|발라도|사용해도|넣어도|뿌려도|괜찮|되나요|돼요|될까|어떻게|버려|버리)")


# a medicine said in words ("지난 약", "연고"); a product named is the caller's to say (`names_a_medicine`): "유통기한
# 지난 우유 마셔도 되나요" is about food
_MEDICINE_WORD = re.compile(r"약|연고|크림|시럽|캡슐|알약|정제|파스|영양제|비타민|유산균|밴드|가글|스프레이")


def asks_about_an_expired_medicine(text: str, *, names_a_medicine: bool = False) -> bool:
    """Whether the message says a medicine is past its expiry date and asks about it (module doc);
    `names_a_medicine`: the message names a product or a drug class (the turn's focus says so)."""
    past = _PAST_EXPIRY.search(text)
    if past is None or _ASKED.search(text, past.end()) is None:
        return False
    return names_a_medicine or _MEDICINE_WORD.search(text) is not None
