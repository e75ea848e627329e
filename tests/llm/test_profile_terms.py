from __future__ import annotations

from yaksa.llm.profile_terms import profile_terms, with_aliases


def test_profile_terms_add_elderly_label_word_for_age() -> None:
    assert profile_terms("75세, 당뇨병") == ["당뇨병", "고령자"]
    assert profile_terms("30세 여성, 임신 중") == ["여성", "임신"]
    assert profile_terms("") == []


def test_aliases_follow_label_vocabulary() -> None:
    assert with_aliases(["임신", "당뇨병"]) == ["임신", "임부", "당뇨병"]
    assert with_aliases(["노인"]) == ["노인", "고령자"]
