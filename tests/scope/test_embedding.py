"""Query vectors of scope windows and exemplars through the embedding cache (`yaksa.scope.embedding`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from yaksa.embed.cache import EmbeddingCache
from yaksa.scope import embedding
from yaksa.scope.embedding import QUERY_SUFFIX, cached_query_vectors, exemplar_vectors, text_hash


class CountingEmbedder:
    """A deterministic 4-d embedder that counts the texts it was asked to embed."""

    id = "counting:v1"
    dim = 4

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        self.embedded.extend(texts)
        out = np.array([[len(t), t.count("a") + 1, 1.0, float(sum(map(ord, t)) % 7)] for t in texts], dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_queries([text])[0]


def test_new_texts_are_embedded_once_and_written_in_few_flushes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedding, "BATCH", 3)
    monkeypatch.setattr(embedding, "FLUSH_TEXTS", 6)
    writes: list[int] = []
    real_put = EmbeddingCache.put_many

    def counting_put(self: EmbeddingCache, embedder_id: str, hashes, vectors) -> None:
        writes.append(len(hashes))
        real_put(self, embedder_id, hashes, vectors)

    monkeypatch.setattr(EmbeddingCache, "put_many", counting_put)
    embedder = CountingEmbedder()
    texts = [f"window {i} {'a' * i}" for i in range(14)] + ["window 0 "]   # one repeated
    first = cached_query_vectors(embedder, texts, tmp_path)
    assert len(embedder.embedded) == 14 and set(first) == set(texts)
    assert writes == [6, 6, 2]                      # every FLUSH_TEXTS and the rest at the end, not every batch
    again = CountingEmbedder()
    second = cached_query_vectors(again, texts, tmp_path)   # all read back from the cache
    assert again.embedded == []
    for t in texts:
        np.testing.assert_array_equal(first[t], second[t])
    stored = EmbeddingCache(tmp_path).get_many(embedder.id + QUERY_SUFFIX, [text_hash(texts[3])])
    np.testing.assert_array_equal(stored[text_hash(texts[3])], first[texts[3]])


def test_without_a_cache_nothing_is_written_and_order_is_kept(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    vectors = exemplar_vectors(embedder, ["b", "aa", "b"], None)
    assert vectors.shape == (3, 4) and embedder.embedded == ["b", "aa"]
    np.testing.assert_array_equal(vectors[0], vectors[2])
    assert not list(tmp_path.iterdir())
