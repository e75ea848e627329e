from __future__ import annotations

import pytest

from yaksa.memory.polarity import question_polarity


@pytest.mark.parametrize(("a", "b"), [
    ("타이레놀 먹어도 되나요", "타이레놀 먹어도 돼요?"),
    ("타이레놀 먹어도 되나요", "타이레놀 같이 먹어도 괜찮나요"),
    ("타이레놀 먹으면 안 되나요", "타이레놀 먹으면 안돼요?"),
    ("타이레놀 먹으면 안 되나요", "타이레놀먹으면안되나요"),
    ("Can I take Tylenol?", "can i take tylenol"),
    ("불안해서 잠이 안 와요", "잠이 안 와요"),        # 불안 is not a negator
])
def test_same_framing_same_signature(a: str, b: str) -> None:
    assert question_polarity(a) == question_polarity(b)


@pytest.mark.parametrize(("a", "b"), [
    ("타이레놀 먹어도 되나요", "타이레놀 먹으면 안 되나요"),
    ("타이레놀 먹어도 되나요", "타이레놀 먹지 말아야 하나요"),
    ("타이레놀 먹어도 되나요", "임산부는 타이레놀을 피해야 하나요"),
    ("타이레놀 먹어도 되나요", "타이레놀 금기"),
    ("타이레놀 먹어도 되나요", "타이레놀 먹어야 하나요"),
    ("타이레놀 먹으면 안 되나요", "타이레놀 안 먹으면 안 되나요"),   # double negation
    ("Can I take Tylenol?", "Should I not take Tylenol?"),
    ("Can I take Tylenol?", "Should I avoid Tylenol?"),
    ("Is it safe to take Tylenol?", "Is it not safe to take Tylenol?"),
])
def test_opposite_framing_differs(a: str, b: str) -> None:
    assert question_polarity(a) != question_polarity(b)


def test_signature_contents() -> None:
    assert question_polarity("타이레놀 먹어도 되나요").cues == {"permission"}
    sig = question_polarity("타이레놀 먹으면 안 되나요")
    assert sig.cues == {"prohibition"} and sig.negators == 1
    assert question_polarity("약을 잘못 먹었어요").negators == 0     # 잘못 = by mistake


def test_non_string_is_rejected() -> None:
    with pytest.raises(TypeError, match="string"):
        question_polarity(None)  # type: ignore[arg-type]
