"""Render a user's active profile as a few Korean sentences for the generation context.

Why prose and not JSON: the summary goes straight into the prompt (and the offline extractive answer
quotes it), and a sentence such as "65세 남성. 질환: 당뇨병. 최근 혈압 150/95 mmHg (2시간 전)." is
what a pharmacist would write in a chart note. Measurements carry their age, because a reading from
yesterday must not be read as today's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from yaksa.lexicon.focus import CAREFUL_STATE_WORDS
from yaksa.memory.entry import ProfileEntry

LABELS: dict[str, str] = {
    "blood_pressure": "혈압",
    "glucose": "혈당",
    "hba1c": "당화혈색소(HbA1c)",
    "weight": "체중",
}
GENDER_WORDS: dict[str, str] = {   # a stored gender value, as the summary says it
    "male": "남성", "m": "남성", "남": "남성", "남성": "남성", "남자": "남성",
    "female": "여성", "f": "여성", "여": "여성", "여성": "여성", "여자": "여성",
}
# the age groups the extractor stores (`yaksa.extraction.regex_slots`), as the summary says them: the summary is
# read by the user and by the answer (`yaksa.lexicon.focus.profile_population` reads 영아, 어린이, 노인, 70대)
_AGE_GROUPS: dict[str, str] = {"infant": "영아", "child": "어린이", "adolescent": "청소년", "older_adult": "노인"}
_DECADE = re.compile(r"(\d{2})s")
NO_VALUES = frozenset({"no", "false", "0", "아니오", "아님", "none"})   # a flag stated as not so
MEDICATIONS_LABEL = "복용 중인 약"  # the summary's list of what the user takes (yaksa.llm.offline.duplicates reads it)
# the label of a relative's facts in the summary (the writer's have none)
PERSON_LABELS: dict[str, str] = {"child": "자녀", "parent": "부모", "spouse": "배우자", "sibling": "형제자매"}
_LIST_LABELS = (("conditions", "질환"), ("medications", MEDICATIONS_LABEL), ("symptoms", "증상"))


def format_value(value: str | float | None, unit: str | None) -> str:
    """`150/95 mmHg`, `7.2%`, `180 mg/dL`: whole floats without `.0`, `%` without a space."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = "" if value is None else str(value)
    if not unit:
        return text
    return f"{text}{unit}" if unit == "%" else f"{text} {unit}".strip()


def relative_age(then: datetime, now: datetime) -> str:
    """Korean relative time: 방금, 5분 전, 2시간 전, 3일 전."""
    minutes = max(0.0, (now - then).total_seconds() / 60)
    if minutes < 1:
        return "방금"
    if minutes < 60:
        return f"{int(minutes)}분 전"
    if minutes < 48 * 60:
        return f"{int(minutes // 60)}시간 전"
    return f"{int(minutes // (60 * 24))}일 전"


# the demographics slot of each careful state, said as the focus reads it back (`CAREFUL_STATE_WORDS`)
_CAREFUL_STATES = (("pregnancy", CAREFUL_STATE_WORDS["pregnant"]), ("breastfeeding", CAREFUL_STATE_WORDS["breastfeeding"]))


def _demographics(entries: Sequence[ProfileEntry]) -> str:
    by_name = {e.item.name: e.item.value for e in entries if e.item.slot_type == "demographics"}
    parts: list[str] = []
    if by_name.get("age") is not None:
        parts.append(f"{format_value(by_name['age'], None)}세")
    elif by_name.get("age_group") is not None:
        group = str(by_name["age_group"])
        decade = _DECADE.fullmatch(group)
        parts.append(f"{decade.group(1)}대" if decade else _AGE_GROUPS.get(group, group))
    gender = by_name.get("gender")
    if gender is not None:
        parts.append(GENDER_WORDS.get(str(gender).strip().casefold(), str(gender)))
    # "임신 중", "수유 중": what `yaksa.lexicon.focus.profile_population` reads back, so a later "타이레놀 먹어도
    # 돼요?" is asked for a nursing mother too (breastfeeding was extracted but never summarised, 2026-11-30)
    for name, words in _CAREFUL_STATES:
        if name in by_name and str(by_name[name]).strip().casefold() not in NO_VALUES:
            parts.append(words)
    return " ".join(parts)


def _measurements(entries: Sequence[ProfileEntry], slot_type: str, now: datetime) -> str:
    return ", ".join(
        f"{LABELS.get(e.item.name, e.item.name)} {format_value(e.item.value, e.item.unit)} "
        f"({relative_age(e.stored_at, now)})"
        for e in entries if e.item.slot_type == slot_type
    )


def render_summary(entries: Sequence[ProfileEntry], now: datetime) -> str:
    """Sentences for the active entries, in a fixed order, the writer's first and each relative's
    under its label ("(자녀) 5세."); "" when nothing is remembered."""
    active = [e for e in entries if e.active]
    people = dict.fromkeys(["self", *(e.item.about for e in active)])
    parts = []
    for about in people:
        text = _person_summary([e for e in active if e.item.about == about], now)
        if text:
            parts.append(text if about == "self" else f"({PERSON_LABELS[about]}) {text}")
    return " ".join(parts)


def _person_summary(active: Sequence[ProfileEntry], now: datetime) -> str:
    sentences: list[str] = []
    if demo := _demographics(active):
        sentences.append(demo)
    for slot_type, label in _LIST_LABELS:
        names = list(dict.fromkeys(e.item.name for e in active if e.item.slot_type == slot_type))
        if names:
            sentences.append(f"{label}: {', '.join(names)}")
    if vitals := _measurements(active, "vitals", now):
        sentences.append(f"최근 {vitals}")
    if labs := _measurements(active, "labs", now):
        sentences.append(f"검사 결과: {labs}")
    return " ".join(f"{s}." for s in sentences)


_PERSON_HEAD = re.compile(r"^\((?P<label>[^)]+)\)\s*")


def described_person(summary: str) -> str:
    """Who a rendered summary is about, as its own words say it: "(부모) 68세 남성. 질환: 고혈압." → "부모, 68세 남성",
    "(자녀) 증상: 구토." → "자녀", "임신 중." → "임신 중"; "" when it says nothing of who (a list only). Why: an
    answer that took a follow-up naming no one to be about the remembered person says whom it took (the reverse of
    `render_summary`, so the two cannot drift)."""
    text = summary.strip()
    head = _PERSON_HEAD.match(text)
    label = head.group("label") if head else ""
    first = text[head.end():] if head else text
    demo = first.split(".", 1)[0].strip()
    if ":" in demo or demo.startswith(("최근", "검사")):   # a list or a measurement: no demographics were kept
        demo = ""
    return ", ".join(p for p in (label, demo) if p)
