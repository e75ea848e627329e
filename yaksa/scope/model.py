"""The scope model: a small logistic combiner of the signals, and its blocking threshold.

Why logistic regression over a handful of signals: it is fitted in milliseconds at server start from
the committed exemplars (deterministic: lbfgs on standardised features, fixed folds), its weights
can be read (`weights()`), and applying it is a dot product, so `decide` stays thread-safe and
well under a millisecond. The threshold on P(in scope) is chosen on *out-of-fold* probabilities of
the tuning half (5 folds), not on the in-sample ones, which would be optimistic: at most
`max_false_block` of the in-scope tuning questions blocked, then the highest block rate
(`threshold.calibrate_threshold`).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold

from yaksa.scope.threshold import CalibrationResult, calibrate_threshold

_T = TypeVar("_T")

FOLDS = 5


def _folds(y: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    return list(StratifiedKFold(n_splits=FOLDS, shuffle=True, random_state=0).split(np.zeros(len(y)), y))


@dataclass(frozen=True)
class EmbeddingDirection:
    """A linear in-vs-out direction in the query-embedding space (logistic regression on the vectors).

    Why next to the kNN means: e5 packs short questions into a narrow cosine band, where the mean of
    the nearest neighbours separates poorly; a learned direction uses every dimension. Its logit is
    one more signal for the combiner, which sees out-of-fold logits for the tuning rows (a row's own
    label never shaped the direction it is scored with).
    """

    weights: np.ndarray  # (dim,)
    bias: float

    def logit(self, vector: np.ndarray) -> float:
        return float(vector @ self.weights) + self.bias


# Fits already made in this process, by a digest of their inputs. Why: a server hot-swapping to
# another bundle version (a publish, a rollback) builds a new scope stage whose inputs are usually
# identical (same exemplars, tokenizer and embedder); refitting costs seconds of L-BFGS, a lookup
# nothing. Keyed by content, so a bundle whose features differ fits afresh. Bounded: few versions live.
_FITS: OrderedDict[str, Any] = OrderedDict()
_FITS_KEPT = 8
_FITS_LOCK = threading.Lock()


def _memo(fit: Callable[[], _T], *inputs: Any) -> _T:
    digest = hashlib.sha256()
    for item in inputs:
        arr = np.ascontiguousarray(item) if isinstance(item, np.ndarray) else np.asarray(repr(item))
        digest.update(f"{arr.dtype}{arr.shape}".encode())
        digest.update(arr.tobytes())
    key = digest.hexdigest()
    with _FITS_LOCK:
        if key in _FITS:
            _FITS.move_to_end(key)
            return _FITS[key]
    result = fit()
    with _FITS_LOCK:
        _FITS[key] = result
        while len(_FITS) > _FITS_KEPT:
            _FITS.popitem(last=False)
    return result


def fit_embedding_direction(vectors: np.ndarray, in_scope: np.ndarray,
                            regularization: float) -> tuple[EmbeddingDirection, np.ndarray]:
    """The direction fitted on all rows, and each row's out-of-fold logit (memoised by content)."""
    vectors, in_scope = np.asarray(vectors), np.asarray(in_scope, dtype=bool)
    return _memo(lambda: _fit_embedding_direction(vectors, in_scope, regularization),
                 "direction", vectors, in_scope, regularization)


def _fit_embedding_direction(vectors: np.ndarray, in_scope: np.ndarray,
                             regularization: float) -> tuple[EmbeddingDirection, np.ndarray]:
    y = np.asarray(in_scope, dtype=bool)

    def fit(rows: np.ndarray) -> LogisticRegression:
        return LogisticRegression(C=regularization, class_weight="balanced", max_iter=2000).fit(vectors[rows], y[rows])

    oof = np.zeros(len(y))
    for train, test in _folds(y):
        oof[test] = fit(train).decision_function(vectors[test])
    clf = fit(np.arange(len(y)))
    weights = clf.coef_[0].astype(np.float32)
    weights.setflags(write=False)
    oof.setflags(write=False)  # shared by every stage that gets this fit from the memo
    return EmbeddingDirection(weights, float(clf.intercept_[0])), oof


@dataclass(frozen=True)
class ScopeModel:
    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    threshold: float           # blocked when P(in scope) < threshold
    tuning: CalibrationResult  # out-of-fold rates on the tuning half at that threshold

    def contributions(self, row: Sequence[float]) -> np.ndarray:
        """Each feature's term of the logit (positive: towards in scope)."""
        return self.coef * ((np.asarray(row, dtype=np.float64) - self.mean) / self.scale)

    def probability(self, row: Sequence[float]) -> float:
        """P(in scope) of one feature row."""
        logit = float(self.contributions(row).sum()) + self.intercept
        return float(1.0 / (1.0 + np.exp(-logit)))

    def weights(self) -> dict[str, float]:
        return {name: round(float(w), 4) for name, w in zip(self.features, self.coef, strict=True)}


def _fit(x: np.ndarray, y: np.ndarray, c: float) -> tuple[np.ndarray, np.ndarray, LogisticRegression]:
    mean = x.mean(axis=0)
    scale = np.where(x.std(axis=0) > 0, x.std(axis=0), 1.0)
    clf = LogisticRegression(C=c, class_weight="balanced", max_iter=1000).fit((x - mean) / scale, y)
    return mean, scale, clf


def fit_scope_model(features: Sequence[str], x: np.ndarray, in_scope: np.ndarray, max_false_block: float,
                    regularization: float) -> ScopeModel:
    """Fit on the tuning rows `x` (labels `in_scope`); the threshold from out-of-fold probabilities
    (memoised by content, see `_FITS`)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(in_scope, dtype=bool)
    if x.shape != (len(y), len(features)) or y.all() or not y.any():
        raise ValueError(f"need rows of {len(features)} features with both labels, got {x.shape} and "
                         f"{int(y.sum())} in-scope of {len(y)}")
    return _memo(lambda: _fit_scope_model(tuple(features), x, y, max_false_block, regularization),
                 "scope", tuple(features), x, y, max_false_block, regularization)


def _fit_scope_model(features: tuple[str, ...], x: np.ndarray, y: np.ndarray, max_false_block: float,
                     regularization: float) -> ScopeModel:
    oof = np.zeros(len(y))
    for train, test in _folds(y):
        mean, scale, clf = _fit(x[train], y[train], regularization)
        oof[test] = clf.predict_proba((x[test] - mean) / scale)[:, 1]
    calibration = calibrate_threshold(oof[y].tolist(), oof[~y].tolist(), max_false_block=max_false_block)
    mean, scale, clf = _fit(x, y, regularization)
    return ScopeModel(tuple(features), mean, scale, clf.coef_[0].astype(np.float64), float(clf.intercept_[0]),
                      calibration.threshold, calibration)
