"""A dose brought back up, and whether to give it again: "아이가 해열제 먹고 바로 토했는데 다시 먹여야 하나요?".

Why: parents ask this often, and no drug label answers it. Found as a user on the full bundle (2026-11-30): the
question got two antipyretics' uses and doses (the search matched 해열제), and "약 먹고 10분 만에 토했어요 다시
먹어도 되나요?" was asked which medicine was meant, though the answer does not depend on it. How much of a dose
was absorbed before it came back up is not known, so a second dose may be a double dose (`child_extra_dose` is
the red flag for one already given): the reply says the labels hold nothing on it and whom to ask, with what to
tell them (`yaksa.agent.replies.redose_care_reply`).

What counts: being sick (토하다, 게우다) and then another dose asked about ("다시 먹여야", "또 먹어도", "한 번 더
먹여도 되나요"), in that order. Told, not asked ("다시 먹였더니 또 토했어요") does not count. Korean only.
"""

from __future__ import annotations

import re

# brought up: "토했는데", "토해서", "토하고", "게웠어요", "다 뱉었어요"
_VOMITED = r"(?:토했|토해|토하고|토한|게웠|게워|뱉었|뱉어)"
# then another dose, asked: "다시 먹여야 하나요", "또 먹어도 돼요", "한 번 더 먹여도", "새로 먹여야"
_AGAIN = r"(?:다시|또|한\s*번\s*더|한번\s*더|새로)"
_DOSE_ASKED = (r"(?:먹여|먹어|드셔|복용해|줘|줘야|먹여\s*줘)(?:야|도)"
               r"|(?:먹여|먹어|복용해|드셔)\s*(?:야\s*(?:하|되|돼)|도\s*(?:되|돼|괜찮))"
               r"|(?:먹일|먹을|복용할)\s*(?:까|지|수)")
_REDOSE_ASKED = re.compile(rf"{_VOMITED}[^.?!\n]{{0,40}}?{_AGAIN}\s*(?:\S+\s+){{0,2}}?(?:{_DOSE_ASKED})")


def asks_to_redose_after_vomiting(text: str) -> bool:
    """Whether the message says a dose came back up and asks about giving or taking it again (module doc)."""
    return _REDOSE_ASKED.search(text) is not None
