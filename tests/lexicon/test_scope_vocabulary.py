from __future__ import annotations

from pathlib import Path

import pytest

from yaksa.config import load_settings
from yaksa.lexicon.scope_vocabulary import (
    CARE_WORDS,
    corpus_terms,
    curated_medical_words,
    english_corpus_terms,
    in_other_sense,
    is_medical_token,
    medical_vocabulary,
    names_mind_condition,
)
from yaksa.retrieval.loader import load_published

GENERIC_LABEL_WORDS = {"사용", "경우", "주의", "기능", "효과"}  # label boilerplate the generator drops


def test_curated_words_are_single_hangul_nouns() -> None:
    words = curated_medical_words()
    assert {"두통", "타이레놀", "아세트아미노펜", "감기약", "당뇨병"} <= set(words)
    assert not [w for w in words if " " in w or w.endswith("다")]  # no phrases, no verbs
    assert "가래가" not in words and "가래" in words


def test_the_build_teaches_the_analyser_the_curated_words(tiny_project: Path) -> None:
    loaded = load_published(load_settings(tiny_project / "params.yaml").paths.indexes)
    try:
        assert loaded.tokenizer.tokenize("두통에 먹는 약")[0] == "두통"  # not 두 + 통
        vocab = medical_vocabulary(loaded.tokenizer, loaded.bundle.path / "userdict.tsv")
        assert {"두통", "타이레놀", "진통제"} <= vocab and "주가" not in vocab
    finally:
        loaded.close()


def test_english_medical_tokens_by_word_and_by_drug_suffix() -> None:
    vocab = frozenset({"두통"})
    assert is_medical_token("두통", vocab)
    for word in ("headache", "Ibuprofen", "amoxicillin", "omeprazole", "lisinopril", "bronchitis"):
        assert is_medical_token(word.lower(), vocab), word
    for word in ("pasta", "stock", "recipe", "python", "두", "bone2"):
        assert not is_medical_token(word, vocab), word


def test_english_words_of_the_documents_are_medical_but_not_general_english() -> None:
    """Exam questions name "metaplasia", "ligament", "trimester" and no consumer word; "history" and "higher"
    are frequent in the case records but are everyday English (the derivation's general-frequency cap)."""
    terms = english_corpus_terms()
    assert {"ligament", "metaplasia", "trimester", "cervical", "intussusception"} <= terms
    assert not {"history", "higher", "stock", "recipe", "weather", "price"} & terms
    assert all(w.isascii() and w.isalpha() and w == w.lower() and len(w) >= 4 for w in terms)
    assert is_medical_token("Ligament", frozenset()) and not is_medical_token("weather", frozenset())


def test_the_words_of_care_and_of_the_labels_are_medical_as_the_analyser_reads_them(tiny_project: Path) -> None:
    """Real posts and exam stems name 통증, 증상, 질환, 임신 where they name no drug; a word the analyser
    reads as something else ("오심" as 오다) must not make that other token medical."""
    terms = corpus_terms()
    assert {"통증", "증상", "질환", "임신", "부작용"} <= set(terms)
    assert not [w for w in terms if w.endswith("다") or len(w) < 2 or w in GENERIC_LABEL_WORDS]
    loaded = load_published(load_settings(tiny_project / "params.yaml").paths.indexes)
    try:
        vocab = medical_vocabulary(loaded.tokenizer, loaded.bundle.path / "userdict.tsv")
        assert {"통증", "증상", "병원", "검사", "질환", "저리다", "가루약", "가글", "상비약", "흉터", "구충제", "유산균"} <= vocab
        # mental health is health: a post about panic or an addiction may name nothing else
        assert {"치료", "정신과", "공황", "강박증", "중독", "트라우마", "두근거리다", "숨", "코골이"} <= vocab
        # dentistry is medicine: exam stems name 법랑질, 상악, 근관 and nothing else medical
        assert {"치아", "법랑질", "상악", "하악", "근관", "불소", "치면세마", "맹출", "치주인대", "산부식", "레진",
                 "대구치", "상아세관", "글래스아이오노머", "치주낭"} <= vocab
        assert not {"대구", "상아", "유치", "치열", "수복", "저작", "치은", "영구치"} & vocab   # a city, ivory, …
        # dental materials and prosthodontics, and fundamental nursing (second round of stems of ours, 2026-11-30)
        assert {"도재", "매몰재", "이장재", "클라스프", "러버댐", "의치", "도뇨관", "손위생", "비위관"} <= vocab
        assert loaded.tokenizer.tokenize("매몰재의 경화팽창을 증가시키는 요인은?")[0] == "매몰재"
        assert loaded.tokenizer.tokenize("금속도재관의 금속 하부구조는?")[:3] == ["금속", "도재", "관"]
        assert not {"석고", "왁스", "브라켓"} & vocab
        # nursing is care: its stems name 간호, 보건 or a newborn's fontanelle and nothing else medical
        assert {"간호", "보건", "욕창", "낙상", "대천문", "방어기제"} <= vocab
        assert loaded.tokenizer.tokenize("영아의 대천문이 닫히는 시기는?")[:2] == ["영아", "대천문"]
        assert not {"교육", "발달", "윤리", "조직", "천문"} & vocab    # everyday words, astronomy
        assert not {"하다", "오다", "일", "명", "사용", "경우", "방법"} & vocab
        assert {"통증", "병원"} <= set(CARE_WORDS)
    finally:
        loaded.close()


def test_a_mental_health_condition_is_named_and_food_poisoning_is_not_one() -> None:
    assert names_mind_condition("게임 중독 치료가 필요할까요?") and names_mind_condition("공황장애 같아요")
    assert names_mind_condition("알코올 중독일까요?") and names_mind_condition("강박증 치료")
    assert names_mind_condition("요즘 너무 우울한데 어떻게 해야 할까")   # got "see a 병원", no crisis line
    for poisoning in ("식중독인 것 같아요", "연탄가스 중독 같아요", "일산화탄소 중독이면 어떻게 해요", "농약 중독"):
        assert not names_mind_condition(poisoning), poisoning
    assert not names_mind_condition("두통에 먹는 약")


@pytest.mark.parametrize(("word", "text", "other"), [
    ("구역", "금강산의 구역 가운데 삼선암이 있는 곳은?", True),
    ("구역", "지구를 나눈 세 구역 중 가장 큰 곳은?", True),
    ("구역", "구역과 구토가 있어요", False),
    ("구역", "발열, 구역, 피로를 호소하는 환자", False),
    ("구역", "환자의 구역감이 심해요", False),
    ("구역", "세 구역 중 하나에서 구역질이 났어요", False),   # one occurrence is nausea
    ("지질", "금강산을 만든 특유의 지질 활동은?", True),
    ("지질", "지질 대사 이상", False),
    ("중추", "중추적 역할을 한 사람은?", True),
    ("중추", "중추 신경계 부작용", False),
    ("머리", "머리 스타일 바꿀까", True),
    ("머리", "머리 자를까 말까", True),          # a haircut (2026-11-30)
    ("머리", "머리 안 감은 거 티나나?", True),
    ("머리", "머리가 깨질 듯이 아파요", False),
    ("두통", "두통이 심해요", False),
])
def test_a_medical_word_in_its_everyday_sense(word: str, text: str, other: bool) -> None:
    assert in_other_sense(word, text) is other
