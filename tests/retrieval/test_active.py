from __future__ import annotations

import pytest

from yaksa.retrieval.active import RetrievalPlan, retrieval_plan

NO_SEARCH = RetrievalPlan(search=False, complexity="none", k=0)


@pytest.mark.parametrize("message", ["안녕하세요", "고마워요!", "네", "알겠어요~", "ㅎㅎ", "네 감사합니다 ㅎㅎ",
                                     "Thanks!", "thank you", "ok", "Hi", "OK thanks"])
def test_chitchat_does_not_search(message: str) -> None:
    assert retrieval_plan(message, slot_count=2) == NO_SEARCH


@pytest.mark.parametrize(
    ("question", "slots"),
    [
        ("타이레놀 용량", 1),
        ("두통약 추천", 0),
        ("aspirin dose?", 1),
        ("네 타이레놀 용량은요?", 1),  # starts with an acknowledgement but asks something: searches
        ("타이레놀 복용하고 싶어요", 1),  # "하고 싶" is not a conjunction, so not complex
    ],
)
def test_simple(question: str, slots: int) -> None:
    assert retrieval_plan(question, slots) == RetrievalPlan(search=True, complexity="simple", k=3)


@pytest.mark.parametrize(
    ("question", "slots"),
    [
        ("타이레놀 용량", 2),  # short but two slots
        ("임신 중에 타이레놀을 먹어도 아기에게 괜찮은가요?", 0),  # 25 characters, over SHORT_CHARS
        ("What is the maximum daily dose of acetaminophen?", 1),
    ],
)
def test_moderate(question: str, slots: int) -> None:
    assert retrieval_plan(question, slots) == RetrievalPlan(search=True, complexity="moderate", k=8)


@pytest.mark.parametrize(
    ("question", "slots"),
    [
        ("타이레놀 용량", 3),
        ("타이레놀하고 이부프로펜 같이 먹어도 되나요?", 1),
        ("두통약 그리고 소화제", 0),
        ("Can I take ibuprofen and aspirin?", 0),
        ("용량은? 부작용은?", 1),
        (("고혈압약을 복용 중인 70대 어머니가 감기 기운이 있으신데 종합감기약을 드셔도 되는지, 아니면 해열진통제만 "
          "따로 드시는 편이 나은지 알고 싶습니다"), 1),  # long
    ],
)
def test_complex(question: str, slots: int) -> None:
    assert retrieval_plan(question, slots) == RetrievalPlan(search=True, complexity="complex", k=15)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="question"):
        retrieval_plan("  ")
    with pytest.raises(ValueError, match="slot_count"):
        retrieval_plan("타이레놀", slot_count=-1)
