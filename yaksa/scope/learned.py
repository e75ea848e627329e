"""The learned scope model: a stacked logistic regression over windowed query embeddings, the
message's similarity to the bundle's corpus and its lexical rates; calibrated and thresholded by
leaving whole sources out.

Why this shape:
- *Windows, pooled.* A message is cut into sentence windows (`windows.py`); each is embedded as a
  query by every model in `scope.model_collections` (e5 and USE: each separates sources the other
  confuses). A message is scored on the mean of its windows and on every window, and the most
  in-scope reading counts: a long post whose last sentence asks about a fever is about health
  however it starts.
- *Two layers.* An embedding model (logistic regression on the concatenated vectors) gives one
  logit; a combiner weighs that logit beside the corpus similarities (`featurize.CorpusProbe`) and
  the lexical rates (`features.LEXICAL_FEATURES`). The combiner is fitted on *out-of-source* logits
  (grouped folds), so it learns how far the embedding carries to writers it has not seen. Measured:
  not far (its weight came out negative, −0.40); the corpus similarities carry the decision. So by
  default the embedding model is *not fitted* (`use_embedding=False`): its logit is 0 for every
  view and its combiner weight 0. Leaving it out raised every non-medical source's
  leave-one-source-out refusal rate (3i4K 69.7 → 74.0%, Chatbot_data 73.3 → 80.3%, Question_pair
  74.5 → 78.5%, KorQuAD 92.3 → 93.0%, our set 52.1 → 56.7%) with no budgeted in-scope category
  refused more (our own in-scope set, which sets no budget: 4.8 → 5.8%; model card). The input stays in the combiner row, so the stored format and the query-time path do
  not change.
- *Each source weighs the same* within its class (sample weights 1/n per source), so thousands of
  forum posts do not teach "in scope = written like hidoc".
- *Leave one source out.* For every source the model is refitted without it and scores it: those
  out-of-source scores are what a writer we have never seen gets. The Platt calibration (P(in
  scope) from the score) and the threshold are fitted on them, never on in-source scores, which
  overstate (ours did: 99.5% on our own set, 88.5% on other people's).
- *Threshold: the sick first.* The highest threshold at which no in-scope category (posts, exam,
  research, consumer questions) loses more than its budget (`CATEGORY_TARGETS`); whatever
  non-medical block rate that leaves is reported per source, not tuned away.

The fitted model keeps weights, the calibration, the threshold and per-source rates; no training
text (`training_data.py` on licences).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

from yaksa.atomicio import atomic_write, write_json
from yaksa.scope.training_data import CONSUMER, EXAM, POSTS, RESEARCH, SOURCES, family

MODEL_VERSION = "scope-learned-v1"
WEIGHTS_FILE = "scope_model.npz"
CARD_FILE = "scope_model.json"
# each tuning text's probability from the model fitted without its source: `yaksa eval scope` puts them
# through the stage's rules, the nearest we have to a source the team's test holds and we never saw
OUT_OF_SOURCE_FILE = "out_of_source.json"
# share of each in-scope category that may be refused (the targets on other people's questions)
INNER_FOLDS = 5        # grouped folds (by source) for the out-of-source embedding logits
COMBINER_C = 1.0       # the combiner has a dozen inputs: mild regularisation
CATEGORY_TARGETS: dict[str, float] = {POSTS: 0.01, EXAM: 0.02, RESEARCH: 0.01, CONSUMER: 0.01}


@dataclass(frozen=True)
class TextFeatures:
    """One text's model inputs, per *view* (its mean window vector first, then each window when it
    has more than one): the query vectors, their similarity to the bundle's corpus, and the
    text-level lexical row shared by every view."""

    views: np.ndarray     # (n_views, dim)
    corpus: np.ndarray    # (n_views, n_corpus)
    lexical: np.ndarray   # (n_lexical,)

    def __post_init__(self) -> None:
        if self.views.ndim != 2 or self.corpus.shape[0] != self.views.shape[0] or self.lexical.ndim != 1:
            raise ValueError(f"views {self.views.shape}, corpus {self.corpus.shape} and lexical "
                             f"{self.lexical.shape} do not fit together")

    def combiner_rows(self, embed_logits: np.ndarray) -> np.ndarray:
        """(n_views, 1 + n_corpus + n_lexical): what the combiner reads for each view."""
        return np.hstack([embed_logits[:, None], self.corpus, np.tile(self.lexical, (len(self.views), 1))])

    def mean_row(self, embed_logit: float) -> np.ndarray:
        """The combiner's input for the mean view alone (what the combiner is fitted on)."""
        return np.concatenate([[embed_logit], self.corpus[0], self.lexical])


def mean_view(windows: np.ndarray) -> np.ndarray:
    """The views of a text from its window vectors (n, dim): the normalised mean, then the windows."""
    mean = windows.mean(axis=0)
    norm = float(np.linalg.norm(mean))
    mean = mean / norm if norm > 0 else mean
    return np.asarray([mean] if len(windows) == 1 else [mean, *windows], dtype=np.float32)


@dataclass(frozen=True)
class _Linear:
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float

    def scores(self, rows: np.ndarray) -> np.ndarray:
        return ((rows - self.mean) / self.scale) @ self.coef + self.intercept


@dataclass(frozen=True)
class _Stack:
    """The embedding model and the combiner over its logit, the corpus similarities and the lexical row."""

    embed: _Linear
    combiner: _Linear

    def view_scores(self, features: TextFeatures) -> np.ndarray:
        return self.combiner.scores(features.combiner_rows(self.embed.scores(features.views)))

    def text_score(self, features: TextFeatures) -> float:
        """The most in-scope reading of a text: max over its views (module doc)."""
        return float(self.view_scores(features).max())


def _source_weights(sources: Sequence[str], labels: np.ndarray) -> np.ndarray:
    """1/n per source, each class summing to half the rows (module doc)."""
    src = np.asarray(sources)
    weights = np.zeros(len(src))
    for cls in (True, False):
        in_cls = labels == cls
        names = sorted(set(src[in_cls]))
        for name in names:
            mask = in_cls & (src == name)
            weights[mask] = 1.0 / mask.sum() / len(names)
    return weights * len(src) / 2.0


def _fit_linear(rows: np.ndarray, labels: np.ndarray, sources: Sequence[str], c: float) -> _Linear:
    mean = rows.mean(axis=0)
    std = rows.std(axis=0)
    scale = np.where(std > 1e-9, std, 1.0)
    clf = LogisticRegression(C=c, max_iter=3000)
    clf.fit((rows - mean) / scale, labels, sample_weight=_source_weights(sources, labels))
    return _Linear(mean, scale, clf.coef_[0].astype(np.float64), float(clf.intercept_[0]))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, x))))


def _fit_platt(scores: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    clf = LogisticRegression(C=1e4, max_iter=1000).fit(scores[:, None], labels)
    return float(clf.coef_[0][0]), float(clf.intercept_[0])


def choose_threshold(probabilities: np.ndarray, categories: Sequence[str],
                     targets: Mapping[str, float] = CATEGORY_TARGETS) -> float:
    """The highest threshold whose refusals stay within every in-scope category's budget.

    Blocked is `p < threshold`. Candidates are the in-scope probabilities; between the chosen one and
    the next lower in-scope probability the threshold sits midway (margin for unseen questions).
    Categories absent from `categories` are skipped; with no in-scope text at all, 0.5.
    """
    cats = np.asarray(categories)
    p = np.asarray(probabilities, dtype=np.float64)
    present = [c for c in targets if (cats == c).any()]
    if not present:
        return 0.5
    # for each category: at most floor(budget * n) of its probabilities may lie below the threshold
    limit = 1.0
    for cat in present:
        values = np.sort(p[cats == cat])
        allowed = math.floor(targets[cat] * len(values) + 1e-9)
        limit = min(limit, float(values[allowed]) if allowed < len(values) else 1.0)
    lower = p[(p < limit) & np.isin(cats, present)]
    return float((limit + lower.max()) / 2) if len(lower) else float(limit)


@dataclass
class SourceRates:
    n: int
    refused: float        # share refused (blocked as out of scope)
    category: str
    in_scope: bool


@dataclass
class ScopeModelCard:
    """What the fitted model is and how it did, per source (JSON beside the weights)."""

    version: str
    embedders: list[str]                         # query embedder ids, in `collections` order
    collections: list[str]
    features: list[str]
    threshold: float
    platt: list[float]
    regularization: float
    combiner_weights: dict[str, float]           # standardised weight of each combiner input
    trained_on: dict[str, int]                   # source -> tuning-half texts
    leave_one_source_out: dict[str, SourceRates]  # source -> rates when it was left out
    held_out: dict[str, SourceRates]              # source -> rates of the final model on its held-out half
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> ScopeModelCard:
        fields = dict(data)
        for key in ("leave_one_source_out", "held_out"):
            fields[key] = {k: SourceRates(**v) for k, v in data[key].items()}
        return ScopeModelCard(**fields)


@dataclass(frozen=True)
class LearnedScopeModel:
    stack: _Stack
    platt: tuple[float, float]
    threshold: float
    card: ScopeModelCard
    # the fit's leave-one-source-out P(in scope) per input text (NaN for the held-out half); not saved
    # with the model (`fit_scope` writes it beside it, by text id)
    out_of_source: tuple[float, ...] = field(default=(), compare=False, repr=False)

    @property
    def name(self) -> str:
        return f"{MODEL_VERSION}:{'+'.join(self.card.embedders)}:t={self.threshold:.4f}"

    def _p(self, score: float) -> float:
        return _sigmoid(self.platt[0] * score + self.platt[1])

    def probability(self, features: TextFeatures) -> float:
        return self._p(self.stack.text_score(features))

    def view_probabilities(self, features: TextFeatures) -> list[float]:
        """P(in scope) of each view (mean first, then windows): which part carried the decision."""
        return [self._p(float(v)) for v in self.stack.view_scores(features)]

    def save(self, folder: Path) -> None:
        """Weights (npz) and card (JSON), each written atomically."""
        arrays = {f"{part}_{name}": np.asarray(getattr(getattr(self.stack, part), name))
                  for part in ("embed", "combiner") for name in ("mean", "scale", "coef", "intercept")}

        def write(tmp: Path) -> None:
            with open(tmp, "wb") as fh:
                np.savez(fh, **arrays)

        atomic_write(folder / WEIGHTS_FILE, write)
        write_json(folder / CARD_FILE, self.card.to_json())

    @staticmethod
    def load(folder: Path) -> LearnedScopeModel:
        """ValueError naming the file when either part is missing or does not fit the other."""
        weights, card_path = folder / WEIGHTS_FILE, folder / CARD_FILE
        if not weights.is_file() or not card_path.is_file():
            raise ValueError(f"no learned scope model in {folder} (need {WEIGHTS_FILE} and {CARD_FILE})")
        try:
            card = ScopeModelCard.from_json(json.loads(card_path.read_text("utf-8")))
            with np.load(weights) as z:
                parts = [_Linear(z[f"{p}_mean"], z[f"{p}_scale"], z[f"{p}_coef"], float(z[f"{p}_intercept"]))
                         for p in ("embed", "combiner")]
        except (OSError, KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"unreadable learned scope model in {folder}: {exc}") from exc
        if card.version != MODEL_VERSION or len(parts[1].coef) != len(card.combiner_weights):
            raise ValueError(f"{card_path}: version {card.version!r} or combiner size does not fit "
                             f"(expected {MODEL_VERSION})")
        return LearnedScopeModel(_Stack(*parts), (card.platt[0], card.platt[1]), card.threshold, card)


def _rates(refused: np.ndarray, sources: Sequence[str], labels: np.ndarray) -> dict[str, SourceRates]:
    out: dict[str, SourceRates] = {}
    src = np.asarray(sources)
    for name in sorted(set(src)):
        mask = src == name
        out[name] = SourceRates(int(mask.sum()), round(float(refused[mask].mean()), 4), SOURCES[name],
                                bool(labels[mask][0]))
    return out


NO_EMBEDDING_NOTE = "no embedding model: the combiner reads corpus similarities and lexical rates (embed_logit is 0)"


def _no_embedding(dim: int) -> _Linear:
    """An embedding model that gives every view logit 0: the combiner's weight on it comes out 0."""
    return _Linear(np.zeros(dim), np.ones(dim), np.zeros(dim), 0.0)


def _fit_stack(features: Sequence[TextFeatures], idx: np.ndarray, y: np.ndarray, src: np.ndarray,
               regularization: float, use_embedding: bool = False) -> _Stack:
    """Embedding model on the mean views; combiner on each row's *out-of-source* embedding logit.

    Why grouped folds: the combiner must learn how far the embedding's verdict carries to a source it
    was not fitted on (style, not topic, is what an embedding fitted on few writers picks up), so the
    logit it sees for a row comes from a model that never saw that row's source. Without
    `use_embedding` (the default, module doc) no embedding model is fitted and every logit is 0.
    """
    vectors = np.asarray([features[i].views[0] for i in idx])
    labels, groups = y[idx], src[idx]
    oof = np.zeros(len(idx))
    if not use_embedding:
        rows = np.asarray([features[i].mean_row(0.0) for i in idx])
        return _Stack(_no_embedding(vectors.shape[1]), _fit_linear(rows, labels, groups, COMBINER_C))
    folds = GroupKFold(n_splits=min(INNER_FOLDS, len(set(groups))))
    for train, test in folds.split(vectors, labels, groups):
        if labels[train].all() or not labels[train].any():
            continue  # a fold holding every source of one class: its rows keep logit 0 (no verdict)
        oof[test] = _fit_linear(vectors[train], labels[train], groups[train], regularization).scores(vectors[test])
    embed = _fit_linear(vectors, labels, groups, regularization)
    rows = np.asarray([features[i].mean_row(oof[j]) for j, i in enumerate(idx)])
    return _Stack(embed, _fit_linear(rows, labels, groups, COMBINER_C))


def fit_learned_model(features: Sequence[TextFeatures], labels: Sequence[bool], sources: Sequence[str],
                      held_out: Sequence[bool], *, embedders: Sequence[str], collections: Sequence[str],
                      feature_names: Sequence[str],
                      regularization: float = 0.5,
                      use_embedding: bool = False,
                      progress: Callable[[str], None] | None = None) -> LearnedScopeModel:
    """Fit on the tuning half, calibrate and threshold on leave-one-source-out scores (module doc).

    `feature_names` names the combiner's inputs (embedding logit, corpus similarities, lexical);
    `use_embedding` fits the embedding model whose logit is the first of them (module doc: off)."""
    y = np.asarray(labels, dtype=bool)
    src = np.asarray(sources)
    hold = np.asarray(held_out, dtype=bool)
    tune_idx = np.flatnonzero(~hold)
    if not (y[tune_idx].any() and (~y[tune_idx]).any()):
        raise ValueError("the tuning half needs both in-scope and out-of-scope texts")
    loso = np.zeros(len(y))
    writers = np.asarray([family(s) for s in src])
    for name in sorted(set(writers[tune_idx])):
        # a source is left out with its twins (`training_data.FAMILIES`): one writer's other set in
        # the training rows would make the left-out source look seen
        test = tune_idx[writers[tune_idx] == name]
        train = tune_idx[writers[tune_idx] != name]
        if y[train].all() or not y[train].any():
            raise ValueError(f"leaving out {name!r} leaves one class only")
        stack = _fit_stack(features, train, y, src, regularization, use_embedding)
        loso[test] = [stack.text_score(features[i]) for i in test]
        if progress:
            progress(f"left out {', '.join(sorted(set(src[test])))}: {len(test)} texts scored")
    a, b = _fit_platt(loso[tune_idx], y[tune_idx])
    platt = (round(a, 6), round(b, 6))  # as the card stores them, so a loaded model decides the same
    p_loso = np.asarray([_sigmoid(platt[0] * v + platt[1]) for v in loso])
    in_cats = [SOURCES[s] if y[i] else "" for s, i in zip(src[tune_idx], tune_idx, strict=True)]
    threshold = round(choose_threshold(p_loso[tune_idx], in_cats), 6)
    final = _fit_stack(features, tune_idx, y, src, regularization, use_embedding)
    loso_rates = _rates(p_loso[tune_idx] < threshold, src[tune_idx], y[tune_idx])
    hold_idx = np.flatnonzero(hold)
    p_hold = np.asarray([_sigmoid(platt[0] * final.text_score(features[i]) + platt[1]) for i in hold_idx])
    hold_rates = _rates(p_hold < threshold, src[hold_idx], y[hold_idx]) if len(hold_idx) else {}
    names = list(feature_names)
    if len(names) != len(final.combiner.coef):
        raise ValueError(f"{len(names)} feature names for {len(final.combiner.coef)} combiner inputs")
    card = ScopeModelCard(
        MODEL_VERSION, list(embedders), list(collections), names, threshold, list(platt), regularization,
        {n: round(float(w), 4) for n, w in zip(names, final.combiner.coef, strict=True)},
        {name: int((src[tune_idx] == name).sum()) for name in sorted(set(src[tune_idx]))},
        loso_rates, hold_rates,
        notes=[] if use_embedding else [NO_EMBEDDING_NOTE])
    out_of_source = tuple(float(p_loso[i]) if not hold[i] else math.nan for i in range(len(y)))
    return LearnedScopeModel(final, platt, threshold, card, out_of_source)
