from __future__ import annotations

import pytest

from yaksa.retrieval.routing import route

ALL = ["drugs", "health", "literature", "cases"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("타이레놀 먹고 술 마셔도 되나요?", ["drugs"]),
        ("Tylenol 하루 최대 용량은?", ["drugs"]),  # any Hangul -> Korean drug labels
        ("What is the maximum daily dose of acetaminophen?", ["health"]),
        ("How should I store insulin?", ["health"]),
        ("Does vitamin D prevent colds?", ["health", "literature"]),
        ("Is statin use associated with diabetes?", ["health", "literature"]),
        ("What is the effect of caffeine on sleep?", ["health", "literature"]),
        ("Any randomized trials of melatonin for jet lag?", ["health", "literature"]),
    ],
)
def test_language_and_research_rules(question: str, expected: list[str]) -> None:
    assert route(question, ALL) == expected


def test_an_english_question_naming_a_product_goes_to_the_labels() -> None:
    # the searcher's focus found a product of the labels: "naproxen" is 낙센정, 나로펜정, ...
    assert route("What are the side effects of naproxen?", ALL, asks_the_labels=True) == ["drugs"]
    assert route("What are the side effects of naproxen?", ALL) == ["health", "literature"]
    assert route("What are the side effects of naproxen?", ["health"], asks_the_labels=True) == ["health"]


def test_critique_task_goes_to_cases_and_literature() -> None:
    assert route("타이레놀 답변 검토", ALL, task="critique") == ["cases", "literature"]


def test_only_available_collections_are_returned() -> None:
    assert route("Does vitamin D prevent colds?", ["health", "drugs"]) == ["health"]
    assert route("What is aspirin?", ["drugs"]) == ["drugs"]  # nothing wanted exists: fall back
    assert route("두통약", ["health", "literature"]) == ["health", "literature"]


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="task"):
        route("q", ALL, task="summarise")
    with pytest.raises(ValueError, match="question"):
        route("   ", ALL)
    with pytest.raises(ValueError, match="available"):
        route("q", [])


def test_scope_collections_cover_the_language_not_the_route() -> None:
    from yaksa.retrieval.routing import scope_collections

    assert scope_collections("두통 약", ["drugs", "health"]) == ["drugs"]
    assert scope_collections("What is asthma?", ["drugs", "health", "literature", "cases"]) == ["health", "literature"]
    assert scope_collections("What is asthma?", ["drugs"]) == []


@pytest.mark.parametrize(("question", "literature"), [
    ("Is the international normalised ratio (INR) reliable?", True),     # a study's yes/no question
    ("Are bipolar disorders underdiagnosed in patients with depressive episodes?", True),
    ("Cigarettes and cinema: does parental restriction reduce smoking?", True),   # title style
    ("Can I take ibuprofen with food?", False),                          # about the asker
    ("Is it okay to give my kid cough syrup at night?", False),
    ("Is Huntington disease inherited ?", False),                        # a MedQuAD question type
    ("What is (are) Delirium ?", False),
])
def test_research_questions_also_search_the_literature(question: str, literature: bool) -> None:
    assert ("literature" in route(question, ["health", "literature"])) is literature
