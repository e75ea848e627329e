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

from yaksa.extraction.post_reader import is_long
from yaksa.scope.red_flags import FEVER_TEMP, ReadMessage, RedFlag, load_table, read_message

# in the order the reply lists them: by age, then the signs, then how long
BABY_FEVER_RULE = "fever_under_3_months"   # any fever of 38 °C under 3 months: go now
CHILD_FEVER_RULES = (BABY_FEVER_RULE, "fever_3_to_6_months", "child_fever_red", "child_fever_amber",
                     "child_fever_5_days")
ADULT_FEVER_RULES = ("meningitis_signs", "sepsis_signs", "fever_breathless")
PREGNANCY_FEVER_RULES = ("pregnancy_fever",)

# when to seek care, or how high is too high: "몇 도부터", "몇도면", "언제 병원", "병원 가야 하나요", "응급실 가야"
_ASKS_WHEN_KO = re.compile(
    r"몇\s?도(?:부터|면|이면|이상|넘|가\s?넘|일\s?때|에서)|언제\s?(?:병원|응급실|진료|소아과|데려)"
    r"|(?:병원|응급실|소아과|소아청소년과)(?:에|을|를|은|는)?\s?(?:가야|가\s?봐야|가봐야|데려가야|데리고\s?가야|가는\s?게|갈까)"
    r"|(?:몇\s?도|어느\s?정도|얼마나)\s?(?:높으면|올라가면|되면)")
# or how long it lasts, whether it is all right, whether to wait and see: "언제까지 열이 지속되는지 괜찮은 증상인지"
# (a parent of a 4½-year-old with 39 °C after a vaccination was only told to see a doctor), "지켜봐도 되나요"
_ASKS_HOW_LONG_KO = re.compile(
    r"언제까지\s?(?:열|고열|미열|지속|계속|이러|이럴|그럴|갈|가나|가요|날|나)|며칠\s?(?:이나|까지|정도)?\s?(?:지속|계속|갈|가요|가나)"
    r"|지켜\s?봐도|지켜\s?보면|기다려\s?(?:봐도|도)|두고\s?봐도|(?:병원|응급실)에?\s?안\s?가도"
    r"|괜찮은\s?(?:증상|건지|건가요|걸까요|상태)|걱정\s?(?:안\s?해도|하지\s?않아도)")
_ASKS_WHEN_EN = re.compile(
    r"\b(?:when|what\s+temperature|how\s+high)\b.{0,60}\b(?:doctor|hospital|gp|a\s*&\s*e|emergency|er|worry|worried"
    r"|too\s+high|dangerous|seek)\b")


# "어떤 병원을 가야", "무슨 과에 가야": which department, not when
_WHICH_PLACE = re.compile(r"(?:어떤|어느|무슨|어디|몇)\s?(?:병원|과|진료과)?\s?(?:에|을|를|로)?\s?$")
# asked, not told: an interrogative word in the phrase, or a question ending right after it ("지켜봐도 되나요",
# not the story's "1시간 지켜봐도 열이 내리지 않아 응급실 감")
_INTERROGATIVE = re.compile(r"몇|언제|며칠|얼마나|어느\s?정도")
_QUESTION_END = re.compile(r"[^.!\n]{0,20}?(?:\?|나요|까요|가요|는지|은지|인지|건지|걸까|을까|될까|할까|되나|는가|인가|건가|하나"
                           r"|죠|(?:해|돼|되|가|봐)요?\s*$)")
FEVER_BEFORE_REACH = 40   # characters before the question within which the fever must be said
FEVER_AFTER_REACH = 40    # and after it, in a short message only ("병원 가야 해요? 아기가 39도예요")


def _asks_about_the_fever(msg: ReadMessage) -> bool:
    """The message asks when to go, how long, or whether to wait, with a fever said right before the question
    (or right after it, in a short message). Why the nearness: in a long post the fever is often beside the
    point ("… 38도 열, 콧물 [a past cold] … 병원에 가야 한다면 어느 과로", "수술 후 열이 나서 … 장이 부었는데
    괜찮은건지 지켜봐야 하는지"), and the fever rules would answer a question it did not ask."""
    text = msg.text
    spots = [start for start, _ in msg.hits("fever")] + [p for t, p in msg.temperatures if t >= FEVER_TEMP]
    after = 0 if is_long(text) else FEVER_AFTER_REACH
    for pattern in (_ASKS_WHEN_KO, _ASKS_HOW_LONG_KO):
        for m in pattern.finditer(text):
            if _WHICH_PLACE.search(text, max(0, m.start() - 12), m.start()):
                continue
            if not (_INTERROGATIVE.search(m.group(0)) or _QUESTION_END.match(text, m.end())):
                continue
            if any(m.start() - FEVER_BEFORE_REACH <= spot <= m.end() + after for spot in spots):
                return True
    return False


def rules_asked(text: str | ReadMessage) -> tuple[RedFlag, ...] | None:
    """The rules whose advice answers a question about when a fever needs a doctor, for the person it
    is about, in reply order; None when the message does not ask that (no un-negated fever, or no
    "when / how high / how long / may we wait"). `text` may be the message as the red-flag check already read it."""
    msg = text if isinstance(text, ReadMessage) else read_message(text)
    if not msg.text or not msg.has("fever"):
        return None
    if not (_asks_about_the_fever(msg) or (msg.latin and _ASKS_WHEN_EN.search(msg.text))):
        return None
    if msg.is_child():
        return _child_fever_rules(msg)
    # the table's own pregnancy term ("임신 중", "임산부"; not "임신 가능성", "임신 아니에요")
    pregnant = msg.has("pregnant") and not msg.has("not_pregnant")
    ids = (PREGNANCY_FEVER_RULES if pregnant else ()) + ADULT_FEVER_RULES
    table = load_table()
    return tuple(table.rule(r).flag for r in ids)


def _child_fever_rules(msg: ReadMessage) -> tuple[RedFlag, ...]:
    """The child fever rules in reply order; a stated age keeps only the age-bound rules that fit it ("8개월
    아기": not the under-3-months one)."""
    table = load_table()
    ages = [days for days, _, _ in msg.ages]
    rules = [table.rule(r) for r in CHILD_FEVER_RULES]
    return tuple(r.flag for r in rules if r.age_days is None or not ages
                 or any(r.age_days[0] <= d < r.age_days[1] for d in ages))


def watch_rules(text: str | ReadMessage) -> tuple[RedFlag, ...] | None:
    """The child fever rules that tell when a fever needs a doctor, for a message about a feverish child that
    meets none of them and asks something else (how much antipyretic): said after the labels. None for an
    adult, a message with no un-negated fever, or one that asks when to go (`rules_asked` answers that).

    Why: "4개월 아기가 열이 38.5도예요 해열제 먹여도 되나요?" got the dose and nothing on when to take the baby
    in (NICE NG143: 39 °C at 3-6 months is amber; a red sign at any age); a pharmacist giving an antipyretic
    to a parent says when to see a doctor."""
    msg = text if isinstance(text, ReadMessage) else read_message(text)
    if not msg.text or not msg.has("fever") or not msg.is_child() or rules_asked(msg) is not None:
        return None
    return _child_fever_rules(msg) or None


def opens_the_answer(rules: tuple[RedFlag, ...] | None, population: tuple[str, ...]) -> bool:
    """Whether the watch list (`watch_rules`) comes before the labels rather than after: for a baby whose age is
    not said ("아기가 열이 올라요"), who may be under 3 months, when any fever of 38 °C is "go now" (NICE NG143),
    which a parent must read before a label's children's dose. A child (아이) of unknown age, or a stated age
    (the under-3-months rule left out by `watch_rules` when it does not fit), keeps the labels first."""
    return bool(rules) and "infant" in population and BABY_FEVER_RULE in {f.rule_id for f in rules}


INFANT_DAYS = 365   # a rule bound to ages under this is a baby's ("생후 3개월 미만", "3~6개월")


def for_a_child_over_one(flags: tuple[RedFlag, ...]) -> tuple[RedFlag, ...]:
    """`flags` without the rules bound to a baby's age: for a child the conversation already knows is past
    infancy, when the message states no age ("아이 열이 39도인데 지켜봐도 되나요?" from a parent whose child is
    7 got the under-3-months rule first)."""
    table = load_table()
    return tuple(f for f in flags if (age := table.rule(f.rule_id).age_days) is None or age[1] > INFANT_DAYS)

