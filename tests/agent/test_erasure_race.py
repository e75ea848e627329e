"""Issue 22 (6): an erasure during a slow turn wins. The turn is paused (its event sink blocks when a node
starts), the user is erased meanwhile, the turn finishes: its facts, its history row and its cache
entry are all refused, because it began before the erasure (`ProfileStore.erasure_epoch`)."""

from __future__ import annotations

import threading

import pytest

QUESTION = "당뇨가 있는데 알레르기에 페니라민정 먹어도 되나요"   # a fact to remember and a cacheable question


def paused_turn(runner, question: str, user: str, at_node: str):
    """Start `question` in a thread that stops when `at_node` starts; returns (paused, release, done)."""
    paused, release = threading.Event(), threading.Event()
    out: dict[str, object] = {}

    def sink(name: str, payload: dict) -> None:
        if name == "status" and payload.get("node") == at_node and payload.get("phase") == "start" \
                and not paused.is_set():
            paused.set()
            assert release.wait(timeout=60)

    def turn() -> None:
        try:
            out["result"] = runner.run(question, user, on_event=sink)
        except BaseException as exc:  # noqa: BLE001 - surfaced in the test thread
            out["error"] = exc

    thread = threading.Thread(target=turn)
    thread.start()
    return paused, release, thread, out


def remembered(runner, user: str) -> tuple[list, list, int]:
    profile = runner.profile(user)
    return profile["items"], profile["history"], runner.deps.cache.owned_by(user)


def test_an_undisturbed_turn_writes_facts_history_and_the_cache(make_runner) -> None:
    """The control: the same turn without an erasure writes all three, so the race test can fail."""
    runner = make_runner()
    result = runner.run(QUESTION, "calm")
    items, history, cached = remembered(runner, "calm")
    assert any(i["name"] == "당뇨병" for i in items) and len(history) == 2
    assert result.trace["stored_in_cache"] and cached == 1


@pytest.mark.parametrize("at_node", ["extract_slots", "store_response"])
def test_an_erasure_during_a_turn_is_not_undone_when_the_turn_ends(make_runner, at_node: str) -> None:
    runner = make_runner()
    runner.run("저는 와파린을 먹고 있어요", "racer")            # something remembered before the turn
    assert runner.profile("racer")["items"]
    runner.forget("racer")                                     # an earlier erasure: epochs keep counting
    paused, release, thread, out = paused_turn(runner, QUESTION, "racer", at_node)
    try:
        assert paused.wait(timeout=120), "the turn never reached " + at_node
        runner.forget("racer")
    finally:
        release.set()
        thread.join(timeout=120)
    assert "error" not in out, out.get("error")
    assert out["result"].answer                                 # the turn itself still answers
    assert remembered(runner, "racer") == ([], [], 0)
    assert not out["result"].trace["stored_in_cache"]
    # the next turn starts after the erasure: it is remembered as usual
    runner.run(QUESTION, "racer")
    items, history, _ = remembered(runner, "racer")
    assert any(i["name"] == "당뇨병" for i in items) and len(history) == 2


def test_memory_off_turns_store_no_cache_entry_across_an_erasure(make_runner, settings) -> None:
    """With `memory_mode: none` the store is a NullProfileStore: its process-wide erasure count is the epoch."""
    from yaksa.memory.profile_store import NullProfileStore

    runner = make_runner()
    runner.deps.profiles = NullProfileStore()
    paused, release, thread, out = paused_turn(runner, QUESTION, "ghost", "store_response")
    try:
        assert paused.wait(timeout=120)
        runner.forget("ghost")
    finally:
        release.set()
        thread.join(timeout=120)
    assert "error" not in out, out.get("error")
    assert runner.deps.cache.owned_by("ghost") == 0 and not out["result"].trace["stored_in_cache"]
    assert runner.run(QUESTION, "ghost-2").trace["stored_in_cache"]   # no erasure during this one
