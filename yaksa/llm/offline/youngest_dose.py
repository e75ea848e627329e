"""A baby younger than every dose the quoted labels give.

Why: "3개월 아기가 열이 38.5도예요 해열제 먹여도 되나요?" was answered with a children's acetaminophen tablet whose
dosing table starts at 4 months ("4개월~6개월(몸무게 7~7.9 kg)의 1회 권장용량은 1정(80 mg)"), and nothing said
that no quoted dose is for a 3-month-old (found as a user on the full bundle, 2026-11-30). A fever at that age
needs no red flag (NICE NG143: under 3 months at 38 °C or more, or 3 to 6 months at 39 °C or more), but
the answer must not read as a dose for the person described: a parent is told, before the labels, that the
labels give none for this age and to ask a doctor or pharmacist first.

Read from the words alone: the youngest age the message states, in months, with the post reader's age patterns
(`yaksa.extraction.post_reader.youngest_stated_months`: "3개월 아기", "생후 10주", "50일 된 아기"), and
the youngest age any quoted dosing section names ("4개월~6개월", "생후 6개월 이상", "만 2세 이상").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from yaksa.extraction.post_reader import youngest_stated_months
from yaksa.llm.evidence import Citation
from yaksa.llm.safety import SAFETY_LINE_EN, SAFETY_PHRASE

# the youngest age a dosing section names: "4개월~6개월", "6개월 이상", "만 2세 이상", "2~3세"
# (or a range's lower end written bare: "3~5세는 1회 5 mL", "4~6개월")
_LABEL_MONTHS = re.compile(r"(?<!\d)(\d{1,2})\s*(?:개월\s*(?:~|∼|-|이상|부터|에서)|(?:~|∼|-)\s*\d{1,2}\s*개월)")
_LABEL_YEARS = re.compile(r"(?<![\d.])(\d{1,2})\s*(?:세\s*(?:~|∼|-|이상|부터)|(?:~|∼|-)\s*\d{1,2}\s*세)")
USAGE_SECTION = "usage"


def youngest_dosed_months(citations: Sequence[Citation]) -> float | None:
    """The youngest age, in months, that a quoted dosing section gives a dose for; None when none names one."""
    ages = [float(m.group(1)) for c in citations if c.metadata.get("section_key") == USAGE_SECTION
            for m in _LABEL_MONTHS.finditer(c.text)]
    ages += [12.0 * float(m.group(1)) for c in citations if c.metadata.get("section_key") == USAGE_SECTION
             for m in _LABEL_YEARS.finditer(c.text)]
    return min(ages) if ages else None


def younger_than_the_labels(message: str, citations: Sequence[Citation], months: float | None = None) -> bool:
    """Whether the message's baby is younger than every dose the quoted dosing sections give. `months`: the child's
    age as the turn knows it (a follow-up naming no age: "시럽 하루에 몇 번 먹여요?" after "7살 아들이 기침을 해요");
    None reads it from the message."""
    months = youngest_stated_months(message) if months is None else months
    youngest = youngest_dosed_months(citations)
    return months is not None and youngest is not None and months < youngest


def dosed_only_older(citations: Sequence[Citation], months: float | None) -> frozenset[str]:
    """The products whose quoted dosing section gives no dose younger than the child's `months` ("성인 및 12세 이상의
    소아는 1회 10 mL" for a 7-year-old): a dose line of theirs is for someone else. Empty when the age is unknown."""
    if months is None:
        return frozenset()
    return frozenset(c.title for c in citations if c.metadata.get("section_key") == USAGE_SECTION
                     and (youngest := youngest_dosed_months([c])) is not None and months < youngest)


def younger_than_the_labels_note(korean: bool, baby: bool = True) -> str:
    """Said before the labels. No number: the answer's verifier reads any number near a time word as a dose.
    It ends with the consult phrase, so the rule verifier takes it as a consult paragraph, not an uncited claim.
    `baby`: the person is a baby (아기); else a child (아이: a 7-year-old and a syrup dosed from 12 years)."""
    if korean:
        who = "아기" if baby else "아이"
        return (f"아래 허가 정보의 용량은 물으신 {who}보다 큰 아이부터 정해져 있어, 이 나이의 {who}에게 맞는 용량은 "
                f"없습니다. 먹이기 전에 소아청소년과 의사나 약사 등 {SAFETY_PHRASE}.")
    who = "baby" if baby else "child"
    return (f"The dosing below starts at an older age than your {who}'s, so none of it is a dose for this age. "
            f"Ask a paediatrician before giving it. {SAFETY_LINE_EN}")
