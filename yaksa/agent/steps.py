"""A graph of steps with one path: run a node, merge its update into the state, ask the route for the next.

Why not LangGraph's Pregel engine, which ran this graph until 2026-11-27: the agent's graph has one
path (each node has one successor, chosen by a function of the state), no parallel branches, no
checkpoints and no interrupts, and Pregel's machinery for those (channels, task preparation, a
checkpoint built per step, a callback manager per node) took 57% of an offline turn (py-spy over 300
turns on the test bundle, 2026-11-27: ~13 of ~22 ms). What the graph used of it is here: each node
gets a copy of the state (what it changes in place is not kept; only what it returns is), its update
replaces those keys (the last value wins, as LangGraph's default channels did), and a turn stops at
END or, looping between verify/correct or quality_check/assemble_context, after `step_limit` steps.

Each route declares the nodes it may choose (`branch`, `always`), as LangGraph's conditional edges
did: the graph checks at construction that they exist, and at run time that a route chose one of its
own, so a route returning a node it never declared (a typo'd or forgotten edge) fails the turn at
once rather than running an unplanned path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

END = "__end__"

Node = Callable[[dict, Any], dict | None]    # (state, context) -> the keys it sets


@dataclass(frozen=True)
class Route:
    """Where to go after a node: `choose` (state after the node -> a node's name or END), and every
    name it may return (`targets`)."""

    choose: Callable[[dict], str]
    targets: frozenset[str]

    def __call__(self, state: dict) -> str:
        name = self.choose(state)
        if name not in self.targets:
            raise ValueError(f"a route chose {name!r}, which is not among its declared targets {sorted(self.targets)}")
        return name


def branch(*targets: str) -> Callable[[Callable[[dict], str]], Route]:
    """Decorate a routing function with the names it may return: `@branch("retrieve", END)`."""
    if not targets:
        raise ValueError("a route needs at least one target")
    return lambda choose: Route(choose, frozenset(targets))


def always(name: str) -> Route:
    """The route of a node with one fixed successor."""
    return Route(lambda _state: name, frozenset({name}))


class StepLimitExceeded(RuntimeError):
    """The turn took more steps than `step_limit`: a routing loop, never an answer."""


@dataclass(frozen=True)
class StepGraph:
    nodes: Mapping[str, Node]
    routes: Mapping[str, Route]        # node -> where to go after it
    start: str
    keys: frozenset[str]               # the state's declared keys: a node setting another is a bug
    step_limit: int = 60

    def __post_init__(self) -> None:
        targets = {t for route in self.routes.values() for t in route.targets} - {END}
        unknown = (set(self.routes) | {self.start} | targets) - set(self.nodes)
        if unknown:
            raise ValueError(f"routes name nodes that do not exist: {sorted(unknown)}")
        missing = set(self.nodes) - set(self.routes)
        if missing:
            raise ValueError(f"nodes without a route: {sorted(missing)}")

    def invoke(self, state: Mapping[str, Any], context: Any) -> dict[str, Any]:
        """Run from `start` to END on `state` (not modified); returns the final state."""
        current = dict(state)
        self._check_keys("the input", current)
        name = self.start
        for _ in range(self.step_limit):
            update = self.nodes[name](dict(current), context)
            if update:
                self._check_keys(f"node {name!r}", update)
                current.update(update)
            name = self.routes[name](current)
            if name == END:
                return current
        raise StepLimitExceeded(f"the turn did not end within {self.step_limit} steps")

    def _check_keys(self, who: str, update: Mapping[str, Any]) -> None:
        unknown = set(update) - self.keys
        if unknown:
            raise KeyError(f"{who} set keys the state does not declare: {sorted(unknown)}")
