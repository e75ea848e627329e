"""The agent's step graph: one path, partial updates merged, a step limit against routing loops."""

from __future__ import annotations

import pytest

from yaksa.agent.steps import END, StepGraph, StepLimitExceeded, always, branch

KEYS = frozenset({"n", "seen", "done"})


def _count(state: dict, _ctx: object) -> dict:
    return {"n": state.get("n", 0) + 1, "seen": [*state.get("seen", []), state.get("n", 0)]}


def test_nodes_run_in_route_order_and_updates_merge() -> None:
    graph = StepGraph({"a": _count, "b": lambda s, _c: {"done": True}},
                      {"a": branch("a", "b")(lambda s: "a" if s["n"] < 3 else "b"), "b": always(END)}, start="a", keys=KEYS)
    given = {"n": 0}
    final = graph.invoke(given, None)
    assert final == {"n": 3, "seen": [0, 1, 2], "done": True}
    assert given == {"n": 0}   # the caller's state is not modified


def test_a_node_changing_its_state_in_place_changes_nothing() -> None:
    """As under LangGraph: only what a node returns is kept."""
    def sneaky(state: dict, _ctx: object) -> dict:
        state["n"] = 99
        return {}
    final = StepGraph({"a": sneaky}, {"a": always(END)}, start="a", keys=KEYS).invoke({"n": 1}, None)
    assert final == {"n": 1}


def test_the_context_reaches_every_node() -> None:
    seen: list[object] = []
    graph = StepGraph({"a": lambda s, c: seen.append(c) or {}, "b": lambda s, c: seen.append(c) or None},
                      {"a": always("b"), "b": always(END)}, start="a", keys=KEYS)
    ctx = object()
    graph.invoke({}, ctx)
    assert seen == [ctx, ctx]


def test_a_routing_loop_stops_at_the_step_limit() -> None:
    graph = StepGraph({"a": _count}, {"a": always("a")}, start="a", keys=KEYS, step_limit=5)
    with pytest.raises(StepLimitExceeded):
        graph.invoke({}, None)


def test_undeclared_keys_and_unknown_nodes_are_errors() -> None:
    with pytest.raises(KeyError, match="typo"):
        StepGraph({"a": lambda s, c: {"typo": 1}}, {"a": always(END)}, start="a", keys=KEYS).invoke({}, None)
    with pytest.raises(ValueError, match="do not exist"):
        StepGraph({"a": _count}, {"a": always("nowhere")}, start="a", keys=KEYS)
    with pytest.raises(ValueError, match="without a route"):
        StepGraph({"a": _count, "b": _count}, {"a": always(END)}, start="a", keys=KEYS)


def test_a_route_choosing_a_node_it_did_not_declare_fails_the_turn() -> None:
    """As LangGraph's conditional edges: a forgotten or typo'd edge is an error, not an unplanned path."""
    graph = StepGraph({"a": _count, "b": _count, "c": _count},
                      {"a": branch("b", END)(lambda s: "c"), "b": always(END), "c": always(END)},
                      start="a", keys=KEYS)
    with pytest.raises(ValueError, match="not among its declared targets"):
        graph.invoke({}, None)
    with pytest.raises(ValueError, match="at least one target"):
        branch()
