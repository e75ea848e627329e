"""A product whose label forbids the child's age is not quoted for the child; its forbidding sentence is."""

from __future__ import annotations

import pytest

from yaksa.llm.evidence import Citation
from yaksa.llm.offline.age_limits import ChildAge, forbidden_below_months, forbidden_for, person_months
from yaksa.llm.offline.extractive import extractive_answer
from yaksa.llm.offline.rule_verifier import verify_rules

GARGLE_USES = Citation(1, "mfds:1:efficacy", "drugs", "삼아탄툼액", "효능효과",
                       "이 약은 인후염, 구내염의 국소 치료에 사용합니다.", 0.9, {"section_key": "efficacy"})
GARGLE_DOSE = Citation(2, "mfds:1:usage", "drugs", "삼아탄툼액", "용법용량",
                       "1회 15 mL를 1일 2~3회 가글합니다.", 0.8, {"section_key": "usage"})
GARGLE_CAUTION = Citation(3, "mfds:1:precautions", "drugs", "삼아탄툼액", "주의사항",
                          "이 약에 과민증 환자, 12세 이하의 소아는 이 약을 사용하지 마십시오.", 0.7,
                          {"section_key": "precautions"})
SYRUP = Citation(4, "mfds:2:usage", "drugs", "어린이시럽", "용법용량", "만 1세 이상은 1회 5 mL를 복용합니다. 인후염에 씁니다.",
                 0.6, {"section_key": "usage"})
EVIDENCE = [GARGLE_USES, GARGLE_DOSE, GARGLE_CAUTION]


@pytest.mark.parametrize(("sentence", "months"), [
    ("이 약에 과민증 환자, 12세 이하의 소아는 이 약을 사용하지 마십시오.", 156),
    ("이 약에 과민증 환자, 임부, 수유부, 2세 이하의 영아는 이 약을 복용하지 마십시오.", 36),
    ("수유부, 미숙아 및 1세 이하의 영아, 녹내장 환자는 이 약을 복용하지 마십시오.", 24),
    ("3세 이하의 영ㆍ유아는 이 약을 복용하지 마십시오.", 48),
    ("이 약에 과민증 환자, 만 3개월 미만의 젖먹이는 이 약을 복용하지 마십시오.", 3),
    ("이 약에 과민증 환자, 만 18세 미만의 소아 및 청소년은 이 약을 복용하지 마십시오.", 216),
    ("30개월 이하의 유아, 습진, 옻 등에 의한 피부염, 상처부위에는 이 약을 사용하지 마십시오.", 31),
])
def test_a_forbidding_sentence_names_the_age_below_which_it_applies(sentence: str, months: int) -> None:
    assert forbidden_below_months(sentence) == months


@pytest.mark.parametrize("sentence", [
    # a condition, not an age: only such children
    "고열을 동반하거나 혈액이 섞인 설사가 있는 1세 미만의 소아, 이 약에 과민증 환자는 이 약을 복용하지 마십시오.",
    # not forbidding: a dose, or a caution to ask first
    "만 2세 미만의 소아는 1회 2.5 mL를 복용합니다.",
    "만 2세 미만의 소아에게 투여할 경우 의사와 상의하십시오.",
])
def test_a_sentence_that_does_not_forbid_an_age_group_names_none(sentence: str) -> None:
    assert forbidden_below_months(sentence) is None


def test_the_age_to_judge_by() -> None:
    assert person_months(19.0, ("infant",)) == 19.0
    assert person_months(None, ("infant",)) == 36       # a baby of unstated age: up to three
    assert person_months(None, ("child",)) == 179       # a child of unstated age: up to fourteen
    assert person_months(None, ("adult",)) is None
    assert forbidden_for(EVIDENCE, 19.0).keys() == {"삼아탄툼액"}
    assert forbidden_for(EVIDENCE, 13 * 12.0) == {}   # a 13-year-old is past "12세 이하"
    assert forbidden_for(EVIDENCE, None) == {}


def test_a_turns_child_age_is_the_one_given_else_read_from_the_turn() -> None:
    given = ChildAge(30.0)
    assert ChildAge.of_turn(given, "3개월 아기 해열제", "", ("infant",)) is given
    assert ChildAge.of_turn(None, "3개월 아기 해열제", "", ("infant",)) == ChildAge(3.0)
    assert ChildAge.of_turn(None, "해열제 먹여도 되나요?", "(자녀) 2세.", ("child",)) == ChildAge(24.0)
    assert ChildAge.of_turn(None, "두통약 추천", "", ("adult",)) == ChildAge(None)


def test_a_babys_answer_quotes_the_forbidding_sentence_not_the_products_uses() -> None:
    answer = extractive_answer("19개월 아기가 목이 부었는데 탄툼 뿌려도 되나요?", [*EVIDENCE, SYRUP])
    first = answer.split("\n\n")[0]
    assert "12세 이하의 소아는 이 약을 사용하지 마십시오" in first and "[문서 3]" in first
    assert "15 mL" not in answer and "국소 치료에 사용합니다" not in answer    # not its dose nor its uses
    assert "어린이시럽" in answer                                               # other products still answer
    assert verify_rules(answer, [*EVIDENCE, SYRUP]).verdict == "PASS"


def test_when_every_product_is_forbidden_the_answer_is_the_forbidding_sentence_and_the_consult_line() -> None:
    answer = extractive_answer("아기가 목이 부었는데 탄툼 써도 되나요?", EVIDENCE)   # age unstated: a baby is ≤ 3
    assert "12세 이하의 소아는 이 약을 사용하지 마십시오" in answer and "15 mL" not in answer
    assert answer.endswith("쓸 수 있는 약은 소아청소년과 의사나 약사 등 전문가와 꼭 상담하세요.")
    assert verify_rules(answer, EVIDENCE).verdict == "PASS"


def test_an_adult_or_an_older_child_gets_the_label_as_before() -> None:
    for question in ("목이 부었는데 탄툼 써도 되나요?", "14살 아들이 목이 부었는데 탄툼 써도 되나요?"):
        answer = extractive_answer(question, EVIDENCE)
        assert "쓰지 말라고 되어 있습니다" not in answer
    # the remembered person is a baby: the follow-up that names no one is asked for the baby
    answer = extractive_answer("탄툼 하루에 몇 번 써요?", EVIDENCE, profile_summary="(자녀) 19개월, 영아")
    assert "12세 이하의 소아는 이 약을 사용하지 마십시오" in answer and "15 mL" not in answer


def test_a_product_found_only_by_its_cautions_is_left_out_not_quoted() -> None:
    """"6개월 아기 열날 때 먹이는 약" found 게보린정's 주의사항 alone, and its "15세 미만의 소아 … 복용하지 마십시오" (a
    list of twenty items, quoted whole) led the answer for a product nobody offered: it is neither quoted nor said."""
    items = ", ".join(f"중증의 {c}{c}형 질환을 앓고 있는 환자" for c in "가나다라마바사아자차카타파하거너더러")
    caution = Citation(5, "mfds:9:precautions", "drugs", "게보린정", "주의사항",
                       f"이 약에 과민증 환자, {items}, 15세 미만의 소아, 알코올을 복용한 환자는 이 약을 복용하지 마십시오.",
                       0.4, {"section_key": "precautions"})
    answer = extractive_answer("6개월 아기 열날 때 먹이는 약", [SYRUP, caution])
    assert "게보린정" not in answer and "어린이시럽" in answer
    # offered (its dose found), the long list is shortened to its head, its age group and its end
    usage = Citation(6, "mfds:9:usage", "drugs", "게보린정", "용법용량", "1회 1정을 복용합니다.", 0.4, {"section_key": "usage"})
    answer = extractive_answer("6개월 아기 열날 때 먹이는 약", [SYRUP, caution, usage])
    assert "게보린정: 허가 정보에 물으신 아이의 나이에는 쓰지 말라고" in answer and "15세 미만의 소아" in answer
    assert "카카형" not in answer and " … " in answer
