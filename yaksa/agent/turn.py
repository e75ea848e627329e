"""Per-turn context the graph's nodes share: the event sink, the LLM ledger and the trace.

Why not in the state: the graph merges state updates, and these are append-only logs and a callback,
not facts about the conversation. One TurnContext is created per `run()` and handed to every node
beside the state (`StepGraph.invoke(state, turn)`).

Stopping a turn: `deadline` (a `time.monotonic()` value) and `cancel` (an Event the caller sets, e.g.
when its client went away) are checked before each node starts (`instrumented`), which raises
TurnDeadlineExceeded / TurnCancelled; a cancelled turn also stops at its next answer token, so an
LLM stream nobody reads is dropped. A node that has started runs to its end: the checks cost a
clock read and a flag test per node.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from yaksa.agent.api import EventSink, TurnCancelled, TurnDeadlineExceeded
from yaksa.llm.usage import UsageLedger


@dataclass
class TurnContext:
    on_event: EventSink | None = None
    ledger: UsageLedger = field(default_factory=UsageLedger)
    nodes: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)   # node -> what it decided, for the trace
    deadline: float | None = None            # time.monotonic() after which no node starts
    cancel: threading.Event | None = None    # set by the caller: no node starts, no token is sent

    def emit(self, name: str, payload: dict[str, Any]) -> None:
        if name == "token" and self.cancel is not None and self.cancel.is_set():
            node = self.nodes[-1] if self.nodes else None
            raise TurnCancelled(f"the turn was cancelled during {node}", node=node)
        if self.on_event is not None:
            self.on_event(name, payload)

    def check(self, node: str) -> None:
        """Raise TurnCancelled / TurnDeadlineExceeded instead of starting `node` when the turn must stop."""
        if self.cancel is not None and self.cancel.is_set():
            raise TurnCancelled(f"the turn was cancelled before {node}", node=node)
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise TurnDeadlineExceeded(f"the turn ran past its deadline before {node}", node=node)


def instrumented(name: str, fn: Callable[[dict, TurnContext], dict]) -> Callable[[dict, TurnContext], dict]:
    """Wrap a node: status events before/after, its time in the trace, its name in the visit list."""
    def node(state: dict, turn: TurnContext) -> dict:
        turn.check(name)
        turn.nodes.append(name)
        turn.emit("status", {"node": name, "phase": "start"})
        start = time.perf_counter()
        update = fn(state, turn)
        ms = (time.perf_counter() - start) * 1000
        turn.timings_ms[name] = round(turn.timings_ms.get(name, 0.0) + ms, 3)
        turn.emit("status", {"node": name, "phase": "end", "ms": round(ms, 3)})
        return update

    node.__name__ = name
    return node
