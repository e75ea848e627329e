"""Harmful requests about medicines: refused whatever the scope model says.

Why rules of their own: the learned scope model (`learned.py`) decides by *topic*, and "처방전 없이 마약성
진통제 구하는 방법" is about medicines — the exemplar model used to refuse it only because our own
out-of-scope set listed it beside bomb recipes. Getting a controlled drug around the prescription,
drugging someone without their knowledge, making illegal drugs, forging a prescription or poisoning a
person are in the topic and out of bounds, so they are recognised by meaning here and refused first,
under every profile, like the crisis rules (self-harm is the crisis stage's: `crisis.py`).

What is *not* caught: a patient asking whether a medicine needs a prescription ("수면제 처방전 없이 살 수
있어요?", "Can I buy ibuprofen without a prescription?") — that is an ordinary pharmacy question. A rule
needs the intent (how to obtain, secretly, to make, to forge), not a drug word.

Rules are regular expressions over the NFKC-folded, lower-cased text; `python -m pytest
tests/scope/test_harmful.py` holds the phrasings that must and must not trip them.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

HARMFUL_REASON_PREFIX = "harmful_request:"   # ScopeDecision.reason of a refusal by these rules

_CONTROLLED = (r"(마약성?|마약류|향정|향정신성|필로폰|메스암페타민|펜타닐|옥시코돈|모르핀|졸피뎀|스틸녹스|프로포폴|"
               r"수면제|수면\s?유도제|신경안정제|opioids?|oxycodone|oxycontin|fentanyl|morphine|xanax|adderall|"
               r"ambien|zolpidem|benzos?|sleeping\s+pills?|painkillers?)")

RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("obtain_controlled", re.compile(
        _CONTROLLED + r"[가-힣a-z ]{0,16}?(처방전?\s?없이|몰래|불법으?로|뒷구멍)[가-힣 ]{0,10}?(구하|구입|사는|살\s?수\s?있는\s?곳|얻)"
        r"|(처방전?\s?없이|불법으?로)\s?" + _CONTROLLED + r"[가-힣 ]{0,6}?(구하|구입하|사|얻)[가-힣]{0,2}\s?(법|방법|곳|데)"
        r"|(get|buy|obtain|score)\s+(prescription\s+)?" + _CONTROLLED + r"\s+(without\s+(a\s+)?prescription|illegally|online\s+without)"
        r"|(get|buy)\s+[a-z ]{0,20}without\s+(a\s+)?(doctor|prescription)[a-z ]{0,20}" + _CONTROLLED)),
    ("covert_drugging", re.compile(
        r"몰래[가-힣 ]{0,12}?(먹이|타는|타서|넣는|넣어|재우|먹게)|(먹이|타|넣)[가-힣 ]{0,6}몰래"
        r"|(사람|상대|남편|아내|여자|남자|친구)[가-힣 ]{0,8}(몰래\s?)?(재우|잠들게)[가-힣 ]{0,6}(법|방법|약)"
        r"|(spike|drug)\s+(someone|somebody|a\s+(person|girl|woman|man|drink)|my\s+\w+|her|his|their)"
        r"|without\s+(them|him|her)\s+(knowing|noticing)")),
    ("make_illegal_drug", re.compile(
        r"(필로폰|마약|메스암페타민|엑스터시|lsd)\s?(을|를)?\s?(만드|만들|제조|합성)"
        r"|(cook|make|synthesi[sz]e)\s+(meth|crystal|lsd|mdma|fentanyl|heroin)")),
    ("forge_prescription", re.compile(
        r"처방전\s?(을|를)?\s?(위조|조작|가짜로|만들어\s?내)|가짜\s?처방전"
        r"|(forge|fake|counterfeit)\s+(a\s+)?prescription")),
    ("poison_person", re.compile(
        r"(독살|독을\s?타|독극물로?\s?(죽이|해치))"
        r"|poison\s+(someone|somebody|a\s+person|my\s+\w+|him|her|them)"
        r"|(mix|make)\s+[a-z ]{0,30}toxic\s+gas")),
)


@dataclass(frozen=True)
class HarmfulRequest:
    rule: str
    match: str


def harmful_request(text: str) -> HarmfulRequest | None:
    """The first harmful-request rule the text trips, or None."""
    folded = unicodedata.normalize("NFKC", text).lower()
    for name, pattern in RULES:
        m = pattern.search(folded)
        if m:
            return HarmfulRequest(name, m.group(0))
    return None


def is_harmful_refusal(reason: str) -> bool:
    """True for a scope decision these rules took (the reply says why, not "off-topic")."""
    return reason.startswith(HARMFUL_REASON_PREFIX)


# The business of medicines, not medicines: shares, share prices, hiring, company adverts and sales.
# "감기약 회사 주식 사도 될까요" names a drug class, and the topic model reads it as near medicine; no label
# answers it. Refused as out of scope (not as harmful): a finance or jobs question with a drug word.
BUSINESS_MAX_CHARS = 60   # a question about shares or hiring is one short line; a patient's story never is
_BUSINESS = re.compile(
    r"(?<![가-힣0-9])(주식|주가|공모주|상장|시가총액|증권|채용|공고|연봉|면접|광고\s?모델|광고에?\s?나오는|매출|창업\s?비용)"
    r"|(회사|기업|제약사|약국|체인)\s?(주식|주가|채용|상장|광고|매출|창업)"
    r"|\b(stocks?|share\s+price|ipo|hiring|job\s+opening|salary|ad\s+campaign)\b")
_CARE = re.compile(r"먹어도|먹으면|복용|부작용|효능|용량|증상|아파|아프|통증|답답|열이|기침|병원|진료|질환|"
                   r"\b(dose|side\s+effects?|symptoms?|pain)\b")


def business_request(text: str) -> str | None:
    """The business word when the message asks about the business of medicines and nothing about care."""
    folded = unicodedata.normalize("NFKC", text).lower()
    if len(folded.strip()) > BUSINESS_MAX_CHARS:
        return None
    m = _BUSINESS.search(folded)
    if m is None or _CARE.search(folded):
        return None
    return m.group(0)
