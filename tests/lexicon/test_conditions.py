"""Long-standing conditions a message names (`yaksa.lexicon.conditions`) and what they change in the focus."""

from __future__ import annotations

import pytest

from yaksa.lexicon.conditions import conditions_followed_by, find_conditions, without_conditions
from yaksa.lexicon.focus import analyse


@pytest.mark.parametrize(("text", "conditions"), [
    ("고혈압이 있는데 코감기약 먹어도 돼요?", ("고혈압",)),
    ("어머니가 혈압약 드시는데 감기약 같이 드셔도 되나요", ("고혈압",)),   # a condition's medicine
    ("혈압이 높아요", ("고혈압",)),                                         # a predicate, any ending
    ("간이 안 좋은데 타이레놀 먹어도 돼요?", ("간질환",)),
    ("녹내장 있는데 콧물약 먹어도 돼요?", ("녹내장",)),
    ("피부가 간질간질해요", ()),                                             # itching, not epilepsy
    ("비염약 먹어도 돼요?", ()),                                              # what a label treats
    ("타이레놀 먹어도 돼요?", ()),
])
def test_conditions_are_found_by_their_everyday_names(text: str, conditions: tuple[str, ...]) -> None:
    assert find_conditions(text) == conditions


def test_may_i_take_it_with_a_condition_asks_for_the_cautions() -> None:
    """"고혈압이 있는데 코감기약 먹어도 돼요?" got cold medicines' uses and doses: a symptom question's "may I
    take it" reads as "what is it for" unless the person is one the cautions single out."""
    with_condition = analyse("고혈압이 있는데 코감기약 먹어도 돼요?", None)
    assert with_condition.mode == "symptom" and with_condition.conditions == ("고혈압",)
    assert with_condition.intent.name == "precautions"
    assert with_condition.to_json()["conditions"] == ["고혈압"]
    without = analyse("코감기약 먹어도 돼요?", None)
    assert without.intent.name == "efficacy" and without.conditions == ()


def test_conditions_followed_by_a_word() -> None:
    import re

    asks = re.compile(r"\s*(?:의|은|이)?\s*(?:증상|원인)")
    assert conditions_followed_by("고혈압 증상이 뭐예요?", asks) == ("고혈압",)
    assert conditions_followed_by("당뇨 원인", asks) == ("당뇨병",)        # the preferred name
    assert conditions_followed_by("혈압약 부작용", asks) == ()
    assert conditions_followed_by("고혈압이 있는데 두통 증상", asks) == ()
    # the longest name is 수면무호흡증, but 수면무호흡's 증상 is asked about
    assert conditions_followed_by("수면무호흡 증상이 있으면 피곤한가요?", asks) == ("수면무호흡증",)


def test_one_matcher_decides_a_mention() -> None:
    """find_conditions and without_conditions read the same list one way (they were a substring test and a
    spaced regex): a name inside a longer one is no mention, so 저혈압약 is not 혈압약 (고혈압)."""
    assert find_conditions("저혈압약 먹는데 괜찮을까요") == ("저혈압",)
    assert find_conditions("고 혈압이랑 당뇨가 있어요") == ("고혈압", "당뇨병")
    assert without_conditions("저혈압약 먹는데").split() == ["약", "먹는데"]


def test_without_conditions_cuts_every_named_condition_however_spaced() -> None:
    assert without_conditions("고혈압이 있는데 먹어도 돼요?").split() == ["이", "있는데", "먹어도", "돼요?"]
    assert without_conditions("고 혈압이랑 당뇨가 있어요").split() == ["이랑", "가", "있어요"]
    assert without_conditions("타이레놀 먹어도 돼요?") == "타이레놀 먹어도 돼요?"
