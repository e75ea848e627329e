"""Identifiers in every spelling a user might type, and ordinary messages that hold none.

Why data files: the spellings came from an adversarial probe (issue 22); each new one found is a
row in `tests/data/privacy/identifier_spellings.tsv`, each false positive a line in
`not_identifiers.txt`, without touching the test.
"""

from __future__ import annotations

import re
import time
import unicodedata
from pathlib import Path

import pytest

from yaksa.privacy import find_identifiers, has_identifiers, redact_identifiers

DATA = Path(__file__).parent / "data" / "privacy"
ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
# The medical part of a message, which redaction must keep (each spelling row holds at least one).
MEDICAL = ("타이레놀", "이부프로펜", "아스피린", "두통", "감기약", "소화제", "진통제", "혈압약", "해열제",
           "수면제", "기침약", "변비약", "비타민", "오메가3", "임산부", "65세", "ibuprofen")


def _unescape(text: str) -> str:
    """`\\uXXXX` in the data files stands for a character one cannot see (NBSP, U+200B ...)."""
    return ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)


def _spellings() -> list[tuple[str, str, str]]:
    rows = []
    for line in (DATA / "identifier_spellings.tsv").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            kind, text, ident = line.split("\t")
            rows.append((kind, _unescape(text), _unescape(ident)))
    return rows


def _ordinary() -> list[str]:
    lines = (DATA / "not_identifiers.txt").read_text(encoding="utf-8").splitlines()
    return [_unescape(line) for line in lines if line.strip() and not line.startswith("#")]


def _letters(text: str) -> str:
    """Digits and letters only, compatibility forms folded: what an identifier is made of."""
    return "".join(c for c in unicodedata.normalize("NFKC", text).casefold() if c.isalnum())


SPELLINGS = _spellings()
ORDINARY = _ordinary()


def test_the_data_covers_every_kind() -> None:
    assert len(SPELLINGS) >= 40 and len(ORDINARY) >= 30
    assert {kind for kind, _, _ in SPELLINGS} == {"rrn", "phone", "card", "email", "name"}


@pytest.mark.parametrize(("kind", "text", "ident"), SPELLINGS, ids=[f"{k}-{i}" for i, (k, _, _) in
                                                                    enumerate(SPELLINGS)])
def test_every_spelling_is_found_and_redacted(kind: str, text: str, ident: str) -> None:
    assert ident in text, "the identifier column must be a substring of the text"
    found = [(i.kind, text[i.start:i.end]) for i in find_identifiers(text)]
    assert (kind, ident) in found
    assert has_identifiers(text)
    redacted = redact_identifiers(text)
    assert _letters(ident) not in _letters(redacted)
    kept = [term for term in MEDICAL if term in text]
    assert kept, "each row needs a medical part to check it is kept"
    assert all(term in redacted for term in kept), redacted
    assert not has_identifiers(redacted)


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_messages_have_no_identifier(text: str) -> None:
    assert find_identifiers(text) == []
    assert not has_identifiers(text)
    assert redact_identifiers(text) == text


@pytest.mark.parametrize("text", [
    "주문번호 4111111111111112345 확인해 주세요",       # 19 digits failing Luhn
    "접수번호 3782 822463 10006 입니다",                # Amex grouping failing Luhn
    "번호 42222222222221 이요",                          # 14 digits failing Luhn
])
def test_long_numbers_failing_luhn_are_not_cards(text: str) -> None:
    assert find_identifiers(text) == []


@pytest.mark.parametrize("text", [
    "저는 고혈압이에요", "저는 이모예요", "저는 한국인이에요", "저는 주부예요", "저는 강사입니다",
    "저는 조카예요", "저는 간호사입니다", "저는 학생이에요", "저는 임산부입니다", "저는 65세 남성입니다",
    "저는 당뇨 환자예요", "저는 마시고 싶어요", "전 마셔야 해요", "저는 오늘이에요", "전문의예요",
    "난방이에요", "저는 양성이에요", "제가 보호자인데요", "저는 복용중이에요",
])
def test_self_descriptions_are_not_names(text: str) -> None:
    assert find_identifiers(text) == []


def test_spans_index_the_text_as_typed() -> None:
    text = "전화 ０１０－１２３４－５６７８ 두통"
    [ident] = find_identifiers(text)
    assert text[ident.start:ident.end] == "０１０－１２３４－５６７８"
    assert redact_identifiers(text) == "두통"


def _best_ms(text: str, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        redact_identifiers(text)
        best = min(best, time.perf_counter() - start)
    return best * 1000


@pytest.mark.parametrize("text", [
    "0" + "-0" * 1000,
    "010-" * 500,
    "1234 " * 400,
    "12-" * 667,
    "82 " * 667,
    "a at b dot " * 200,
    "at " * 667,
    "x dot " * 333 + "at",
    "hong (at) (dot) " * 125,
    "저는 " * 667,
    "９" * 2000,
])
def test_adversarial_input_is_linear(text: str) -> None:
    """No catastrophic backtracking: 2,000 characters of digits, separators or at/dot words take
    milliseconds (bound generous for a loaded CI machine)."""
    assert len(text) >= 1900
    assert _best_ms(text) < 50
