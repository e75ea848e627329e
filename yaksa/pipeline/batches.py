"""Batches of content-hashed documents: the unit of work the tokenize and embed stages hand to a runner.

A batch carries its texts, so a worker needs nothing but the code and environment — no shared disk,
no cache. Work is planned once, on the driver, from the documents and the caches: texts already
cached are left out, a text that several documents share is done once. The plan is a pure function
of its inputs, so the serial build and any task runner (a local loop, a Dask cluster) get the same
batches and therefore the same outputs. Results go back to the driver, which checks them against
the plan (`BatchLedger`) before merging anything into a cache.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass


class BatchResultError(RuntimeError):
    """A worker returned a result the driver must not merge (wrong identity, unplanned or missing texts)."""


@dataclass(frozen=True)
class TextBatch:
    """Texts keyed by content hash; `label` names the batch in logs and task names."""

    label: str
    hashes: tuple[str, ...]
    texts: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.hashes) != len(self.texts) or not self.hashes:
            raise ValueError(f"batch {self.label}: {len(self.hashes)} hashes for {len(self.texts)} texts")


def plan_batches(
    label: str, hashes: Sequence[str], texts: Sequence[str], done: Container[str], size: int
) -> list[TextBatch]:
    """The texts not in `done`, each hash once (first occurrence, input order), in batches of `size`."""
    if len(hashes) != len(texts):
        raise ValueError(f"plan_batches: {len(hashes)} hashes but {len(texts)} texts")
    if size < 1:
        raise ValueError(f"plan_batches: size must be >= 1, got {size}")
    todo: dict[str, str] = {}
    for h, t in zip(hashes, texts):
        if h not in done and h not in todo:
            todo[h] = t
    items = list(todo.items())
    return [
        TextBatch(
            label=f"{label}-{i // size:04d}",
            hashes=tuple(h for h, _ in items[i : i + size]),
            texts=tuple(t for _, t in items[i : i + size]),
        )
        for i in range(0, len(items), size)
    ]


class BatchLedger:
    """The driver's account of planned batches: each result must match one, once, with its identity.

    The identity (tokenizer identity, embedder id) is what the driver itself would have used: a
    worker with another library version or model must not slip its output into the caches.
    """

    def __init__(self, planned: Iterable[tuple[str, TextBatch]]) -> None:
        self._open = {b.label: (identity, b.hashes) for identity, b in planned}

    def settle(self, label: str, identity: str, hashes: Sequence[str]) -> None:
        expected = self._open.pop(label, None)
        if expected is None:
            raise BatchResultError(f"batch {label} was not planned or came back twice")
        if identity != expected[0]:
            raise BatchResultError(
                f"batch {label} was computed by {identity!r}, the driver expects {expected[0]!r}: "
                "workers need the same code and environment as the driver"
            )
        if tuple(hashes) != expected[1]:
            raise BatchResultError(f"batch {label} came back with other documents than were sent")

    def check_complete(self) -> None:
        if self._open:
            raise BatchResultError(f"{len(self._open)} planned batches never came back: {sorted(self._open)[:5]}")
