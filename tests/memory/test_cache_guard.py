"""The response cache's abuse guards (issue 22, 4): what is refused, and what counts as close in content."""

from __future__ import annotations

import pytest

from yaksa.memory.cache_guard import (
    MAX_ANSWER_CHARS,
    MAX_QUESTION_CHARS,
    Signature,
    abnormal_answer,
    abnormal_question,
    content,
    content_match,
    signature,
)

SALT = "5a" * 16
NATURAL = ["타이레놀 먹어도 되나요?", "알레르기에 페니라민정 먹어도 되나요", "그럼 페니라민정은 하루에 몇 번 먹어요?",
           "두통이 있는데 아세트아미노펜 먹어도 되나요? 하루에 몇 번까지 괜찮아요?",
           "65세 남성 당뇨 환자가 이부프로펜 먹어도 되나요?", "Can I take ibuprofen with warfarin?",
           "아파요 아파요 너무 아파요", "약0", "네? 네?"]


@pytest.mark.parametrize("question", NATURAL)
def test_natural_questions_are_not_abnormal(question: str) -> None:
    assert abnormal_question(question) is None


@pytest.mark.parametrize("question, reason", [
    ("타이레놀 먹어도 되나요? " * 100, "longer than"),
    ("가" * (MAX_QUESTION_CHARS + 1), "longer than"),
    ("타이레놀 먹어도 되나요? " * 3, "repeated 3 times"),
    ("타이레놀 먹어도 되나요.\n타이레놀 먹어도 되나요!! 타이레놀, 먹어도 되나요?", "repeated 3 times"),
    ("타이레놀먹어도되나요" * 4, "repetitive"),
])
def test_repetitive_or_long_questions_are_abnormal(question: str, reason: str) -> None:
    assert reason in (abnormal_question(question) or "")


def test_answer_bound() -> None:
    assert abnormal_answer("가" * MAX_ANSWER_CHARS) is None and abnormal_answer(None) is None
    assert "longer than" in (abnormal_answer("가" * (MAX_ANSWER_CHARS + 1)) or "")


def test_content_match_needs_shared_bigrams_and_similar_length() -> None:
    base = signature("타이레놀 먹어도 되나요", SALT)
    assert content("타이레놀, 먹어도 되나요?!") == "타이레놀먹어도되나요"
    assert content_match(base, signature("타이레놀 먹어도 되나요?", SALT))
    assert content_match(base, signature("타이레놀 먹어도 돼요?", SALT))
    assert not content_match(base, signature("타이레놀 복용해도 괜찮을까요?", SALT))
    assert not content_match(base, signature("타이레놀 먹어도 되나요? " * 100, SALT))   # same bigrams, 100× long
    assert not content_match(base, signature("타이레놀 먹어도 되나요", "a7" * 16))       # another file's salt
    assert not content_match(base, Signature(frozenset(), 0))
    assert Signature.from_json(base.to_json()) == base
    with pytest.raises(ValueError):
        Signature.from_json({"buckets": ["타이"], "length": 2})
