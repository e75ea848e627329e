"""The scope stage: the first decision of every turn, before the response cache, the LLM router,
memory writes, web references and search.

Why its own stage (not a flag of the searcher): an out-of-scope question must reach nothing else —
no cached answer, no LLM, no third party, no memory — so the decision has to be taken before any of
them, once, and be readable by all of them (`ScopeDecision`).

Why a model and not a whitelist: one medical-sounding word ("크림" in "크림 파스타 레시피",
"감기약" in "감기약 회사 주식") used to unblock anything. The stage now weighs every signal of
`features.py` — similarity to the committed in- and out-of-scope exemplars, medical concept
density, non-medical domain cues, service-request rules — in a logistic model (`model.py`) fitted
at construction on the tuning half of `questions/*.jsonl`, with its threshold chosen on the same
half. Nothing decides alone. Construction embeds the tuning exemplars with the `embed_collection`
query model (cached on disk under `cache_dir`); when the bundle has no usable embedder the stage
logs it and decides with the lexical signals only. `decide` reads only immutable arrays, so many
request threads may call it at once.

Usage:
    stage = ScopeStage(loaded, searcher.query_vector,
                       scope_params=settings.scope, cache_dir=settings.paths.embedding_cache)
    stage.decide("삼성전자 주가 어떻게 될까요").in_scope    # False
    stage.decide("밤에 기침이 심해요").in_scope             # True
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from yaksa.config import ScopeParams
from yaksa.extraction.post_reader import LONG_POST_CHARS, in_a_textbooks_form
from yaksa.index.layout import USERDICT_NAME
from yaksa.lexicon.focus import describes_a_body_complaint, everyday_symptoms, names_a_pain
from yaksa.lexicon.linking import DrugCatalog
from yaksa.lexicon.mind_signs import about_mental_health
from yaksa.lexicon.supplements import asks_about_a_supplement
from yaksa.retrieval.loader import ContentMemo, LoadedBundle
from yaksa.scope.decision import ScopeDecision
from yaksa.scope.device_command import DEVICE_REASON, device_command
from yaksa.scope.embedding import exemplar_vectors
from yaksa.scope.exemplars import ScopeQuestion, exemplar_set_hash, is_held_out, load_questions
from yaksa.scope.features import (
    EMBEDDING_FEATURES,
    LEXICAL_FEATURES,
    LexicalReader,
    LexicalSignals,
    knn_means,
    leave_one_out_knn,
)
from yaksa.scope.featurize import NEAREST, ModelInputs
from yaksa.scope.harmful import HARMFUL_REASON_PREFIX, business_request, harmful_request
from yaksa.scope.learned import LearnedScopeModel
from yaksa.scope.model import EmbeddingDirection, ScopeModel, fit_embedding_direction, fit_scope_model
from yaksa.scope.nothing_near import REASON as NOTHING_NEAR
from yaksa.scope.nothing_near import may_refuse, post_words, shares_a_word
from yaksa.scope.trivia import TRIVIA_REASON, reads_like_trivia
from yaksa.scope.windows import text_windows

log = logging.getLogger(__name__)

QueryVector = Callable[[str, str], np.ndarray]  # (collection, text) -> query embedding
MODEL_VERSION = "scope-lr-v1"
LEXICAL_ONLY = "lexical"
NAMED_MEDICINE = "scope_model:named_medicine"   # refused by the model, passed for a product or brand it names
NAMED_SUPPLEMENT = "scope_model:named_supplement"   # refused by the model, passed for asking about a supplement
NAMED_SYMPTOM = "scope_model:named_symptom"     # refused by the model, passed for a symptom in everyday words
MIND_CONCERN = "scope_model:mind_concern"       # refused by the model, passed as a mental-health concern
MANY_TERMS = "scope_model:many_medical_terms"   # refused by the model, passed for the medical words it names
BODY_COMPLAINT_REASON = "scope_model:body_complaint"   # refused by the model, passed for saying how the body feels
EXAM_QUESTION = "scope_model:exam_question"     # refused by the model, passed as an exam's question on a medical term
# distinct medical terms that make a message health whatever else it speaks of: of the 3,000 shared non-medical
# questions none names more than 2, of our own 387 out-of-scope questions none more than 4 ("멀미 안 나는 KTX 좌석은
# 어디야"); 4 of the 24 shared posts the stage refused name 10 to 14, beside a job, a sport or an insurance claim
MANY_MEDICAL_TERMS = 5


def names_a_medicine(decision: ScopeDecision) -> bool:
    """Whether a refused message names a medicine by its product's or brand's name (`LexicalSignals.medicines`)
    with no other domain's cue and no service request: a question about that medicine, whatever the model's
    likeness says ("타미플루 어떻게 먹어요?" P 0.14 and "스멕타 어떻게 먹어요?" 0.21 were refused). Of the 3,000
    shared non-medical Korean questions none names one (one names an ingredient: 요소, hence names only). A
    cue leaves it to the model ("게보린 주가 얼마야?", "타이레놀 광고 모델 누구야?")."""
    signals = decision.signals
    return (not decision.in_scope and bool(signals.get("named_medicines"))
            and not signals.get("domain_cues") and not signals.get("service_request"))


def names_a_supplement(decision: ScopeDecision, question: str) -> bool:
    """Whether a refused message asks about taking a supplement it names (`asks_about_a_supplement`: "오메가3 먹어도
    되나요?" P below the threshold, "밀크씨슬 간에 좋나요?") with no other domain's cue and no service request
    ("오메가3 90캡슐 한 통 가격이 얼마예요" stays the model's). Supplements are in scope (docs/scope.md)."""
    signals = decision.signals
    return (not decision.in_scope and not signals.get("domain_cues") and not signals.get("service_request")
            and asks_about_a_supplement(question))


def names_a_symptom(decision: ScopeDecision, question: str) -> bool:
    """Whether a refused message names a symptom in everyday words (`everyday_symptoms`: "신물이 올라와요" is
    속쓰림; or a part of the body that hurts, `names_a_pain`: "한번씩 우측가슴이 찌릿한데 왜그런가요?" P 0.21) with
    no other domain's cue and no service request: a complaint, however short. "신물이 올라와요"
    (P 0.22) was refused; none of the 3,000 shared non-medical questions names one, and our own
    out-of-scope questions that do ("허리 아픈 강아지 …") carry a cue."""
    signals = decision.signals
    return (not decision.in_scope and not signals.get("domain_cues") and not signals.get("service_request")
            and (bool(everyday_symptoms(question)) or names_a_pain(question)))


def says_how_the_body_feels(decision: ScopeDecision, question: str) -> bool:
    """Whether a refused message says how a part of the body feels (`describes_a_body_complaint`), whatever
    other domain its words touch; a short one asking for a service (a booking, a shop) stays refused. Why:
    "날씨가 추워지니 무릎이 아파요" (P 0.02, the weather cue), "영화 보다가 머리가 아파요" (entertainment), and
    real posts refused when left out of the fit: chest tightness at night after the gym (P 0.001, cues jobs and
    sports), a golfer's pain between chest and arm, a boy's pounding heart after a violent film. The cue kept
    `names_a_symptom` from overruling; a story tells where it happened, the complaint is what it asks about.
    None of the 3,387 shared and committed non-medical texts says how the body feels (counted 2026-11-30)."""
    if decision.in_scope or not describes_a_body_complaint(question):
        return False
    return len(question) > LONG_POST_CHARS or not decision.signals.get("service_request")


def names_many_medical_terms(decision: ScopeDecision) -> bool:
    """Whether a refused message names `MANY_MEDICAL_TERMS` distinct medical terms (its lexical signals): a
    long post about a knee injury that also asks about an insurance claim and a part-time job ("연골연화증,
    슬개건염 진단 … 실비 청구", P 0.32) is about health, whatever cue its other words raise."""
    return not decision.in_scope and len(set(decision.signals.get("medical_terms") or ())) >= MANY_MEDICAL_TERMS


def asks_an_exam_question(decision: ScopeDecision, question: str) -> bool:
    """Whether a refused message is a short question in an exam's or a textbook's form (`in_a_textbooks_form`:
    "…의 장점으로 옳은 것은?", "…의 특징은?") about a medical term (`LexicalSignals.terms`, not only an ingredient
    that is also an everyday word: "금강산을 만든 요소는?" names 요소, urea) with no other domain's cue. Dental exam
    questions are far from every collection (no dental text in the corpus): "글래스아이오노머 시멘트의 장점으로 옳은
    것은?" (P 0.20, cement) and "유치의 맹출 순서로 옳은 것은?" (P 0.13) were refused, and the dentist subject of
    KorMedMCQA is in the team's test (ours, written 2026-12-01: not blind). Of the 3,000 shared non-medical questions
    59 have the form and none names such a term; of our 387 out-of-scope ones none has the form."""
    signals = decision.signals
    if decision.in_scope or signals.get("domain_cues") or signals.get("service_request"):
        return False
    named = signals.get("medical_terms") or ()
    terms = [t for t in named if not t.startswith("drug:") and f"drug:{t}" not in named]
    return bool(terms) and in_a_textbooks_form(question)


def passed_as_a_mind_concern(decision: ScopeDecision | None) -> bool:
    """Whether the stage passed a message the model refused only because it is a mental-health concern
    (`MIND_CONCERN`): the agent then answers with where to get help, not with whatever label is nearest."""
    return decision is not None and decision.reason == MIND_CONCERN


@dataclass(frozen=True)
class _Exemplars:
    """The embedded tuning exemplars the kNN signals compare a question with."""

    collection: str
    embedder_id: str
    vectors: np.ndarray       # (n, dim), read-only
    in_scope: np.ndarray      # (n,) bool
    texts: tuple[str, ...]
    direction: EmbeddingDirection
    oof_logits: np.ndarray    # (n,) each exemplar's direction logit from the folds that did not see it


def _read_exemplars(reader: LexicalReader, tuning: list[ScopeQuestion]) -> np.ndarray:
    """The reader's reading of every tuning exemplar (Kiwi per exemplar, ~0.4-0.7 s: what the lexical
    model is fitted on)."""
    lexical = np.array([reader.read(q.text).row() for q in tuning])
    lexical.setflags(write=False)  # shared by the stages that get it from `_LEXICAL`
    return lexical


def _lexical_key(loaded: LoadedBundle, catalog: DrugCatalog | None, set_hash: str) -> Hashable | None:
    """What the lexical reading depends on: the tokenizer and drug catalog objects (a swap reuses
    them only when the new bundle names the same tokenizer and its drugs have the same content:
    `yaksa.retrieval.loader`), the bundle's user dictionary and the exemplars. None (no reuse) when
    the stage reads its own catalog from the bundle."""
    if catalog is None:
        return None
    userdict = loaded.bundle.manifest.files.get(USERDICT_NAME)
    return _ObjectsKey((loaded.tokenizer, catalog), (userdict, set_hash))


def _vocabulary_key(loaded: LoadedBundle) -> Hashable:
    """What the medical vocabulary depends on: the tokenizer object (kept across a swap only when the
    new bundle names the same analyser and user dictionary) and the user dictionary's checksum. Not
    the bundle's documents otherwise: a bundle with new documents and the same user dictionary reads
    words as the old one did."""
    return _ObjectsKey((loaded.tokenizer,), (loaded.bundle.manifest.files.get(USERDICT_NAME),))


@dataclass(frozen=True, eq=False)
class _ObjectsKey:
    """A memo key compared by the identity of `objects` and by value for `values`. The objects are
    kept alive with the key (it is stored in the memo), so their ids cannot be reused meanwhile."""

    objects: tuple[object, ...]
    values: tuple[Hashable, ...]

    def _parts(self) -> tuple[tuple[int, ...], tuple[Hashable, ...]]:
        return tuple(id(o) for o in self.objects), self.values

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _ObjectsKey) and self._parts() == other._parts()

    def __hash__(self) -> int:
        return hash(self._parts())


# The lexical readings of the last bundles: a swap to a bundle with the same tokenizer, user
# dictionary and drug catalog reuses the reading instead of re-running Kiwi on every exemplar.
_LEXICAL: ContentMemo[np.ndarray] = ContentMemo()
# The medical vocabularies of the last tokenizers (Kiwi over every curated phrase, ~0.5 s).
_VOCABULARIES: ContentMemo[frozenset[str]] = ContentMemo()
# The embedded exemplars and their leave-one-out kNN features, by embedder: they depend on the
# embedding model and the exemplars only, not on the bundle's documents (a new bundle built with
# the same model reuses them; `load_published` keeps the embedder object when its identity is the same).
_EXEMPLARS: ContentMemo[tuple[_Exemplars, np.ndarray]] = ContentMemo()


class ScopeStage:
    def __init__(self, loaded: LoadedBundle, query_vector: QueryVector, *,
                 scope_params: ScopeParams | None = None, cache_dir: Path | None = None,
                 catalog: DrugCatalog | None = None, learned_dir: Path | None = None) -> None:
        """Load the learned scope model from `learned_dir` when it fits this bundle's embedders, else
        fit the exemplar model on the tuning half of the committed exemplars.

        The scope model has its own settings (`scope_params`, params.yaml `scope:`). `cache_dir` holds the exemplar query
        vectors (e.g. `settings.paths.embedding_cache`); without it they are embedded at every start.
        `catalog` is the searcher's drug catalog of the same bundle (read from the bundle when not given).
        """
        self.loaded = loaded
        self.params = scope_params or ScopeParams()
        self._query_vector = query_vector
        self._learned, self._inputs = self._load_learned(learned_dir)
        self.tuning: list[ScopeQuestion] = [q for q in load_questions() if not is_held_out(q.qid)]
        labels = np.array([q.in_scope for q in self.tuning])
        set_hash = exemplar_set_hash(self.tuning)
        vocabulary = _VOCABULARIES.get(_vocabulary_key(loaded), lambda: LexicalReader.vocabulary_of(loaded))
        self._reader = LexicalReader.from_bundle(loaded, catalog, vocabulary=vocabulary)
        self._lexical_inputs = (_lexical_key(loaded, catalog, set_hash), labels, set_hash)
        self._lexical_lock = threading.Lock()
        self._lexical_fit: tuple[ScopeModel, str] | None = None
        p = self.params
        # with a learned model the exemplar one is not needed, and the lexical one only when an
        # embedding fails: it is fitted then (`_lexical_model`), not at every swap (~0.7 s of Kiwi)
        self._exemplars, knn = None, None
        if self._learned is None:
            self._exemplars, knn = self._exemplars_and_knn(labels, cache_dir, set_hash)
        self._model: ScopeModel | None = None
        self._model_name = self._learned.name if self._learned is not None else ""
        if self._exemplars is not None and knn is not None:
            rows = np.hstack([knn, self._exemplars.oof_logits[:, None], self._exemplar_readings()])
            self._model = fit_scope_model(EMBEDDING_FEATURES + LEXICAL_FEATURES, rows, labels,
                                          p.max_false_block, p.regularization)
            self._model_name = self._model_id(self._exemplars.embedder_id, set_hash, self._model)
        elif self._learned is None:
            self._model_name = self._lexical_model()[1]
        if self._learned is not None:
            log.info("scope: learned model %s (threshold %.4f)", self._learned.name, self._learned.threshold)
        else:
            log.info("scope model %s fitted on %d tuning exemplars: weights %s", self._model_name,
                     len(self.tuning), self.scope_model.weights())

    def _exemplar_readings(self) -> np.ndarray:
        """The lexical reading of every tuning exemplar, shared by stages over the same inputs (`_LEXICAL`)."""
        key = self._lexical_inputs[0]
        return _LEXICAL.get(key, lambda: _read_exemplars(self._reader, self.tuning))

    def _lexical_model(self) -> tuple[ScopeModel, str]:
        """The model over the lexical signals alone and its identity, fitted on first use."""
        with self._lexical_lock:
            if self._lexical_fit is None:
                _key, labels, set_hash = self._lexical_inputs
                p = self.params
                model = fit_scope_model(LEXICAL_FEATURES, self._exemplar_readings(), labels,
                                        p.max_false_block, p.regularization)
                self._lexical_fit = model, self._model_id(LEXICAL_ONLY, set_hash, model)
            return self._lexical_fit

    def _load_learned(self, folder: Path | None) -> tuple[LearnedScopeModel | None, ModelInputs | None]:
        """The learned model when `folder` holds one built on this bundle's embedders (else None, logged)."""
        if folder is None:
            return None, None
        try:
            model = LearnedScopeModel.load(folder)
            inputs = ModelInputs.from_bundle(self.loaded, model.card.collections)
        except ValueError as exc:
            log.warning("scope: no usable learned model (%s); the exemplar model decides", exc)
            return None, None
        ids = [e.id for e in inputs.embedders]
        if ids != model.card.embedders or inputs.corpus_names + list(LEXICAL_FEATURES) != model.card.features[1:]:
            log.warning("scope: the learned model was built on %s, the bundle has %s; the exemplar model decides "
                        "(rebuild it: yaksa build scope)", model.card.embedders, ids)
            return None, None
        return model, inputs

    @property
    def learned(self) -> LearnedScopeModel | None:
        """The learned model deciding, if any (`yaksa eval scope` prints its card)."""
        return self._learned

    @staticmethod
    def _model_id(embedder_id: str, set_hash: str, model: ScopeModel) -> str:
        return f"{MODEL_VERSION}:{embedder_id}:{set_hash}:t={model.threshold:.4f}"

    def _lexical(self, text: str) -> LexicalSignals:
        return self._reader.read(text)

    def _exemplars_and_knn(self, labels: np.ndarray, cache_dir: Path | None,
                           set_hash: str) -> tuple[_Exemplars | None, np.ndarray | None]:
        """The embedded exemplars and their kNN features, shared with earlier stages on the same
        embedder (`_EXEMPLARS`); (None, None) when they cannot be embedded."""
        embedders = self.loaded.embedders
        collection = self.params.embed_collection if self.params.embed_collection in embedders \
            else next(iter(embedders), None)
        key = None if collection is None else _ObjectsKey(
            (embedders[collection],),
            (collection, str(cache_dir), set_hash, self.params.regularization, self.params.neighbours))

        def build() -> tuple[_Exemplars, np.ndarray] | None:
            exemplars = self._embed_exemplars(labels, cache_dir)
            if exemplars is None:
                return None
            knn = leave_one_out_knn(exemplars.vectors, labels, self.params.neighbours)
            knn.setflags(write=False)
            return exemplars, knn

        found = _EXEMPLARS.get(key, build)  # type: ignore[arg-type]
        return found if found is not None else (None, None)

    def _embed_exemplars(self, labels: np.ndarray, cache_dir: Path | None) -> _Exemplars | None:
        embedders = self.loaded.embedders
        collection = self.params.embed_collection if self.params.embed_collection in embedders \
            else next(iter(embedders), None)
        if collection is None:
            log.warning("scope: the bundle has no embedder; deciding with lexical signals only")
            return None
        embedder = embedders[collection]
        if cache_dir is None:
            log.info("scope: no cache_dir given, embedding %d exemplars with %s", len(self.tuning), embedder.id)
        try:
            vectors = exemplar_vectors(embedder, [q.text for q in self.tuning], cache_dir)
        except Exception as exc:  # noqa: BLE001 - any embedder failure degrades to the lexical model
            log.warning("scope: embedding the exemplars with %s failed (%s); deciding with lexical signals only",
                        embedder.id, exc)
            return None
        vectors.setflags(write=False)
        direction, oof_logits = fit_embedding_direction(vectors, labels, self.params.regularization)
        return _Exemplars(collection, embedder.id, vectors, labels, tuple(q.text for q in self.tuning), direction,
                          oof_logits)

    @property
    def scope_model(self) -> ScopeModel:
        """The fitted combiner that decides while embeddings work (the lexical one without an embedder)."""
        return self._model or self._lexical_model()[0]

    @property
    def model(self) -> str:
        """Identity of the model that decides while embeddings work (embedder, exemplar hash, threshold)."""
        return self._model_name

    def decide(self, question: str) -> ScopeDecision:
        """In or out of scope, with every signal that was consulted and the model that decided.

        Four rules overrule an in-scope verdict: a harmful request about medicines (out of bounds, though
        in the topic) and a short question about the business of medicines (shares, hiring, adverts: "감기약
        회사 주식"), both `harmful.py`, a quiz-style yes/no question (`trivia.py`: "달걀 노른자에는
        콜레스테롤이 많은가?") and a command for a device (`device_command.py`: "건강검진 일정 캘린더에
        추가해줘"). All keep the model's signals. Seven overrule
        an out-of-scope verdict: a medicine named by a product's or brand's name (`NAMED_MEDICINE`), a question
        about taking a supplement it names (`NAMED_SUPPLEMENT`), a
        symptom named in everyday words (`NAMED_SYMPTOM`), a message saying how the body feels (`BODY_COMPLAINT_REASON`),
        many medical terms (`MANY_TERMS`), an exam's question on a medical term (`EXAM_QUESTION`), and a
        mental-health concern (`MIND_CONCERN`: a named condition or two signs of depression or anxiety,
        `yaksa.lexicon.mind_signs`; its messages are far from every drug label, so the model's likeness
        refuses them: "요즘 감정 기복이 너무 심해요 … 우울해지고 짜증이 나요" P 0.11)."""
        if not isinstance(question, str) or not question.strip():
            raise ValueError("question is empty")
        question = question.strip()
        return self.with_rules(question, self._decide_model(question))

    def decide_at(self, question: str, probability: float) -> ScopeDecision:
        """The decision had the learned model said `probability`, the rules applied as in `decide`. Why:
        the fit's leave-one-source-out probabilities (`OUT_OF_SOURCE_FILE`) put through the whole stage say
        how it does on a source no part of it was fitted on, as the team's test is (`yaksa eval scope`)."""
        if self._learned is None:
            raise ValueError("no learned scope model: nothing to decide at a given probability")
        question = question.strip()
        lexical = self._lexical(question)
        signals = self._lexical_signals(lexical)
        signals.update(p_in_scope=round(probability, 6), threshold=self._learned.threshold)
        decision = ScopeDecision(probability >= self._learned.threshold, "scope_model:out_of_source", signals,
                                 self._learned.name)
        return self.with_rules(question, decision)

    def with_rules(self, question: str, decision: ScopeDecision) -> ScopeDecision:
        """The model's `decision` on `question` after the rules that overrule it (`decide`'s doc)."""
        harm = harmful_request(question)
        if harm is not None:
            return ScopeDecision(False, f"{HARMFUL_REASON_PREFIX}{harm.rule}",
                                 {**decision.signals, "harmful_request": harm.rule}, decision.model)
        # read only when it can change the verdict: a refusal, or a narrow pass the nothing-near rule may refuse
        mind = (not decision.in_scope or may_refuse(question, decision.signals)) and about_mental_health(question)
        if names_a_medicine(decision):
            decision = ScopeDecision(True, NAMED_MEDICINE, {**decision.signals, "named_medicine": True},
                                     decision.model)
        elif names_a_supplement(decision, question):
            decision = ScopeDecision(True, NAMED_SUPPLEMENT, {**decision.signals, "named_supplement": True},
                                     decision.model)
        elif names_a_symptom(decision, question):
            decision = ScopeDecision(True, NAMED_SYMPTOM, {**decision.signals, "named_symptom": True}, decision.model)
        elif says_how_the_body_feels(decision, question):
            decision = ScopeDecision(True, BODY_COMPLAINT_REASON, {**decision.signals, "body_complaint": True},
                                     decision.model)
        elif names_many_medical_terms(decision):
            decision = ScopeDecision(True, MANY_TERMS, {**decision.signals, "many_medical_terms": True},
                                     decision.model)
        elif asks_an_exam_question(decision, question):
            decision = ScopeDecision(True, EXAM_QUESTION, {**decision.signals, "exam_question": True}, decision.model)
        elif not decision.in_scope and mind:
            decision = ScopeDecision(True, MIND_CONCERN, {**decision.signals, "mind_concern": True}, decision.model)
        # not of a message saying how the body feels: "주식 때문에 스트레스 받아서 머리가 지끈거려요" is a headache
        business = (business_request(question) if decision.in_scope and not describes_a_body_complaint(question)
                    else None)
        if business is not None:
            return ScopeDecision(False, "scope_model:business_request",
                                 {**decision.signals, "business_request": business}, decision.model)
        if decision.in_scope and not mind and reads_like_trivia(question, decision.signals.get("named_medicines") or ()):
            return ScopeDecision(False, TRIVIA_REASON, {**decision.signals, "trivia_register": True}, decision.model)
        if device_command(question):     # refused either way; the reason picks the reply that says why
            return ScopeDecision(False, DEVICE_REASON, {**decision.signals, "device_command": True}, decision.model)
        if (decision.in_scope and not mind and may_refuse(question, decision.signals)
                and not self._near_documents(question)):
            return ScopeDecision(False, NOTHING_NEAR, {**decision.signals, "nothing_near": True}, decision.model)
        return decision

    def _near_documents(self, question: str) -> bool:
        """Whether any of the NEAREST documents of each collection the learned model probes shares a
        content word with the question (`nothing_near`); True when there is no learned model to ask."""
        if self._inputs is None:
            return True
        texts: list[str] = []
        for collection, probe in zip(self._inputs.collections, self._inputs.probes, strict=True):
            vector = np.asarray(self._query_vector(collection, question), dtype=np.float32)
            for name in probe.collections:
                index = self.loaded.bundle.collections[name]
                rows, _scores = index.dense_search(vector, NEAREST)
                texts.extend(f"{d.title} {d.text}" for d in index.documents(np.asarray(rows).ravel()))
        return shares_a_word(question, texts)

    def _decide_model(self, question: str) -> ScopeDecision:
        lexical = self._lexical(question)
        signals = self._lexical_signals(lexical)
        if self._learned is not None and self._inputs is not None:
            decision = self._decide_learned(question, lexical, signals)
            if decision is not None:
                return decision
        model: ScopeModel | None = None
        name, row = "", lexical.row()
        if self._model is not None and self._exemplars is not None:
            ex = self._exemplars
            try:
                vector = np.asarray(self._query_vector(ex.collection, question), dtype=np.float32)
            except Exception as exc:  # noqa: BLE001 - a failing embedder must not take the service down
                log.warning("scope: query embedding failed (%s); lexical model decides", exc)
                signals["embedding_error"] = str(exc)
            else:
                sims = ex.vectors @ vector
                knn_in, knn_out = knn_means(sims, ex.in_scope, self.params.neighbours)
                logit = ex.direction.logit(vector)
                model, name, row = self._model, self._model_name, [knn_in, knn_out, logit, *row]
                signals.update(knn_in=round(knn_in, 6), knn_out=round(knn_out, 6), embed_logit=round(logit, 6),
                               nearest=ex.texts[int(np.argmax(sims))])
        if model is None:
            model, name = self._lexical_model()
        probability = model.probability(row)
        in_scope = probability >= model.threshold
        contributions = model.contributions(row)
        # the reason names the signal that pushed hardest towards the verdict
        strongest = model.features[int(np.argmax(contributions if in_scope else -contributions))]
        signals.update(p_in_scope=round(probability, 6), threshold=model.threshold)
        return ScopeDecision(in_scope, f"scope_model:{strongest}", signals, name)

    @staticmethod
    def _lexical_signals(lexical: LexicalSignals) -> dict[str, object]:
        return {"medical_terms": list(lexical.medical), "density": lexical.density,
                "domain_cues": list(lexical.cues), "service_request": lexical.service,
                "informal_request": lexical.informal, "named_medicines": list(lexical.medicines),
                "post_words": post_words(lexical.tokens)}

    def _decide_learned(self, question: str, lexical: LexicalSignals,
                        signals: dict[str, object]) -> ScopeDecision | None:
        """The learned model's verdict: the most in-scope of the whole and its windows (None: embedding failed)."""
        assert self._learned is not None and self._inputs is not None
        windows = text_windows(question)
        try:
            features = self._inputs.features(windows, self._query_vector, lexical.row())
        except Exception as exc:  # noqa: BLE001 - a failing embedder must not take the service down
            log.warning("scope: query embedding failed (%s); lexical model decides", exc)
            signals["embedding_error"] = str(exc)
            return None
        views = self._learned.view_probabilities(features)
        best = int(np.argmax(views))
        probability = views[best]
        in_scope = probability >= self._learned.threshold
        signals.update(p_in_scope=round(probability, 6), threshold=self._learned.threshold, windows=len(windows),
                       p_whole=round(views[0], 6))
        # the reason says which reading decided: the whole message, or one of its sentence windows
        reason = "scope_model:whole" if best == 0 else f"scope_model:window{best}"
        return ScopeDecision(in_scope, reason, signals, self._learned.name)
