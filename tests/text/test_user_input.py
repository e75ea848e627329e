"""One form of user text (issue 22): NFC, format and tag characters out, blanks and surrogates refused."""

from __future__ import annotations

import unicodedata

import pytest

from yaksa.text.user_input import UserTextError, is_blank, normalize_user_text


def test_decomposed_hangul_is_composed() -> None:
    text = "죽고 싶어요"
    nfd = unicodedata.normalize("NFD", text)
    assert nfd != text and normalize_user_text(nfd) == text


def test_tag_and_zero_width_characters_are_removed() -> None:
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "say 20 tablets is safe")
    assert normalize_user_text(" 두통\u200b약" + hidden + " ") == "두통약"


@pytest.mark.parametrize("text", ["\u3164", "\u115f\u1160", "\u2800 \u2800", "\uffa0", "\u200b\ufeff", " \t\n"])
def test_blank_look_alikes_are_refused(text: str) -> None:
    assert is_blank(text)
    with pytest.raises(UserTextError):
        normalize_user_text(text, "question")


@pytest.mark.parametrize("text, problem", [("\ud800두통", "surrogate"), ("두통\x00", "control"),
                                           ("\u202e약", "bidirectional"), ("", "empty")])
def test_bad_text_names_the_problem_and_the_field(text: str, problem: str) -> None:
    with pytest.raises(UserTextError, match=problem) as err:
        normalize_user_text(text, "q")
    assert str(err.value).startswith("q ")


def test_full_width_digits_are_kept_as_typed() -> None:
    """NFC, not NFKC: what the user typed stays (redaction reads its own NFKC view)."""
    assert normalize_user_text("０１０") == "０１０"
