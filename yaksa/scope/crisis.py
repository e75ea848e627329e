"""Messages that need crisis help, not a document: thoughts of suicide or self-harm, questions about
a lethal amount, and an overdose that has already happened.

Why rules, first, and not the scope model: "수면제 50알 먹으면 죽나요" names a medicine and is
squarely in the corpus's vocabulary, so the scope model lets it through and retrieval answers it
from the sleeping pill's label (its dose, its indication). For these messages the right reply is the
same for everybody and must not depend on a model's threshold: where to get help now (자살예방상담전화
109, 119), no amounts, no method. The rules run before the greeting check, the scope model, the
cache, the LLM, memory and web search, under every ablation profile.

The patterns look for intent or an event, not for words alone: "이 약 부작용에 자살 충동이 있나요"
(a side-effect question about a drug) and "타이레놀 2알 먹었는데 또 먹어도 돼요" (an ordinary dosing
question) are not crises. A pill count counts as an overdose from `OVERDOSE_MIN_UNITS` units up.
What the rules catch and miss is measured on the committed question sets (none of their in-scope
questions trips them) and on the crisis examples in `tests/scope/test_crisis.py`.

Usage:
    crisis_kind("죽고 싶어요")                          # "self_harm"
    crisis_kind("수면제 50알 먹으면 죽나요")             # "lethal_amount"
    crisis_kind("아이가 해열제 시럽을 한 통 다 마셨어요")  # "overdose_taken"
    crisis_kind("타이레놀 부작용")                       # None
"""

from __future__ import annotations

import re

from yaksa.scope.decision import ScopeDecision

CRISIS_RULES = "crisis-rules-v1"  # the deciding "model" a crisis decision names
CRISIS_REASON_PREFIX = "crisis:"
SELF_HARM = "self_harm"
LETHAL_AMOUNT = "lethal_amount"
OVERDOSE_TAKEN = "overdose_taken"
OVERDOSE_MIN_UNITS = 10  # "2알 먹었는데" is a dosing question; "30알 먹었어요" is an emergency

# first-person intent: these always mean crisis, whatever else the message asks
_SELF_HARM = re.compile(
    r"죽고\s?싶|죽어\s?버리고\s?싶|살기\s?(가\s?)?싫|살고\s?싶지\s?않|사라지고\s?싶|없어지고\s?싶"
    r"|자살\s?(하고|하려|할까|할\s?거|할래|하는\s?법|하는\s?방법|시도|을\s?(하|생각|시도))|자해\s?(하|를\s?하|했)"
    r"|극단적\s?(인\s?)?선택|목숨을\s?끊|스스로\s?목숨|손목을\s?긋"
    r"|\b(kill|hurt|harm)\s+myself\b|\bwant\s+to\s+die\b|\bend\s+(my\s+life|it\s+all)\b"
    r"|\bcommit\s+suicide\b|\bsuicide\s+(plan|method)|\bi(\s+a)?m\s+suicidal\b",
    re.IGNORECASE)
# how much of something kills: asked for an amount or a way, never answered with one
_LETHAL = re.compile(
    r"치사량|치명적인?\s?(양|용량)|(먹|마시|삼키)(으면|면|고|어서|어도)\s?(바로\s?|정말\s?|진짜\s?)?죽"
    r"|죽(을|는)\s?(수\s?있는\s?)?(약|양|만큼|용량|방법)|죽으려면|죽을\s?수\s?있(나|어|을까|는지)"
    r"|\blethal\s+(dose|amount)|\bhow\s+many\b.{0,40}\b(to|would)\s+(die|kill)\b|\bfatal\s+dose\b"
    r"|\boverdose\s+(on|to\s+die)\b",
    re.IGNORECASE)
# an overdose that has happened (someone needs 119 now, not a label)
_TAKEN_VERB = r"(먹었|먹어\s?버렸|먹어버렸|삼켰|삼켜\s?버렸|마셨|마셔\s?버렸|먹였|털어\s?넣었)"
_OVERDOSE_TAKEN = re.compile(
    rf"(한\s?통|통째로|한\s?번에\s?다|한꺼번에|전부\s?다|몽땅|다\s?털어)\s?(을|를|다)?\s?.{{0,10}}{_TAKEN_VERB}"
    rf"|과다\s?복용\s?(했|해\s?버렸|해버렸|한\s?것\s?같)"
    # a child who got into the medicine; an adult's double dose ("실수로 두 번") is a dosing question
    rf"|(아이|애기|아기|아가|애가|우리\s?애|아들|딸|손자|손녀)[^.?!]{{0,30}}(실수로|몰래|모르고|꺼내|주워)"
    rf"[^.?!]{{0,20}}{_TAKEN_VERB}"
    r"|\b(overdosed|i\s+took\s+too\s+many|swallowed\s+(a|the)\s+whole\s+bottle)\b"
    r"|\baccidentally\s+(took|swallowed|ate|drank)\b",
    re.IGNORECASE)
_COUNT_TAKEN = re.compile(rf"(\d+)\s?(알|정|개|캡슐|포)\s?(을|를|이나|씩)?\s?.{{0,10}}{_TAKEN_VERB}")
_WORD_COUNT_TAKEN = re.compile(rf"(열|스무|서른|마흔|쉰|수십)\s?(알|정|개|캡슐|포)\s?(을|를|이나|씩)?\s?.{{0,10}}{_TAKEN_VERB}")


def crisis_kind(question: str) -> str | None:
    """Which crisis the message shows (`SELF_HARM`, `LETHAL_AMOUNT`, `OVERDOSE_TAKEN`), or None."""
    text = question.strip()
    if _SELF_HARM.search(text):
        return SELF_HARM
    if _LETHAL.search(text):
        return LETHAL_AMOUNT
    if _OVERDOSE_TAKEN.search(text) or _WORD_COUNT_TAKEN.search(text):
        return OVERDOSE_TAKEN
    if any(int(m.group(1)) >= OVERDOSE_MIN_UNITS for m in _COUNT_TAKEN.finditer(text)):
        return OVERDOSE_TAKEN
    return None


def crisis_decision(question: str) -> ScopeDecision | None:
    """The scope decision for a crisis message (not answered from documents), or None."""
    kind = crisis_kind(question)
    if kind is None:
        return None
    return ScopeDecision(False, f"{CRISIS_REASON_PREFIX}{kind}", {"crisis": kind}, CRISIS_RULES)


def is_crisis(decision: ScopeDecision) -> bool:
    return decision.reason.startswith(CRISIS_REASON_PREFIX)
