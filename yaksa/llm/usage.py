"""Token, cost and fault accounting for the LLM steps of one turn.

Why a ledger per turn: the trace must show, for every step, which model ran, what it cost, how long
it took and whether it degraded to an offline fallback (and why). Offline steps get a record too
(`model=None`, `fallback` set), so the trace lists every step whether or not an endpoint exists.
A lock makes it safe for the few threads of one turn (e.g. web references running beside
generation).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any


@dataclass
class CallRecord:
    """One LLM step: a call to `model`, or (model None) an offline step that used `fallback`."""

    role: str
    model: str | None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    cost: float = 0.0
    attempts: int = 0
    ok: bool = True
    error: str | None = None
    fallback: str | None = None


class UsageLedger:
    """The records of one turn, with totals; `to_json()` goes into the turn trace."""

    def __init__(self) -> None:
        self._records: list[CallRecord] = []
        self._lock = threading.Lock()

    @property
    def records(self) -> list[CallRecord]:
        with self._lock:
            return list(self._records)

    @contextmanager
    def call(self, role: str, model: str) -> Iterator[CallRecord]:
        """Time one call; an exception marks the record failed (with its message) and propagates."""
        record = CallRecord(role=role, model=model)
        start = time.perf_counter()
        try:
            yield record
        except Exception as exc:
            record.ok = False
            record.error = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            record.latency_ms = round((time.perf_counter() - start) * 1000, 2)
            with self._lock:
                self._records.append(record)

    def mark_fallback(self, role: str, fallback: str, error: str | None = None) -> None:
        """Note that `role` used `fallback`: on its last failed call, or as an offline record."""
        with self._lock:
            for record in reversed(self._records):
                if record.role == role and record.model is not None and not record.ok and record.fallback is None:
                    record.fallback = fallback
                    return
            self._records.append(CallRecord(role=role, model=None, error=error, fallback=fallback))

    def totals(self) -> dict[str, Any]:
        with self._lock:
            calls = [r for r in self._records if r.model is not None]
            return {
                "calls": len(calls),
                "failed_calls": sum(not r.ok for r in calls),
                "fallbacks": sum(r.fallback is not None for r in self._records),
                "prompt_tokens": sum(r.prompt_tokens for r in calls),
                "completion_tokens": sum(r.completion_tokens for r in calls),
                "cost": round(sum(r.cost for r in calls), 6),
                "latency_ms": round(sum(r.latency_ms for r in calls), 2),
            }

    def to_json(self) -> dict[str, Any]:
        return {"calls": [asdict(r) for r in self.records], "totals": self.totals()}
