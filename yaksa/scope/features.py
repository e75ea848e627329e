"""The signals of the scope model, as one numeric row per question.

  knn_in / knn_out   mean cosine to the k nearest in-scope / out-of-scope exemplars in the query
                     embedding (what the question is *like*; generalises to unseen wordings)
  embed_logit        the question's side of a learned in-vs-out direction in that embedding
                     (`model.EmbeddingDirection`)
  density            share of the question's content tokens that are medical (`vocabulary.py`)
  medical_terms      distinct medical tokens plus expansion-rule families that fired, clinical
                     measurements stated (a temperature, a weight; `vocabulary.MEASUREMENTS`), drugs the
                     question names (the bundle's products and rules/brands_ko.yaml, as the searcher
                     links them: "키미테", "이지엔6", "탄툼 가글") and symptoms in everyday words of rules/focus_ko.yaml ("신물이 올라와요"), capped at 3
  domain_cues        non-medical domains whose cue words the question contains (`cues.py`)
  service_request    1 when a booking/insurance/hours/paperwork rule matches (`service_rules.py`)
  informal_request   1 when the message ends as a 반말 request to an assistant or a friend ("알려줘", "있니";
                     `register.py`) and names no medical term: "요즘 너무 우울한데 어떻게 해야 할까" names 우울,
                     and the ending alone took it from 0.36 to 0.08 and refused it

Why these and not the words themselves: a bag of words would learn "크림" and "주식" as tokens and
decide by one of them; these are rates and counts over the whole question, so a single drug word in
a finance question raises `density` a little while the cue and the neighbours pull the other way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from yaksa.index.layout import USERDICT_NAME
from yaksa.lexicon.expansion import expand_query
from yaksa.lexicon.focus import named_symptoms
from yaksa.lexicon.linking import DrugCatalog
from yaksa.lexicon.scope_vocabulary import (
    clinical_measurements,
    in_other_sense,
    is_medical_token,
    medical_vocabulary,
)
from yaksa.retrieval.loader import LoadedBundle
from yaksa.retrieval.searcher import DRUGS
from yaksa.scope.cues import domain_cues
from yaksa.scope.register import informal_request
from yaksa.scope.service_rules import service_request
from yaksa.text.tokenizer import Tokenizer

EMBEDDING_FEATURES = ("knn_in", "knn_out", "embed_logit")
LEXICAL_FEATURES = ("density", "medical_terms", "domain_cues", "service_request", "informal_request")
MAX_TERM_COUNT = 3  # beyond three named terms more names add no evidence


@dataclass(frozen=True)
class LexicalSignals:
    tokens: tuple[str, ...]
    medical: tuple[str, ...]       # medical tokens and "rule:<family>" for expansion rules that fired
    density: float
    cues: tuple[str, ...]
    service: str | None
    informal: bool
    # medicines named by a product's or a brand's name (not by an ingredient, whose names are everyday words
    # too: 요소, 카페인): the words of the question that named them
    medicines: tuple[str, ...] = ()

    def row(self) -> list[float]:
        """Values in `LEXICAL_FEATURES` order."""
        return [self.density, float(min(len(self.medical), MAX_TERM_COUNT)), float(len(self.cues)),
                float(self.service is not None), float(self.informal)]


def lexical_signals(question: str, tokenizer: Tokenizer, vocabulary: frozenset[str],
                    catalog: DrugCatalog | None = None) -> LexicalSignals:
    tokens = tuple(tokenizer.tokenize(question))
    medical_tokens = [t for t in tokens if is_medical_token(t, vocabulary) and not in_other_sense(t, question)]
    rules = [f"rule:{family}" for family in sorted(expand_query(question).sources)]
    rules += [f"measure:{kind}" for kind in clinical_measurements(question)]
    link = catalog.link(question) if catalog is not None else None
    rules += [f"drug:{m}" for m in (link.mentions if link is not None else ())]
    rules += [f"symptom:{t}" for t in named_symptoms(question) if not in_other_sense(t, question)]
    density = len(medical_tokens) / len(tokens) if tokens else 0.0
    medical = tuple(sorted(set(medical_tokens))) + tuple(rules)
    medicines = () if link is None else tuple(dict.fromkeys(
        [p.mention for p in link.products if p.via != "ingredient"] + [b.brand for b in link.brands]))
    return LexicalSignals(tokens, medical, round(density, 6), domain_cues(question), service_request(question),
                          informal_request(question) and not medical, medicines)


@dataclass(frozen=True)
class LexicalReader:
    """The lexical signals of a bundle: its analyser, medical vocabulary and drug catalog, built once.

    Why one object: the scope stage at query time and the scope model's build stage must read a text
    with the same vocabulary and catalog, or the model is fitted on features the service never sees.
    Read-only after construction, so request threads share it.
    """

    tokenizer: Tokenizer
    vocabulary: frozenset[str]
    catalog: DrugCatalog | None

    @classmethod
    def from_bundle(cls, loaded: LoadedBundle, catalog: DrugCatalog | None = None,
                    vocabulary: frozenset[str] | None = None) -> LexicalReader:
        """`catalog`: the searcher's drug catalog of the same bundle (read from the bundle when not given);
        `vocabulary`: `vocabulary_of(loaded)` computed before (a swap that keeps the tokenizer keeps it)."""
        # the bundle's products and the brand rules: "키미테 붙이는 법" names a drug though no analyser
        # token of it is a medical word
        if catalog is None and DRUGS in loaded.bundle.collections:
            catalog = DrugCatalog.from_collection(loaded.bundle.collections[DRUGS])
        return cls(loaded.tokenizer, vocabulary if vocabulary is not None else cls.vocabulary_of(loaded), catalog)

    @staticmethod
    def vocabulary_of(loaded: LoadedBundle) -> frozenset[str]:
        """The medical words of the bundle's analyser and user dictionary (Kiwi over every curated phrase)."""
        return medical_vocabulary(loaded.tokenizer, loaded.bundle.path / USERDICT_NAME)

    def read(self, text: str) -> LexicalSignals:
        return lexical_signals(text, self.tokenizer, self.vocabulary, self.catalog)


def knn_means(similarities: np.ndarray, in_scope: np.ndarray, k: int) -> tuple[float, float]:
    """Mean of the k highest similarities to in-scope and to out-of-scope exemplars."""
    def top(values: np.ndarray) -> float:
        kk = min(k, len(values))
        return float(np.partition(values, len(values) - kk)[-kk:].mean())

    return top(similarities[in_scope]), top(similarities[~in_scope])


def leave_one_out_knn(vectors: np.ndarray, in_scope: np.ndarray, k: int) -> np.ndarray:
    """(n, 2) kNN features of the exemplars themselves, each without its own vector.

    Fitting on features that include the exemplar's similarity 1.0 to itself would teach the model
    that an in-scope question always has a perfect in-scope neighbour; a new question never does.
    """
    sims = vectors @ vectors.T
    rows = []
    for i in range(len(vectors)):
        keep = np.ones(len(vectors), dtype=bool)
        keep[i] = False
        rows.append(knn_means(sims[i][keep], in_scope[keep], k))
    return np.asarray(rows, dtype=np.float64)
