"""What callers (CLI, serving, benchmarks) see of one agent turn.

Why a separate module: the serving layer streams a turn while it runs and the CLI prints it when it
ends; both only need these types, not the graph. Events are plain (name, payload) pairs so they map
one-to-one onto SSE events: `status` (a node started/finished), `token` (answer text as it is
produced), `answer`, `citations`, `verification`, `done`, `error`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

EventSink = Callable[[str, dict[str, Any]], None]
EVENT_NAMES: tuple[str, ...] = ("status", "token", "answer", "citations", "verification", "done", "error")


@dataclass(frozen=True)
class Citation:
    """A source the answer cites as `[문서 n]`."""

    n: int
    doc_id: str
    collection: str
    title: str
    section: str
    text: str
    score: float
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class TurnResult:
    answer: str
    citations: list[Citation]
    blocked: bool                      # refused by the out-of-scope guard (no LLM call was made)
    bundle_version: str | None
    trace: dict[str, Any]              # nodes, iterations, scores, timings_ms, llm_calls, cache
    verification: dict[str, Any] | None = None
    profile_summary: str = ""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["citations"] = [asdict(c) for c in self.citations]
        return data


class TurnRunner(Protocol):
    """Runs one turn of the pharmacist agent for a user; thread-safe; synchronous."""

    bundle_version: str | None

    def run(self, question: str, user_id: str, profile: str | None = None,
            on_event: EventSink | None = None) -> TurnResult:
        """Answer `question` for `user_id` under the ablation `profile`, reporting events as they happen."""
        ...

    def profile(self, user_id: str) -> dict[str, Any]:
        """What is remembered about `user_id` (items with decayed weights, and a summary)."""
        ...

    def forget(self, user_id: str) -> bool:
        """Erase everything remembered about `user_id`; False when nothing was stored."""
        ...
