from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from yaksa.index.dense import (
    build_dense_index,
    load_dense_index,
    save_dense_index,
    search_dense,
    search_dense_many,
)


def random_vectors(n: int, dim: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)


def brute_force(vectors: np.ndarray, q: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    v = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    sims = v @ (q / np.linalg.norm(q))
    order = np.argsort(-sims, kind="stable")[:k]
    return order, sims[order]


def test_flat_matches_brute_force_cosine() -> None:
    vectors = random_vectors(200, 16)
    index = build_dense_index(vectors, kind="flat")
    for q in random_vectors(5, 16, seed=1):
        rows, scores = search_dense(index, q, k=10)
        exp_rows, exp_scores = brute_force(vectors, q, 10)
        np.testing.assert_array_equal(rows, exp_rows)
        np.testing.assert_allclose(scores, exp_scores, atol=1e-5)


def test_scaling_vectors_does_not_change_results() -> None:
    vectors = random_vectors(50, 8)
    scaled = vectors * np.linspace(0.1, 10, 50, dtype=np.float32)[:, None]
    q = random_vectors(1, 8, seed=2)[0]
    a = search_dense(build_dense_index(vectors), q, 5)
    b = search_dense(build_dense_index(scaled), q * 3, 5)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_allclose(a[1], b[1], atol=1e-5)
    assert np.all(a[1] <= 1.0 + 1e-5)


def test_hnsw_finds_the_true_nearest_neighbour() -> None:
    vectors = random_vectors(300, 16, seed=4)
    index = build_dense_index(vectors, kind="hnsw", hnsw_m=16, ef_search=64)
    assert index.hnsw.efSearch == 64
    rng = np.random.default_rng(5)
    for i in (0, 17, 150, 299):
        q = vectors[i] + 0.01 * rng.standard_normal(16).astype(np.float32)
        exp_rows, _ = brute_force(vectors, q, 1)
        rows, _ = search_dense(index, q, k=5)
        assert rows[0] == exp_rows[0] == i


def test_k_above_count_drops_padding() -> None:
    index = build_dense_index(random_vectors(4, 8))
    rows, scores = search_dense(index, random_vectors(1, 8, seed=9), k=50)
    assert sorted(rows.tolist()) == [0, 1, 2, 3]
    assert scores.shape == (4,)


def test_many_queries_at_once_find_what_each_finds_alone() -> None:
    vectors = random_vectors(200, 16)
    index = build_dense_index(vectors, kind="flat")
    queries = random_vectors(70, 16, seed=3)           # past FAISS's switch to a matrix product (20)
    rows, scores = search_dense_many(index, queries * 5, k=5)
    assert rows.shape == scores.shape == (70, 5)
    for q, r, sc in zip(queries, rows, scores, strict=True):
        one_rows, one_scores = search_dense(index, q, 5)
        np.testing.assert_array_equal(r, one_rows)
        np.testing.assert_allclose(sc, one_scores, atol=1e-5)


def test_many_queries_mark_padding_and_refuse_bad_shapes() -> None:
    index = build_dense_index(random_vectors(3, 8))
    rows, scores = search_dense_many(index, random_vectors(2, 8, seed=9), k=50)
    assert rows.shape == (2, 3) and (rows >= 0).all() and np.isfinite(scores).all()   # k cut to the count
    hnsw = build_dense_index(random_vectors(3, 8), kind="hnsw", hnsw_m=4, ef_search=1)
    rows, scores = search_dense_many(hnsw, random_vectors(2, 8, seed=9), k=3)
    assert ((rows == -1) == np.isneginf(scores)).all()
    with pytest.raises(ValueError, match="shape"):
        search_dense_many(index, random_vectors(2, 4), k=1)
    with pytest.raises(ValueError, match="positive"):
        search_dense_many(index, random_vectors(2, 8), k=0)


@pytest.mark.parametrize(
    ("vectors", "match"),
    [
        (np.ones(8, dtype=np.float32), "2-D"),
        (np.zeros((0, 8), dtype=np.float32), "empty"),
        (np.array([[1.0, np.nan], [1.0, 0.0]]), "NaN"),
        (np.array([[1.0, 0.0], [0.0, 0.0]]), "all zeros"),
        (np.array([["a", "b"]]), "float32"),
    ],
)
def test_bad_vectors_are_rejected(vectors: np.ndarray, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        build_dense_index(vectors)


def test_bad_queries_and_kinds_are_rejected() -> None:
    index = build_dense_index(random_vectors(10, 8))
    with pytest.raises(ValueError, match="dimension"):
        search_dense(index, np.ones(7, dtype=np.float32), 3)
    with pytest.raises(ValueError, match="k must be"):
        search_dense(index, np.ones(8, dtype=np.float32), 0)
    with pytest.raises(ValueError, match="one vector"):
        search_dense(index, np.ones((2, 8), dtype=np.float32), 3)
    with pytest.raises(ValueError, match="kind"):
        build_dense_index(random_vectors(10, 8), kind="ivf")


@pytest.mark.parametrize("kind", ["flat", "hnsw"])
@pytest.mark.parametrize("mmap", [True, False])
def test_save_load_round_trip(tmp_path: Path, kind: str, mmap: bool) -> None:
    vectors = random_vectors(100, 8)
    index = build_dense_index(vectors, kind=kind, hnsw_m=8, ef_search=40)
    path = tmp_path / "dense.faiss"
    save_dense_index(index, path)
    assert [p.name for p in tmp_path.iterdir()] == ["dense.faiss"]  # no temp file left behind
    loaded = load_dense_index(path, mmap=mmap)
    assert loaded.ntotal == 100 and loaded.d == 8
    q = random_vectors(1, 8, seed=3)[0]
    a, b = search_dense(index, q, 5), search_dense(loaded, q, 5)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_allclose(a[1], b[1])
    if kind == "hnsw":
        assert loaded.hnsw.efSearch == 40


def test_load_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="nope.faiss"):
        load_dense_index(tmp_path / "nope.faiss")
