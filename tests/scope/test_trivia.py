"""A quiz-style yes/no question is refused; the same form about a person, a situation, a named medicine or a
symptom is left to the model."""

from __future__ import annotations

import json

import pytest

from tests.conftest import shared_or_skip
from yaksa.scope.trivia import reads_like_trivia


@pytest.mark.parametrize("question", [
    "달걀 노른자에는 콜레스테롤이 많은가?",
    "녹차에는 카페인이 들어 있는가?",
    "우유는 칼슘이 풍부한가?",
    "인슐린은 췌장에서 분비되는가?",        # a fact of the body asked as a quiz: the labels answer no quiz
    "로마 제국은 서기 476년에 멸망했는가",   # no question mark
    # a reading-comprehension item: a told event and "its cause / result?"
    "남자는 감기에 걸려서 병원에 갔다. 그 결과는 무엇인가?",
    "아이가 넘어져서 무릎을 다쳤다. 원인은 무엇인가?",
])
def test_a_quiz_question_reads_like_trivia(question: str) -> None:
    assert reads_like_trivia(question)


@pytest.mark.parametrize("question", [
    "생리를 안 하는데 임신인가?",                    # a situation
    "우리 아이 열이 나는데 감기인가?",                # a person
    "이거 먹고 머리가 아픈데 부작용인가?",
    "술 마시고 타이레놀 먹어도 되는가?",             # taking a medicine
    "머리가 아픈 건 스트레스 때문인가?",              # a pain
    "금강산의 기암괴석은 어떤 운동으로 형성되었는가?",  # a question word: KorQuAD's and the exam's form
    "달걀 노른자에는 콜레스테롤이 많나요?",          # the polite form people write in
    "아이가 넘어져서 무릎을 다쳤어요. 원인이 뭘까요?",   # told by the parent
    "55세 남자가 흉통으로 내원하였다. 가장 가능성이 높은 원인은?",   # an exam stem
])
def test_the_same_form_about_a_person_or_a_complaint_does_not(question: str) -> None:
    assert not reads_like_trivia(question)


def test_a_named_medicine_leaves_it_to_the_model() -> None:
    assert not reads_like_trivia("타이레놀은 간에 안 좋은가?", named_medicines=["타이레놀"])


def test_no_shared_post_or_exam_stem_reads_like_trivia() -> None:
    """The form is not the writers' (module doc): counted over every shared post and exam stem."""
    for name in ("posts_ko.jsonl", "med_ko.jsonl"):
        path = shared_or_skip("real-questions", name)
        texts = [json.loads(line)["question"] for line in path.read_text(encoding="utf-8").splitlines()]
        assert not [t for t in texts if reads_like_trivia(t)], name
