"""What the answer says first about the drug it answers from (yaksa/agent/source_notice.py)."""

from __future__ import annotations

from yaksa.agent.source_notice import notice, with_notice
from yaksa.lexicon.focus import Focus
from yaksa.lexicon.linking import BrandLink, Linking
from yaksa.lexicon.section_intent import SectionIntent
from yaksa.llm.evidence import Citation

TAMIFLU = BrandLink("타미플루", ("오셀타미비르",), in_data=False)


def _focus(*brands: BrandLink) -> Focus:
    return Focus("질문", "ko", "drug", SectionIntent(None), Linking(brands=brands), item_seqs=("1",))


def _label(title: str, text: str) -> Citation:
    return Citation(1, "mfds:1:usage", "drugs", title, "용법용량", text, 0.9, {"section_key": "usage"})


def test_a_brand_missing_from_the_data_is_named_when_its_ingredient_answers() -> None:
    cited = [_label("한미오셀타미비르캡슐", "오셀타미비르로서 1회 75 mg을 1일 2회 복용합니다.")]
    lead = "타미플루는 자료에 없어 같은 성분(오셀타미비르) 제품의 허가 정보로 답합니다."
    assert notice(_focus(TAMIFLU), cited) == lead
    assert with_notice("답 [문서 1]", _focus(TAMIFLU), cited) == f"{lead} 답 [문서 1]"
    assert notice(_focus(TAMIFLU)) == lead   # citations not known: as before


def test_no_notice_over_an_answer_that_cites_none_of_the_brands_ingredient() -> None:
    """A long post naming 타미플루 among five medicines got the notice above an answer citing 페니라민정 only."""
    cited = [_label("페니라민정(클로르페니라민말레산염)", "성인 1회 1정 1일 3회 복용합니다.")]
    assert notice(_focus(TAMIFLU), cited) == ""
    assert with_notice("답 [문서 1]", _focus(TAMIFLU), cited) == "답 [문서 1]"


def test_a_combination_answered_from_one_of_its_ingredients_says_which() -> None:
    """"펜잘 하루에 몇 번" was told it was answered from "the same ingredients (아세트아미노펜, 에텐자미드,
    카페인)" above an acetaminophen-only tablet's dose."""
    penzal = BrandLink("펜잘", ("아세트아미노펜", "에텐자미드", "카페인"), in_data=False)
    cited = [_label("세리콘정(아세트아미노펜)", "성인은 1회 300~1,000 mg을 1일 3~4회 복용합니다.")]
    lead = notice(_focus(penzal), cited)
    assert lead.startswith("펜잘은 자료에 없어, 그 성분(아세트아미노펜, 에텐자미드, 카페인) 가운데 아세트아미노펜이 든 제품")
    assert "펜잘의 용법·용량은 이와 다를 수 있으니 약사에게 확인하세요" in lead
    both = [_label("뇌선(아세트아미노펜, 에텐자미드, 카페인)", "성인은 1회 1포씩 복용합니다.")]
    assert "같은 성분(아세트아미노펜, 에텐자미드, 카페인) 제품" in notice(_focus(penzal), both)


def test_a_drug_the_data_lacks_beside_one_it_has_is_named_as_left_out() -> None:
    """"타이레놀이랑 독시정 같이 먹어도 되나요?" was answered from acetaminophen labels, silent on 독시정."""
    linking = Linking(mentions=("독시정",), groups=((),))
    focus = Focus("질문", "ko", "drug", SectionIntent(None), linking, item_seqs=("1",))
    assert notice(focus) == "독시정은 자료에 허가 정보가 없어 답에 넣지 못했습니다. 그 약은 약사에게 확인하세요."


def test_a_prescribed_drug_the_data_lacks_is_sent_to_its_prescriber() -> None:
    from yaksa.agent.source_notice import PRESCRIBED_LINE_KO, no_evidence
    from yaksa.llm.safety import SAFETY_LINE_KO

    focus = Focus("궁금합니다", "ko", "drug", SectionIntent(None),
                  Linking(mentions=("독시정", "아시팜정"), groups=((), ())))
    said = no_evidence(focus, message="피부과에서 독시정과 아시팜정을 처방받아 먹고 있는데 다리가 부어요")
    assert said.startswith("독시정, 아시팜정에 해당하는 제품의 허가 정보가 자료에 없어")
    assert PRESCRIBED_LINE_KO in said and said.endswith(SAFETY_LINE_KO)
    assert PRESCRIBED_LINE_KO not in no_evidence(focus, message="독시정 부작용 알려주세요")
    then = "글에서 물으신 \"검사를 받아봐야 하나요\"는 … 약은 약사나 의사 등 전문가와 꼭 상담하세요."
    assert no_evidence(focus, then, "독시정 먹는데 검사를 받아봐야 하나요").endswith(then)


def test_an_english_question_is_told_the_labels_are_korean_and_which_brand_they_stand_for() -> None:
    """"how much tylenol …" answered from acetaminophen labels: said in English, with the brand's ingredient."""
    from yaksa.agent.source_notice import LABELS_IN_KOREAN_EN

    tylenol = BrandLink("타이레놀", ("아세트아미노펜",), in_data=False)
    focus = Focus("how much tylenol for my 5 year old?", "en", "drug", SectionIntent(None), Linking(brands=(tylenol,)),
                  item_seqs=("1",))
    cited = [_label("세토펜정(아세트아미노펜)", "만 12세 이하의 소아는 1회 권장용량을 복용합니다.")]
    lead = notice(focus, cited)
    assert lead.startswith(LABELS_IN_KOREAN_EN)
    assert "타이레놀 itself is not in the data; this answer quotes products of the same ingredient (아세트아미노펜)." in lead
    plain = Focus("What are the side effects of ibuprofen?", "en", "drug", SectionIntent(None), Linking(),
                  item_seqs=("1",))
    assert notice(plain, cited) == LABELS_IN_KOREAN_EN


def test_an_english_question_about_a_medicine_the_data_lacks_is_told_so_in_english() -> None:
    """"Is Benadryl safe for my 2 year old?" (no diphenhydramine product) got MedQuAD's blood-pressure readings."""
    from yaksa.agent.source_notice import no_evidence
    from yaksa.llm.safety import SAFETY_LINE_EN

    focus = Focus("Is Benadryl safe for my 2 year old?", "en", "drug", SectionIntent(None),
                  Linking(mentions=("Benadryl",)))
    reply = no_evidence(focus)
    assert reply.startswith("The data has no product label of Benadryl") and reply.endswith(SAFETY_LINE_EN)
