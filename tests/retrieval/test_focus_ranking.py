"""Focus analysis, focused ranking and the relevance check, over the real 500-product documents.

Vectors are random unit rows (the ranking under test must not depend on them for *which* products
and sections may appear; they only order equals)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from yaksa.corpus.document import Document
from yaksa.lexicon.focus import analyse
from yaksa.lexicon.linking import DrugCatalog
from yaksa.retrieval.focus_ranking import rank_drug, rank_symptom, symptom_products
from yaksa.retrieval.relevance import check_relevance


@pytest.fixture(scope="module")
def docs(shared_data: Callable[[str], Path]) -> list[Document]:
    from yaksa.corpus import mfds_easy_drug
    from yaksa.corpus.rejects import RejectLog

    return mfds_easy_drug.load(shared_data("mfds-easy-drug-500"), RejectLog())


@pytest.fixture(scope="module")
def catalog(docs: list[Document]) -> DrugCatalog:
    return DrugCatalog.from_documents(enumerate(docs))


def _unit_rows(n: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, 16)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def vectors(docs: list[Document]) -> np.ndarray:
    return _unit_rows(len(docs), 0)


def _ranked(question: str, catalog: DrugCatalog, vectors: np.ndarray, docs: list[Document], need: int = 5):
    focus = analyse(question, catalog)
    rank = rank_drug if focus.mode == "drug" else rank_symptom
    ranked, focus = rank(focus, catalog, vectors, vectors[0], "drugs", need)
    return [docs[row] for (_, row), _ in ranked], focus


def test_modes(catalog: DrugCatalog) -> None:
    assert analyse("타이레놀 먹어도 되나요", catalog).mode == "drug"
    baby = analyse("아기 해열제 용량 알려주세요", catalog)
    assert (baby.mode, baby.symptoms, baby.intent.name, baby.population) == ("symptom", ("발열",), "usage", ("infant",))
    assert analyse("케토톱 붙이고 햇빛 봐도 되나요", catalog).route == "topical"
    assert analyse("What causes gout?", catalog).mode == "general"


def test_named_brand_cites_only_its_ingredient(catalog: DrugCatalog, vectors: np.ndarray, docs: list[Document]) -> None:
    hits, focus = _ranked("임신 중인데 타이레놀 먹어도 되나요", catalog, vectors, docs)
    assert len(hits) == 5 and focus.satisfied
    assert all("아세트아미노펜" in catalog.products[h.metadata["item_seq"]].ingredients for h in hits)
    assert hits[0].metadata["section_key"] == "precautions"


def test_named_product_answers_the_intent(catalog: DrugCatalog, vectors: np.ndarray, docs: list[Document]) -> None:
    hits, _ = _ranked("케토톱 붙이고 햇빛 봐도 되나요", catalog, vectors, docs)
    assert all("케토톱" in h.title for h in hits)
    assert hits[0].metadata["section_key"] == "precautions"


def test_brand_without_products_returns_nothing_with_a_reason(catalog, vectors, docs) -> None:
    hits, focus = _ranked("지르텍 먹으면 졸려요?", catalog, vectors, docs)
    assert hits == [] and focus.satisfied is False and "세티리진" in focus.reason


def test_symptom_ranks_products_not_side_effect_lists(catalog, vectors, docs) -> None:
    hits, focus = _ranked("머리가 지끈지끈 아파요", catalog, vectors, docs, need=10)
    gold = symptom_products(catalog, ["두통"])
    assert all(h.metadata["item_seq"] in gold for h in hits)
    assert {h.metadata["section_key"] for h in hits} <= {"efficacy", "usage"}
    assert hits[0].metadata["section_key"] == "efficacy" and focus.satisfied


def test_infant_fever_dose_is_not_an_enema(catalog, vectors, docs) -> None:
    hits, _ = _ranked("아기 해열제 용량 알려주세요", catalog, vectors, docs)
    first = catalog.products[hits[0].metadata["item_seq"]]
    assert first.route != "rectal" and hits[0].metadata["section_key"] == "usage"
    assert "발열" in first.efficacy


def test_relevance_verdicts(catalog, vectors, docs) -> None:
    hits, focus = _ranked("타이레놀 부작용 있어요?", catalog, vectors, docs)
    cited = [(h.title, h.section, h.text, h.metadata) for h in hits]
    ok = check_relevance(focus, cited)
    assert ok.relevant and ok.first_ok and ok.share_ok == 1.0 and ok.intent_ok and not ok.problems
    wrong = [d for d in docs if "타라부틴" in d.title]
    bad = check_relevance(focus, [(d.title, d.section, d.text, d.metadata) for d in wrong])
    assert not bad.relevant and not bad.first_ok and bad.share_ok == 0.0 and bad.problems
    assert not check_relevance(focus, []).relevant
    assert check_relevance(None, cited).relevant


def test_focus_json_is_plain(catalog: DrugCatalog) -> None:
    import json

    out = analyse("애드빌 부작용 뭐예요", catalog).to_json()
    assert json.loads(json.dumps(out, ensure_ascii=False))["brands"][0]["brand"] == "애드빌"
    assert out["intent"]["labels"] == ["부작용"]


def _names(hits: list[Document], catalog: DrugCatalog) -> list[str]:
    return list(dict.fromkeys(catalog.products[h.metadata["item_seq"]].name for h in hits))


@pytest.mark.parametrize("seed", range(5))
def test_the_form_a_question_names_comes_first(catalog, docs, seed: int) -> None:
    """"부루펜정" is the tablet, whatever the vectors prefer (each seed orders the family differently)."""
    v = _unit_rows(len(docs), seed)
    hits, focus = _ranked("부루펜정 먹어도 돼요?", catalog, v, docs)
    assert focus.linking.asked_form and all("정" in catalog.products[s].name for s in focus.linking.asked_form)
    assert _names(hits, catalog)[0].startswith("부루펜정")
    syrup, _ = _ranked("부루펜시럽 먹어도 돼요?", catalog, v, docs)
    assert "시럽" in _names(syrup, catalog)[0]


def test_a_childrens_product_comes_after_the_rest_unless_the_question_is_about_a_child(catalog, docs) -> None:
    for seed in range(5):
        v = _unit_rows(len(docs), seed)
        adult, _ = _ranked("부루펜 먹어도 되나요", catalog, v, docs)
        assert not _names(adult, catalog)[0].startswith("어린이")
        child, _ = _ranked("아이가 부루펜 먹어도 되나요", catalog, v, docs)
        names = _names(child, catalog)
        assert any(n.startswith("어린이") for n in names)
    assert not analyse("부루펜 먹어도 되나요", catalog).linking.asked_form


def test_nobody_described_is_not_answered_first_from_a_childrens_product(catalog, docs) -> None:
    """"타이레놀 하루 최대 몇 알?" names no one: 타이레놀 is not in the data, so its ingredient's products
    answer, and one dosed for children only (트라몰정160) comes after those that dose adults."""
    from yaksa.lexicon.focus import load_focus_rules
    from yaksa.retrieval.focus_ranking import children_only

    rules = load_focus_rules()
    group = [p for p in catalog.products.values() if "아세트아미노펜" in p.ingredients[:1]]
    assert any(children_only(p, rules) for p in group) and not all(children_only(p, rules) for p in group)
    for seed in range(5):
        ranked, focus = _ranked("타이레놀 하루 최대 몇 알 먹어도 돼요?", catalog, _unit_rows(len(docs), seed), docs)
        assert not focus.population
        first = catalog.products[ranked[0].metadata["item_seq"]]
        assert not children_only(first, rules), first.name


def test_a_pregnant_persons_dose_question_gets_the_first_products_cautions_beside_the_dose(catalog, docs) -> None:
    """"타이레놀 하루에 몇 번까지 돼요?" asks the dose; for someone pregnant (the retrieve node adds the
    remembered profile's group) the first product's 주의사항 follows its 용법용량, before the other products'
    doses, and a product dosed for children only never leads (a pregnant woman is an adult)."""
    from dataclasses import replace

    from yaksa.lexicon.focus import load_focus_rules
    from yaksa.retrieval.focus_ranking import children_only

    rules = load_focus_rules()
    question = "타이레놀 하루에 몇 번까지 먹어도 돼요?"
    for seed in range(5):
        v = _unit_rows(len(docs), seed)
        plain = analyse(question, catalog)
        assert plain.intent.name == "usage" and not plain.population
        ranked, _ = rank_drug(plain, catalog, v, v[0], "drugs", 5)
        assert [docs[row].metadata["section_key"] for (_, row), _ in ranked] == ["usage"] * 5
        for group in ("pregnant", "breastfeeding", "elderly"):
            ranked, _ = rank_drug(replace(plain, population=(group,)), catalog, v, v[0], "drugs", 5)
            hits = [docs[row] for (_, row), _ in ranked]
            assert [h.metadata["section_key"] for h in hits[:3]] == ["usage", "precautions", "usage"], group
            assert hits[0].metadata["item_seq"] == hits[1].metadata["item_seq"]
            assert not children_only(catalog.products[hits[0].metadata["item_seq"]], rules)


def test_a_pregnant_persons_complaint_gets_each_products_cautions_with_it(catalog, docs) -> None:
    """"머리가 아파요 두통약 추천해주세요" from someone pregnant: each product comes with its 주의사항 (an NSAID's
    says 임부 must not take it), so fewer products, each with what its label says for her."""
    from dataclasses import replace

    v = _unit_rows(len(docs), 0)
    plain = analyse("머리가 아파요 두통약 추천해주세요", catalog)
    assert plain.mode == "symptom" and not plain.population
    ranked, _ = rank_symptom(plain, catalog, v, v[0], "drugs", 8)
    assert "precautions" not in [docs[row].metadata["section_key"] for (_, row), _ in ranked]
    ranked, _ = rank_symptom(replace(plain, population=("pregnant",)), catalog, v, v[0], "drugs", 8)
    hits = [docs[row] for (_, row), _ in ranked]
    assert [h.metadata["section_key"] for h in hits[:3]] == ["efficacy", "usage", "precautions"]
    assert len({h.metadata["item_seq"] for h in hits[:3]}) == 1


def test_a_child_is_not_answered_first_from_an_adults_only_product(catalog, docs) -> None:
    """"아이가 콧물이 나요": whatever the similarity, the first product doses children (or names no group);
    a product whose 용법용량 doses adults only ("성인은 1회 …") comes after."""
    from yaksa.lexicon.focus import load_focus_rules
    from yaksa.retrieval.focus_ranking import adults_only

    rules = load_focus_rules()
    for seed in range(5):
        ranked, focus = _ranked("8살 아이가 콧물이 나고 기침을 해요", catalog, _unit_rows(len(docs), seed), docs)
        assert "child" in focus.population
        first = catalog.products[ranked[0].metadata["item_seq"]]
        assert not adults_only(first, rules), first.name


@pytest.mark.parametrize("question", ["나이 들어서 밤에 자꾸 깨요", "연세 드신 아버지가 변비가 심해요",
                                      "75세 어머니 관절약", "노년기 불면증에 먹는 약"])
def test_how_people_say_old_age_reads_as_elderly(question: str) -> None:
    """"나이 들어서 밤에 자꾸 깨요" was answered with doxylamine's adult dose and no 고령자 caution."""
    from yaksa.lexicon.focus import find_population

    assert "elderly" in find_population(question)


def test_age_words_that_are_not_old_age_do_not_read_as_elderly() -> None:
    from yaksa.lexicon.focus import find_population

    assert "elderly" not in find_population("나이가 어려서 약을 못 삼켜요")
    assert "elderly" not in find_population("29살인데 두통이 심해요")


@pytest.mark.parametrize("question", ["나이 들어서 밤에 자꾸 깨요", "요즘 밤에 자꾸 깨요", "새벽에 자주 깨요"])
def test_waking_at_night_is_insomnia(question: str) -> None:
    """"나이 들어서 밤에 자꾸 깨요" named no symptom and was refused as off-topic."""
    from yaksa.lexicon.focus import named_symptoms

    assert "불면" in named_symptoms(question)


def test_an_older_persons_symptom_question_asks_for_the_cautions() -> None:
    """Doxylamine's adult dose came first for "나이 들어서 밤에 자꾸 깨요"; its label says who must not take it
    (prostate, glaucoma), which is what an older asker needs first."""
    from yaksa.lexicon.section_intent import classify_korean

    assert classify_korean("나이 들어서 밤에 자꾸 깨요", default="efficacy", symptom=True).name == "precautions"
    assert classify_korean("요즘 밤에 자꾸 깨요", default="efficacy", symptom=True).name == "efficacy"


def test_may_they_take_it_asks_for_the_cautions_for_an_older_or_pregnant_person(catalog: DrugCatalog) -> None:
    """"75세 아버지가 밤에 자꾸 깨시는데 수면유도제 드셔도 되나요?" got doxylamine's adult dose; for the people
    the labels single out, "드셔도 되나요" asks who must not take it."""
    older = analyse("75세 아버지가 밤에 자꾸 깨시는데 수면유도제 드셔도 되나요?", catalog)
    assert older.mode == "symptom" and "elderly" in older.population and older.intent.name == "precautions"
    assert analyse("밤에 자꾸 깨는데 수면유도제 먹어도 되나요?", catalog).intent.name == "efficacy"


def test_one_complaint_is_answered_first_from_a_product_of_one_ingredient(catalog, docs) -> None:
    """"해열제 먹어야 돼요?" led with 뇌선 (a combination with caffeine): with similarity equal for every
    product, a one-ingredient product leads; a combination still leads when it names more of the question's
    symptoms, and 감기 (several symptoms) has no preference."""
    same = np.tile(_unit_rows(1, 0), (len(docs), 1))
    for question in ("해열제 먹어야 돼요?", "재채기가 나요", "머리가 아파요"):
        ranked, _ = _ranked(question, catalog, same, docs)
        assert catalog.products[ranked[0].metadata["item_seq"]].single_ingredient, question
    ranked, _ = _ranked("콧물이 나고 목이 아파요", catalog, same, docs)   # 콧물 and 인후통: a cold remedy
    first = catalog.products[ranked[0].metadata["item_seq"]]
    assert not first.single_ingredient
    assert {"콧물", "인후통"} <= {t for t in ("콧물", "인후통") if first.item_seq in catalog.products_naming(t)}


def test_a_label_naming_one_complaint_twice_does_not_lead_for_it(catalog, docs) -> None:
    """"생리통 약" names 생리통, which is also 월경통's phrasing; a label's "월경통(생리통)" once counted twice
    and a four-ingredient powder (뇌선) led. With similarity equal, a one-ingredient product leads."""
    same = np.tile(_unit_rows(1, 0), (len(docs), 1))
    ranked, focus = _ranked("생리통 약 추천해 주세요", catalog, same, docs)
    assert {"생리통", "월경통"} <= set(focus.symptoms)
    assert catalog.products[ranked[0].metadata["item_seq"]].single_ingredient
