"""Text without Hangul skips Kiwi; the terms must be exactly what Kiwi + the rules would give."""

from __future__ import annotations

import json
from itertools import islice
from pathlib import Path

import pytest

from yaksa.config import TokenizerParams
from yaksa.text.filters import needs_analyser
from yaksa.text.kiwi import KiwiTokenizer

POS = TokenizerParams().pos_filter
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"


@pytest.fixture(scope="module")
def tok() -> KiwiTokenizer:
    return KiwiTokenizer(POS)


def _via_kiwi(tok: KiwiTokenizer, text: str) -> list[str]:
    return tok._terms(text, tok._kiwi.tokenize(text))


@pytest.mark.parametrize(
    "text",
    [
        "COVID-19 patients took 2.5mg, then 1,000 mg x3 daily (U.S. data).",
        "IL-6 and CYP3A4 inhibitors; β-blockers; Aspirin. Tylenol 500mg.",
        "Café-au-lait spots? No. It is not a cancer.",
    ],
)
def test_fast_path_matches_kiwi_on_hand_picked_text(tok: KiwiTokenizer, text: str) -> None:
    assert not needs_analyser(text)
    assert tok.tokenize(text) == _via_kiwi(tok, text)


def test_fast_path_matches_kiwi_on_real_english_passages(tok: KiwiTokenizer) -> None:
    path = SHARED / "medquad" / "passages.jsonl"
    if not path.exists():
        pytest.skip("shared MedQuAD not available")
    texts = [json.loads(line)["answer"] for line in islice(path.open(encoding="utf-8"), 150)]
    fast = tok.tokenize_many(texts)
    slow = [_via_kiwi(tok, t) for t in texts]
    mismatched = [i for i, (a, b) in enumerate(zip(fast, slow)) if a != b]
    assert not mismatched, f"passages {mismatched[:5]} differ"


def test_korean_text_still_goes_through_kiwi(tok: KiwiTokenizer) -> None:
    assert needs_analyser("두통에 Tylenol")
    assert "두통" in tok.tokenize("두통에 Tylenol 500mg")
    mixed = tok.tokenize_many(["headache pills", "두통약 500mg", ""])
    assert mixed[0] == ["headache", "pills"] and "500" in mixed[1] and mixed[2] == []


def test_rules_version_is_part_of_the_identity(tok: KiwiTokenizer) -> None:
    assert "+rules" in str(tok.identity()["version"])
