from __future__ import annotations

import math
import random

from yaksa.llm.tokens import ELLIPSIS, estimate_tokens, truncate_to_tokens
from yaksa.text.hangul import HANGUL


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


def _per_character(text: str, budget: int) -> str:
    """The rule spelt one character at a time (how it was written before the run-wise walk)."""
    if budget <= 0:
        return ""
    if estimate_tokens(text) <= budget:
        return text
    used = 0.0
    for i, ch in enumerate(text):
        used += 1.0 if HANGUL.match(ch) else 0.25
        if used > budget - 1:
            return text[:i].rstrip() + ELLIPSIS
    return text


def test_the_run_wise_cut_is_the_per_character_cut() -> None:
    rng = random.Random(7)
    alphabet = "가나다ㄱㅏ abc\n 12.,"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
        budget = rng.randint(-1, 40)
        assert truncate_to_tokens(text, budget) == _per_character(text, budget), (text, budget)
        assert estimate_tokens(text) == math.ceil(len(HANGUL.findall(text)) + (len(text) - len(HANGUL.findall(text))) / 4)
