"""The searcher with a focus, on the tiny built project (25 products): named drugs constrain."""

from __future__ import annotations

from pathlib import Path

import pytest

from yaksa.config import load_settings
from yaksa.retrieval.loader import LoadedBundle, load_published
from yaksa.retrieval.searcher import Searcher


@pytest.fixture(scope="module")
def searcher(tiny_project: Path) -> Searcher:
    settings = load_settings(tiny_project / "params.yaml")
    loaded: LoadedBundle = load_published(settings.paths.indexes)
    yield Searcher(loaded, settings.retrieval)
    loaded.close()


def test_named_product_only(searcher: Searcher) -> None:
    result = searcher.search("겔포스 먹는 법 알려줘", k=3)
    assert result.hits and all("겔포스" in h.title for h in result.hits)
    assert result.hits[0].metadata["section_key"] == "usage"
    focus = result.to_json()["focus"]
    assert focus["mode"] == "drug" and focus["satisfied"] is True and focus["intent"]["name"] == "usage"
    assert "focused" in result.timings_ms


def test_brand_without_products_is_an_empty_result_with_a_reason(searcher: Searcher) -> None:
    result = searcher.search("탁센 먹어도 되나요")   # naproxen: no product of the tiny bundle has it
    assert result.hits == [] and result.focus.satisfied is False
    assert "나프록센" in result.focus.reason


def test_general_question_keeps_the_hybrid_path(searcher: Searcher) -> None:
    result = searcher.search("약 보관은 어떻게 하나요", k=3)
    assert result.focus.mode == "general" and "fuse" in result.timings_ms
    assert result.hits[0].metadata["section_key"] == "storage"


def test_focus_off_is_the_old_searcher(searcher: Searcher) -> None:
    plain = Searcher(searcher.loaded, searcher.params, use_focus=False)
    result = plain.search("겔포스 먹는 법 알려줘", k=3)
    assert result.focus is None and result.to_json()["focus"] is None and "fuse" in result.timings_ms


def test_an_english_question_naming_a_product_is_answered_from_its_labels(searcher: Searcher) -> None:
    result = searcher.search("What are the side effects of ibuprofen?", k=3)
    assert result.collections == ["drugs"]
    assert result.focus.lang == "en" and result.focus.mode == "drug" and result.focus.intent.name == "side_effects"
    assert result.hits and all("부루펜" in h.title for h in result.hits)
    assert result.hits[0].metadata["section_key"] == "side_effects"


def test_an_english_question_for_a_child_prefers_a_childs_dose(searcher: Searcher) -> None:
    result = searcher.search("how much acetaminophen can I give my 5 year old?", k=3)
    assert result.focus.population == ("child",) and result.focus.intent.name == "usage"
    assert result.hits[0].metadata["section_key"] == "usage"


def test_english_questions_asking_no_labels_question_keep_the_english_collections(searcher: Searcher) -> None:
    for question in ("Is caffeine associated with miscarriage?",      # what studies found
                     "What is Glutathione synthetase deficiency?",    # a disease named after an ingredient
                     "Do you have information about Caffeine"):       # nothing a label section answers
        result = searcher.search(question, k=3)
        assert "drugs" not in result.collections and result.focus.mode == "general", question


def test_an_english_question_naming_a_medicine_without_a_product_is_an_empty_result(searcher: Searcher) -> None:
    result = searcher.search("What are the side effects of naproxen?", k=3)   # no naproxen in the tiny bundle
    assert result.collections == ["drugs"] and result.hits == []
    assert result.focus.mode == "drug" and result.focus.satisfied is False and "naproxen" in result.focus.reason


def test_an_english_question_asking_what_to_take_for_a_complaint_is_answered_from_the_labels(searcher: Searcher) -> None:
    """"What can I take for a headache?" got MedQuAD's "Problems with Taste"."""
    result = searcher.search("What can I take for a headache?", k=3)
    assert result.collections == ["drugs"] and result.focus.mode == "symptom" and "두통" in result.focus.symptoms
    assert result.hits and result.hits[0].metadata["section_key"] == "efficacy"
    medquad = searcher.search("What are the treatments for Headache ?", k=3)
    assert "drugs" not in medquad.collections and medquad.focus.mode == "general"
