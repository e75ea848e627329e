"""Prometheus metrics of the service, served at `GET /metrics` (`serving.routes.metrics`).

What is counted, and from where:

    yaksa_http_requests_total{route,method,status}   every response (`serving.observe`)
    yaksa_http_request_seconds{route,method}         until its last byte (an SSE stream: its whole life)
    yaksa_turns_total{outcome}, yaksa_turn_seconds{outcome}   chat turns, as `serving.turns` ends them
    yaksa_node_seconds{node}                         time one turn spent in one agent node (summed over
                                                     the node's visits), from the turn's trace
    yaksa_scope_decisions_total{decision}            the scope node's verdict of each turn
    yaksa_cache_lookups_total{result}                response-cache lookups (hit | miss)
    yaksa_llm_calls_total{role,outcome}              LLM steps of a turn or a critique (`serving.critique`):
                                                     ok | fallback | failure | offline
    yaksa_web_searches_total{outcome}                web-reference searches (`serving.webrefs`)
    yaksa_bundle_info{version,worker}                1 for the bundle a worker serves, 0 once it swapped away

Why the agent's numbers come from the turn's trace: the agent already times every node
(`yaksa.agent.turn.instrumented`) and records every LLM step (`yaksa.llm.usage.UsageLedger`) for the
trace a client sees in `done`; reading them once the turn ends costs nothing on the turn's path and
cannot disagree with the trace. A turn that raised has no trace: it counts in yaksa_turns_total only.

Labels never carry personal data or a value a client chooses freely: a route is its template
(`/v1/profile/{user_id}`, never the user id), an unknown HTTP method is OTHER, node and role names
that are not plain identifiers are dropped to `other`, and nothing of a question or an answer is
ever a label.

Workers: `yaksa serve --workers N` runs N processes, and a scrape reaches one of them. So the service
uses prometheus_client's multiprocess mode: `yaksa serve` points `PROMETHEUS_MULTIPROC_DIR` at a fresh
directory of its run before the workers start; every worker writes its values to files there and
`/metrics` on any worker merges all of them (the counters of a worker that died are kept, so totals
never go back; the bundle gauge of a dead worker is dropped at the next scrape). Without the variable
(tests, `create_app` in one process) the process's own registry is served.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from glob import glob
from pathlib import Path
from typing import Any

import psutil
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
    values,
)

from serving.config import MULTIPROC_ENV
from serving.headers import worker_id
from yaksa import environment
from yaksa.scope.crisis import CRISIS_REASON_PREFIX
from yaksa.scope.harmful import is_harmful_refusal
from yaksa.scope.red_flags import SOON

log = logging.getLogger(__name__)

METRICS_PATH = "/metrics"
CONTENT_TYPE = CONTENT_TYPE_LATEST     # the text exposition format's media type
GREETING_REASON = "greeting"           # yaksa.agent.nodes.scope.GREETING's reason
OTHER = "other"
HTTP_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")

# seconds; a chat turn streams for seconds, a search or a profile read takes milliseconds
HTTP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
TURN_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0)
NODE_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

# turn outcomes (serving.turns): the turn's result, or why it has none
ANSWERED, BLOCKED, INVALID, DEADLINE, CANCELLED, FAILED, ABANDONED = (
    "answered", "blocked", "invalid", "deadline", "cancelled", "failed", "abandoned")
# scope decisions: what the scope node did with the message (yaksa.agent.nodes.scope)
IN_SCOPE, REFUSED, HARMFUL, CRISIS, RED_FLAG, SEE_DOCTOR, GREETING = (
    "in_scope", "refused", "harmful", "crisis", "red_flag", "see_doctor", "greeting")
# LLM step outcomes (yaksa.llm.usage.CallRecord)
LLM_OK, LLM_FALLBACK, LLM_FAILURE, LLM_OFFLINE = "ok", "fallback", "failure", "offline"
# web searches (serving.webrefs): `yaksa.web.tavily.WebRefs.outcome`, or the task's own end
WEB_CANCELLED, WEB_ERROR = "cancelled", "error"

HTTP_REQUESTS = Counter("yaksa_http_requests", "HTTP responses by route template, method and status",
                        ["route", "method", "status"])
HTTP_SECONDS = Histogram("yaksa_http_request_seconds", "Seconds from a request's arrival to its last response byte",
                         ["route", "method"], buckets=HTTP_BUCKETS)
TURNS = Counter("yaksa_turns", "Chat turns by outcome", ["outcome"])
TURN_SECONDS = Histogram("yaksa_turn_seconds", "Seconds from a chat turn's start to its last event", ["outcome"],
                         buckets=TURN_BUCKETS)
NODE_SECONDS = Histogram("yaksa_node_seconds", "Seconds one turn spent in one agent node (its visits summed)",
                         ["node"], buckets=NODE_BUCKETS)
SCOPE_DECISIONS = Counter("yaksa_scope_decisions", "The scope node's decision on each chat turn", ["decision"])
CACHE_LOOKUPS = Counter("yaksa_cache_lookups", "Response-cache lookups by result", ["result"])
LLM_CALLS = Counter("yaksa_llm_calls", "LLM steps of chat turns and critiques by role and outcome",
                    ["role", "outcome"])
WEB_SEARCHES = Counter("yaksa_web_searches", "Web-reference searches by outcome", ["outcome"])
BUNDLE_INFO = Gauge("yaksa_bundle_info", "1 for the bundle version a worker serves, 0 once it swapped away",
                    ["version", "worker"], multiprocess_mode="livemax")


def _name(value: Any) -> str:
    """A node or role name as a label: a plain identifier, else `other` (bounded label values)."""
    return value if isinstance(value, str) and _NAME.fullmatch(value) else OTHER


def http_method(method: str | None) -> str:
    return method if method in HTTP_METHODS else OTHER


def observe_request(route: str, method: str | None, status: int, seconds: float) -> None:
    """One HTTP response; `route` is the matched route's template (`serving.logs.route_of`)."""
    method = http_method(method)
    HTTP_REQUESTS.labels(route, method, str(status)).inc()
    HTTP_SECONDS.labels(route, method).observe(seconds)


def scope_decision(scope: Mapping[str, Any]) -> str:
    """The label of a scope decision as the trace shows it (`ScopeDecision.to_json()`)."""
    reason = str(scope.get("reason") or "")
    signals = scope.get("signals") if isinstance(scope.get("signals"), Mapping) else {}
    if reason.startswith(CRISIS_REASON_PREFIX):
        return CRISIS
    if "red_flag" in signals:  # answered, with the urgent advice first (in scope, or overridden)
        return SEE_DOCTOR if signals.get("urgency") == SOON else RED_FLAG
    if is_harmful_refusal(reason):
        return HARMFUL
    if reason == GREETING_REASON:
        return GREETING
    return IN_SCOPE if scope.get("in_scope") else REFUSED


def llm_outcome(call: Mapping[str, Any]) -> str:
    """ok: the model answered; fallback: it failed and the step fell back (rules, extractive ...);
    failure: it failed with no fallback; offline: no endpoint, the step ran its fallback only."""
    if call.get("model") is None:
        return LLM_OFFLINE
    if call.get("ok", True):
        return LLM_OK
    return LLM_FALLBACK if call.get("fallback") else LLM_FAILURE


def observe_llm_calls(ledger: Any) -> None:
    """Count the steps of a `UsageLedger.to_json()` (a turn's `llm_calls`, a critique's `llm`)."""
    calls = ledger.get("calls") if isinstance(ledger, Mapping) else None
    for call in calls if isinstance(calls, list) else []:
        if isinstance(call, Mapping):
            LLM_CALLS.labels(_name(call.get("role")), llm_outcome(call)).inc()


def observe_turn(outcome: str, seconds: float, trace: Mapping[str, Any] | None = None) -> None:
    """One chat turn: its outcome and time, and, when it has a trace, what the agent did in it.

    Tolerant of a partial trace (a TurnRunner need not report everything the production agent does)."""
    TURNS.labels(outcome).inc()
    TURN_SECONDS.labels(outcome).observe(seconds)
    if not trace:
        return
    timings = trace.get("timings_ms")
    if isinstance(timings, Mapping):
        for node, ms in timings.items():
            if node != "total" and isinstance(ms, int | float):
                NODE_SECONDS.labels(_name(node)).observe(ms / 1000)
    scope = trace.get("scope")
    if isinstance(scope, Mapping):
        SCOPE_DECISIONS.labels(scope_decision(scope)).inc()
    cache = trace.get("cache")
    if isinstance(cache, Mapping) and "hit" in cache:  # "off" / "statement": no lookup was made
        CACHE_LOOKUPS.labels("hit" if cache["hit"] else "miss").inc()
    observe_llm_calls(trace.get("llm_calls"))


def observe_web_search(outcome: str) -> None:
    WEB_SEARCHES.labels(_name(outcome)).inc()


def bundle_served(version: str | None, previous: str | None) -> None:
    """This worker now serves `version` (None: none, at shutdown); `previous` drops to 0."""
    worker = worker_id()
    if previous is not None and previous != version:
        BUNDLE_INFO.labels(previous, worker).set(0)
    if version is not None:
        BUNDLE_INFO.labels(version, worker).set(1)


def multiprocess_dir() -> Path | None:
    """The shared directory when this process writes its values there (multiprocess mode), else None.

    The mode is fixed when prometheus_client is first imported; a directory named only afterwards
    is ignored with a warning (this process's own values are served instead of an empty merge)."""
    directory = environment.value(MULTIPROC_ENV)
    if not directory:
        return None
    if not getattr(values.ValueClass, "_multiprocess", False):
        log.warning("%s is set but prometheus_client was imported before it: serving this process's "
                    "metrics only", MULTIPROC_ENV)
        return None
    return Path(directory)


def forget_dead_workers(directory: Path) -> list[int]:
    """Drop the live-gauge files (the bundle gauge) of processes that no longer exist; their counters
    and histograms stay, so totals never go back when uvicorn replaces a worker. Returns those pids."""
    dead = []
    for path in glob(str(directory / "gauge_live*_*.db")):
        try:
            pid = int(Path(path).stem.rsplit("_", 1)[1])
        except ValueError:
            continue
        if not psutil.pid_exists(pid):
            multiprocess.mark_process_dead(pid, str(directory))
            dead.append(pid)
    return sorted(set(dead))


def render(directory: Path | None = None) -> bytes:
    """The Prometheus text exposition: every worker's values merged from `directory` (default: the
    multiprocess directory when this process uses one), else this process's registry."""
    directory = directory or multiprocess_dir()
    if directory is None:
        return generate_latest(REGISTRY)
    forget_dead_workers(directory)
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=str(directory))
    return generate_latest(registry)
