"""A baby younger than every dose the quoted labels give is told so before the doses."""

from __future__ import annotations

from yaksa.llm.evidence import Citation
from yaksa.llm.offline.extractive import extractive_answer
from yaksa.llm.offline.youngest_dose import younger_than_the_labels, youngest_dosed_months

TABLET = Citation(1, "mfds:1:usage", "drugs", "세토펜정80밀리그램(아세트아미노펜)", "용법용량",
                  "만 12세 이하의 소아는 1회 권장용량을 4~6시간마다 필요시 복용합니다. 4개월~6개월(몸무게 7~7.9 kg)의 "
                  "1회 권장용량은 1정(80 mg)입니다.", 0.9, {"section_key": "usage"})
SYRUP_2Y = Citation(2, "mfds:2:usage", "drugs", "어린이시럽", "용법용량", "만 2세 이상은 1회 5 mL를 복용합니다.", 0.8,
                    {"section_key": "usage"})


def test_the_youngest_dose_the_labels_give() -> None:
    assert youngest_dosed_months([TABLET]) == 4.0       # "4~6시간" is hours, not an age
    assert youngest_dosed_months([SYRUP_2Y]) == 24.0
    assert youngest_dosed_months([TABLET, SYRUP_2Y]) == 4.0
    efficacy = Citation(3, "mfds:1:efficacy", "drugs", "x", "효능효과", "4개월 이상 영아의 발열", 0.5,
                        {"section_key": "efficacy"})
    assert youngest_dosed_months([efficacy]) is None     # only dosing sections count


def test_a_three_month_old_is_told_before_the_doses_and_a_six_month_old_is_not() -> None:
    assert younger_than_the_labels("3개월 아기가 열이 나요", [TABLET])
    assert not younger_than_the_labels("6개월 아기가 열이 나요", [TABLET])
    assert not younger_than_the_labels("아기가 열이 나요", [TABLET])         # no age stated
    answer = extractive_answer("3개월 아기가 열이 38.5도예요 해열제 먹여도 되나요?", [TABLET])
    first = answer.split("\n\n")[0]
    assert "이 나이의 아기에게 맞는 용량은 없습니다" in first and "[문서 1]" in answer
    assert "이 나이의 아기" not in extractive_answer("6개월 아기가 열이 나요 해열제 먹여도 되나요?", [TABLET])


def test_the_note_survives_the_rule_verifier() -> None:
    """An uncited paragraph is removed unless it is a consult paragraph; this one carries the consult phrase."""
    from yaksa.llm.offline.rule_verifier import verify_rules

    answer = extractive_answer("3개월 아기가 열이 38.5도예요 해열제 먹여도 되나요?", [TABLET])
    assert verify_rules(answer, [TABLET]).verdict == "PASS"
