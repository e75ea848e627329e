"""BGE-M3 dense vectors with plain transformers: the GPU build's embedder for every collection.

BGE-M3 is XLM-RoBERTa large (24 layers, 1024 wide, 8,192 positions) whose dense retrieval vector is
the [CLS] hidden state, L2-normalised; that is all FlagEmbedding's `BGEM3FlagModel` computes for
`dense_vecs`, so this backend gives the same vectors without FlagEmbedding (which the GPU host does
not have) and through the packed, pipelined loop of `yaksa.embed.torch_encoder` (36 s → ~13 s for the
corpus on one H200 in fp16). BGE-M3 uses no query or passage prefix.

`model` is a local directory (a copy of BAAI/bge-m3 or a fine-tune such as dragonkue/BGE-m3-ko) or,
where there is internet, a hub name. `$VARS` in it are expanded, so params.gpu.yaml can say
`model: $YAKSA_BGE_M3_MODEL` and each host point at its own copy; an unset variable is an error.

`max_length` (tokens a passage is read to, 512 by default as FlagEmbedding's passages) is part of the
id: a different cut is a different vector for a long passage. Precision is not (`yaksa.embed.device`).
"""

from __future__ import annotations

import os
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np

from yaksa import environment
from yaksa.embed.base import EmbedderBase
from yaksa.embed.batching import plan_token_batches
from yaksa.embed.device import resolve_device, resolve_dtype, torch_dtype
from yaksa.embed.torch_encoder import pooled_encoders

MODEL_ENV = environment.BGE_M3_MODEL
DEFAULT_MAX_LENGTH = 512
MODEL_MAX_LENGTH = 8192         # BGE-M3's positions (8,194, two reserved by XLM-R's offset)
GPU_TOKEN_BUDGET = 65_536       # padded tokens a pass: 1-4% padding and the GPU saturated (H200)
DEFAULT_BATCH_ROWS = 1_024      # at most this many texts a pass, however short


def expand_model(model: str) -> str:
    """`model` with `$VARS` and `~` expanded; an unset variable (left as `$NAME`) is an error."""
    if not isinstance(model, str) or not model.strip():
        raise ValueError(f"bge_m3 needs `model`: a local copy of BGE-M3 (or set {MODEL_ENV} and write "
                         f"model: ${MODEL_ENV})")
    expanded = os.path.expanduser(os.path.expandvars(model))
    if "$" in expanded:
        raise ValueError(f"bge_m3 model {model!r}: environment variable not set (got {expanded!r}); "
                         f"export it with the path of a local BGE-M3 copy")
    return expanded


class BgeM3Embedder(EmbedderBase):
    backend = "bge_m3"

    def __init__(self, model: str = f"${MODEL_ENV}", device: str = "auto", dtype: str = "auto",
                 token_budget: int = GPU_TOKEN_BUDGET, batch_size: int = DEFAULT_BATCH_ROWS,
                 max_length: int = DEFAULT_MAX_LENGTH, cuda_graphs: bool = False) -> None:
        if isinstance(max_length, bool) or not isinstance(max_length, int) or not 16 <= max_length <= MODEL_MAX_LENGTH:
            raise ValueError(f"bge_m3 max_length must be an integer from 16 to {MODEL_MAX_LENGTH}, got {max_length!r}")
        plan_token_batches([1], token_budget, batch_size)  # validates both limits before any loading
        self.model = expand_model(model)
        device = resolve_device(device)
        self.dtype = resolve_dtype(dtype, device)
        from transformers import AutoModel, AutoTokenizer

        path = str(Path(self.model)) if Path(self.model).is_dir() else self.model
        tokenizer = AutoTokenizer.from_pretrained(path)
        encoder = AutoModel.from_pretrained(path).to(device=device, dtype=torch_dtype(self.dtype)).eval()
        self.dim = int(encoder.config.hidden_size)
        self._passages, self._queries = pooled_encoders(
            encoder, tokenizer, "cls", device=device, max_length=max_length, token_budget=token_budget,
            max_rows=batch_size, cuda_graphs=cuda_graphs)
        self.max_length = max_length
        self.id = f"bge_m3:{self.model}@transformers-{_dist_version('transformers')}/max{max_length}"

    def _encode_passages(self, texts: list[str]) -> np.ndarray:
        return self._passages.encode(texts)

    def _encode_query(self, text: str) -> np.ndarray:
        return self._queries.encode_one(text)


def _dist_version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "unknown"
