"""Reference BM25 backend on rank_bm25.BM25Okapi, with the same search contract as BM25Index.

Why keep a second, ~100x slower BM25: it is the baseline our bm25s index is benchmarked and
parity-tested against, and the selectable "reference" backend when a result looks suspicious.
It indexes the same pre-tokenized corpus (the Korean analyser's morphemes) and answers
`search(query_tokens, k) -> (rows, scores)` exactly like `yaksa.index.bm25.BM25Index`:
rows best first, ties by lower row, unknown and empty tokens ignored, rows scoring <= 0 dropped
(so "no query term matched" never appears as a hit, in either backend).

Known differences from `BM25Index.build(..., method="robertson")`, both kept on purpose because
they are what rank_bm25 does:
  * scores are BM25Okapi's, with the tf·(k1 + 1) numerator; bm25s robertson omits the constant
    (k1 + 1), so reference = ours·(k1 + 1) and the rankings agree;
  * a term in more than half the documents has a negative raw IDF: BM25Okapi replaces it with
    epsilon · mean IDF (> 0 while the mean is positive), bm25s robertson clamps it to 0. Such a
    term still matches here and matches nothing in bm25s robertson.

Usage:
    ref = ReferenceBM25.build([["약", "두통"], ["간", "수치"]], k1=1.5, b=0.75)
    rows, scores = ref.search(["간"], k=10)   # rows -> array([1])
"""

from __future__ import annotations

import numpy as np
from rank_bm25 import BM25Okapi

from yaksa.index.bm25 import _check_tokens


class ReferenceBM25:
    """BM25Okapi over the rows of one collection; row i is document i, empty documents included."""

    def __init__(self, model: BM25Okapi, k1: float, b: float, epsilon: float) -> None:
        self._model = model
        self._params = {"k1": k1, "b": b, "epsilon": epsilon, "method": "rank_bm25.BM25Okapi"}

    @property
    def num_docs(self) -> int:
        return int(self._model.corpus_size)

    @property
    def params(self) -> dict[str, object]:
        return dict(self._params)

    @classmethod
    def build(
        cls, corpus_tokens: list[list[str]], k1: float, b: float, epsilon: float = 0.25
    ) -> ReferenceBM25:
        """Index one token list per document (same validation as BM25Index.build)."""
        if not (k1 >= 0):
            raise ValueError(f"k1 must be >= 0, got {k1!r}")
        if not (0.0 <= b <= 1.0):
            raise ValueError(f"b must be in 0..1, got {b!r}")
        if not (epsilon >= 0):
            raise ValueError(f"epsilon must be >= 0, got {epsilon!r}")
        if not isinstance(corpus_tokens, (list, tuple)) or not corpus_tokens:
            raise ValueError("corpus_tokens is empty: need at least one document")
        docs = [_check_tokens(doc, f"document {i}") for i, doc in enumerate(corpus_tokens)]
        if not any(docs):
            # BM25Okapi would divide by a zero average document length
            raise ValueError(
                f"corpus_tokens: {len(docs)} documents and no tokens at all: is the tokenizer broken?"
            )
        return cls(BM25Okapi(docs, k1=k1, b=b, epsilon=epsilon), k1, b, epsilon)

    def search(self, query_tokens: list[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        """Row indices (int64) and scores (float32) of the k best rows scoring > 0, best first."""
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        toks = [t for t in _check_tokens(query_tokens, "query") if t in self._model.idf]
        if not toks:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
        scores = np.asarray(self._model.get_scores(toks), dtype=np.float32)
        rows = np.flatnonzero(scores > 0)
        rows = rows[np.lexsort((rows, -scores[rows]))][:k].astype(np.int64)
        return rows, scores[rows]
