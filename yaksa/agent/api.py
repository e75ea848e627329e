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

from yaksa.llm.evidence import Citation

EventSink = Callable[[str, dict[str, Any]], None]
# `web_query` (the question as it may be sent to a web search: only for in-scope questions, with
# personal identifiers and the user's statements about themselves removed) is for the server, not
# the client
EVENT_NAMES: tuple[str, ...] = ("status", "token", "web_query", "answer", "citations", "verification", "done",
                                "error")
MAX_QUESTION_CHARS = 2000   # one limit for the service, the CLI and the runner


class TurnStopped(RuntimeError):
    """The turn was stopped between two nodes of the graph before it finished: neither the input's
    fault (no ValueError) nor a bug. `status_code` is what the service answers with."""

    status_code = 503

    def __init__(self, message: str, node: str | None = None) -> None:
        super().__init__(message)
        self.node = node  # the node that was about to start


class TurnCancelled(TurnStopped):
    """The caller cancelled the turn (the service: its client went away)."""

    status_code = 503


class TurnDeadlineExceeded(TurnStopped):
    """The turn ran past its deadline (`run(..., deadline_s=...)`)."""

    status_code = 504


@dataclass
class TurnResult:
    answer: str
    citations: list[Citation]
    blocked: bool                      # refused by the scope stage (nothing but the refusal ran)
    bundle_version: str | None
    trace: dict[str, Any]              # nodes, iterations, scores, timings_ms, llm_calls, cache
    verification: dict[str, Any] | None = None
    profile_summary: str = ""
    # the evidence blocks as the generator's prompt carried them (truncation included), for the answer
    # evaluation; not sent to clients, who get the citations
    contexts: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("contexts")
        data["citations"] = [asdict(c) for c in self.citations]
        return data


def result_events(result: TurnResult) -> list[tuple[str, dict[str, Any]]]:
    """The events that close every answered turn, in order: `answer` (the final text, which replaces
    what the tokens built), `citations`, `verification`. The one definition: the runner emits them to
    its caller and the service streams them (`serving.turns`), each followed by its own `done`."""
    return [
        ("answer", {"text": result.answer, "blocked": result.blocked}),
        ("citations", {"citations": [asdict(c) for c in result.citations]}),
        ("verification", {"verification": result.verification}),
    ]


class TurnRunner(Protocol):
    """Runs one turn of the pharmacist agent for a user; thread-safe; synchronous."""

    bundle_version: str | None

    def run(self, question: str, user_id: str, profile: str | None = None,
            on_event: EventSink | None = None) -> TurnResult:
        """Answer `question` for `user_id` under the ablation `profile`, reporting events as they happen.

        `web_query` is emitted at most once, only for a question that passed the scope stage, with the
        asking part of the message alone and personal identifiers removed: the one text a web search
        may be sent. ValueError for input the runner refuses (the service answers 400).

        A runner may also take keyword-only `deadline_s` and `cancel` (AgentRunner does) and raise
        TurnDeadlineExceeded / TurnCancelled; the service passes them when its `run` accepts them,
        and otherwise stops the turn by raising from `on_event`."""
        ...

    def profile(self, user_id: str) -> dict[str, Any]:
        """What is remembered about `user_id` (items with decayed weights, and a summary)."""
        ...

    def forget(self, user_id: str) -> bool:
        """Erase everything remembered about `user_id`; False when nothing was stored."""
        ...

    def search(self, query: str, k: int | None = None, collections: list[str] | None = None) -> dict[str, Any]:
        """Retrieval only, behind the same scope stage as a turn (the `/v1/search` wire format)."""
        ...
