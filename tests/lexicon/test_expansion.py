from __future__ import annotations

import pytest

from yaksa.lexicon.expansion import expand_query, load_rules, strip_filler


def test_symptom_and_brand_expand_to_ingredients() -> None:
    q = expand_query("두통이 있는데 타이레놀 먹어도 되나요?")
    assert q.added == ("아세트아미노펜", "이부프로펜")
    assert q.sources == {"symptom_ingredients": ["아세트아미노펜", "이부프로펜"]}  # the brand adds nothing new
    assert q.lexical == "두통이 있는데 타이레놀 먹어도 되나요? 아세트아미노펜 이부프로펜"


def test_colloquial_becomes_clinical_then_pulls_its_ingredients() -> None:
    q = expand_query("머리가 아파요")
    assert q.sources["colloquial"] == ["두통"]
    assert q.sources["symptom_ingredients"] == ["아세트아미노펜", "이부프로펜"]
    assert expand_query("눈이 침침해요").sources["colloquial"] == ["안구건조", "눈의 피로"]


def test_brand_missing_from_the_corpus_maps_to_its_ingredient() -> None:
    assert expand_query("탁센 하루에 몇 번").added == ("나프록센",)


def test_nothing_to_expand_keeps_the_question() -> None:
    q = expand_query("What helps a headache?")
    assert q.added == () and q.lexical == "What helps a headache?"


def test_router_terms_are_added_and_avoid_terms_removed() -> None:
    q = expand_query("두통약", recall_terms=["진통제", " "], avoid_terms=["이부프로펜"])
    assert "진통제" in q.added and "이부프로펜" not in q.lexical and "아세트아미노펜" in q.lexical
    q = expand_query("이부프로펜 부작용", avoid_terms=["이부프로펜"])
    assert q.removed == ("이부프로펜",) and q.lexical == "부작용"


def test_filler_is_removed_from_the_rerank_query_only() -> None:
    q = expand_query("혹시 제가 요즘 속이 쓰려요 좀 알려주세요")
    assert q.rerank == "속이 쓰려요"
    assert q.lexical.startswith("혹시 제가 요즘 속이 쓰려요")
    assert strip_filler("좀 혹시") == "좀 혹시"  # nothing left -> the question as asked


def test_rules_are_well_formed() -> None:
    rules = load_rules()
    assert rules.brand_ingredients["타이레놀"] == ("아세트아미노펜",)
    assert "혹시" in rules.filler


@pytest.mark.parametrize("bad", ["", "   ", None])
def test_empty_question_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="non-empty"):
        expand_query(bad)  # type: ignore[arg-type]


def test_query_stopwords_are_common_label_verbs() -> None:
    assert {"먹다", "되다", "있다"} <= load_rules().query_stopwords


def test_a_colloquial_key_matches_the_other_forms_of_its_verb() -> None:
    """"속이 쓰려" is written once; "왜 자꾸 속이 쓰릴까요?" was read as naming no symptom and refused."""
    for question, term in (("왜 자꾸 속이 쓰릴까요?", "속쓰림"), ("배가 아픈 이유가 뭘까요", "복통"),
                           ("열이 났어요", "발열"), ("머리가 아플 때 뭐 먹어요", "두통"), ("등이 가려운데요", "가려움")):
        assert term in expand_query(question).sources.get("colloquial", []), question
    assert "colloquial" not in expand_query("마음이 아픈 날이에요").sources   # no body part, no symptom


def test_conjugated_keys_never_replace_a_written_one() -> None:
    from yaksa.lexicon.expansion import with_conjugations

    table = with_conjugations({"배가 아파": ("복통",), "배가 아픈": ("written",)})
    assert table["배가 아픈"] == ("written",) and table["배가 아플"] == ("복통",)
