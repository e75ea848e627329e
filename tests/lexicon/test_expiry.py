"""A medicine past its expiry date (`yaksa.lexicon.expiry`)."""

from __future__ import annotations

import pytest

from yaksa.lexicon.expiry import asks_about_an_expired_medicine


@pytest.mark.parametrize("question", [
    "사용기한이 지난 연고 발라도 돼요?",
    "유효기간 한 달 넘은 감기약 괜찮을까요",
    "유통기한 지난 약 어떻게 버려요?",
])
def test_an_expired_medicine_asked_about(question: str) -> None:
    assert asks_about_an_expired_medicine(question)


def test_a_product_named_is_the_callers_to_say() -> None:
    assert not asks_about_an_expired_medicine("유통기한 지난 타이레놀 먹어도 되나요?")
    assert asks_about_an_expired_medicine("유통기한 지난 타이레놀 먹어도 되나요?", names_a_medicine=True)


@pytest.mark.parametrize("question", [
    "유통기한 지난 우유 마셔도 되나요",       # food
    "타이레놀 유통기한이 언제까지예요?",       # not past
    "타이레놀 먹어도 되나요",
])
def test_not_an_expired_medicine(question: str) -> None:
    assert not asks_about_an_expired_medicine(question)
