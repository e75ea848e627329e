"""A question about what to eat, naming no medicine, is recognised with the foods it names."""

from __future__ import annotations

import pytest

from yaksa.lexicon.food import asks_what_to_eat, foods_asked_about, what_to_eat_for


@pytest.mark.parametrize(("question", "foods"), [
    ("콜레스테롤이 높은데 달걀 먹어도 되나요?", ("달걀",)),
    ("임신 중인데 회 먹어도 되나요?", ("회",)),
    ("통풍인데 맥주 마셔도 돼요?", ("맥주",)),
    ("6개월 아기 이유식에 달걀 먹여도 되나요?", ("달걀",)),
    ("사과 한 개 먹어도 돼요?", ("사과",)),
    ("바나나 먹으면 안 되나요?", ("바나나",)),
    ("달걀먹어도 되나요", ("달걀",)),
    ("고혈압에 좋은 음식 알려주세요", ("음식",)),
    ("당뇨 식단 어떻게 짜요?", ("음식",)),
    ("당뇨 있는데 뭐 먹어도 돼요?", ("음식",)),        # a diet, or which medicine: said which by neither
    ("고혈압인데 어떤 걸 먹으면 좋아요?", ("음식",)),
])
def test_a_question_about_eating_names_its_food(question: str, foods: tuple[str, ...]) -> None:
    assert foods_asked_about(question) == foods


@pytest.mark.parametrize("question", [
    "회사에서 먹어도 되나요",            # 회 inside 회사
    "1회 먹어도 되나요",                 # a dose, not raw fish
    "하루 두 번 먹어도 되나요",
    "아기 열나는데 해열제 먹여도 되나요",  # a medicine
    "감기약 먹고 커피 마셔도 되나요?",    # an interaction the label's cautions answer
    "비타민 먹고 우유 마셔도 돼요?",      # a supplement
    "아이가 9살인데 밥도 못먹고 우유 먹으면 설사합니다.",   # told, not asked
    "고기를 많이 먹으면 통풍이 생기나요",
])
def test_not_a_question_about_eating(question: str) -> None:
    assert foods_asked_about(question) == ()


@pytest.mark.parametrize(("question", "asks"), [
    ("당뇨 있는데 뭐 먹어도 돼요?", True),
    ("임신 중인데 뭘 먹어야 하나요?", True),
    ("당뇨 있는데 감기 걸렸어요 뭐 먹어야 돼요", False),   # a symptom: what treats it, the search answers
    ("뭐 먹어도 돼요?", False),                           # nobody's condition: nothing to read it by
    ("고혈압인데 무슨 약 먹어도 돼요?", False),           # asks for a medicine, plainly
])
def test_what_may_i_eat_with_a_condition(question: str, asks: bool) -> None:
    assert asks_what_to_eat(question) is asks


@pytest.mark.parametrize(("question", "person"), [
    ("당뇨 있는데 뭐 먹어도 돼요?", "당뇨병"),
    ("임신 중인데 뭘 먹어야 하나요?", "임신 중"),
    ("수유 중인데 뭐 먹어도 되나요?", "수유 중"),       # the focus population's words, not a third matcher
    ("뭐 먹어도 돼요?", None),
])
def test_whom_what_may_i_eat_is_asked_for(question: str, person: str | None) -> None:
    assert what_to_eat_for(question) == person


@pytest.mark.parametrize(("question", "foods"), [
    # a real post that got naproxen's side effects by its 가슴 (2026-12-01)
    ("일반 햄이나 소세지 보다는 닭가슴살 소세지는 어떤가요? 그런것도 칼로리가 높은가요??", ("소세지", "닭가슴살")),
    ("고구마 먹으면 살찌나요?", ("고구마",)),
    ("바나나 다이어트에 좋은가요?", ("바나나",)),
    ("햄스터가 살찌나요?", ()),                 # no food named whole
    ("타이레놀 먹으면 살찌나요?", ()),           # a medicine: its label's side effects answer
    ("요즘 살이 찌고 배가 아파요", ()),          # no food named
])
def test_what_a_food_does_to_the_weight_is_a_food_question(question: str, foods: tuple[str, ...]) -> None:
    assert foods_asked_about(question) == foods


@pytest.mark.parametrize(("question", "foods"), [
    ("카페인 음료 마셔도 돼요?", ("카페인",)),            # got a caffeine tablet's uses and dose
    ("임신 중 카페인 하루 얼마까지?", ("카페인",)),
    ("카페인 음료를 마시면 가슴이 콩닥콩닥 해요", ()),     # tells a complaint, asks nothing of the drink
    ("카페인 알약 하루에 몇 개 먹어도 돼요?", ()),          # a tablet: its label answers
])
def test_how_much_caffeine_in_the_diet_is_a_food_question(question: str, foods: tuple[str, ...]) -> None:
    assert foods_asked_about(question) == foods
