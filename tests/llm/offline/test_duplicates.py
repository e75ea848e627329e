"""The duplicate-ingredient caution: a cited product holding what the user already takes."""

from __future__ import annotations

from yaksa.llm.evidence import Citation
from yaksa.llm.offline.duplicates import duplicate_cautions, ingredients_of, profile_medications
from yaksa.llm.offline.extractive import extractive_answer
from yaksa.llm.offline.rule_verifier import verify_rules


def _product(n: int, name: str, ingredient: str, key: str, text: str) -> Citation:
    meta = {"item_seq": f"9{n}", "product_name": name, "ingredient": ingredient, "section_key": key}
    section = {"efficacy": "효능효과", "usage": "용법용량"}[key]
    return Citation(n, f"mfds:9{n}:{key}", "drugs", f"{name}({ingredient})", section, text, 0.9, meta)


PANCOL = [
    _product(1, "판콜에이내복액", "아세트아미노펜,클로르페니라민말레산염,dl-메틸에페드린염산염", "efficacy",
             "이 약은 감기의 여러 증상(콧물, 코막힘, 발열, 두통)의 완화에 사용합니다."),
    _product(2, "판콜에이내복액", "아세트아미노펜,클로르페니라민말레산염,dl-메틸에페드린염산염", "usage",
             "성인 1회 1병(30 mL)씩, 1일 3회 식후 30분에 복용합니다."),
]


def test_profile_medications_and_brands() -> None:
    assert profile_medications("70세. 질환: 고혈압. 복용 중인 약: 타이레놀, 세티리진. 증상: 콧물.") == ["타이레놀", "세티리진"]
    assert profile_medications("질환: 고혈압.") == []
    assert ingredients_of("타이레놀") == ("아세트아미노펜",)   # a brand stands for its ingredients
    assert ingredients_of("클로르페니라민") == ("클로르페니라민",)


def test_a_cold_medicine_with_the_users_painkiller_says_so_first_and_cited() -> None:
    summary = "복용 중인 약: 타이레놀, 와파린."
    answer = extractive_answer("콧물이 심한데 감기약 먹어도 돼요?", PANCOL, profile_summary=summary)
    first = answer.split("\n\n")[0]
    assert first.startswith("주의: 판콜에이내복액에는 복용 중이라고 하신 타이레놀의 성분(아세트아미노펜)")
    assert first.endswith("[문서 1]") and answer.count("주의: ") == 1   # once per product
    assert verify_rules(answer, PANCOL).verdict == "PASS"


def test_a_salt_matches_its_base_and_nothing_is_said_without_a_shared_ingredient() -> None:
    assert "복용 중이라고 하신 클로르페니라민이 들어 있어" in duplicate_cautions("복용 중인 약: 클로르페니라민.", PANCOL)[0]
    assert duplicate_cautions("복용 중인 약: 와파린, 오메프라졸.", PANCOL) == []
    assert duplicate_cautions("", PANCOL) == []
    # asking about the very product the user takes is not a duplicate
    assert duplicate_cautions("복용 중인 약: 판콜에이내복액.", PANCOL) == []


def test_the_title_names_the_ingredient_when_the_metadata_does_not() -> None:
    c = Citation(1, "mfds:1:usage", "drugs", "세리콘정(아세트아미노펜)", "용법용량", "성인은 1회 1정 복용합니다.", 0.9,
                 {"product_name": "세리콘정", "ingredient": None, "section_key": "usage"})
    assert "세리콘정에는 복용 중이라고 하신 아세트아미노펜이" in duplicate_cautions("복용 중인 약: 아세트아미노펜.", [c])[0]
    unnamed = Citation(2, "mfds:2:usage", "drugs", "판콜에이내복액", "용법용량", "성인 1회 1병.", 0.9,
                       {"product_name": "판콜에이내복액", "ingredient": None, "section_key": "usage"})
    assert duplicate_cautions("복용 중인 약: 아세트아미노펜.", [unnamed]) == []  # the data does not say: silence


NAPROXEN = [
    Citation(n, f"mfds:{n}:precautions", "drugs", f"{name}(나프록센)", "주의사항", "알코올과 함께 복용하지 마십시오.", 0.9,
             {"product_name": name, "ingredient": ingredient, "section_key": "precautions"})
    for n, name, ingredient in ((1, "낙센정", "나프록센"), (2, "세록센정", None))
]
ACETAMINOPHEN = [
    Citation(1, "mfds:1:usage", "drugs", "타스멘정(아세트아미노펜)", "용법용량", "성인은 1회 1정 복용합니다.", 0.9,
             {"product_name": "타스멘정", "ingredient": None, "section_key": "usage"}),
]


def test_a_question_about_the_medication_itself_gets_no_duplicate_caution() -> None:
    """'나프록센 먹고 술 마셔도 돼요?' remembers 나프록센; its own products are not a second dose of it."""
    summary = "복용 중인 약: 나프록센."
    assert duplicate_cautions(summary, NAPROXEN, "나프록센 먹고 술 마셔도 돼요?") == []
    assert duplicate_cautions("복용 중인 약: 탁센.", NAPROXEN, "탁센 먹고 술 마셔도 돼요?") == []  # brand → 나프록센
    # asked about something else, the same products are a duplicate again
    assert len(duplicate_cautions(summary, NAPROXEN, "생리통에 먹는 약 있어요?")) == 2


def test_a_product_with_more_than_the_named_medication_still_gets_the_caution() -> None:
    answer = duplicate_cautions("복용 중인 약: 타이레놀.", PANCOL, "타이레놀 먹고 있는데 감기약 먹어도 되나요?")
    assert len(answer) == 1 and answer[0].startswith("주의: 판콜에이내복액에는 복용 중이라고 하신 타이레놀의 성분")


def test_another_brand_the_question_names_is_cautioned_by_name() -> None:
    """판피린 is answered from acetaminophen stand-ins: the caution names 판피린, cited to the stand-in."""
    cautions = duplicate_cautions("복용 중인 약: 타이레놀.", ACETAMINOPHEN, "타이레놀 먹고 있는데 판피린 먹어도 되나요?")
    assert cautions == [("주의: 판피린에는 복용 중이라고 하신 타이레놀의 성분(아세트아미노펜)이 들어 있어, 함께 먹으면 같은 "
                        "성분을 겹쳐 먹게 됩니다. 약사와 상의하세요. [문서 1]")]


def test_a_brand_inside_a_longer_brand_is_cautioned_once() -> None:
    cautions = duplicate_cautions("복용 중인 약: 판피린.", ACETAMINOPHEN, "판피린 먹는데 우먼스타이레놀 먹어도 돼요?")
    assert len(cautions) == 1 and cautions[0].startswith("주의: 우먼스타이레놀에는 복용 중이라고 하신 판피린의 성분")


def test_stand_ins_of_the_asked_brand_are_not_cautioned_one_by_one() -> None:
    """'판피린 먹어도 되나요?' with 타이레놀 in the profile: one caution naming 판피린, not one per stand-in."""
    two = [*ACETAMINOPHEN, Citation(2, "mfds:2:usage", "drugs", "세토펜정(아세트아미노펜)", "용법용량", "1회 1정.", 0.9,
                                    {"product_name": "세토펜정", "ingredient": None, "section_key": "usage"})]
    cautions = duplicate_cautions("복용 중인 약: 타이레놀.", two, "판피린 먹어도 되나요?")
    assert len(cautions) == 1 and cautions[0].startswith("주의: 판피린에는 복용 중이라고 하신 타이레놀의 성분")
    # asked about nothing in particular, each quoted product is its own duplicate
    assert len(duplicate_cautions("복용 중인 약: 타이레놀.", two, "열 내리는 약 있어요?")) == 2
