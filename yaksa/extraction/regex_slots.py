"""Regex slots: age, age group, gender, pregnancy/breastfeeding, blood pressure, glucose, HbA1c, body
weight, and allergies ("페니실린 알레르기가 있어요").

Numbers and a few fixed phrases are what a dictionary NER cannot see, and they are the facts a
pharmacist asks first (a dose depends on age and a child's weight, pregnancy rules out many drugs, an
allergy rules out a drug outright). Rules are written for Korean chat text and the common English
forms; every value is checked for plausibility so "혈압약 2/3 알" or "수축기 1500" never becomes a
vital sign, and a number is a reading only when the sentence names it ("혈압 재보니 150에 95": a
blood pressure; "150에 95" alone: nothing; "몸무게는 17킬로": a weight; "5kg 빠졌어요": nothing).
A parent speaking for a child gives the child's sex as 아들/딸 next to the child's age ("6살 된 아들").

Value conventions: age is years (float), age_group is "60s" / "infant" / "child" / "adolescent" /
"older_adult", gender "male"/"female", pregnancy and breastfeeding "yes"/"no" (a negated mention is
kept as "no": it overrides an older "yes" in the profile), blood pressure "150/95" mmHg (or
systolic/diastolic alone), glucose mg/dL unless mmol/L is written, HbA1c in %, weight in kg, an
allergy a condition named "<what> 알레르기" (one per allergen listed).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from yaksa.extraction.slots import SlotItem
from yaksa.lexicon.focus import without_past_states

_SEP = r"[^\d.?!\n]{0,12}?"  # keyword → number: particles, "수치가", ": " ... but not across a sentence

_AGE = re.compile(
    r"(?:만\s*)?(?<!\d)(?P<n>\d{1,3})\s*(?:세|살)(?!\s*(?:이상|이하|미만|부터))"
    r"|\b(?P<e>\d{1,3})[- ]?(?:years?[- ]old|y/?o|yrs?[- ]old)\b"
    r"|\bage[d]?\s+(?P<a>\d{1,3})\b"
    # a form's "나이 17 여성이며" (90 of the shared posts say 나이 and a number with no unit)
    r"|나이\s*(?:는|가|:|-)?\s*(?:만\s*)?(?P<k>\d{1,2})(?!\s*(?:대|개월|kg|cm|키로|킬로|년|시|분|%|\d|\.\d))",
    re.IGNORECASE,
)
# Korean number words of an age ("세 살", "다섯살") and a birthday counted in 돌 ("두 돌", "돌 지난 아기"): how parents
# write a child's age. "애기 두돌인데 열이 38.7이에요" was filed as an infant of no stated age (2026-11-30). One table
# for the slots here, the post reader (`yaksa.extraction.post_reader`) and the red-flag rules (`yaksa.scope.red_flags`).
KOREAN_NUMBERS = {"한": 1, "두": 2, "세": 3, "네": 4, "다섯": 5, "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9, "열": 10}
# not a time ("세 살 때", "다섯 살부터"), and not 열 of a fever ("열이 살짝": no 살 right after 열 there)
AGE_IN_WORDS = re.compile(rf"(?<![가-힣])(?P<w>{'|'.join(KOREAN_NUMBERS)})\s?살"
                          r"(?!\s*(?:때|떄|까지|무렵|전|후|이상|이하|미만|부터|쯤|정도|동안|넘게))")
DOL_MONTHS: tuple[tuple[re.Pattern[str], float], ...] = (
    (re.compile(r"(?<![두세])(?<![두세]\s)(?:돌쟁이|돌\s?지난|첫\s?돌)"), 13.0),   # past the first birthday
    (re.compile(r"(?<![가-힣])두\s?돌"), 24.0),
    (re.compile(r"(?<![가-힣])세\s?돌"), 36.0),
)
_DECADE = re.compile(
    r"(?<!\d)(?P<k>[1-9]0)\s*대(?!\s*(?:이상|이하|부터))|\bin\s+(?:my|his|her|their)\s+(?P<e>[1-9]0)s\b", re.IGNORECASE
)
_AGE_GROUPS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("infant", re.compile(r"신생아|영아|아기|애기|\binfants?\b|\bbaby\b", re.IGNORECASE)),   # 애기: how many write it
    ("child", re.compile(r"소아|어린이|유아|\bchild(?:ren)?\b|\bkids?\b", re.IGNORECASE)),
    ("adolescent", re.compile(r"청소년|\bteen(?:ager)?s?\b|\badolescents?\b", re.IGNORECASE)),
    ("older_adult", re.compile(r"노인|어르신|고령|\belderly\b|\bolder adults?\b", re.IGNORECASE)),
)
_GENDERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # not a boy or a girl ("유치원생남자애가 …" in a woman's post made her 남성, 2026-11-30): a child's sex is
    # `_CHILD_SEX`'s, read only where no adult's is said
    ("male", re.compile(r"(?:남성|남자)(?!\s*친구|\s*호르몬|\s*(?:애|아이|어린이|아기|동생))|\b(?:male|man)\b",
                        re.IGNORECASE)),
    ("female", re.compile(r"(?:여성|여자)(?!\s*친구|\s*호르몬|\s*(?:애|아이|어린이|아기|동생))|\b(?:female|woman)\b",
                          re.IGNORECASE)),
)
# 아들/딸 is the patient's sex only beside the patient's age: "6살 된 아들", "딸이 5살이에요", "아들 3개월"
_AGE_WORD = r"(?:만\s*)?\d{1,2}\s*(?:살|세|개월)"
_CHILD_SEX = re.compile(
    rf"{_AGE_WORD}\s*(?:짜리\s*|된\s*|난\s*)?(?P<a>아들|딸)(?:아이)?(?![가-힣])"
    rf"|{_AGE_WORD}\s*(?:짜리\s*|된\s*|난\s*)?(?P<b>아들|딸)(?:아이)?(?=이|은|는|을|를|도|한테|에게|이랑|의|이에요|예요|입니다|인데|이고|때문)"
    rf"|(?<![가-힣])(?P<c>아들|딸)(?:아이)?(?:이|은|는|가)?\s*(?:올해\s*|이제\s*|지금\s*)?{_AGE_WORD}"
    r"|(?P<d>남자|여자)\s*(?:애|아이|어린이|아기)(?!스|템)"
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
# "혈압 재보니 150에 95", "혈압이 130에 80 정도": only with the word 혈압 before it
_BP_SPOKEN = re.compile(rf"(?:혈압|\bBP\b){_SEP}(?<!\d)(?P<s>\d{{2,3}})\s*에\s*(?P<d>\d{{2,3}})(?![\d.])",
                        re.IGNORECASE)
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

_WEIGHT = re.compile(
    rf"(?:체중|몸무게|\bweigh(?:t|s)?\b){_SEP}(?P<v>\d{{1,3}}(?:\.\d+)?)(?!\d)\s*"
    r"(?P<u>kg|킬로그램|킬로그람|킬로|키로|kilograms?|lbs?|pounds?)?",
    re.IGNORECASE,
)
# a change or a bound, not the weight: "5kg 빠졌어요", "60킬로 넘어요", "체중 1kg당"
_WEIGHT_NOT_A_READING = re.compile(r"^\s*(?:정도\s*|쯤\s*)?(?:빠|줄|늘|쪘|찌|감량|증가|감소|더|이상|이하|미만|넘|당|씩)")
# a number with another unit after the word 체중 ("체중이 3개월 동안 줄었어요") is not a weight
_OTHER_UNIT = re.compile(r"^\s*(?:개월|달|주|일|년|살|세|시간|분|cm|센티|%|번|회|알|정|mg|ml)", re.IGNORECASE)
_POUND = 0.45359237
# "X 알레르기가 있어요", "X와 Y에 알레르기가 있었어요": stated, the allergens listed right before it;
# "알레르기가 있으면 …?", "알레르기는 없어요", "알레르기 비염" (a condition of its own): not
_ALLERGY_STATED = re.compile(r"^\s*(?:가|는|도|이|반응이|반응)?\s*있(?:어|습|고|는데|음|다|으며|거든|었|던)")
_LIST_JOINT = re.compile(r"(?:,|과|와|하고|이랑|랑|및)$")
_NOT_ALLERGEN = re.compile(
    r"(?:은|는|가|도|께서|에서|에게|한테|고|요|다|서|며|면|데|지|니|죠)$|\d|살$|세$"
    r"|^(?:저|제|나|내|아이|애|아기|아들|딸|남편|아내|엄마|아빠|지금|현재|원래|예전|어릴|그리고|또|참|혹시|좀|약간|심한|심하게|특히)"
)
_MAX_ALLERGEN_WORDS = 3


def _age_items(text: str) -> Iterator[tuple[int, SlotItem]]:
    for m in _AGE.finditer(text):
        years = int(m.group("n") or m.group("e") or m.group("a") or m.group("k"))
        if 0 < years <= 120:
            yield m.start(), SlotItem("demographics", "age", float(years), "years", text=m.group(0))
    for m in AGE_IN_WORDS.finditer(text):
        yield m.start(), SlotItem("demographics", "age", float(KOREAN_NUMBERS[m.group("w")]), "years", text=m.group(0))
    for pattern, months in DOL_MONTHS:
        for m in pattern.finditer(text):
            yield m.start(), SlotItem("demographics", "age", float(months // 12), "years", text=m.group(0))
    for m in _DECADE.finditer(text):
        yield m.start(), SlotItem("demographics", "age_group", f"{m.group('k') or m.group('e')}s", text=m.group(0))
    for group, pattern in _AGE_GROUPS:
        if m := next((m for m in pattern.finditer(text) if not _a_class_of_people(text, m)), None):
            yield m.start(), SlotItem("demographics", "age_group", group, text=m.group(0))


def _a_class_of_people(text: str, m: re.Match[str]) -> bool:
    """Whether an age group is named as a class ("영아의 대천문이 닫히는 시기는?", "노인의 약물 대사 특징은?"): a
    textbook or exam question about infants, not a statement that the writer or their child is one (found as a
    user, 2026-11-30: the question filed "영아" in the writer's profile, and a later question about kimchi was
    answered with "your infant" cautions). "우리 아기의 …" is a person."""
    return bool(_GENITIVE.match(text, m.end())) and not _POSSESSOR.search(text[max(0, m.start() - 6):m.start()])


_GENITIVE = re.compile(r"의\s")
_POSSESSOR = re.compile(r"(?:우리|제|저희|내|울|our|my)\s*$", re.IGNORECASE)


def _gender_items(text: str) -> Iterator[tuple[int, SlotItem]]:
    found = False
    for gender, pattern in _GENDERS:
        if m := pattern.search(text):
            found = True
            yield m.start(), SlotItem("demographics", "gender", gender, text=m.group(0))
    if not found and (m := _CHILD_SEX.search(text)):
        word = m.group("a") or m.group("b") or m.group("c") or m.group("d")
        yield m.start(), SlotItem("demographics", "gender", "male" if word in ("아들", "남자") else "female",
                                  text=m.group(0))


def _flag_items(text: str, name: str, no: re.Pattern[str], yes: re.Pattern[str]) -> Iterator[tuple[int, SlotItem]]:
    """One yes/no item; a negated mention wins because "임신 중 아니에요" also contains "임신 중"; a past one is none
    ("임신했었는데": `without_past_states`)."""
    text = without_past_states(text)
    if m := no.search(text):
        yield m.start(), SlotItem("demographics", name, "no", text=m.group(0))
    elif m := yes.search(text):
        yield m.start(), SlotItem("demographics", name, "yes", text=m.group(0))


def _bp_items(text: str) -> Iterator[tuple[int, SlotItem]]:
    pairs = 0
    spoken = [(m, int(m.group("s")), int(m.group("d"))) for m in _BP_SPOKEN.finditer(text)]
    written = [(m, int(m.group("s") or m.group("s2")), int(m.group("d") or m.group("d2")))
               for m in _BP_PAIR.finditer(text)]
    for m, sys_, dia in sorted([*written, *spoken], key=lambda x: x[0].start()):
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


def _weight_items(text: str) -> Iterator[tuple[int, SlotItem]]:
    for m in _WEIGHT.finditer(text):
        if _WEIGHT_NOT_A_READING.match(text[m.end():]) or (not m.group("u") and _OTHER_UNIT.match(text[m.end():])):
            continue
        value, unit = float(m.group("v")), (m.group("u") or "kg").lower()
        if unit.startswith(("lb", "pound")):
            value = round(value * _POUND, 1)
        if 0.5 <= value <= 300:
            yield m.start(), SlotItem("vitals", "weight", value, "kg", text=m.group(0).strip())


def _allergens(before: str) -> list[str]:
    """The allergens listed at the end of `before` ("저는 페니실린과 설파제 항생제"): the words back to the
    first one that is not part of a noun list (a subject such as 저는/아이가, a verb, a number)."""
    items: list[list[str]] = [[]]
    for word in reversed(before.split()):
        joint = _LIST_JOINT.search(word)
        bare = word[: joint.start()] if joint and len(word) > len(joint.group(0)) else word
        if joint and items[-1]:
            items.append([])   # "A와 B": the word ending in 와 starts the item before B
        if not re.fullmatch(r"[가-힣A-Za-z0-9\-]+", bare) or _NOT_ALLERGEN.search(bare) \
                or len(items[-1]) >= _MAX_ALLERGEN_WORDS:
            break
        items[-1].insert(0, bare)
    return [" ".join(words) for words in reversed(items) if words]


def _allergy_items(text: str) -> Iterator[tuple[int, SlotItem]]:
    for m in re.finditer(r"알레르기", text):
        after = text[m.end():]
        if not _ALLERGY_STATED.match(after):   # also leaves "알레르기 비염" (a condition of its own) alone
            continue
        sentence_start = max(text.rfind(c, 0, m.start()) for c in ".!?\n") + 1
        before = re.sub(r"\s*(?:에\s*대한|에\s*대해|에)\s*$", "", text[sentence_start:m.start()])
        for allergen in _allergens(before):
            # the surface span: from where the allergen is said to the word 알레르기
            start = text.rfind(allergen.split()[0], sentence_start, m.start())
            yield start, SlotItem("conditions", f"{allergen} 알레르기", text=text[start:m.end()])


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
        *_weight_items(text),
        *_allergy_items(text),
    ]
    return [item for _, item in sorted(found, key=lambda pair: pair[0])]
