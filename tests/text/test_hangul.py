"""has_final: the particle after a drug name, a number or a dose agrees with how it is read."""

from __future__ import annotations

import pytest

from yaksa.text.hangul import has_final, has_hangul


@pytest.mark.parametrize(("word", "final"), [
    ("타이레놀", True), ("부루펜정", True), ("시럽", True), ("아스피린", True), ("게보린", True),
    ("활명수", False), ("판콜에스", False), ("타이레놀)", True), ("", False),
    ("10", True), ("3", True), ("2", False), ("5", False), ("9", False),
    ("200mg", True), ("10mL", False), ("3%", False), ("5 kg", True),
    ("DHEA", False), ("Tylenol", True), ("vitamin", True),
])
def test_has_final(word: str, final: bool) -> None:
    assert has_final(word) is final


def test_has_hangul() -> None:
    assert has_hangul("ㅋㅋ") and has_hangul("두통") and not has_hangul("headache")
