"""A medicine given to or taken by an animal (`yaksa.scope.veterinary`): recognised, and never when a person is
named too, bitten, or allergic."""

from __future__ import annotations

import pytest

from yaksa.scope.veterinary import about_an_animal


@pytest.mark.parametrize("text", [
    "개한테 타이레놀 먹여도 되나요?",                     # found as a user: a human tablet's cautions were quoted
    "강아지가 감기약을 먹었어요",
    "고양이한테 사람 연고 발라도 돼요?",
    "우리 개가 초콜릿을 먹었어요",
    "강아지 진통제 먹여도 돼요? 다리를 절어요",
    "can I give my dog ibuprofen?",
    "my cat licked the cream",
])
def test_a_medicine_for_an_animal(text: str) -> None:
    assert about_an_animal(text)


@pytest.mark.parametrize("text", [
    "아이가 강아지 약을 먹었어요",                          # a child's poisoning
    "강아지가 먹는 약을 아이가 먹었어요",
    "강아지한테 물렸어요 파상풍 주사 맞아야 하나요?",          # a person bitten
    "고양이 털 알레르기가 있는데 항히스타민제 먹어도 돼요?",    # a person's allergy
    "하루에 2개 먹어도 되나요?",                            # 개, the counter
    "3개월 아기가 열이 나요",
    "강아지가 죽어서 너무 슬퍼요 잠이 안 와요",
    "강아지가 산책하고 와서 두통약 먹었어요",                  # another clause: the writer's pill
    "강아지가 짖어서 잠을 못 자 수면제 먹었어요",
])
def test_a_person_is_not_an_animal(text: str) -> None:
    assert not about_an_animal(text)


def test_bad_input() -> None:
    with pytest.raises(TypeError, match="expects str"):
        about_an_animal(None)  # type: ignore[arg-type]
