from __future__ import annotations

import pytest

from yaksa.scope.service_rules import service_request


@pytest.mark.parametrize(("question", "rule"), [
    ("MRI 예약은 어떻게 하나요", "booking"),
    ("How do I book an MRI appointment?", "booking"),
    ("실손보험 청구 서류가 뭐예요?", "insurance"),
    ("How do I file a health insurance claim?", "insurance"),
    ("근처 치과 영업시간 알려줘", "hours_or_place"),
    ("What time does the dentist near me open?", "hours_or_place"),
    ("응급실 대기 시간 얼마나 돼요?", "wait_time"),
    ("우리 동네 약국 몇 시까지 해?", "hours_or_place"),
    ("진단서 발급 비용 얼마예요", "paperwork"),
    ("Does my insurance cover physical therapy visits?", "insurance"),
])
def test_service_requests_are_named(question: str, rule: str) -> None:
    assert service_request(question) == rule


@pytest.mark.parametrize("question", [
    "타이레놀 부작용", "두통이 있는데 뭐 먹어도 돼요?", "What are the symptoms of asthma?",
    "Is a voluntary public insurance program a realistic way to meet long-term support needs?",
    "고혈압 약 먹는 시간", "약 먹고 몇 시간 뒤에 자도 돼요?", "진통제 하루 몇 번까지 먹어요",
])
def test_clinical_questions_pass(question: str) -> None:
    assert service_request(question) is None
