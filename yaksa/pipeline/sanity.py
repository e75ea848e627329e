"""The sanity query a bundle must pass before `indexes/CURRENT` may point at it.

A bundle that loads but cannot find its own documents (a tokenizer/embedder mix-up, vectors in the
wrong order, an empty vocabulary) would otherwise be published and serve nonsense.
"""

from __future__ import annotations

from collections.abc import Mapping

from yaksa.embed.base import Embedder
from yaksa.index.reader import Bundle
from yaksa.text.tokenizer import Tokenizer

PROBE_CHARS = 300
TOP_K = 10


class SanityError(RuntimeError):
    pass


def _found(rows: list[int], scores: list[float], row: int) -> bool:
    if row in rows[:TOP_K]:
        return True
    # templated notes can tie with their own copy: accept a score within 10% of the best
    return bool(scores) and row in rows and scores[rows.index(row)] >= 0.9 * scores[0]


def check_bundle(bundle: Bundle, tokenizer: Tokenizer, embedders: Mapping[str, Embedder]) -> None:
    """For each collection, its first, middle and last documents must be found by BM25 and by FAISS."""
    for name, col in bundle.collections.items():
        if col.count == 0:
            raise SanityError(f"collection '{name}' is empty")
        for row in sorted({0, col.count // 2, col.count - 1}):
            doc = col.documents([row])[0]
            probe = doc.index_text[:PROBE_CHARS]
            rows, scores = col.bm25_search(tokenizer.tokenize(probe), 50)
            if not _found(list(map(int, rows)), list(map(float, scores)), row):
                raise SanityError(f"{name}: BM25 does not find {doc.doc_id} from its own text")
            rows, scores = col.dense_search(embedders[name].embed_query(probe), 50)
            if not _found(list(map(int, rows)), list(map(float, scores)), row):
                raise SanityError(f"{name}: FAISS does not find {doc.doc_id} from its own text")
