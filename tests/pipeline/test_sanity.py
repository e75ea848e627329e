"""The publish sanity check passes a good bundle and rejects a tokenizer or embedder mix-up."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from yaksa.config import load_settings
from yaksa.pipeline.sanity import SanityError, check_bundle
from yaksa.retrieval.loader import LoadedBundle, load_published


@pytest.fixture()
def loaded(tiny_project: Path) -> LoadedBundle:
    lb = load_published(load_settings(tiny_project / "params.yaml").paths.indexes)
    yield lb
    lb.close()


def test_good_bundle_passes(loaded: LoadedBundle) -> None:
    check_bundle(loaded.bundle, loaded.tokenizer, loaded.embedders)


class _WrongTokens:
    """Tokenizes into terms the index has never seen: what a different analyser build looks like."""

    def tokenize(self, text: str) -> list[str]:
        return [f"zz{len(w)}qq" for w in text.split()]


class _RotatedEmbedder:
    """Returns vectors in another basis: what vectors from a different model (or misaligned rows) look like."""

    def __init__(self, inner: object, dim: int) -> None:
        self.inner = inner
        self.perm = np.random.default_rng(0).permutation(dim)

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)[self.perm]


def test_wrong_tokenizer_is_rejected(loaded: LoadedBundle) -> None:
    with pytest.raises(SanityError, match="BM25 does not find"):
        check_bundle(loaded.bundle, _WrongTokens(), loaded.embedders)


def test_wrong_embedder_is_rejected(loaded: LoadedBundle) -> None:
    wrong = {n: _RotatedEmbedder(e, e.dim) for n, e in loaded.embedders.items()}
    with pytest.raises(SanityError, match="FAISS does not find"):
        check_bundle(loaded.bundle, loaded.tokenizer, wrong)
