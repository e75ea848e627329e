"""has_final: the particle after a drug name, a number or a dose agrees with how it is read."""

from __future__ import annotations

import pytest

from yaksa.text.hangul import ends_in_rieul, has_final, has_hangul, particle, with_particle, with_ro


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


def test_a_particle_agrees_with_the_last_sound_past_punctuation() -> None:
    """"항생제을(를) 써 보셨는데도" was written with both particles; a quoted question ends in punctuation."""
    assert with_particle("항생제", "을", "를") == "항생제를" and with_particle("타이레놀", "은", "는") == "타이레놀은"
    assert particle("어떤 증상인가요?", "은", "는") == "는" and particle("심장검사한번 받아보라…", "은", "는") == "는"
    assert with_particle("아세트아미노펜", "이", "가") == "아세트아미노펜이"


@pytest.mark.parametrize(("word", "joined"), [
    ("시럽", "시럽으로"), ("타이레놀", "타이레놀로"), ("해열제", "해열제로"), ("빈혈", "빈혈로"),
    ("200mg", "200mg으로"), ("10mL", "10mL로"), ("1", "1로"), ("3", "3으로"), ("oil", "oil로"),
])
def test_ro_after_a_vowel_or_rieul(word: str, joined: str) -> None:
    assert with_ro(word) == joined


def test_ends_in_rieul() -> None:
    assert ends_in_rieul("타이레놀") and ends_in_rieul("빈혈?") and ends_in_rieul("7") and ends_in_rieul("gel")
    assert not ends_in_rieul("시럽") and not ends_in_rieul("해열제") and not ends_in_rieul("3") and not ends_in_rieul("")
