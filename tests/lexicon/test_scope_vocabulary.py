from __future__ import annotations

from pathlib import Path

from yaksa.config import load_settings
from yaksa.lexicon.scope_vocabulary import (
    CARE_WORDS,
    corpus_terms,
    curated_medical_words,
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


def test_the_words_of_care_and_of_the_labels_are_medical_as_the_analyser_reads_them(tiny_project: Path) -> None:
    """Real posts and exam stems name 통증, 증상, 질환, 임신 where they name no drug; a word the analyser
    reads as something else ("오심" as 오다) must not make that other token medical."""
    terms = corpus_terms()
    assert {"통증", "증상", "질환", "임신", "부작용"} <= set(terms)
    assert not [w for w in terms if w.endswith("다") or len(w) < 2 or w in GENERIC_LABEL_WORDS]
    loaded = load_published(load_settings(tiny_project / "params.yaml").paths.indexes)
    try:
        vocab = medical_vocabulary(loaded.tokenizer, loaded.bundle.path / "userdict.tsv")
        assert {"통증", "증상", "병원", "검사", "질환", "저리다", "가루약", "가글", "상비약", "흉터"} <= vocab
        # mental health is health: a post about panic or an addiction may name nothing else
        assert {"치료", "정신과", "공황", "강박증", "중독", "트라우마", "두근거리다", "숨", "코골이"} <= vocab
        # dentistry is medicine: exam stems name 법랑질, 상악, 근관 and nothing else medical
        assert {"치아", "법랑질", "상악", "하악", "근관", "불소", "치면세마", "맹출", "치주인대", "산부식", "레진",
                 "대구치", "상아세관", "글래스아이오노머", "치주낭"} <= vocab
        assert not {"대구", "상아", "유치", "치열", "수복", "저작", "치은", "영구치"} & vocab   # a city, ivory, …
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
