from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from yaksa.index.bm25 import BM25Index

CORPUS = [
    ["타이레놀", "효능", "두통", "약"],
    ["간", "손상", "음주", "주의"],
    ["약", "약", "복용", "시간"],
    [],
    ["위", "열", "폐", "간"],
]


def build(corpus=CORPUS, method: str = "lucene") -> BM25Index:
    return BM25Index.build(corpus, k1=1.5, b=0.75, method=method)


def test_one_character_tokens_are_indexed_and_found() -> None:
    idx = build()
    for tok, expected in (("간", {1, 4}), ("위", {4}), ("열", {4}), ("폐", {4})):
        rows, scores = idx.search([tok], k=10)
        assert set(rows.tolist()) == expected, tok
        assert (scores > 0).all()
    rows, _ = idx.search(["약"], k=10)
    assert rows.tolist() == [2, 0]  # tf 2 beats tf 1 at equal length


def test_obvious_document_ranks_first_and_scores_descend() -> None:
    rows, scores = build().search(["타이레놀", "두통"], k=3)
    assert rows[0] == 0
    assert np.all(np.diff(scores) <= 0)


def test_unknown_tokens_are_ignored() -> None:
    idx = build()
    a = idx.search(["간", "없는단어", "zzz"], k=5)
    b = idx.search(["간"], k=5)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_allclose(a[1], b[1])


@pytest.mark.parametrize("query", [[], ["없는단어"], [""]])
def test_empty_or_unknown_query_returns_empty_arrays(query: list[str]) -> None:
    rows, scores = build().search(query, k=5)
    assert rows.shape == (0,) and scores.shape == (0,)
    assert rows.dtype == np.int64


def test_empty_document_keeps_its_row() -> None:
    idx = build()
    assert idx.num_docs == len(CORPUS)
    rows, _ = idx.search(["위"], k=5)
    assert rows.tolist() == [4]  # would be 3 if the empty document had been skipped


def test_k_larger_than_corpus_and_truncation() -> None:
    idx = build()
    rows, _ = idx.search(["간", "약"], k=1000)
    assert sorted(rows.tolist()) == [0, 1, 2, 4]
    rows1, _ = idx.search(["간", "약"], k=1)
    assert rows1.tolist() == rows[:1].tolist()


def test_ties_break_by_row() -> None:
    idx = build([["a", "x"], ["b", "y"], ["a", "x"], ["a", "x"], ["c", "z"]])
    rows, scores = idx.search(["a"], k=2)
    assert rows.tolist() == [0, 2]
    assert scores[0] == scores[1]


def test_bad_input_is_rejected_clearly() -> None:
    idx = build()
    with pytest.raises(ValueError, match="k must be"):
        idx.search(["간"], k=0)
    with pytest.raises(TypeError, match="strings"):
        idx.search(["간", 3], k=1)  # type: ignore[list-item]
    with pytest.raises(ValueError, match="empty"):
        BM25Index.build([], 1.5, 0.75, "lucene")
    with pytest.raises(ValueError, match="no tokens"):
        BM25Index.build([[], []], 1.5, 0.75, "lucene")
    with pytest.raises(ValueError, match="method"):
        BM25Index.build(CORPUS, 1.5, 0.75, "bm25+")
    with pytest.raises(TypeError, match="document 1"):
        BM25Index.build([["a"], "a b"], 1.5, 0.75, "lucene")  # type: ignore[list-item]


def test_save_and_mmap_load_give_identical_results(tmp_path: Path) -> None:
    idx = build()
    idx.save(tmp_path / "bm25")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    loaded = BM25Index.load(tmp_path / "bm25", mmap=True)
    assert loaded.num_docs == idx.num_docs and loaded.params == idx.params
    for q in (["간"], ["약", "두통"], ["폐", "열", "없음"]):
        a, b = idx.search(q, 10), loaded.search(q, 10)
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_allclose(a[1], b[1])
    with pytest.raises(FileExistsError):
        idx.save(tmp_path / "bm25")
    (tmp_path / "bm25" / "vocab.index.json").unlink()
    with pytest.raises(FileNotFoundError, match="vocab.index.json"):
        BM25Index.load(tmp_path / "bm25")


# --- parity with rank-bm25 -------------------------------------------------------------------------
# bm25s "robertson" and rank_bm25.BM25Okapi share the IDF log((N - df + 0.5) / (df + 0.5)) and the
# length normalisation, with two known differences:
#   * bm25s' term-frequency part is tf / (tf + k1·norm), BM25Okapi's is tf·(k1 + 1) / (tf + k1·norm):
#     scores differ by the constant factor (k1 + 1), so rankings are identical;
#   * for a term in more than half of the documents the IDF is negative: bm25s clamps it to 0,
#     BM25Okapi replaces it with epsilon · mean IDF (> 0).
# The parity corpus keeps every term in fewer than half the documents, where the variants coincide.

K1, B = 1.5, 0.75


def parity_corpus(n_docs: int = 30, n_terms: int = 40, seed: int = 7) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    terms = [f"t{i}" for i in range(n_terms - 5)] + ["약", "간", "위", "폐", "열"]
    return [list(rng.choice(terms, size=int(rng.integers(3, 12)), replace=True)) for _ in range(n_docs)]


def test_scores_and_order_agree_with_rank_bm25() -> None:
    corpus = parity_corpus()
    n = len(corpus)
    df = {t: sum(t in doc for doc in corpus) for doc in corpus for t in doc}
    assert max(df.values()) < n / 2, "precondition: no term in half the documents or more"

    ours = BM25Index.build(corpus, k1=K1, b=B, method="robertson")
    ref = BM25Okapi(corpus, k1=K1, b=B)
    rng = np.random.default_rng(3)
    vocab = sorted(df)
    queries = [["약"], ["간", "위"], ["폐", "t3", "t10"]] + [
        list(rng.choice(vocab, size=3, replace=False)) for _ in range(5)
    ]
    for q in queries:
        rows, scores = ours.search(q, k=n)
        ref_scores = ref.get_scores(q)
        assert set(rows.tolist()) == set(np.flatnonzero(ref_scores > 0).tolist()), q
        np.testing.assert_allclose(scores * (K1 + 1), ref_scores[rows], atol=1e-4, err_msg=str(q))
        # same order: the reference scores along our ranking never increase
        assert np.all(np.diff(ref_scores[rows]) <= 1e-4), q


def test_documented_difference_for_very_common_terms() -> None:
    corpus = [["약", f"t{i}"] if i < 20 else [f"t{i}"] for i in range(30)]  # 약 in 20 of 30 docs
    ref = BM25Okapi(corpus, k1=K1, b=B).get_scores(["약"])
    assert (ref[:20] > 0).all()  # rank-bm25: epsilon-floored IDF, still positive
    rows, _ = BM25Index.build(corpus, k1=K1, b=B, method="robertson").search(["약"], k=30)
    assert rows.size == 0  # bm25s robertson: IDF clamped to 0, nothing scores
    rows, _ = BM25Index.build(corpus, k1=K1, b=B, method="lucene").search(["약"], k=30)
    assert sorted(rows.tolist()) == list(range(20))  # lucene's IDF is always positive
