"""The safety rules every answer obeys, in one place: citations, the consult line, and doses.

Why together: the extractive generator writes answers that satisfy these rules, the rule verifier
checks them and the rule corrector repairs them; one definition keeps the three in agreement.

Dose check: a number followed by a unit or a count word ("500mg", "1~2정", "1일 3회", "4시간") is a
claim about dosing; an answer may only contain such mentions that appear in the documents it cites.
Both sides are normalised (spaces dropped, 밀리그람/밀리그램 → mg, ～/〜 → ~) and a mention must match
at a number boundary, so "5mg" is not "found" inside "2.5mg" and "1000mg" never inside "500mg".
"""

from __future__ import annotations

import re

from yaksa.text.lexical import is_korean

SAFETY_PHRASE = "전문가와 꼭 상담하세요"
SAFETY_LINE_KO = "복용 전에 약사나 의사 등 전문가와 꼭 상담하세요."
SAFETY_LINE_EN = "Please consult a pharmacist or doctor before taking any medicine. (전문가와 꼭 상담하세요.)"
# After "call 119 / see a doctor today" with no label quoted, "before taking it, consult" reads oddly: this
# closing says not to wait it out on medicines and to tell the doctor what was taken, and keeps the phrase.
URGENT_LINE_KO = "약으로 버티며 기다리지 마시고, 이미 드신 약이 있으면 진료 때 알려 주세요. 약은 약사나 의사 등 전문가와 꼭 상담하세요."
URGENT_LINE_EN = ("Do not wait it out on medicines; tell the doctor what you have already taken. "
                  "(전문가와 꼭 상담하세요.)")
# ... but after too many pills, a poison or a child's double dose the medicine is the harm: bring its pack, take no
# further dose until advised
SWALLOWED_LINE_KO = ("먹은 약이나 제품의 상자·병을 챙겨 의료진에게 보여 주시고, 안내를 받기 전에는 약을 더 먹거나 먹이지 마세요. "
                     "약은 약사나 의사 등 전문가와 꼭 상담하세요.")
# ... and after thoughts of giving up on life, to tell someone (the helplines, and "혼자 견디지 않으셔도 됩니다", are in
# the advice above it)
MIND_LINE_KO = ("믿을 수 있는 사람에게 지금의 마음을 이야기해 주세요. 드시는 약이 있으면 상담할 때 알려 주세요. "
                "약은 약사나 의사 등 전문가와 꼭 상담하세요.")
MIND_LINE_EN = ("Tell someone you trust how you feel now, and mention any medicine you take when you talk to a "
                "professional. (전문가와 꼭 상담하세요.)")
SWALLOWED_LINE_EN = ("Take the box or bottle with you, and take or give no further dose until advised. "
                     "(전문가와 꼭 상담하세요.)")
# (Korean, English) closing line by a red flag's `closing` (`yaksa.scope.red_flags.CLOSINGS`)
_URGENT_LINES: dict[str, tuple[str, str]] = {"urgent": (URGENT_LINE_KO, URGENT_LINE_EN),
                                             "swallowed": (SWALLOWED_LINE_KO, SWALLOWED_LINE_EN),
                                             "mind": (MIND_LINE_KO, MIND_LINE_EN)}
CITATION = re.compile(r"\[문서\s*(\d+)\]")

_UNITS = (
    "밀리그람|밀리그램|밀리리터|마이크로그램|그램|mg|mcg|µg|μg|ml|g|iu|%|정|캡슐|알|포|병|방울|회|번|"
    "시간|일|주|개월|세|잔|tablets?|capsules?|times|hours?|days?|years?"
)
_DOSE = re.compile(
    rf"(?<![\d.])\d+(?:\.\d+)?(?:\s*[~～〜\-]\s*\d+(?:\.\d+)?)?\s*(?:{_UNITS})(?![A-Za-z])", re.IGNORECASE
)
_UNIT_ALIASES = (("밀리그람", "mg"), ("밀리그램", "mg"), ("밀리리터", "ml"), ("마이크로그램", "mcg"),
                 ("µg", "mcg"), ("μg", "mcg"), ("그램", "g"), ("～", "~"), ("〜", "~"), ("-", "~"))  # fmt: skip


def safety_line(question: str) -> str:
    """The closing line for an answer to `question` (English questions get both languages)."""
    return SAFETY_LINE_KO if is_korean(question) else SAFETY_LINE_EN


def urgent_line(question: str, closing: str = "urgent") -> str:
    """The closing line of an answer that is urgent advice only (no label follows it), by the red flag's
    `closing`: "urgent" (do not wait it out on medicines), "swallowed" (the harm is what was taken: bring its pack,
    no further dose), "mind" (a thought of giving up on life, to which "do not wait it out on medicines" says
    nothing: tell someone trusted)."""
    ko, en = _URGENT_LINES[closing]
    return ko if is_korean(question) else en


def has_safety_line(answer: str) -> bool:
    return SAFETY_PHRASE in answer


def cited_numbers(text: str) -> list[int]:
    """The N of every `[문서 N]` in order of appearance (with repeats)."""
    return [int(n) for n in CITATION.findall(text)]


def _normalise(text: str) -> str:
    """Lower case, no whitespace, unit aliases folded; digits that whitespace kept apart stay apart
    ("SpO2 88%" must not read as "288%", which would hide "88%")."""
    text = re.sub(r"(?<=\d)\s+(?=\d)", "|", text.lower())
    text = re.sub(r"\s+", "", text)
    for src, dst in _UNIT_ALIASES:
        text = text.replace(src, dst)
    return text


def dose_mentions(text: str) -> list[str]:
    """Number+unit mentions in `text`, as written (without the citation markers' numbers)."""
    return [m.group(0).strip() for m in _DOSE.finditer(CITATION.sub(" ", text))]


def unsupported_doses(text: str, sources: str) -> list[str]:
    """The dose mentions of `text` that do not occur in `sources` (the cited documents' text)."""
    haystack = _normalise(sources)
    missing: list[str] = []
    for mention in dose_mentions(text):
        pattern = rf"(?<!\d)(?<!\d\.){re.escape(_normalise(mention))}"  # "5mg" is not in "2.5mg"
        if not re.search(pattern, haystack) and mention not in missing:
            missing.append(mention)
    return missing
