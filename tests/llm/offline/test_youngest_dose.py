"""A baby younger than every dose the quoted labels give is told so before the doses."""

from __future__ import annotations

from yaksa.llm.evidence import Citation
from yaksa.llm.offline.extractive import extractive_answer
from yaksa.llm.offline.youngest_dose import dosed_only_older, younger_than_the_labels, youngest_dosed_months

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


ADULTS_AND_12 = Citation(3, "mfds:3:usage", "drugs", "액티피드시럽", "용법용량",
                         "성인 및 12세 이상의 소아는 1회 10 mL를 1일 3회 매 식후에 복용합니다.", 0.9, {"section_key": "usage"})
BY_AGE = Citation(4, "mfds:4:usage", "drugs", "지노콜시럽(구연산부타미레이트)", "용법용량",
                  "성인은 1회 15 mL (22.5 mg), 1일 4회, 12~14세는 1회 15 mL (22.5 mg), 6~11세는 1회 10 mL (15 mg), "
                  "3~5세는 1회 5 mL (7.5 mg), 1일 3회 복용합니다.", 0.8, {"section_key": "usage"})


def test_a_range_written_bare_is_an_age_dosed() -> None:
    """"3~5세는 1회 5 mL" doses 3-year-olds; only "3세~" was read."""
    assert youngest_dosed_months([BY_AGE]) == 36.0
    assert dosed_only_older([ADULTS_AND_12, BY_AGE], 84.0) == frozenset({"액티피드시럽"})
    assert dosed_only_older([ADULTS_AND_12, BY_AGE], None) == frozenset()


def test_a_product_dosed_only_for_older_children_is_left_out_while_another_doses_the_child() -> None:
    """A 7-year-old's syrup question quoted "성인 및 12세 이상의 소아는 1회 10 mL" first; with no other product it
    is quoted after the note that no dose is for this age."""
    both = extractive_answer("7살 아이 기침 시럽 하루에 몇 번 먹여요?", [ADULTS_AND_12, BY_AGE])
    assert "6~11세는 1회 10 mL" in both and "12세 이상의 소아는" not in both
    alone = extractive_answer("7살 아이 기침 시럽 하루에 몇 번 먹여요?", [ADULTS_AND_12])
    assert "12세 이상의 소아는" in alone and alone.startswith("아래 허가 정보의 용량은 물으신 아이보다 큰 아이부터")
