"""The Korean gloss of an English medicine question: what a label section answers, and for whom."""

from __future__ import annotations

import pytest

from yaksa.lexicon.english_gloss import asks_about_a_medicine, asks_for_a_medicine, korean_gloss
from yaksa.lexicon.focus import find_population, find_symptoms
from yaksa.lexicon.section_intent import classify_korean


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("What are the side effects of naproxen?", "side_effects"),
        ("Does naproxen cause stomach bleeding?", "side_effects"),
        ("How should I store ibuprofen?", "storage"),
        ("Can I take ibuprofen and acetaminophen together?", "interactions"),
        ("how much tylenol can I give my 5 year old who weighs 18 kg?", "usage"),
        ("How many mg of ibuprofen can an adult take per day?", "usage"),
        ("Can I take ibuprofen while pregnant?", "precautions"),
        ("Is it safe to drink alcohol with acetaminophen?", "precautions"),
        ("Can I take Aleve with alcohol?", "precautions"),   # alcohol is a caution, not a second medicine
        # a condition is a caution, not a second medicine (it got the interactions section)
        ("Is it safe to take ibuprofen with high blood pressure?", "precautions"),
        ("Can I take ibuprofen with asthma?", "precautions"),
        ("Can I take aspirin with my blood pressure medication?", "interactions"),
        ("What is naproxen used for?", "efficacy"),
    ],
)
def test_the_gloss_asks_for_the_section_the_question_asks(question: str, intent: str) -> None:
    assert classify_korean(korean_gloss(question)).name == intent


@pytest.mark.parametrize(
    ("question", "population"),
    [
        ("how much tylenol can I give my 5 year old who weighs 18 kg?", "child"),
        ("Can I give my 6 month old baby acetaminophen?", "infant"),
        ("Can I take ibuprofen while pregnant?", "pregnant"),
        ("Is naproxen safe while breastfeeding?", "breastfeeding"),
        ("My 70 year old mother has high blood pressure. Can she take naproxen?", "elderly"),
        ("How many mg of ibuprofen can an adult take per day?", "adult"),
    ],
)
def test_the_gloss_names_the_person(question: str, population: str) -> None:
    assert population in find_population(korean_gloss(question))


def test_age_weight_and_conditions_are_said_in_korean() -> None:
    gloss = korean_gloss("how much tylenol can I give my 5 year old who weighs 18 kg?")
    assert "5살" in gloss and "18kg" in gloss
    assert "40kg" in korean_gloss("dose of ibuprofen for a child of 88 lbs")  # pounds become kilograms
    assert "고혈압" in korean_gloss("My 70 year old mother has high blood pressure. Can she take naproxen?")


def test_taking_a_medicine_with_food_is_no_interaction() -> None:
    assert "같이" not in korean_gloss("Should I take ibuprofen with food?")
    assert "식후" in korean_gloss("Should I take ibuprofen with food?")


def test_a_question_asking_nothing_a_label_answers_has_no_gloss() -> None:
    assert korean_gloss("Do you have information about Caffeine") == ""
    assert korean_gloss("What is naproxen?") == ""


def test_an_ingredient_inside_a_disease_name_is_no_medicine_asked_about() -> None:
    assert not asks_about_a_medicine("What is Glutathione synthetase deficiency?", ("Glutathione",))
    assert not asks_about_a_medicine("What are the symptoms of caffeine intoxication?", ("caffeine",))
    assert asks_about_a_medicine("What are the side effects of naproxen?", ("naproxen",))
    assert asks_about_a_medicine("How much Tylenol for a child?", ("tylenol",))   # case does not matter
    assert not asks_about_a_medicine("What is gout?", ())


def test_complaints_are_glossed_in_the_labels_words_and_asking_for_a_medicine_is_told_apart() -> None:
    """"What can I take for a headache?" got MedQuAD's "Problems with Taste"; MedQuAD's own "What are the treatments
    for Headache ?" asks about the condition, not for a medicine to take."""
    assert find_symptoms(korean_gloss("What can I take for a headache?"))[0] == ("두통",)
    assert "인후통" in find_symptoms(korean_gloss("What medicine is good for a sore throat?"))[0]
    assert "멀미" in find_symptoms(korean_gloss("Is there something for motion sickness?"))[0]
    assert asks_for_a_medicine("What can I take for a headache?")
    assert asks_for_a_medicine("what can I give my 3 year old for a fever?")
    assert asks_for_a_medicine("Is there something for motion sickness I can buy over the counter?")
    assert not asks_for_a_medicine("What are the treatments for Headache ?")
    assert not asks_for_a_medicine("What are the symptoms of the common cold?")
