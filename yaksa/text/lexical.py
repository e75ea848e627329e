"""Word-level matching shared by the offline fallbacks (extractive answer, judge, rewrite, verifier).

Why two views of a text: `terms` are readable content words (Kiwi nouns for Korean, English words
without stop words) — what a rewritten query or a "missing information" list should contain;
`grams` are Hangul character bigrams plus English words (plural "s" dropped) — a fuzzy overlap that still matches when
Korean particles or compounds differ ("두통에" vs "두통이", "해열진통제" vs "진통").
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from yaksa.text.filters import ENGLISH_STOPWORDS
from yaksa.text.hangul import HANGUL_SYLLABLE_RUN, has_hangul

if TYPE_CHECKING:
    from yaksa.text.kiwi import KiwiTokenizer

_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]+")
# Question words carry no content: a "missing" list naming them would send the rewrite astray.
_QUESTION_WORDS = frozenset(
    {"what", "which", "how", "when", "why", "who", "can", "could", "should", "would", "does", "do",
     "did", "i", "my", "me", "you", "your", "much", "many", "have", "has", "take", "taking", "about"}
)  # fmt: skip
# MFDS label text often runs sentences together ("마십시오.이 약은"): a period right after Hangul and
# right before Hangul also ends a sentence (decimals like "37.5" have digits on both sides).
# after a sentence mark: a space, or glued Hangul to Hangul or to a figure ("복용합니다.11~14세는 …": a label's adult
# dose and its children's ages in one run, which the adult was quoted whole); a decimal point follows a digit. Glued,
# the mark ends a sentence only after a sentence's last syllable (다, 오, 요, 까, 죠): labels write a list's middle dot as
# a full stop too ("위.십이지장궤양", "영.유아", "발열성.소모성 질환"), and "이 약은 위." was quoted as a sentence
_SENTENCE_END = re.compile(r"(?<=[.!?。])\s+|(?<=[다오요까죠][.!?])(?=[\uac00-\ud7a3\d])|\n+")
_NOUN_TAGS = ("NNG", "NNP", "SL", "SH")


def is_korean(text: str) -> bool:
    """True when the text has any Hangul (answers then follow Korean conventions)."""
    return has_hangul(text)


@functools.cache
def _kiwi_nouns() -> KiwiTokenizer:
    from yaksa.text.kiwi import KiwiTokenizer  # Kiwi loads its model (~1 s): only on first use

    return KiwiTokenizer(list(_NOUN_TAGS), num_workers=1)


def terms(text: str) -> list[str]:
    """Content words in order of first appearance, de-duplicated, at least two characters long."""
    words = _kiwi_nouns().tokenize(text) if is_korean(text) else _LATIN_WORD.findall(text.lower())
    out: list[str] = []
    for w in words:
        w = w.lower()
        if len(w) >= 2 and w not in ENGLISH_STOPWORDS and w not in _QUESTION_WORDS and w not in out:
            out.append(w)
    return out


def grams(text: str) -> set[str]:
    """Hangul character bigrams (single syllables for one-syllable runs) plus lower-cased English words."""
    out: set[str] = set()
    for run in HANGUL_SYLLABLE_RUN.findall(text):
        out.update(run[i : i + 2] for i in range(max(1, len(run) - 1)))
    out.update(_singular(w) for w in _LATIN_WORD.findall(text.lower()) if w not in ENGLISH_STOPWORDS)
    return out


def _singular(word: str) -> str:
    """A plural "s" dropped ("adults" → "adult"), so English questions match passages either way."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def overlap(query: set[str], text: str) -> float:
    """Share of the query's grams found in `text` (0 when the query has none)."""
    if not query:
        return 0.0
    return len(query & grams(text)) / len(query)


def sentences(text: str) -> list[str]:
    """Sentences of a passage: split after . ! ? (followed by a space, or after a sentence's last syllable glued to
    Hangul or a figure) and at line breaks; runs of spaces collapsed."""
    return [" ".join(s.split()) for s in _SENTENCE_END.split(text) if s and s.strip()]


def mentions(term: str, text: str) -> bool:
    """Whether `text` mentions `term` (case-insensitive substring: Korean compounds contain their nouns)."""
    return term.lower() in text.lower()


def list_items(sentence: str) -> list[str]:
    """The comma-separated items of a sentence, commas inside brackets kept ("쇽 증상(가슴쓰림, 오한)"): a label's
    caution lists every condition or group in one sentence, and each item is read on its own."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(sentence):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            items.append(sentence[start:i].strip())
            start = i + 1
    items.append(sentence[start:].strip())
    return [item for item in items if item]
