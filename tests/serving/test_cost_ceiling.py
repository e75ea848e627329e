"""One key cannot stall the service (issue 22, finding 3): a per-key limit on requests in flight, a
deadline per request, and work cancelled when its client goes away.

The runner here is a stand-in whose "nodes" take as long as the test says and that stops the way
the real agent does (`TurnContext.check` before each node, with the `deadline_s` and `cancel` the
service passes to `AgentRunner.run`); the agent's side is tested in tests/agent/test_deadline.py.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from serving.app import create_app
from serving.concurrency import InFlightLimiter
from serving.config import ServingConfig, key_label, load_serving_config, parse_api_keys
from tests.serving.conftest import (
    ADMIN_KEY,
    ALICE,
    KEYS,
    OPS,
    USER_KEY,
    live_server,
    serving_client,
    sse_events,
)
from tests.serving.fakes import FakeRunner, fake_factory
from yaksa.agent.api import EventSink, TurnResult, TurnStopped
from yaksa.agent.turn import TurnContext
from yaksa.config import Settings

ALICE_LABEL = key_label(USER_KEY)


@dataclass
class Run:
    user_id: str
    nodes: list[str] = field(default_factory=list)
    stopped: BaseException | None = None
    ended: threading.Event = field(default_factory=threading.Event)


class SlowRunner:
    """A TurnRunner whose turns run `nodes` nodes of `node_s` seconds each (alice's wait for `gate`
    first when one is set), checking the deadline and the cancel flag before each like the agent."""

    def __init__(self, nodes: int = 5, node_s: float = 0.0, gate: threading.Event | None = None) -> None:
        self.bundle_version = None
        self.node_count, self.node_s, self.gate = nodes, node_s, gate
        self.runs: list[Run] = []
        self.searches = 0
        self._lock = threading.Lock()

    def run(self, question: str, user_id: str, variant: str | None = None, on_event: EventSink | None = None,
            *, deadline_s: float | None = None, cancel: threading.Event | None = None) -> TurnResult:
        run = Run(user_id)
        with self._lock:
            self.runs.append(run)
        turn = TurnContext(on_event=on_event, cancel=cancel,
                           deadline=None if deadline_s is None else time.monotonic() + deadline_s)
        try:
            for i in range(self.node_count):
                node = f"node{i}"
                turn.check(node)
                run.nodes.append(node)
                turn.emit("status", {"node": node, "phase": "start"})
                if self.gate is not None and user_id == "alice":
                    self.gate.wait(10)
                time.sleep(self.node_s)
            return TurnResult(answer=f"answer to {question}", citations=[], blocked=False, bundle_version=None,
                              trace={"nodes": run.nodes, "iterations": 1})
        except TurnStopped as exc:
            run.stopped = exc
            raise
        finally:
            run.ended.set()

    def search(self, query: str, k: int | None = None, collections: list[str] | None = None) -> dict[str, Any]:
        if collections:
            raise ValueError(f"unknown collection(s) {collections}")
        with self._lock:
            self.searches += 1
        return {"query": query, "hits": [], "blocked": False}

    def profile(self, user_id: str) -> dict[str, Any]:
        return {"items": [], "summary": ""}

    def forget(self, user_id: str) -> bool:
        return False


def factory(runner: SlowRunner) -> Callable[..., SlowRunner]:
    def make(loaded: Any, settings: Settings) -> SlowRunner:
        runner.bundle_version = loaded.version
        return runner
    return make


def app_for(settings: Settings, runner: SlowRunner, **config: Any) -> Any:
    cfg = ServingConfig(**{"api_keys": parse_api_keys(KEYS), "admin_key": ADMIN_KEY, "rate_per_sec": 0.0, **config})
    return create_app(settings, factory(runner), cfg)


def wait_for(condition: Callable[[], bool], limit_s: float = 10.0) -> None:
    deadline = time.monotonic() + limit_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        time.sleep(0.01)


CHAT = {"question": "두통약", "web": False}


def test_settings_and_their_defaults() -> None:
    default = load_serving_config({})
    assert (default.max_inflight_per_key, default.request_deadline_s, default.critique_deadline_s) == (4, 30.0, 60.0)
    cfg = load_serving_config({"YAKSA_MAX_INFLIGHT_PER_KEY": "2", "YAKSA_REQUEST_DEADLINE_S": "5",
                               "YAKSA_CRITIQUE_DEADLINE_S": "0"})
    assert (cfg.max_inflight_per_key, cfg.request_deadline_s, cfg.critique_deadline_s) == (2, 5.0, 0.0)
    with pytest.raises(ValueError, match="YAKSA_MAX_INFLIGHT_PER_KEY"):
        load_serving_config({"YAKSA_MAX_INFLIGHT_PER_KEY": "-1"})


def test_the_limiter_counts_per_key_and_zero_means_no_limit() -> None:
    limiter = InFlightLimiter(2)
    assert limiter.try_acquire("a") and limiter.try_acquire("a") and not limiter.try_acquire("a")
    assert limiter.try_acquire("b")
    limiter.release("a")
    assert limiter.in_flight("a") == 1 and limiter.try_acquire("a")
    for _ in range(3):
        limiter.release("a")
    assert limiter.in_flight("a") == 0 and "a" not in limiter._counts
    unlimited = InFlightLimiter(0)
    assert all(unlimited.try_acquire("a") for _ in range(100))


def test_a_key_past_its_inflight_limit_gets_429_while_another_key_is_served(settings: Settings) -> None:
    gate = threading.Event()
    runner = SlowRunner(nodes=2, gate=gate)
    app = app_for(settings, runner, max_inflight_per_key=2)

    async def scenario(url: str) -> None:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            held = [asyncio.create_task(client.post("/v1/chat", json={**CHAT, "user_id": "alice"}, headers=ALICE))
                    for _ in range(2)]
            await asyncio.to_thread(wait_for, lambda: len(runner.runs) == 2)
            refused = await client.post("/v1/chat", json={**CHAT, "user_id": "alice"}, headers=ALICE)
            assert refused.status_code == 429 and refused.headers["retry-after"] == "1"
            assert "2 requests in progress" in refused.json()["detail"]
            search = await client.get("/v1/search", params={"q": "두통"}, headers=ALICE)
            assert search.status_code == 429 and runner.searches == 0
            # another key is served at once, alice's turns still running
            start = time.monotonic()
            other = await client.post("/v1/chat", json={**CHAT, "user_id": "bob", "stream": False}, headers=OPS)
            assert other.status_code == 200 and other.json()["answer"] == "answer to 두통약"
            assert time.monotonic() - start < 5 and not gate.is_set()
            assert (await client.get("/v1/search", params={"q": "두통"}, headers=OPS)).status_code == 200
            assert app.state.inflight.in_flight(ALICE_LABEL) == 2
            gate.set()
            for response in await asyncio.gather(*held):
                assert [n for n, _ in sse_events(response.text)][-1] == "done"
            await asyncio.to_thread(wait_for, lambda: app.state.inflight.in_flight(ALICE_LABEL) == 0)
            again = await client.post("/v1/chat", json={**CHAT, "user_id": "alice", "stream": False}, headers=ALICE)
            assert again.status_code == 200

    with live_server(app) as url:
        asyncio.run(scenario(url))


def test_refused_and_failed_requests_give_their_slot_back(settings: Settings) -> None:
    runner = SlowRunner(nodes=1)
    with serving_client(settings, factory(runner), max_inflight_per_key=1) as client:
        for _ in range(3):  # a 400 after admission (unknown collection), then normal turns
            assert client.get("/v1/search", params={"q": "두통", "collection": "nope"},
                              headers=ALICE).status_code == 400
            assert client.post("/v1/chat", json={**CHAT, "user_id": "alice", "stream": False},
                               headers=ALICE).status_code == 200
        assert client.app.state.inflight.in_flight(ALICE_LABEL) == 0


def test_a_turn_past_its_deadline_ends_in_a_504_error_not_a_500(settings: Settings) -> None:
    runner = SlowRunner(nodes=50, node_s=0.02)
    with serving_client(settings, factory(runner), request_deadline_s=0.2) as client:
        start = time.monotonic()
        events = sse_events(client.post("/v1/chat", json={**CHAT, "user_id": "alice"}, headers=ALICE).text)
        assert time.monotonic() - start < 3
        name, error = events[-1]
        assert name == "error" and error["status_code"] == 504 and "time limit of 0.2 s" in error["detail"]
        assert len(runner.runs[-1].nodes) < 50 and "answer" not in dict(events)
        plain = client.post("/v1/chat", json={**CHAT, "user_id": "alice", "stream": False}, headers=ALICE)
        assert plain.status_code == 504 and "time limit" in plain.json()["detail"]
        assert client.app.state.inflight.in_flight(ALICE_LABEL) == 0
        assert client.app.state.holder.current.in_flight == 0


def test_a_runner_without_deadline_parameters_is_stopped_at_its_next_event(settings: Settings) -> None:
    assert "cancel" not in FakeRunner.run.__code__.co_varnames  # the stand-in of serving's other tests
    with serving_client(settings, fake_factory(token_delay=0.05), request_deadline_s=0.05) as client:
        events = sse_events(client.post("/v1/chat", json={"question": "두통에 먹는 약", "user_id": "alice",
                                                           "web": False}, headers=ALICE).text)
        assert events[-1][0] == "error" and events[-1][1]["status_code"] == 504


def test_a_client_that_goes_away_cancels_its_turn(settings: Settings) -> None:
    runner = SlowRunner(nodes=100, node_s=0.05)   # 5 s if nobody stops it
    app = app_for(settings, runner)

    async def leave_mid_stream(url: str) -> None:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client, \
                client.stream("POST", "/v1/chat", json={**CHAT, "user_id": "alice"}, headers=ALICE) as r:
            async for line in r.aiter_lines():
                if line.startswith("event: status"):
                    break  # one event, then the client hangs up

    async def give_up_waiting(url: str) -> None:
        async with httpx.AsyncClient(base_url=url, timeout=0.3) as client:
            with pytest.raises(httpx.ReadTimeout):
                await client.post("/v1/chat", json={**CHAT, "user_id": "alice", "stream": False}, headers=ALICE)

    with live_server(app) as url:
        for leave in (leave_mid_stream, give_up_waiting):
            left = time.monotonic()
            asyncio.run(leave(url))
            run = runner.runs[-1]
            assert run.ended.wait(3), "the abandoned turn kept running"
            assert time.monotonic() - left < 3
            assert type(run.stopped).__name__ == "TurnCancelled" and len(run.nodes) < 100
            wait_for(lambda: app.state.inflight.in_flight(ALICE_LABEL) == 0, 3)
            wait_for(lambda: app.state.holder.current.in_flight == 0, 3)


class SlowCritique:
    def __init__(self, steps: int, step_s: float) -> None:
        self.steps, self.step_s, self.done = steps, step_s, 0
        self.ended = threading.Event()

    def run(self, case: Any, on_step: Callable[[str, dict], None]) -> Any:
        try:
            for i in range(self.steps):
                time.sleep(self.step_s)
                self.done += 1
                on_step(f"step{i}", {})
            raise AssertionError("the critique was not stopped")
        finally:
            self.ended.set()


def test_a_critique_stops_between_steps_at_its_deadline(settings: Settings) -> None:
    runner = SlowRunner()
    with serving_client(settings, factory(runner), critique_deadline_s=0.2) as client:
        agent = SlowCritique(steps=50, step_s=0.05)
        client.app.state.holder.current.critique_agent = lambda: agent
        response = client.post("/v1/critique", json={"case": "68-year-old man with chest pain after surgery."},
                               headers=ALICE)
        events = sse_events(response.text)
        assert events[-1][0] == "error" and events[-1][1]["status_code"] == 504
        assert "critique took longer" in events[-1][1]["detail"]
        assert agent.ended.is_set() and agent.done < 50
        assert client.app.state.inflight.in_flight(ALICE_LABEL) == 0
