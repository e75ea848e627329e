"""The drug linker over the real 500-product e약은요 documents and the packaged brand rules."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from yaksa.lexicon.linking import DrugCatalog, load_brand_rules, unlisted_product


@pytest.fixture(scope="module")
def catalog(shared_data: Callable[[str], Path]) -> DrugCatalog:
    from yaksa.corpus import mfds_easy_drug
    from yaksa.corpus.rejects import RejectLog

    docs = mfds_easy_drug.load(shared_data("mfds-easy-drug-500"), RejectLog())
    return DrugCatalog.from_documents(enumerate(docs))


def _names(catalog: DrugCatalog, question: str) -> list[str]:
    return [p.name for p in catalog.link(question).products]


def test_brand_rules_are_reviewable() -> None:
    rules = load_brand_rules()
    assert len(rules.brands) >= 40
    assert all(r.source and r.ingredients for r in rules.brands.values())
    assert rules.ingredient_aliases["paracetamol"] == "아세트아미노펜"


def test_brand_not_in_data_links_to_its_ingredient(catalog: DrugCatalog) -> None:
    found = catalog.link("임신 중인데 타이레놀 먹어도 되나요")
    assert found.brands[0].brand == "타이레놀" and not found.brands[0].in_data
    assert found.ingredients == ("아세트아미노펜",)
    products = catalog.products_for([p.item_seq for p in found.products])
    assert products and all("아세트아미노펜" in p.ingredients for p in products)
    assert products[0].single_ingredient
    assert "not in the data" in found.notes[0]


def test_brands_known_abroad_by_an_english_name_link_to_their_ingredient(catalog: DrugCatalog) -> None:
    """"Can I take Aleve with alcohol?", "Side effects of Imodium?": English-speaking users name brands from home."""
    aleve = catalog.link("Can I take Aleve with alcohol?")
    assert aleve.ingredients == ("나프록센",) and aleve.brands[0].brand == "Aleve" and aleve.products
    assert catalog.link("Side effects of Imodium?").ingredients == ("로페라미드",)   # a Korean brand's English name
    assert catalog.link("How much Calpol for my 2 year old?").ingredients == ("아세트아미노펜",)


def test_a_name_said_to_be_a_medicine_is_one(catalog: DrugCatalog) -> None:
    """"스티바A라는 의약품이 홍조치료약으로 …" (a real post on flushing) got four unrelated labels' side effects; a
    name said to be a medicine is one, listed or not. Written again here."""
    found = catalog.link("스티바A라는 의약품이 홍조에 좋다고 들었어요")
    assert found.mentions == ("스티바A",) and not found.products and found.groups == ((),)
    assert catalog.link("캘론이라는 약을 먹었는데 괜찮을까요").mentions == ("캘론",)
    assert catalog.link("타이레놀이라는 약을 먹었어요").ingredients == ("아세트아미노펜",)   # a known name links
    assert not catalog.link("요도염이라는 약사님의 말씀을 들었어요").mentions          # 약사 is no medicine
    assert not catalog.link("시간이라는 약이 필요해").mentions                          # a figure of speech
    assert catalog.link("설명서에 나와있습니다디크놀이라는 약은").mentions == ("디크놀",)   # a sentence's end glued on
    assert not catalog.link("PRP라는 주사를 맞았어요").mentions    # an injection: given at a clinic, no label of ours


def test_product_name_with_form_and_strength(catalog: DrugCatalog) -> None:
    names = _names(catalog, "부루펜 시럽 몇 ml 먹여요")
    assert names[0] == "어린이부루펜시럽" and "부루펜정200밀리그램" in names
    assert _names(catalog, "부루펜400 먹어도 돼?")[0] == "부루펜정400밀리그램"
    assert _names(catalog, "게보린이랑 커피")[0] == "게보린정"


def test_ingredients_in_english_and_korean(catalog: DrugCatalog) -> None:
    english = set(_names(catalog, "acetaminophen 하루 최대 용량"))
    korean = set(_names(catalog, "아세트아미노펜 하루 최대 용량"))
    assert english == korean and "삼남아세트아미노펜정" in english


def test_unknown_brand_without_products_says_so(catalog: DrugCatalog) -> None:
    found = catalog.link("지르텍 먹으면 졸려요?")
    assert found.named and not found.products
    assert "세티리진" in found.notes[0]


@pytest.mark.parametrize("question", ["졸피뎀 먹고 술 마셔도 돼요?", "zolpidem 먹으면 졸려요?", "세티리진 먹으면 졸려요?"])
def test_a_known_ingredient_the_data_lacks_is_named_without_products(catalog: DrugCatalog, question: str) -> None:
    """Named, so the agent says the data lacks it, instead of answering from whatever the words match."""
    found = catalog.link(question)
    assert found.named and not found.products and found.ingredients[0] in ("졸피뎀", "세티리진")


@pytest.mark.parametrize("question", ["마스크 쓰고 나가도 돼요", "먹는 타이밍이 언제예요", "아기 해열제 용량",
                                      "크림 파스타 레시피 알려줘", "그린 스무디 만드는 법", "씨티은행 영업시간"])
def test_everyday_words_are_not_drugs(catalog: DrugCatalog, question: str) -> None:
    assert not catalog.link(question).named


def test_products_named_like_everyday_words_still_link_by_their_full_names(catalog: DrugCatalog) -> None:
    for name in ("아비나파스타", "그린큐액", "씨티엠액"):
        assert name in _names(catalog, f"{name} 먹어도 돼요?"), name


def test_full_names_found_anywhere_as_a_scan_of_every_name_would(catalog: DrugCatalog) -> None:
    """The first-characters index finds exactly the names a scan of every full name finds, in key order."""
    names = [k for k in catalog.keys["name"] if len(k) >= 4]
    for name in names[:60]:
        compact = f"혹시{name}이랑{names[-1]}같이"
        assert catalog._full_names_in(compact) == [k for k in names if k in compact]
    assert catalog._full_names_in("두통약") == []


def test_products_naming_a_symptom_are_those_whose_efficacy_names_it(catalog: DrugCatalog) -> None:
    for term in ("두통", "속쓰림", "기침", "없는증상어"):
        expected = {p.item_seq for p in catalog.products.values() if "efficacy" in p.rows and term in p.efficacy}
        assert catalog.products_naming(term) == expected
        assert catalog.products_naming(term) is catalog.products_naming(term)  # remembered
    assert catalog.products_naming("두통")


def test_a_name_without_a_form_word_is_typed_by_its_dose_text(catalog: DrugCatalog) -> None:
    """뇌선 (a powder) and 코푸시럽에스 were typed as applied, and demoted for every 먹는 question."""
    routes = {p.name: p.route for p in catalog.products.values()}
    assert routes["뇌선"] == "oral" and routes["코푸시럽에스"] == "oral" and routes["까스활명수큐액"] == "oral"
    assert routes["신신파스에스"] == "topical" and routes["미보(MEBO)연고"] == "topical"


def test_every_symptom_term_names_a_medicine_of_the_data(catalog: DrugCatalog) -> None:
    """A term that names nothing makes its questions find nothing ("인공눈물" abstained: 안구건조 is not
    how labels say it). Only 체중감량, 근육경련, 어지럼증 and 다래끼 are meant to: no label of the data
    treats obesity, leg cramps, dizziness (they name 어지러움 only of 멀미) or a stye."""
    from yaksa.lexicon.focus import load_focus_rules

    dead = {t for t in load_focus_rules().symptoms if not catalog.products_naming(t)}
    assert dead == {"체중감량", "근육경련", "어지럼증", "다래끼"}
    assert catalog.products_naming("눈의피로") and catalog.products_naming("벌레물린")  # label spacing ignored


def test_a_product_name_the_data_lacks_is_named_not_matched_by_its_start(catalog: DrugCatalog) -> None:
    """A real post on "독시정과 아시팜정" (doxycycline and a painkiller, prescribed) got doxylamine sleep aids: a
    word shaped like a product's name, in a sentence about medicine, is a drug the data does not hold."""
    found = catalog.link("피부과에서 독시정과 아시팜정 약을 처방받아 먹고 있습니다")
    assert found.mentions == ("독시정", "아시팜정") and found.absent == ("독시정", "아시팜정")
    assert not found.products and found.named
    assert all("not in the data" in n for n in found.notes)


def test_a_known_product_beside_an_unlisted_one_keeps_its_products(catalog: DrugCatalog) -> None:
    found = catalog.link("타이레놀이랑 독시정 같이 먹어도 되나요?")
    assert found.absent == ("독시정",) and found.products
    assert found.mentions[0] == "타이레놀"   # the brand said without its particle ("타이레놀이랑")


@pytest.mark.parametrize("question", [
    "운동장 두바퀴정도 돌면 가슴이 아파요",          # 정도: about, no tablet
    "약 먹을 예정인데 걱정이에요",                    # everyday words ending in 정
    "생리 끝나면 질정을 넣어요 약은 안 먹어요",       # a form (vaginal tablet), not a product
    "처방받았습니다알레파타딘정 먹어요",              # words run together: no one name
    "할머니 댁에 가는 과정에서 멀미약을 먹었어요",
])
def test_everyday_words_and_forms_are_no_unlisted_product(catalog: DrugCatalog, question: str) -> None:
    assert catalog.link(question).absent == ()


def test_a_product_shaped_word_outside_talk_of_medicine_is_not_read(catalog: DrugCatalog) -> None:
    assert catalog.link("독시정이라는 카페에 갔어요").absent == ()
    assert catalog.link("독시정이라는 약을 먹어요").absent == ("독시정",)


def test_a_missing_brand_is_named_without_its_particle(catalog: DrugCatalog) -> None:
    """"타미플루를에 해당하는 제품의 허가 정보가 자료에 없어" was the reply's first words."""
    found = catalog.link("타미플루를 먹어도 되나요?")
    assert found.mentions == ("타미플루",) and found.absent == ("타미플루",)
    # medicines listed without spaces: the brand's name, not the whole run of words after it (a real post's
    # "타미플루복용.일동아목시실린250…복용중이예요" was said back as one medicine)
    glued = catalog.link("현재. 타미플루복용.일동아목시실린250뮤코라제정 복용중이예요")
    assert glued.absent[0] == "타미플루"
    assert catalog.link("타미플루캡슐을 먹어도 되나요?").absent == ("타미플루캡슐",)


def test_unlisted_names_written_without_spaces_are_each_named(catalog: DrugCatalog) -> None:
    """"처방받은 알레파타딘정슈다페드정 먹어도 되나요" was answered from almagate labels: two names run together."""
    assert catalog.link("처방받은 알레파타딘정슈다페드정 먹어도 되나요").absent == ("알레파타딘정", "슈다페드정")
    assert catalog.link("처방받았습니다알레파타딘정슈다페드정을 먹어요").absent == ("슈다페드정",)
    assert catalog.link("운동을 걱정정도로 해요 약은 먹어요").absent == ()


@pytest.mark.parametrize(("word", "name"), [
    ("받앗던알프람정", "알프람정"), ("된다며소론도정", "소론도정"), ("약물슈다페드정", "슈다페드정"),
    ("타왔는데요스마블과립", "스마블과립"), ("처방받은알프람정을", "알프람정"),
    ("은행엽정", "은행엽정"),   # a name starting with 은: two syllables must stay before the form
])
def test_a_verb_ending_glued_onto_a_name_is_not_said_as_the_name(word: str, name: str) -> None:
    """Real posts wrote "받앗던알프람정", "된다며소론도정" without spaces, and the reply said them back as names."""
    assert unlisted_product(word) == name


def test_caffeine_in_a_drink_is_no_caffeine_tablet(catalog: DrugCatalog) -> None:
    """"카페인 음료를 마시면 가슴이 콩닥콩닥 해요" (a real post) got a caffeine tablet's uses and dose; a sentence
    speaking of a tablet or of taking it as a medicine keeps the link."""
    from yaksa.lexicon.linking import named_in_the_diet

    assert named_in_the_diet("카페인", "카페인 음료를 마시면 가슴이 콩닥콩닥 해요")
    assert named_in_the_diet("카페인", "카페인을 약간이라도 섭취하면 더 심해집니다")      # 약간 is no medicine
    assert named_in_the_diet("카페인", "Is caffeine safe in pregnancy?")
    assert not named_in_the_diet("카페인", "카페인 알약 하루에 몇 개 먹어요?")
    assert not named_in_the_diet("카페인", "caffeine pills side effects")
    assert not named_in_the_diet("아세트아미노펜", "아세트아미노펜 하루 얼마까지?")   # not a dietary ingredient
    assert catalog.link("카페인 음료를 마시면 가슴이 콩닥콩닥 해요").mentions == ()
