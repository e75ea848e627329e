""""At what temperature should I take my baby to hospital?": answered from the red-flag table.

Why: parents ask when a fever needs a doctor far more often than they describe one that does. "아기 열이
몇 도부터 병원 가야 해요?" names no medicine and no case, so the search found labels sharing no word with it,
and it got "the data has nothing on this" — while `data/red_flags.yaml` holds exactly the answer, with
its clinical source (NICE NG143 traffic-light table: any fever of 38 °C under 3 months, 39 °C at 3-6
months, red and amber signs, a fever of five days). This module recognises the question and picks the
rules whose advice answers it, for the person asked about: a child's fever rules for a child (only those
that fit a stated age), the adult ones otherwise (pregnancy's for a pregnant asker).

A message describing a fever that meets a rule is handled before this by the red-flag check itself
(the advice first, `yaksa.scope.red_flags`); this is for the question in general.

    rules_asked("아기 열이 몇 도부터 병원 가야 해요?")   # (fever_under_3_months, fever_3_to_6_months, ...)
    rules_asked("타이레놀 몇 알 먹어요?")                 # None
"""

from __future__ import annotations

import re

from yaksa.scope.red_flags import ReadMessage, RedFlag, load_table, read_message

# in the order the reply lists them: by age, then the signs, then how long
CHILD_FEVER_RULES = ("fever_under_3_months", "fever_3_to_6_months", "child_fever_red", "child_fever_amber",
                     "child_fever_5_days")
ADULT_FEVER_RULES = ("meningitis_signs", "sepsis_signs", "fever_breathless")
PREGNANCY_FEVER_RULES = ("pregnancy_fever",)

# when to seek care, or how high is too high: "몇 도부터", "몇도면", "언제 병원", "병원 가야 하나요", "응급실 가야"
_ASKS_WHEN_KO = re.compile(
    r"몇\s?도(?:부터|면|이면|이상|넘|가\s?넘|일\s?때|에서)|언제\s?(?:병원|응급실|진료|소아과|데려)"
    r"|(?:병원|응급실|소아과|소아청소년과)(?:에|을|를|은|는)?\s?(?:가야|가\s?봐야|가봐야|데려가야|데리고\s?가야|가는\s?게|갈까)"
    r"|(?:몇\s?도|어느\s?정도|얼마나)\s?(?:높으면|올라가면|되면)")
_ASKS_WHEN_EN = re.compile(
    r"\b(?:when|what\s+temperature|how\s+high)\b.{0,60}\b(?:doctor|hospital|gp|a\s*&\s*e|emergency|er|worry|worried"
    r"|too\s+high|dangerous|seek)\b")


def rules_asked(text: str | ReadMessage) -> tuple[RedFlag, ...] | None:
    """The rules whose advice answers a question about when a fever needs a doctor, for the person it
    is about, in reply order; None when the message does not ask that (no un-negated fever, or no
    "when / how high"). `text` may be the message as the red-flag check already read it."""
    msg = text if isinstance(text, ReadMessage) else read_message(text)
    if not msg.text or not msg.has("fever"):
        return None
    if not (_ASKS_WHEN_KO.search(msg.text) or (msg.latin and _ASKS_WHEN_EN.search(msg.text))):
        return None
    table = load_table()
    if msg.is_child():
        ages = [days for days, _, _ in msg.ages]
        rules = [table.rule(r) for r in CHILD_FEVER_RULES]
        # a stated age keeps only the age-bound rules that fit it ("8개월 아기": not the under-3-months one)
        rules = [r for r in rules if r.age_days is None or not ages
                 or any(r.age_days[0] <= d < r.age_days[1] for d in ages)]
    else:
        # the table's own pregnancy term ("임신 중", "임산부"; not "임신 가능성", "임신 아니에요")
        pregnant = msg.has("pregnant") and not msg.has("not_pregnant")
        ids = (PREGNANCY_FEVER_RULES if pregnant else ()) + ADULT_FEVER_RULES
        rules = [table.rule(r) for r in ids]
    return tuple(r.flag for r in rules)
