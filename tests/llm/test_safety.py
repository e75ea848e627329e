from __future__ import annotations

from yaksa.llm.safety import (
    SAFETY_LINE_EN,
    SAFETY_LINE_KO,
    cited_numbers,
    dose_mentions,
    has_safety_line,
    safety_line,
    unsupported_doses,
)

LABEL = "만 12세 이상은 1회 1~2정씩 1일 3~4회 복용합니다. 1일 최대 4그램(8정). 타이레놀정500밀리그람 2.5mg"


def test_dose_mentions_find_number_unit_pairs() -> None:
    assert dose_mentions("1회 1~2정씩 1일 3~4회, 500 mg [문서 3]") == ["1회", "1~2정", "1일", "3~4회", "500 mg"]
    assert dose_mentions("Take 325 mg every 4 hours") == ["325 mg", "4 hours"]
    assert dose_mentions("[문서 2]에 따르면") == []  # citation numbers are not doses


def test_unsupported_doses_respect_number_boundaries_and_spelling() -> None:
    assert unsupported_doses("1회 1~2정, 1일 3~4회", LABEL) == []
    assert unsupported_doses("500mg 한 알, 최대 4 g", LABEL) == []  # 밀리그람 = mg, 그램 = g
    assert unsupported_doses("1000mg을 드세요", LABEL) == ["1000mg"]
    assert unsupported_doses("5mg", LABEL) == ["5mg"]          # not "found" inside 2.5mg
    assert unsupported_doses("하루 6회", LABEL) == ["6회"]
    assert unsupported_doses("SpO2 88%", "SpO2 88% on room air") == []  # not read as "288%"


def test_safety_line_and_citations() -> None:
    assert safety_line("두통약?") == SAFETY_LINE_KO and safety_line("Headache?") == SAFETY_LINE_EN
    assert has_safety_line(SAFETY_LINE_EN) and has_safety_line(SAFETY_LINE_KO) and not has_safety_line("끝.")
    assert cited_numbers("a [문서 1] b [문서 12] c [문서1]") == [1, 12, 1]


def test_a_sentence_end_before_a_dose_is_not_a_decimal_point() -> None:
    assert unsupported_doses("1개월 정도 복용", "상의하십시오. 1개월 정도 복용하여도") == []
