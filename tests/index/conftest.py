"""Fixtures for the index tests: hand-made documents, whitespace tokens and small random vectors.

Nothing here uses the real tokenizer or embedders, so these tests pin the bundle format alone.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from yaksa.config import IndexParams
from yaksa.corpus.document import Document
from yaksa.index.bundle import CollectionInput, write_bundle

DIM = 8

DRUG_TEXTS = [
    ("타이레놀정", "효능", "두통 치통 생리통 해열 약"),
    ("타이레놀정", "부작용", "간 손상 위험 음주 주의 약"),
    ("게보린정", "효능", "두통 발열 진통 약"),
    ("훼스탈플러스정", "효능", "소화불량 위 더부룩함"),
    ("판콜에이", "주의", "졸음 운전 주의 감기"),
    ("베아제정", "용법", "식후 복용 소화"),
]


def make_doc(i: int, collection: str = "drugs", title: str = "", section: str = "", text: str = "",
             metadata: dict | None = None) -> Document:
    return Document(
        doc_id=f"{collection}-{i:04d}", collection=collection, source="test", title=title,
        section=section, text=text, lang="ko", metadata=metadata or {"row": i},
    )


def unit_vectors(n: int, dim: int = DIM, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = rng.standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def embedder_identity(dim: int = DIM, id_: str = "test-embedder@1") -> dict:
    return {"id": id_, "backend": "random", "model": "none", "dim": dim}


def tokenizer_identity(version: str = "0.24.1") -> dict:
    return {"name": "kiwipiepy", "version": version, "pos_filter": ["NNG", "NNP", "SL"],
            "userdict_hash": "abc123"}


def drug_collection(seed: int = 0) -> CollectionInput:
    docs = [make_doc(i, "drugs", t, s, x, {"item_seq": str(100 + i), "이름": t})
            for i, (t, s, x) in enumerate(DRUG_TEXTS)]
    tokens = [f"{d.title} {d.section} {d.text}".split() for d in docs]
    return CollectionInput("drugs", docs, tokens, unit_vectors(len(docs), seed=seed), embedder_identity())


def health_collection(seed: int = 1) -> CollectionInput:
    texts = ["headache causes and treatment", "liver disease symptoms", "", "fever in children"]
    docs = [make_doc(i, "health", f"topic {i}", "", t) for i, t in enumerate(texts)]
    tokens = [d.text.split() for d in docs]  # row 2 has no tokens and must keep its row
    emb = embedder_identity(dim=6, id_="test-embedder-en@1")
    return CollectionInput("health", docs, tokens, unit_vectors(len(docs), dim=6, seed=seed), emb)


@pytest.fixture
def indexes_root(tmp_path: Path) -> Path:
    return tmp_path / "indexes"


@pytest.fixture
def build(indexes_root: Path, tmp_path: Path) -> Callable[..., Path]:
    """write_bundle with test defaults; keyword arguments override them."""

    def _build(collections: list[CollectionInput] | None = None, **kw) -> Path:
        args = {
            "tokenizer": tokenizer_identity(),
            "params": {"index": {"faiss": "flat"}, "note": "테스트"},
            "index_params": IndexParams(),
            "git_root": tmp_path,  # not a git repo: git_rev "unknown", and fast
        }
        args.update(kw)
        return write_bundle(indexes_root, collections or [drug_collection(), health_collection()], **args)

    return _build
