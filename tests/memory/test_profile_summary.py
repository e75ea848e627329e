from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from yaksa.extraction.slots import SlotItem
from yaksa.memory.entry import ProfileEntry
from yaksa.memory.profile_summary import described_person, format_value, relative_age, render_summary

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def entry(item: SlotItem, hours_ago: float = 0.0, weight: float = 1.0) -> ProfileEntry:
    return ProfileEntry(item, NOW - timedelta(hours=hours_ago), weight)


def test_summary_reads_like_a_chart_note() -> None:
    entries = [
        entry(SlotItem("demographics", "age", 65.0)),
        entry(SlotItem("demographics", "gender", "male")),
        entry(SlotItem("conditions", "당뇨병")),
        entry(SlotItem("medications", "메트포르민")),
        entry(SlotItem("symptoms", "두통")),
        entry(SlotItem("vitals", "blood_pressure", "150/95", "mmHg"), hours_ago=2),
        entry(SlotItem("labs", "hba1c", 7.2, "%"), hours_ago=24 * 3),
        entry(SlotItem("symptoms", "기침"), weight=0.01),               # faded: left out
    ]
    assert render_summary(entries, NOW) == (
        "65세 남성. 질환: 당뇨병. 복용 중인 약: 메트포르민. 증상: 두통. "
        "최근 혈압 150/95 mmHg (2시간 전). 검사 결과: 당화혈색소(HbA1c) 7.2% (3일 전)."
    )


def test_empty_and_partial_profiles() -> None:
    assert render_summary([], NOW) == ""
    assert render_summary([entry(SlotItem("demographics", "gender", "여자")),
                           entry(SlotItem("demographics", "pregnancy", "yes"))], NOW) == "여성 임신 중."
    assert render_summary([entry(SlotItem("demographics", "pregnancy", "no"))], NOW) == ""
    # a nursing mother is remembered as one: the focus reads "수유 중" back from the summary
    assert render_summary([entry(SlotItem("demographics", "breastfeeding", "yes"))], NOW) == "수유 중."
    assert render_summary([entry(SlotItem("demographics", "breastfeeding", "no"))], NOW) == ""


def test_value_and_time_formatting() -> None:
    assert format_value(180.0, "mg/dL") == "180 mg/dL"
    assert format_value("150/95", None) == "150/95"
    assert relative_age(NOW, NOW) == "방금"
    assert relative_age(NOW - timedelta(minutes=5), NOW) == "5분 전"
    assert relative_age(NOW - timedelta(hours=47), NOW) == "47시간 전"
    assert relative_age(NOW - timedelta(days=3), NOW) == "3일 전"


def test_weight_is_labelled_in_korean() -> None:
    summary = render_summary([entry(SlotItem("vitals", "weight", 11.6, "kg"))], NOW)
    assert "체중 11.6 kg" in summary and "weight" not in summary


def test_described_person_reads_back_whom_a_rendered_summary_is_about() -> None:
    father = [entry(replace(SlotItem("demographics", "age", 68.0), about="parent")),
              entry(replace(SlotItem("demographics", "gender", "male"), about="parent")),
              entry(replace(SlotItem("conditions", "고혈압"), about="parent"))]
    assert described_person(render_summary(father, NOW)) == "부모, 68세 남성"
    child = [entry(replace(SlotItem("symptoms", "구토"), about="child"))]
    assert described_person(render_summary(child, NOW)) == "자녀"   # a child's, its age not kept
    assert described_person(render_summary([entry(SlotItem("demographics", "pregnancy", "yes"))], NOW)) == "임신 중"
    assert described_person(render_summary([entry(SlotItem("conditions", "당뇨병"))], NOW)) == ""
    assert described_person(render_summary([entry(SlotItem("vitals", "blood_pressure", "150/95", "mmHg"))], NOW)) == ""
