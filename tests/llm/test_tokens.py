from __future__ import annotations

from yaksa.llm.tokens import ELLIPSIS, estimate_tokens, truncate_to_tokens


def test_estimate_counts_hangul_per_character_and_latin_per_four() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("두통약") == 3
    assert estimate_tokens("aspirin!") == 2
    assert estimate_tokens("타이레놀 500mg") == 4 + 2  # 4 syllables + " 500mg" (6 chars → 1.5 → 2)


def test_truncate_keeps_a_prefix_within_budget() -> None:
    text = "이 약은 두통, 치통, 발열에 사용합니다." * 10
    cut = truncate_to_tokens(text, 20)
    assert cut.endswith(ELLIPSIS) and text.startswith(cut[:-1]) and estimate_tokens(cut) <= 20
    assert truncate_to_tokens("짧은 글", 20) == "짧은 글"
    assert truncate_to_tokens("anything", 0) == ""
