"""The forward loop the torch backends share: tokenise off the critical path, pack by tokens, one copy back.

Measured on one H200 over the 29k corpus (../shared/guides/gpu.md): sentence-transformers' `encode`
tokenises each batch on the critical path and pads batches of a fixed size, so fp16 gained only 1.3×
and BGE-M3 took 36 s. This loop does what the tuned measurement did (13 s):

- a background thread tokenises with the fast (Rust) tokenizer, which releases the GIL, chunk by chunk
  in UTF-8-size order (longest first), packs each chunk by `token_budget` (`yaksa.embed.batching`) and hands
  over ready, pinned id/mask tensors through a short queue; the main thread only launches GPU work;
- every forward pass runs under `torch.inference_mode()`, results stay on the device in one output
  matrix indexed by input position, and a single copy brings them back: no per-batch synchronisation;
- results come back in input order.

The query path (`encode_one`) skips all of that: one tokenizer call, one small tensor, one forward. A
model call is hundreds of kernel launches, which is where a single query's time goes on a GPU (the
arithmetic is microseconds), so `cuda_graphs=True` records the forward once per query length as a
CUDA graph and replays it; a capture that fails or disagrees with the eager result turns graphs off
for good and the eager path answers.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from yaksa.embed.batching import (
    CHUNK_TEXTS,
    DEFAULT_TOKEN_BUDGET,
    plan_token_batches,
    presort_chunks,
    text_bytes,
)
from yaksa.embed.device import attention_backends

POOLINGS: tuple[str, ...] = ("cls", "mean")
QUEUE_DEPTH = 4          # ready batches waiting for the device: enough to hide a chunk's tokenising
MAX_QUERY_GRAPHS = 64    # CUDA graphs kept (one per query token length), least recently used dropped
GRAPH_MIN_COSINE = 0.999  # a captured graph must agree with the eager forward this well


class Forward(Protocol):
    """(input ids, attention mask or None) → (rows, dim) pooled vectors on the device, any scale."""

    accepts_no_mask: bool

    def __call__(self, ids: Any, mask: Any | None) -> Any: ...


class PooledModel:
    """A transformers encoder (`AutoModel`) plus CLS or mean pooling over its last hidden state.

    With no mask (one unpadded query) the model gets none either: transformers then skips building
    an attention mask, which also keeps the call free of host-device synchronisation (capturable)."""

    accepts_no_mask = True

    def __init__(self, model: Any, pooling: str) -> None:
        if pooling not in POOLINGS:
            raise ValueError(f"unknown pooling {pooling!r}; expected one of {POOLINGS}")
        self.model = model
        self.pooling = pooling

    def __call__(self, ids: Any, mask: Any | None) -> Any:
        hidden = self.model(input_ids=ids, attention_mask=mask).last_hidden_state
        if self.pooling == "cls":
            return hidden[:, 0]
        if mask is None:
            return hidden.float().mean(dim=1)
        weights = mask.unsqueeze(-1).float()
        return (hidden.float() * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9)


@dataclass(frozen=True)
class RunStats:
    """What the last `encode` did: for the benchmark and the build log."""

    texts: int
    tokens: int          # real tokens (special tokens included)
    padded_tokens: int   # tokens the model computed
    batches: int
    seconds: float

    @property
    def padding_overhead(self) -> float:
        return self.padded_tokens / self.tokens - 1.0 if self.tokens else 0.0


@dataclass
class _Ready:
    rows: Any        # int64 tensor of input positions
    ids: Any         # (rows, longest) int64, padded
    mask: Any        # (rows, longest) int64
    tokens: int
    padded: int


@dataclass
class _Graph:
    graph: Any
    ids: Any
    out: Any


def fast_tokenizer(tokenizer: Any, max_length: int) -> Any:
    """A private copy of a fast tokenizer (a `tokenizers.Tokenizer`, or a transformers tokenizer's
    backend) that truncates to `max_length` tokens, special tokens included, and never pads."""
    from tokenizers import Tokenizer

    backend = getattr(tokenizer, "backend_tokenizer", tokenizer)
    if not isinstance(backend, Tokenizer):
        raise TypeError(f"{type(tokenizer).__name__} has no fast (Rust) tokenizer; this loop needs one")
    if isinstance(max_length, bool) or not isinstance(max_length, int) or max_length < 2:
        raise ValueError(f"max_length must be an integer >= 2, got {max_length!r}")
    copy = Tokenizer.from_str(backend.to_str())
    copy.no_padding()
    copy.enable_truncation(max_length)
    return copy


def prefetch(items: Iterator[Any], depth: int = QUEUE_DEPTH) -> Iterator[Any]:
    """Run the iterator `items` in a background thread, `depth` items ahead; its errors surface here.
    Closing the returned generator early stops the thread after the item it is making."""
    q: queue.Queue[tuple[str, Any]] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(kind: str, value: Any) -> bool:
        while not stop.is_set():
            try:
                q.put((kind, value), timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def work() -> None:
        try:
            for item in items:
                if not put("item", item):
                    return
            put("done", None)
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer, which re-raises it
            put("error", exc)

    thread = threading.Thread(target=work, name="yaksa-tokenize", daemon=True)
    thread.start()
    try:
        while True:
            kind, value = q.get()
            if kind == "done":
                return
            if kind == "error":
                raise value
            yield value
    finally:
        stop.set()
        thread.join()


class TokenBudgetEncoder:
    """Texts → (n, dim) float32 vectors in input order, through one `Forward`, packed by tokens."""

    def __init__(self, tokenizer: Any, forward: Forward, *, pad_id: int, max_length: int, device: str,
                 prefix: str = "", token_budget: int = DEFAULT_TOKEN_BUDGET, max_rows: int | None = None,
                 cuda_graphs: bool = False, chunk_texts: int = CHUNK_TEXTS) -> None:
        plan_token_batches([1], token_budget, max_rows)  # validates both limits
        self._tok = fast_tokenizer(tokenizer, max_length)
        self._forward = forward
        self._pad_id = int(pad_id)
        self._device = device
        self._prefix = prefix
        self.token_budget = int(token_budget)
        self.max_rows = max_rows
        self._chunk = int(chunk_texts)
        self._pin = device.startswith("cuda")
        self.cuda_graphs = bool(cuda_graphs and self._pin and forward.accepts_no_mask)
        self._graphs: OrderedDict[int, _Graph] = OrderedDict()
        self._graph_lock = threading.Lock()
        self.graph_error: str | None = None  # why graphs were switched off, when they were
        self.last_run: RunStats | None = None

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """The ids each text is read as (prefix, special tokens and truncation applied)."""
        return [e.ids for e in self._tok.encode_batch([self._prefix + t for t in texts])]

    def _ready_batches(self, texts: Sequence[str]) -> Iterator[_Ready]:
        import torch

        for chunk in presort_chunks(text_bytes(texts), self._chunk):
            ids = self.token_ids([texts[i] for i in chunk])
            lengths = np.fromiter((len(x) for x in ids), dtype=np.int64, count=len(ids))
            for batch in plan_token_batches(lengths, self.token_budget, self.max_rows):
                longest = int(lengths[batch].max())
                arr = np.full((len(batch), longest), self._pad_id, dtype=np.int64)
                mask = np.zeros((len(batch), longest), dtype=np.int64)
                for row, k in enumerate(batch):
                    n = int(lengths[k])
                    arr[row, :n] = ids[k]
                    mask[row, :n] = 1
                tensors = [torch.from_numpy(chunk[batch].astype(np.int64)), torch.from_numpy(arr), torch.from_numpy(mask)]
                if self._pin:
                    tensors = [t.pin_memory() for t in tensors]
                yield _Ready(*tensors, tokens=int(lengths[batch].sum()), padded=len(batch) * longest)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32, row i for texts[i]; not normalised (the embedder base does that)."""
        import torch

        start = time.perf_counter()
        texts = list(texts)
        if not texts:
            raise ValueError("encode() needs at least one text")
        out: Any = None
        tokens = padded = batches = 0
        dev = self._device
        with torch.inference_mode(), attention_backends(str(dev)):
            for ready in prefetch(self._ready_batches(texts)):
                ids = ready.ids.to(dev, non_blocking=True)
                mask = ready.mask.to(dev, non_blocking=True)
                vec = self._forward(ids, mask)
                if out is None:
                    out = torch.empty((len(texts), vec.shape[-1]), dtype=torch.float32, device=dev)
                out[ready.rows.to(dev, non_blocking=True)] = vec.float()
                tokens, padded, batches = tokens + ready.tokens, padded + ready.padded, batches + 1
            result = out.cpu().numpy()
        self.last_run = RunStats(len(texts), tokens, padded, batches, time.perf_counter() - start)
        return result

    def encode_one(self, text: str) -> np.ndarray:
        """(dim,) float32 for one text (a query): one tokenizer call and one forward, no batching."""
        import torch

        ids = self._tok.encode(self._prefix + text).ids
        with torch.inference_mode():
            if self.cuda_graphs:
                with self._graph_lock:  # static buffers: one replay at a time
                    vec = self._replay(ids)
                if vec is not None:
                    return vec
            t = torch.tensor([ids], dtype=torch.int64, device=self._device)
            mask = None if self._forward.accepts_no_mask else torch.ones_like(t)
            return self._forward(t, mask)[0].float().cpu().numpy()

    def _replay(self, ids: list[int]) -> np.ndarray | None:
        """The graph path; None when graphs are (now) off and the eager path should answer."""
        import torch

        entry = self._graphs.get(len(ids))
        if entry is not None:
            self._graphs.move_to_end(len(ids))
            entry.ids.copy_(torch.tensor([ids], dtype=torch.int64))
            entry.graph.replay()
            return entry.out[0].float().cpu().numpy()
        try:
            entry = self._capture(ids)
        except Exception as exc:  # noqa: BLE001 - any capture failure: eager answers from now on
            self.graph_error = f"{type(exc).__name__}: {exc}"[:500]
            self.cuda_graphs = False
            self._graphs.clear()
            return None
        if len(self._graphs) >= MAX_QUERY_GRAPHS:
            self._graphs.popitem(last=False)
        self._graphs[len(ids)] = entry
        return entry.out[0].float().cpu().numpy()

    def _capture(self, ids: list[int]) -> _Graph:
        """Record the forward for this token length, replay it on `ids` and check it against eager."""
        import torch

        static_ids = torch.tensor([ids], dtype=torch.int64, device=self._device)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):  # warm-up outside the graph: lazy initialisations must not be recorded
                eager = self._forward(static_ids, None).float().clone()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_out = self._forward(static_ids, None)
        graph.replay()
        cosine = torch.nn.functional.cosine_similarity(static_out.float(), eager, dim=-1).min().item()
        if not cosine >= GRAPH_MIN_COSINE:
            raise RuntimeError(f"captured graph disagrees with the eager forward (cosine {cosine:.4f})")
        return _Graph(graph, static_ids, static_out)


def pooled_encoders(model: Any, tokenizer: Any, pooling: str, *, device: str, max_length: int,
                    token_budget: int, max_rows: int | None, query_prefix: str = "", passage_prefix: str = "",
                    cuda_graphs: bool = False) -> tuple[TokenBudgetEncoder, TokenBudgetEncoder]:
    """(passage encoder, query encoder) over one transformers model and its tokenizer."""
    forward = PooledModel(model, pooling)
    pad_id = tokenizer.pad_token_id if getattr(tokenizer, "pad_token_id", None) is not None else 0
    common: dict[str, Any] = {"pad_id": pad_id, "max_length": max_length, "device": device,
                              "token_budget": token_budget, "max_rows": max_rows}
    passages = TokenBudgetEncoder(tokenizer, forward, prefix=passage_prefix, **common)
    queries = TokenBudgetEncoder(tokenizer, forward, prefix=query_prefix, cuda_graphs=cuda_graphs, **common)
    return passages, queries

