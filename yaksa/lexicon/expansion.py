"""Rule-based query optimisation: expand the BM25 query, strip filler from the rerank query.

Why rules: consumers ask in brand names and everyday words ("타이레놀", "눈이 침침해요") while MFDS
label sections use ingredients and clinical terms ("아세트아미노펜", "눈의 피로"). The rules live
in `rules/expansion_ko.yaml` so a pharmacist can review them without reading code. Expansion only
ever *adds* terms to the lexical (BM25) query: the dense query embeds the question as asked, since
appended keyword lists blur a sentence embedding. When an LLM router is configured its
`recall_terms` are added the same way and its `avoid_terms` are removed from the lexical query.

Order of application: colloquial -> clinical first, so "머리가 아파요" becomes 두통, which then
pulls in the 두통 ingredients; brand -> ingredient on the original text.

Usage:
    q = expand_query("두통이 있는데 타이레놀 먹어도 되나요?")
    q.added          # ("아세트아미노펜", "이부프로펜")
    q.lexical        # the question followed by the added terms
    q.rerank         # "두통이 있는데 타이레놀 먹어도 되나요?" without filler words
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

import yaml

from yaksa.lexicon.rule_tables import word_table

RULES_FILE = "expansion_ko.yaml"
SPACES = re.compile(r"\s+")
WORD = re.compile(r"\S+")
TRAILING_PUNCT = re.compile(r"[?!.,~]+$")


@dataclass(frozen=True)
class ExpansionRules:
    colloquial: dict[str, tuple[str, ...]]
    symptom_ingredients: dict[str, tuple[str, ...]]
    brand_ingredients: dict[str, tuple[str, ...]]
    filler: frozenset[str]
    query_stopwords: frozenset[str]  # analyser tokens too common in labels to rank by ("먹다", "되다")


@dataclass(frozen=True)
class ExpandedQuery:
    original: str
    lexical: str                      # the BM25 query: original plus added terms, minus avoid terms
    rerank: str                       # the question without filler, for the reranker
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()     # avoid terms taken out of the lexical query
    sources: dict[str, list[str]] = field(default_factory=dict)  # rule family -> terms it added

    def to_json(self) -> dict[str, Any]:
        return {"lexical": self.lexical, "rerank": self.rerank, "added": list(self.added),
                "removed": list(self.removed), "sources": self.sources}


def _terms(raw: Any, where: str) -> dict[str, tuple[str, ...]]:
    return word_table(raw, RULES_FILE, where)


# A colloquial key is written once, in one form of the verb it ends in ("배가 아파", "속이 쓰려", "열이 나");
# keys match as substrings, so "배가 아픈 이유", "속이 쓰릴까요", "열이 났어요" matched none and were read
# as naming no symptom ("왜 자꾸 속이 쓰릴까요?" was refused as off-topic, 2026-11-27). These are the other
# forms of those verbs; a key ending in the first gets a sibling ending in each of the others.
CONJUGATIONS: dict[str, tuple[str, ...]] = {
    "아파": ("아프", "아픈", "아플", "아팠"),
    "쓰려": ("쓰리", "쓰린", "쓰릴", "쓰렸"),
    "가려워": ("가려운", "가려울", "가려웠"),
    " 나": (" 난", " 날", " 났"),
    "열나": ("열난", "열날", "열났"),
}


def with_conjugations(table: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """`table` plus, for each key ending in a form of `CONJUGATIONS`, the keys ending in its other forms
    (same terms); a key written in the table itself is never replaced."""
    out = dict(table)
    for key, terms in table.items():
        for ending, forms in CONJUGATIONS.items():
            if key.endswith(ending):
                for form in forms:
                    out.setdefault(key[: -len(ending)] + form, terms)
    return out


@lru_cache(maxsize=1)
def load_rules() -> ExpansionRules:
    """The packaged rules, parsed and checked once per process."""
    text = resources.files("yaksa.lexicon").joinpath("rules", RULES_FILE).read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    filler = data.get("filler") or []
    if not isinstance(filler, list):
        raise TypeError(f"{RULES_FILE}: filler must be a list of words")
    return ExpansionRules(
        colloquial=with_conjugations(_terms(data.get("colloquial", {}), "colloquial")),
        symptom_ingredients=_terms(data.get("symptom_ingredients", {}), "symptom_ingredients"),
        brand_ingredients=_terms(data.get("brand_ingredients", {}), "brand_ingredients"),
        filler=frozenset(w.lower() for w in filler),
        query_stopwords=frozenset(data.get("query_stopwords") or []),
    )


def _matches(text: str, table: dict[str, tuple[str, ...]]) -> list[str]:
    return [term for key, terms in table.items() if key in text for term in terms]


def strip_filler(question: str, filler: Iterable[str] | None = None) -> str:
    """The question without conversational filler words; the question itself if nothing is left."""
    words = frozenset(filler) if filler is not None else load_rules().filler
    kept = [w for w in WORD.findall(question) if TRAILING_PUNCT.sub("", w).lower() not in words]
    return " ".join(kept) or question.strip()


def expand_query(question: str, recall_terms: Sequence[str] = (), avoid_terms: Sequence[str] = ()) -> ExpandedQuery:
    """Expand `question` with the packaged rules plus optional router terms (see module doc)."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError("question must be a non-empty string")
    rules = load_rules()
    text = SPACES.sub(" ", question.strip())
    sources: dict[str, list[str]] = {}
    clinical = _matches(text, rules.colloquial)
    seen = set(WORD.findall(text))
    added: list[str] = []

    def add(family: str, terms: Iterable[str]) -> None:
        for term in terms:
            if term not in seen and term not in text and term not in avoid_terms:
                seen.add(term)
                added.append(term)
                sources.setdefault(family, []).append(term)

    add("colloquial", clinical)
    add("symptom_ingredients", _matches(text + " " + " ".join(clinical), rules.symptom_ingredients))
    add("brand_ingredients", _matches(text, rules.brand_ingredients))
    add("router", (t.strip() for t in recall_terms if isinstance(t, str) and t.strip()))
    lexical = " ".join([text, *added])
    removed = tuple(t for t in avoid_terms if isinstance(t, str) and t.strip() and t in lexical)
    for term in removed:
        lexical = SPACES.sub(" ", lexical.replace(term, " ")).strip()
    return ExpandedQuery(original=question, lexical=lexical or text, rerank=strip_filler(text, rules.filler),
                         added=tuple(added), removed=removed, sources=sources)
