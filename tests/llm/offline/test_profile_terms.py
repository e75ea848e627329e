from __future__ import annotations

from yaksa.llm.offline.profile_terms import profile_terms, with_aliases
from yaksa.text.lexical import mentions


def test_profile_terms_add_elderly_label_word_for_age() -> None:
    assert profile_terms("75세, 당뇨병") == ["당뇨병", "고령자"]
    assert profile_terms("30세 여성, 임신 중") == ["임신"]       # a sex alone is no caution term


def test_a_womans_profile_does_not_put_the_pregnancy_caution_first() -> None:
    """"임신하고 있을 가능성이 있는 여성" named her sex only: a 35-year-old woman's ointment question had it first."""
    assert profile_terms("35세 여성.") == []
    assert profile_terms("35세 남성. 질환: 고혈압.") == ["고혈압"]
    assert profile_terms("") == []


def test_aliases_follow_label_vocabulary() -> None:
    assert with_aliases(["임신", "당뇨병"]) == ["임신", "임부", "당뇨병"]
    assert with_aliases(["노인"]) == ["노인", "고령자"]


def test_summary_labels_and_current_symptoms_are_not_caution_terms() -> None:
    from yaksa.llm.offline.profile_terms import profile_terms

    found = profile_terms("65세 남성. 질환: 당뇨병. 증상: 두통, 발열. 최근 혈압 150/95 mmHg (방금).")
    assert "당뇨병" in found and "고령자" in found and "혈압" in found
    assert not {"두통", "발열", "질환", "증상", "최근", "방금"} & set(found)


def test_a_compound_condition_is_one_term_not_its_generic_head() -> None:
    """"공황장애" as 공황 + 장애 made every label's "의식장애" a caution for a panic-disorder profile."""
    found = profile_terms("질환: 공황장애, 간장애.")
    assert "장애" not in found and {"공황장애", "간장애"} <= set(found)


def test_high_blood_pressure_is_not_low_blood_pressure() -> None:
    """"고혈압" must not flag a label's "혈압저하" or "저혈압" (its analyser head 혈압 would)."""
    words = with_aliases(profile_terms("질환: 고혈압, 당뇨. 복용: 혈압약"))
    assert "고혈압" in words and "혈압" not in words
    assert not any(mentions(w, "혈압저하, 저혈압이 나타날 수 있다") for w in words)
    assert any(mentions(w, "고혈압 환자는 복용 전 상담할 것") for w in words)
    assert "저혈당" in profile_terms("질환: 저혈당") and "혈당" not in profile_terms("질환: 저혈당")
    assert "혈압" in profile_terms("복용: 혈압약")   # no direction stated: the word as it is
