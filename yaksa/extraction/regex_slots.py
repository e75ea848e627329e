"""Regex slots: age, age group, gender, pregnancy/breastfeeding, blood pressure, glucose, HbA1c.

Numbers and a few fixed phrases are what a dictionary NER cannot see, and they are the facts a
pharmacist asks first (a dose depends on age, pregnancy rules out many drugs). Rules are written for
Korean chat text and the common English forms; every value is checked for plausibility so "혈압약
2/3 알" or "수축기 1500" never becomes a vital sign.

Value conventions: age is years (float), age_group is "60s" / "infant" / "child" / "adolescent" /
"older_adult", gender "male"/"female", pregnancy and breastfeeding "yes"/"no" (a negated mention is
kept as "no": it overrides an older "yes" in the profile), blood pressure "150/95" mmHg (or
systolic/diastolic alone), glucose mg/dL unless mmol/L is written, HbA1c in %.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from yaksa.extraction.slots import SlotItem

_SEP = r"[^\d.?!\n]{0,12}?"  # keyword → number: particles, "수치가", ": " ... but not across a sentence

_AGE = re.compile(
    r"(?:만\s*)?(?<!\d)(?P<n>\d{1,3})\s*(?:세|살)(?!\s*(?:이상|이하|미만|부터))"
    r"|\b(?P<e>\d{1,3})[- ]?(?:years?[- ]old|y/?o|yrs?[- ]old)\b"
    r"|\bage[d]?\s+(?P<a>\d{1,3})\b",
    re.IGNORECASE,
)
_DECADE = re.compile(
    r"(?<!\d)(?P<k>[1-9]0)\s*대(?!\s*(?:이상|이하|부터))|\bin\s+(?:my|his|her|their)\s+(?P<e>[1-9]0)s\b", re.IGNORECASE
)
_AGE_GROUPS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("infant", re.compile(r"신생아|영아|아기|\binfants?\b|\bbaby\b", re.IGNORECASE)),
    ("child", re.compile(r"소아|어린이|유아|\bchild(?:ren)?\b|\bkids?\b", re.IGNORECASE)),
    ("adolescent", re.compile(r"청소년|\bteen(?:ager)?s?\b|\badolescents?\b", re.IGNORECASE)),
    ("older_adult", re.compile(r"노인|어르신|고령|\belderly\b|\bolder adults?\b", re.IGNORECASE)),
)
_GENDERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("male", re.compile(r"(?:남성|남자)(?!\s*친구|\s*호르몬)|\b(?:male|man)\b", re.IGNORECASE)),
    ("female", re.compile(r"(?:여성|여자)(?!\s*친구|\s*호르몬)|\b(?:female|woman)\b", re.IGNORECASE)),
)
_PREGNANT_NO = re.compile(
    r"임신\s*(?:은|을|한\s*것은|중은|중이)?\s*(?:아니|안\s*했|하지\s*않|안\s*한)|\bnot\s+pregnant\b",
    re.IGNORECASE,
)
_PREGNANT_YES = re.compile(
    r"임신\s*(?:중|했|하고|한\s*지|상태|\d+\s*(?:주|개월))|임산부|임부|\bpregnan(?:t|cy)\b", re.IGNORECASE
)
_NURSING_NO = re.compile(r"수유\s*(?:는|를|중은)?\s*(?:안\s*해|하지\s*않|아니|중이\s*아니)|\bnot\s+breast-?feeding\b",
                         re.IGNORECASE)
_NURSING_YES = re.compile(r"수유\s*중|모유\s*수유|수유부|\bbreast-?feeding\b|\bnursing\b", re.IGNORECASE)
_BP_PAIR = re.compile(
    rf"(?:혈압|\bBP\b|blood pressure){_SEP}(?<!\d)(?P<s>\d{{2,3}})\s*/\s*(?P<d>\d{{2,3}})(?!\d)"
    r"|(?<!\d)(?P<s2>\d{2,3})\s*/\s*(?P<d2>\d{2,3})\s*(?:mm\s*Hg|밀리미터\s*수은)",
    re.IGNORECASE,
)
_SYSTOLIC = re.compile(rf"(?:수축기|systolic){_SEP}(?P<v>\d{{2,3}})(?!\d)", re.IGNORECASE)
_DIASTOLIC = re.compile(rf"(?:이완기|확장기|diastolic){_SEP}(?P<v>\d{{2,3}})(?!\d)", re.IGNORECASE)
_GLUCOSE = re.compile(
    rf"(?P<kind>공복|식후|fasting|postprandial)?\s*(?:혈당|blood\s+(?:sugar|glucose)|glucose){_SEP}"
    r"(?P<v>\d{1,3}(?:\.\d+)?)(?!\d)\s*(?P<u>mg\s*/\s*dl|mmol\s*/\s*l)?",
    re.IGNORECASE,
)
_HBA1C = re.compile(
    rf"(?:당화\s*혈색소|당화\s*헤모글로빈|\bHbA1c|\bA1c|헤모글로빈\s*A1c){_SEP}(?P<v>\d{{1,2}}(?:\.\d+)?)(?!\d)\s*%?",
    re.IGNORECASE,
)


def _age_items(text: str) -> Iterator[tuple[int, SlotItem]]:
    for m in _AGE.finditer(text):
        years = int(m.group("n") or m.group("e") or m.group("a"))
        if 0 < years <= 120:
            yield m.start(), SlotItem("demographics", "age", float(years), "years", text=m.group(0))
    for m in _DECADE.finditer(text):
        yield m.start(), SlotItem("demographics", "age_group", f"{m.group('k') or m.group('e')}s", text=m.group(0))
    for group, pattern in _AGE_GROUPS:
        if m := pattern.search(text):
            yield m.start(), SlotItem("demographics", "age_group", group, text=m.group(0))


def _gender_items(text: str) -> Iterator[tuple[int, SlotItem]]:
    for gender, pattern in _GENDERS:
        if m := pattern.search(text):
            yield m.start(), SlotItem("demographics", "gender", gender, text=m.group(0))


def _flag_items(text: str, name: str, no: re.Pattern[str], yes: re.Pattern[str]) -> Iterator[tuple[int, SlotItem]]:
    """One yes/no item; a negated mention wins because "임신 중 아니에요" also contains "임신 중"."""
    if m := no.search(text):
        yield m.start(), SlotItem("demographics", name, "no", text=m.group(0))
    elif m := yes.search(text):
        yield m.start(), SlotItem("demographics", name, "yes", text=m.group(0))


def _bp_items(text: str) -> Iterator[tuple[int, SlotItem]]:
    pairs = 0
    for m in _BP_PAIR.finditer(text):
        sys_, dia = int(m.group("s") or m.group("s2")), int(m.group("d") or m.group("d2"))
        if 50 <= sys_ <= 300 and 20 <= dia <= 200 and sys_ > dia:
            pairs += 1
            yield m.start(), SlotItem("vitals", "blood_pressure", f"{sys_}/{dia}", "mmHg", text=m.group(0))
    if pairs:
        return
    sys_m, dia_m = _SYSTOLIC.search(text), _DIASTOLIC.search(text)
    if sys_m and not 50 <= int(sys_m.group("v")) <= 300:
        sys_m = None
    if dia_m and not 20 <= int(dia_m.group("v")) <= 200:
        dia_m = None
    if sys_m and dia_m:
        start, end = min(sys_m.start(), dia_m.start()), max(sys_m.end(), dia_m.end())
        value = f"{sys_m.group('v')}/{dia_m.group('v')}"
        yield start, SlotItem("vitals", "blood_pressure", value, "mmHg", text=text[start:end])
    elif sys_m:
        yield sys_m.start(), SlotItem("vitals", "blood_pressure_systolic", float(sys_m.group("v")), "mmHg",
                                      text=sys_m.group(0))
    elif dia_m:
        yield dia_m.start(), SlotItem("vitals", "blood_pressure_diastolic", float(dia_m.group("v")), "mmHg",
                                      text=dia_m.group(0))


def _glucose_items(text: str) -> Iterator[tuple[int, SlotItem]]:
    for m in _GLUCOSE.finditer(text):
        value = float(m.group("v"))
        mmol = bool(m.group("u")) and m.group("u").lower().startswith("mmol")
        if not (1 <= value <= 40 if mmol else 20 <= value <= 900):
            continue
        kind = (m.group("kind") or "").lower()
        name = {"공복": "fasting_glucose", "fasting": "fasting_glucose",
                "식후": "postprandial_glucose", "postprandial": "postprandial_glucose"}.get(kind, "glucose")
        yield m.start(), SlotItem("labs", name, value, "mmol/L" if mmol else "mg/dL", text=m.group(0).strip())


def _hba1c_items(text: str) -> Iterator[tuple[int, SlotItem]]:
    for m in _HBA1C.finditer(text):
        value = float(m.group("v"))
        if 3 <= value <= 20:
            yield m.start(), SlotItem("labs", "hba1c", value, "%", text=m.group(0))


def regex_slots(text: str) -> list[SlotItem]:
    """All regex slot items in `text`, in order of appearance."""
    if not isinstance(text, str):
        raise TypeError(f"regex_slots() expects str, got {type(text).__name__}")
    found = [
        *_age_items(text),
        *_gender_items(text),
        *_flag_items(text, "pregnancy", _PREGNANT_NO, _PREGNANT_YES),
        *_flag_items(text, "breastfeeding", _NURSING_NO, _NURSING_YES),
        *_bp_items(text),
        *_hba1c_items(text),
        *_glucose_items(text),
    ]
    return [item for _, item in sorted(found, key=lambda pair: pair[0])]
