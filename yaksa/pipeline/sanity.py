"""The sanity query a bundle must pass before `indexes/CURRENT` may point at it.

A bundle that loads but cannot find its own documents (a tokenizer/embedder mix-up, vectors in the
wrong order, an empty vocabulary) would otherwise be published and serve nonsense. Synthea notes are
near-identical templates, so "found" tolerates ties with look-alike documents but not a wrong row.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from yaksa.embed.base import Embedder
from yaksa.index.reader import Bundle, CollectionIndex
from yaksa.text.tokenizer import Tokenizer

PROBE_CHARS = 2000
TOP_K = 10
BM25_TIE = 0.98      # a look-alike may score the same as the probe document itself
DENSE_TIE = 0.02     # cosine slack for look-alikes and query/passage prefixes (e5)


class SanityError(RuntimeError):
    pass


def _bm25_finds(col: CollectionIndex, tokens: list[str], row: int) -> bool:
    rows, scores = col.bm25_search(tokens, 100)
    rows_l = [int(r) for r in rows]
    if row in rows_l[:TOP_K]:
        return True
    return row in rows_l and float(scores[rows_l.index(row)]) >= BM25_TIE * float(scores[0])


def _dense_finds(col: CollectionIndex, qvec: np.ndarray, row: int) -> bool:
    rows, scores = col.dense_search(qvec, TOP_K)
    if row in {int(r) for r in rows}:
        return True
    own = float(np.dot(qvec, col.dense.reconstruct(row)))
    return len(scores) > 0 and own >= float(scores[0]) - DENSE_TIE


def check_bundle(bundle: Bundle, tokenizer: Tokenizer, embedders: Mapping[str, Embedder]) -> None:
    """For each collection, its first, middle and last documents must be found by BM25 and by FAISS."""
    for name, col in bundle.collections.items():
        if col.count == 0:
            raise SanityError(f"collection '{name}' is empty")
        for row in sorted({0, col.count // 2, col.count - 1}):
            doc = col.documents([row])[0]
            probe = doc.index_text[:PROBE_CHARS]
            if not _bm25_finds(col, tokenizer.tokenize(probe), row):
                raise SanityError(f"{name}: BM25 does not find {doc.doc_id} from its own text")
            if not _dense_finds(col, embedders[name].embed_query(probe), row):
                raise SanityError(f"{name}: FAISS does not find {doc.doc_id} from its own text")
