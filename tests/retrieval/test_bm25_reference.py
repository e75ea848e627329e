from __future__ import annotations

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from yaksa.index.bm25 import BM25Index
from yaksa.retrieval.bm25_reference import ReferenceBM25

K1, B = 1.5, 0.75


def parity_corpus(n_docs: int = 30, n_terms: int = 40, seed: int = 11) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    terms = [f"t{i}" for i in range(n_terms - 5)] + ["약", "간", "위", "폐", "열"]
    docs = [list(rng.choice(terms, size=int(rng.integers(3, 12)), replace=True)) for _ in range(n_docs)]
    docs[5] = []  # an empty document keeps its row in both backends
    return docs


def test_agrees_with_bm25s_robertson_up_to_the_k1_plus_1_factor() -> None:
    corpus = parity_corpus()
    n = len(corpus)
    df = {t: sum(t in doc for doc in corpus) for doc in corpus for t in doc}
    assert max(df.values()) < n / 2, "precondition: no term in half the documents or more"
    ours = BM25Index.build(corpus, k1=K1, b=B, method="robertson")
    ref = ReferenceBM25.build(corpus, k1=K1, b=B)
    rng = np.random.default_rng(5)
    vocab = sorted(df)
    queries = [["약"], ["간", "위"], ["폐", "t3", "t10"], ["열", "없는단어"]] + [
        list(rng.choice(vocab, size=3, replace=False)) for _ in range(6)
    ]
    for q in queries:
        rows_o, scores_o = ours.search(q, k=n)
        rows_r, scores_r = ref.search(q, k=n)
        assert rows_r.size > 0, q
        np.testing.assert_array_equal(rows_o, rows_r, err_msg=str(q))  # same ranking
        np.testing.assert_allclose(scores_o * (K1 + 1), scores_r, atol=1e-4, err_msg=str(q))


def test_scores_are_rank_bm25s_own() -> None:
    corpus = parity_corpus()
    direct = BM25Okapi([d for d in corpus], k1=K1, b=B).get_scores(["간", "t7"])
    rows, scores = ReferenceBM25.build(corpus, k1=K1, b=B).search(["간", "t7"], k=3)
    assert rows.tolist() == np.argsort(-direct, kind="stable")[:3].tolist()
    np.testing.assert_allclose(scores, direct[rows], rtol=1e-6)


def test_idf_flooring_differs_for_terms_in_most_documents() -> None:
    # 약 is in 20 of 30 documents: raw IDF log((30-20+0.5)/(20+0.5)) < 0.
    corpus = [["약", f"t{i}"] if i < 20 else [f"t{i}"] for i in range(30)]
    rows, scores = ReferenceBM25.build(corpus, k1=K1, b=B).search(["약"], k=30)
    assert sorted(rows.tolist()) == list(range(20))  # BM25Okapi: epsilon · mean IDF, positive
    assert (scores > 0).all()
    rows, _ = BM25Index.build(corpus, k1=K1, b=B, method="robertson").search(["약"], k=30)
    assert rows.size == 0  # bm25s robertson: IDF clamped to 0, nothing scores
    # epsilon = 0 makes the reference clamp too, like bm25s
    rows, _ = ReferenceBM25.build(corpus, k1=K1, b=B, epsilon=0.0).search(["약"], k=30)
    assert rows.size == 0


def test_contract_matches_bm25index() -> None:
    corpus = [["a", "x"], ["b", "y"], ["a", "x"], ["c", "z"], [], ["d"], ["e"], ["f"]]
    ref = ReferenceBM25.build(corpus, k1=K1, b=B)
    assert ref.num_docs == 8
    rows, scores = ref.search(["a"], k=2)
    assert rows.tolist() == [0, 2] and scores[0] == scores[1]  # ties: lower row first
    assert rows.dtype == np.int64 and scores.dtype == np.float32
    for q in ([], [""], ["없는단어"]):
        rows, scores = ref.search(q, k=5)
        assert rows.shape == (0,) and scores.shape == (0,)
    rows, _ = ref.search(["b", "c", "없는단어"], k=10)
    assert sorted(rows.tolist()) == [1, 3]


def test_bad_input_is_refused() -> None:
    ref = ReferenceBM25.build([["a"], ["b"]], k1=K1, b=B)
    with pytest.raises(ValueError, match="k must be"):
        ref.search(["a"], k=0)
    with pytest.raises(TypeError, match="strings"):
        ref.search(["a", 1], k=1)  # type: ignore[list-item]
    with pytest.raises(ValueError, match="corpus_tokens"):
        ReferenceBM25.build([], k1=K1, b=B)
    with pytest.raises(ValueError, match="no tokens"):
        ReferenceBM25.build([[], []], k1=K1, b=B)
    with pytest.raises(ValueError, match="b must"):
        ReferenceBM25.build([["a"]], k1=K1, b=2.0)
    with pytest.raises(ValueError, match="k1 must"):
        ReferenceBM25.build([["a"]], k1=-1.0, b=B)
