from __future__ import annotations

import dataclasses
import itertools

import pytest

from yaksa.privacy import Identifier, find_identifiers, has_identifiers, redact_identifiers

DAVE = "제 이름은 홍길동이고 010-1234-5678 인데 65세 남성 당뇨 환자가 이부프로펜 먹어도 되나요?"


def spans(text: str) -> list[tuple[str, str]]:
    return [(i.kind, text[i.start:i.end]) for i in find_identifiers(text)]


@pytest.mark.parametrize(("text", "found"), [
    # phones: mobile and landline, any separator, with +82
    ("010-1234-5678로 연락 주세요", ("phone", "010-1234-5678")),
    ("번호 01012345678", ("phone", "01012345678")),
    ("010 1234 5678 입니다", ("phone", "010 1234 5678")),
    ("010.1234.5678", ("phone", "010.1234.5678")),
    ("+82 10-1234-5678", ("phone", "+82 10-1234-5678")),
    ("+82-10-1234-5678", ("phone", "+82-10-1234-5678")),
    ("+821012345678", ("phone", "+821012345678")),
    ("011-123-4567", ("phone", "011-123-4567")),
    ("집 전화는 02-123-4567", ("phone", "02-123-4567")),
    ("02-1234-5678", ("phone", "02-1234-5678")),
    ("031-123-4567", ("phone", "031-123-4567")),
    ("070-1234-5678", ("phone", "070-1234-5678")),
    # 주민등록번호, with or without hyphen, masked
    ("주민번호 900101-1234567", ("rrn", "900101-1234567")),
    ("9001011234567", ("rrn", "9001011234567")),
    ("851231-2******", ("rrn", "851231-2******")),
    # e-mail and cards
    ("메일은 hong.gildong+rx@example.co.kr 이에요", ("email", "hong.gildong+rx@example.co.kr")),
    ("카드 4111-1111-1111-1111", ("card", "4111-1111-1111-1111")),
    ("card 5500 0000 0000 0004", ("card", "5500 0000 0000 0004")),
    ("4012888888881881", ("card", "4012888888881881")),
    # names the user introduces
    ("제 이름은 홍길동", ("name", "홍길동")),
    ("제 이름은 홍길동이고 타이레놀 먹어도 돼요?", ("name", "홍길동")),
    ("이름은 김철수이고 두통이 있어요", ("name", "김철수")),
    ("내 이름이 김영희예요", ("name", "김영희")),
    ("제 이름은 남궁민수입니다.", ("name", "남궁민수")),
    ("성함: 이순신", ("name", "이순신")),
    ("저는 홍길동이라고 합니다", ("name", "홍길동")),
    ("전 김민지라고 해요. 감기약 추천해 주세요", ("name", "김민지")),
    ("안녕하세요. 박서준이라고 합니다", ("name", "박서준")),
    ("my name is John Smith", ("name", "John Smith")),
    ("Hi, My name is Mary Jane Watson and I have a cold", ("name", "Mary Jane Watson")),
    ("my name's john, can I take aspirin?", ("name", "john")),
    ("I'm called Jane", ("name", "Jane")),
    ("I am called Kim Minsu", ("name", "Kim Minsu")),
    ("please call me Alex", ("name", "Alex")),
    ("제 이름은 John Smith 입니다", ("name", "John Smith")),
])
def test_identifiers_are_found(text: str, found: tuple[str, str]) -> None:
    assert spans(text) == [found]
    assert has_identifiers(text)


@pytest.mark.parametrize("text", [
    "저는 65세 남성입니다",
    "저는 임산부예요",
    "저는 당뇨 환자인데 타이레놀 먹어도 되나요?",
    "저는 임산부라고 해요",
    "타이레놀 500mg 2정 먹어도 되나요?",
    "1일 3회 1회 1정, 하루 최대 4,000 mg",
    "혈압이 150/95이고 혈당은 180 mg/dL이에요",
    "HbA1c 7.2%, 체중 70kg, 키 175cm",
    "2024-03-01부터 먹었어요", "2024.03.15", "2024년 3월 15일 오전 10시", "20240315",
    "65세 여성, 임신 12주", "0.5mg씩 2회",
    "이 약 이름은 타이레놀인데 먹어도 되나요",
    "약 이름이 뭐예요?",
    "이름이 뭐예요? 흰색 알약이에요",
    "이름은 모르겠는데 두통약이에요",
    "제 이름은 비밀이에요",
    "의사가 당뇨라고 하는데 메트포르민 먹어야 하나요?",
    "품목기준코드 200012345, 보험코드 645301220",
    "응급 시 119, 의약품 상담 1577-1255",
    "I'm 65 and my blood pressure is 150/95",
    "call me back if the pain continues",
    "What is the name of this drug?",
    "My name is not important, can I take ibuprofen?",
    "",
])
def test_medical_text_has_no_identifiers(text: str) -> None:
    assert find_identifiers(text) == []
    assert not has_identifiers(text)
    assert redact_identifiers(text) == text


def test_several_identifiers_in_order_without_overlaps() -> None:
    assert spans(DAVE) == [("name", "홍길동"), ("phone", "010-1234-5678")]
    text = "연락처는 02-123-4567이고 이메일은 hong@example.com, 주민번호 900101-1234567, 카드 5105 1051 0510 5100"
    assert [k for k, _ in spans(text)] == ["phone", "email", "rrn", "card"]
    found = find_identifiers(text)
    assert all(a.end <= b.start for a, b in itertools.pairwise(found))


def test_identifier_is_a_frozen_span() -> None:
    ident = find_identifiers("010-1234-5678")[0]
    assert ident == Identifier("phone", 0, 13)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ident.start = 1  # type: ignore[misc]


@pytest.mark.parametrize(("text", "redacted"), [
    (DAVE, "65세 남성 당뇨 환자가 이부프로펜 먹어도 되나요?"),
    ("이름은 김철수이고 타이레놀 먹어도 되나요", "타이레놀 먹어도 되나요"),
    ("저는 홍길동이라고 합니다. 타이레놀 먹어도 되나요?", "타이레놀 먹어도 되나요?"),
    ("타이레놀 먹어도 되나요? 제 이름은 홍길동입니다.", "타이레놀 먹어도 되나요?"),
    ("제 전화번호는 010-1234-5678이고, 두통이 심해요", "두통이 심해요"),
    ("두통이 심해요. 01012345678로 연락 주세요", "두통이 심해요. 연락 주세요"),
    ("my name is John Smith and I take ibuprofen. Is that ok?", "I take ibuprofen. Is that ok?"),
    ("Hi, my name is Jane. Can I take aspirin?", "Hi. Can I take aspirin?"),
    ("my email is jane@example.com, can I take aspirin with warfarin?", "can I take aspirin with warfarin?"),
    ("혈압 150/95인데 주민번호 900101-1234567 필요한가요?", "혈압 150/95인데 필요한가요?"),
])
def test_redaction_keeps_the_medical_question(text: str, redacted: str) -> None:
    assert redact_identifiers(text) == redacted
    assert not has_identifiers(redact_identifiers(text))


def test_non_text_is_rejected() -> None:
    with pytest.raises(TypeError, match="string"):
        find_identifiers(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="string"):
        redact_identifiers(b"010-1234-5678")  # type: ignore[arg-type]
