"""BM25 over pre-tokenized documents, backed by bm25s.

Tokens arrive already analysed by the Korean tokenizer (Kiwi/MeCab morphemes). bm25s' own regex
splitter drops one-character tokens, and in Korean those carry meaning (약 drug, 간 liver, 위
stomach, 폐 lung, 열 fever), so we never let bm25s tokenize: we build the vocabulary ourselves, pass
token ids to `bm25s.BM25.index`, and map query tokens through the same vocabulary.

Row i of the index is document i of the collection, including documents with no tokens, so BM25
rows, FAISS rows and docstore rows always line up.

Usage:
    idx = BM25Index.build([["약", "두통"], ["간", "수치"]], k1=1.5, b=0.75, method="lucene")
    rows, scores = idx.search(["약"], k=10)   # rows -> array([0]); one score, > 0
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import bm25s
import numpy as np
from bm25s.tokenization import Tokenized

from yaksa.atomicio import fsync_dir, fsync_tree

# bm25l / bm25+ add a non-occurrence score to every document, so "no query term" no longer means
# score 0 and we could not drop unmatched rows; they are not offered.
METHODS: tuple[str, ...] = ("robertson", "lucene", "atire")
_REQUIRED_FILES = ("params.index.json", "vocab.index.json", "data.csc.index.npy",
                   "indices.csc.index.npy", "indptr.csc.index.npy")


def _check_tokens(tokens: object, where: str) -> list[str]:
    if not isinstance(tokens, (list, tuple)):
        raise TypeError(f"{where}: expected a list of string tokens, got {type(tokens).__name__}")
    bad = [t for t in tokens if not isinstance(t, str)]
    if bad:
        raise TypeError(f"{where}: tokens must be strings, got {type(bad[0]).__name__} {bad[0]!r}")
    # An empty string is a tokenizer artefact, not a term; dropping it on both sides keeps them equal.
    return [t for t in tokens if t]


class BM25Index:
    """A bm25s index plus the token→id vocabulary that makes its queries line up with its rows."""

    def __init__(self, model: bm25s.BM25) -> None:
        self._model = model
        self._vocab: dict[str, int] = model.vocab_dict

    @property
    def num_docs(self) -> int:
        return int(self._model.scores["num_docs"])

    @property
    def vocab_size(self) -> int:
        return len(self._vocab)

    @property
    def params(self) -> dict[str, object]:
        return {"k1": self._model.k1, "b": self._model.b, "method": self._model.method}

    @classmethod
    def build(cls, corpus_tokens: list[list[str]], k1: float, b: float, method: str) -> BM25Index:
        """Index one token list per document; empty lists keep their row and simply never match."""
        if method not in METHODS:
            raise ValueError(f"unknown BM25 method {method!r}; expected one of {METHODS}")
        if not (k1 >= 0) or not (0.0 <= b <= 1.0):
            raise ValueError(f"BM25 parameters out of range: k1={k1} (>= 0), b={b} (0..1)")
        if not isinstance(corpus_tokens, (list, tuple)) or not corpus_tokens:
            raise ValueError("BM25 corpus is empty: need at least one document")
        vocab: dict[str, int] = {}
        ids: list[list[int]] = []
        for i, doc in enumerate(corpus_tokens):
            toks = _check_tokens(doc, f"document {i}")
            ids.append([vocab.setdefault(t, len(vocab)) for t in toks])
        if not vocab:
            raise ValueError(
                f"BM25 corpus of {len(ids)} documents has no tokens at all: is the tokenizer broken?"
            )
        model = bm25s.BM25(k1=k1, b=b, method=method)
        # create_empty_token=False: bm25s would append "" past the end of its score matrix.
        model.index(Tokenized(ids=ids, vocab=vocab), create_empty_token=False, show_progress=False)
        return cls(model)

    def save(self, directory: Path) -> None:
        """Write bm25s' plain .npy/.json files into a new directory (temp dir, then rename)."""
        directory = Path(directory)
        if directory.exists():
            raise FileExistsError(f"{directory}: refusing to overwrite an existing BM25 index")
        tmp = directory.with_name(f".{directory.name}.tmp-{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            self._model.save(tmp, show_progress=False)
            fsync_tree(tmp)
            os.rename(tmp, directory)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        fsync_dir(directory.parent)

    @classmethod
    def load(cls, directory: Path, mmap: bool = True) -> BM25Index:
        """Open a saved index; with mmap the score matrix stays on disk and is shared by processes."""
        directory = Path(directory)
        missing = [n for n in _REQUIRED_FILES if not (directory / n).is_file()]
        if missing:
            raise FileNotFoundError(f"{directory}: BM25 index incomplete, missing {', '.join(missing)}")
        model = bm25s.BM25.load(directory, mmap=mmap)
        if model.method not in METHODS:
            raise ValueError(f"{directory}: unsupported BM25 method {model.method!r}")
        return cls(model)

    def search(self, query_tokens: list[str], k: int) -> tuple[np.ndarray, np.ndarray]:
        """Row indices and scores of the k best documents, best first (ties: lower row first).

        Unknown query tokens are ignored, and rows scoring <= 0 (no query term, or only terms with
        zero IDF) are dropped, so an empty or all-unknown query returns two empty arrays.
        """
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        toks = _check_tokens(query_tokens, "query")
        ids = [self._vocab[t] for t in toks if t in self._vocab]
        if not ids:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
        scores = np.asarray(self._model.get_scores_from_ids(ids), dtype=np.float32)
        rows = np.flatnonzero(scores > 0)
        if rows.size > k:
            # keep everything tied with the k-th score so the tie-break below stays deterministic
            kth = -np.partition(-scores[rows], k - 1)[k - 1]
            rows = rows[scores[rows] >= kth]
        rows = rows[np.lexsort((rows, -scores[rows]))][:k].astype(np.int64)
        return rows, scores[rows]
