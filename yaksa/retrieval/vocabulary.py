"""The medical vocabulary the out-of-scope guard accepts as evidence of an in-scope question.

Why a second signal: Korean consumer questions ("두통이 있는데 타이레놀 먹어도 돼요?") reach a best
cosine barely above coherent off-topic ones ("삼성전자 주가 알려줘"), because multilingual-e5
compresses short Korean sentences into a narrow band. Naming a product, an ingredient, a symptom, a
condition or a drug class is strong evidence of scope that a cosine cannot see. The vocabulary is
built from what the bundle and the project already curate: the bundle's user dictionary (product
brand stems and ingredients), the query-expansion rules, the Korean symptom/condition lexicon used
for slot extraction, and a short list of drug-class and dosing words below. Only single analyser
tokens are kept, so a phrase never matches by one common word.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from yaksa.retrieval.expansion import load_rules
from yaksa.text.tokenizer import Tokenizer
from yaksa.text.userdict import read_userdict

DRUG_WORDS: tuple[str, ...] = (
    "약", "감기약", "두통약", "진통제", "해열제", "소화제", "변비약", "지사제", "수면제", "수면유도제", "안약",
    "점안액", "연고", "크림", "파스", "시럽", "영양제", "비타민", "항생제", "항히스타민제", "제산제", "소염제",
    "진통소염제", "혈압약", "당뇨약", "복용", "투약", "용법", "용량", "부작용", "상호작용", "효능", "처방",
    "일반의약품", "전문의약품", "임부", "수유부", "알약", "정제", "캡슐",
)


# inflected forms ("열나다", "가래가") must stay phrases for the analyser, not become nouns
NOT_NOUN_ENDINGS = ("다", "가", "이", "을", "를", "에", "는", "은", "워", "렵")


def _lexicon_names() -> Iterable[str]:
    text = resources.files("yaksa.extraction").joinpath("lexicon_ko.csv").read_text(encoding="utf-8")
    for row in csv.DictReader(text.splitlines()):
        yield row["preferred"]
        yield from (n for n in row["names"].split("|") if n)


def _rule_terms() -> Iterable[str]:
    rules = load_rules()
    for table in (rules.colloquial, rules.symptom_ingredients, rules.brand_ingredients):
        for key, terms in table.items():
            yield key
            yield from terms


def curated_medical_words() -> list[str]:
    """Single Hangul words of the curated lists (lexicon, expansion rules, drug-class words).

    The build adds them to the analyser's user dictionary: without it a sentence-initial "두통에"
    is analysed as 두 + 통, and neither BM25 nor this vocabulary would see 두통.
    """
    rules = load_rules()
    nouns = [t for table in (rules.symptom_ingredients, rules.brand_ingredients) for k, v in table.items()
             for t in (k, *v)] + [t for v in rules.colloquial.values() for t in v]  # not the colloquial keys
    words = (*DRUG_WORDS, *_lexicon_names(), *nouns)
    return sorted({w for w in words if len(w) >= 2 and all("\uac00" <= ch <= "\ud7a3" for ch in w)
                   and not w.endswith(NOT_NOUN_ENDINGS)})


def medical_vocabulary(tokenizer: Tokenizer, userdict: Path | None) -> frozenset[str]:
    """Single analyser tokens that mark a question as being about medicines or health."""
    words: set[str] = set()
    if userdict is not None and userdict.exists():
        words.update(w.word for w in read_userdict(userdict))
    for phrase in (*DRUG_WORDS, *_lexicon_names(), *_rule_terms()):
        tokens = tokenizer.tokenize(phrase)
        if len(tokens) == 1:
            words.add(tokens[0])
    return frozenset(words)
