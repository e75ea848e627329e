"""Research questions (a study's question) against a person's question about a medicine."""

from __future__ import annotations

import pytest

from yaksa.lexicon.research_question import asks_what_studies_found, is_research_question


@pytest.mark.parametrize(
    ("question", "research"),
    [
        ("Is statin use associated with diabetes?", True),
        ("Does vitamin D prevent colds?", True),
        ("What is the effect of caffeine on sleep?", True),
        ("Is the INR reliable?", True),
        ("Can I take ibuprofen while pregnant?", False),
        ("Is Gout inherited?", False),
        ("How should I store insulin?", False),
    ],
)
def test_is_research_question(question: str, research: bool) -> None:
    assert is_research_question(question) is research


def test_what_studies_found_is_narrower_than_research() -> None:
    assert asks_what_studies_found("Is caffeine associated with miscarriage?")
    assert asks_what_studies_found("Any randomized trials of melatonin for jet lag?")
    # a person's questions about a medicine that read as research by their opening, not by what they ask
    assert not asks_what_studies_found("Does naproxen cause stomach bleeding?")
    assert not asks_what_studies_found("What are the side effects of naproxen?")
