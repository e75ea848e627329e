"""When a fever needs a doctor, asked in general: answered from the red-flag table's fever rules."""

from __future__ import annotations

import pytest

from yaksa.scope.when_to_go import CHILD_FEVER_RULES, rules_asked


def _ids(text: str) -> list[str] | None:
    found = rules_asked(text)
    return None if found is None else [f.rule_id for f in found]


def test_a_parents_question_gets_every_child_fever_rule_in_order() -> None:
    assert _ids("아기 열이 몇 도부터 병원 가야 해요?") == list(CHILD_FEVER_RULES)
    assert _ids("When should I take my baby to the doctor for a fever?") == list(CHILD_FEVER_RULES)


def test_a_stated_age_keeps_only_the_rules_that_fit_it() -> None:
    eight_months = _ids("8개월 아기 열 몇도부터 병원 가요?")
    assert eight_months is not None
    assert "fever_under_3_months" not in eight_months and "fever_3_to_6_months" not in eight_months
    assert "child_fever_5_days" in eight_months
    assert _ids("생후 4개월 아기 열이 몇 도면 응급실 가야 하나요?")[:1] == ["fever_3_to_6_months"]


def test_an_adult_gets_the_adult_rules_and_pregnancy_its_own_first() -> None:
    adult = _ids("열이 몇도면 병원 가야 하나요")
    assert adult is not None and "sepsis_signs" in adult and not set(adult) & set(CHILD_FEVER_RULES)
    assert _ids("임신 중인데 열이 나면 병원 가야 하나요?")[0] == "pregnancy_fever"


@pytest.mark.parametrize("text", [
    "아이 열이 39도인데 지켜봐도 되나요?",
    "열이 언제까지 갈까요",
    "예방접종 후 39도 열이 계속 나요. 언제까지 열이 지속되는지 괜찮은 증상인지 궁금해요",
    "38도 열이 나는데 병원에 안 가도 될까요",
])
def test_how_long_and_may_we_wait_are_asked_too(text: str) -> None:
    """A parent of a 4½-year-old with 39 °C after a vaccination asked how long it lasts and whether it is
    all right; the post was only told to see a doctor, with nothing on when."""
    assert rules_asked(text)


@pytest.mark.parametrize("text", [
    "열이 나는데 해열제 먹여도 괜찮을까요?",             # a medicine's question, the labels'
    "열이 나는데 어떤 병원에 가야 하나요?",               # which department, not when
    "한 시간 지켜봐도 열이 내리지 않아 응급실에 다녀왔어요",  # told, not asked
    "고환에 열이 나는 것 같은데 병원 가야 하나요?",       # a warm spot, no fever
    ("28개월 아이예요. 지난달 감기로 38도 열이 났고 콧물이 있었어요. 그 뒤로 걸음이 서툴러지고 퍼즐을 못 끼워요. "
     "밤에 깨서 한 시간씩 울어요. 병원에 가야 할까요?"),  # the fever is far from the question
    "아이 열은 없는데 콧물이 나요 병원 가야 하나요?",   # no fever
    "열이 나요",                                         # no "when"
    "타이레놀 몇 알 먹어요?",
    "열심히 운동하면 언제 병원 안 가도 돼요?",          # 열심히 is no fever
])
def test_what_is_not_asked(text: str) -> None:
    assert rules_asked(text) is None


def test_a_feverish_childs_other_question_gets_the_rules_to_say_after_the_answer() -> None:
    from yaksa.scope.when_to_go import watch_rules

    four_months = watch_rules("4개월 아기가 열이 38.5도예요 해열제 먹여도 되나요?")
    assert four_months is not None
    assert [f.rule_id for f in four_months] == ["fever_3_to_6_months", "child_fever_red", "child_fever_amber",
                                                "child_fever_5_days"]
    assert "fever_3_to_6_months" not in [f.rule_id for f in watch_rules("5살 아이가 열이 나요 해열제 얼마나 먹여요?")]
    for text in ("열이 38.5도인데 타이레놀 먹어도 되나요?",          # an adult
                 "5살 아이 열은 없고 콧물만 나요 약 뭐 먹여요?",      # no fever
                 "아기 열이 몇 도부터 병원 가야 해요?"):              # asks when: rules_asked answers it
        assert watch_rules(text) is None, text


def test_the_watch_list_opens_the_answer_only_for_a_baby_of_unknown_age() -> None:
    from yaksa.lexicon.focus import find_population
    from yaksa.scope.when_to_go import opens_the_answer, watch_rules

    def opens(text: str) -> bool:
        return opens_the_answer(watch_rules(text), find_population(text))

    assert opens("아기가 열이 올라요 해열제 먹여도 되나요?")              # may be under 3 months
    assert not opens("4개월 아기가 열이 38.5도예요 해열제 먹여도 되나요?")  # the under-3-months rule does not fit
    assert not opens("아이가 열이 나요 해열제 얼마나 먹여요?")             # a child: the labels first
    assert not opens_the_answer(None, ("infant",))
