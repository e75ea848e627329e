"""Turn analyser morphemes into index terms, the same way for every backend.

BM25 only works when the index and the query produce identical terms, so the rules that decide what a
kept morpheme becomes (tag normalisation, verb stems, Latin clean-up, English stop words) live here
once and both the Kiwi and the MeCab backend call them.

Decisions:
- Verb and adjective stems get "다" appended (먹어도 → 먹다, 아파요 → 아프다). That keeps them apart
  from one-syllable nouns with the same spelling (먹 "ink" vs 먹다 "eat") and reads naturally in a
  debugging dump.
- Numbers are their digit runs ("70." → "70"); Kiwi's special tokens (W_SERIAL "1/3", W_URL ...)
  go through the same letter/number rule as text without Hangul, so both paths agree.
- Latin text is lower-cased and split on anything that is not a letter or digit: analysers leave
  trailing dots ("pain.", "U.S.") on SL tokens, and "Aspirin" must match "aspirin.".
- A short English stop-word list (Lucene's classic English set) is dropped from Latin tokens so BM25
  over the English collections is not dominated by "the"/"of". Korean function words are already
  removed by the POS filter.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

# Lucene's classic EnglishAnalyzer stop set: small, well known, and it leaves medical words alone.
ENGLISH_STOPWORDS: frozenset[str] = frozenset(
    {
        "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is",
        "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there",
        "these", "they", "this", "to", "was", "will", "with",
    }
)

VERB_TAGS: frozenset[str] = frozenset({"VV", "VA"})

# Bumped whenever a rule in this module changes what a text becomes: it is part of the tokenizer
# identity, so a bundle built under other rules is refused instead of silently mis-matching queries.
RULES_VERSION = 2

# Text with none of these scripts needs no morphological analysis (see `plain_terms`).
_NEEDS_ANALYSER = re.compile(r"[\u1100-\u11ff\u3000-\u9fff\uac00-\ud7af\uf900-\ufaff]")
# What Kiwi tags SL (Latin letter runs) and SN (numbers with inner , or .) in text without Hangul.
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_PLAIN_TOKEN = re.compile(r"(?P<sl>[A-Za-z\u00c0-\u024f]+)|(?P<sn>\d+(?:[.,]\d+)*)")

# MeCab-ko's unit noun (NNBC, "밀리", "개") is a bound noun for our purposes.
_TAG_ALIASES: dict[str, str] = {"NNBC": "NNB"}

_LATIN_WORD = re.compile(r"[^\W_]+")


@functools.cache
def base_tag(tag: str) -> str:
    """Reduce an analyser tag to the plain Sejong tag the POS filter is written in.

    Kiwi marks irregular/regular conjugation ("VV-I", "VA-R"); MeCab joins the tags of a fused
    surface ("VV+EC", "NP+JX") — the first one is the content morpheme.
    """
    first = tag.split("+", 1)[0].split("-", 1)[0]
    return _TAG_ALIASES.get(first, first)


def latin_terms(surface: str) -> list[str]:
    """Lower-cased letter/digit runs of a Latin span, English stop words removed."""
    return [w for w in _LATIN_WORD.findall(surface.lower()) if w not in ENGLISH_STOPWORDS]


def tokenizer_identity(name: str, version: str, pos_filter: tuple[str, ...], userdict_hash: str) -> dict[str, object]:
    """What the index manifest records, and what a reader compares, for any tokenizer backend."""
    return {"name": name, "version": version, "pos_filter": list(pos_filter), "userdict_hash": userdict_hash}


def needs_analyser(text: str) -> bool:
    """True when the text has Hangul (or other CJK) that only a morphological analyser can split."""
    return _NEEDS_ANALYSER.search(text) is not None


def plain_terms(text: str, keep: frozenset[str]) -> list[str]:
    """Index terms of a text without Hangul, identical to what Kiwi + these rules produce.

    English passages are most of the corpus; Kiwi would only tag their letter runs SL and their
    numbers SN, so doing that with one regex gives the same terms several times faster. Touching
    letter runs are joined just as `KiwiTokenizer` re-joins touching SL tokens.
    """
    out: list[str] = []
    keep_sl, keep_sn = "SL" in keep, "SN" in keep
    for m in _PLAIN_TOKEN.finditer(text):
        if m.group("sl") is not None:
            if keep_sl:
                out.extend(latin_terms(m.group("sl")))
        elif keep_sn:
            out.append(m.group("sn"))
    return out


def morpheme_terms(form: str, tag: str) -> list[str]:
    """Index terms for one kept morpheme whose tag is already a base tag."""
    if tag in VERB_TAGS:
        return [form + "다"]
    if tag == "SL":
        return latin_terms(form)
    if tag == "SN":
        return _NUMBER.findall(form)  # Kiwi keeps a sentence-final dot: "70." must index as "70"
    return [form] if form.strip() else []


def normalize_pos_filter(pos_filter: Iterable[str]) -> tuple[str, ...]:
    """Validate and de-duplicate a POS filter while keeping its order (it goes into the identity)."""
    tags: list[str] = []
    for tag in pos_filter:
        if not isinstance(tag, str) or not re.fullmatch(r"[A-Z]{2,4}", tag):
            raise ValueError(f"invalid POS tag in pos_filter: {tag!r} (expected e.g. 'NNG', 'SL')")
        if tag not in tags:
            tags.append(tag)
    if not tags:
        raise ValueError("pos_filter is empty: no morpheme would ever be indexed")
    return tuple(tags)


def check_texts(texts: object) -> list[str]:
    """Fail early, naming the bad position, instead of deep inside a C extension."""
    if isinstance(texts, str):
        raise TypeError("tokenize_many() takes a sequence of strings, not a single string")
    items = list(texts)  # type: ignore[call-overload]
    for i, text in enumerate(items):
        if not isinstance(text, str):
            raise TypeError(f"text #{i} is {type(text).__name__}, expected str")
    return items
