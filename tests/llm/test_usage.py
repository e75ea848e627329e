from __future__ import annotations

import threading

import pytest

from yaksa.llm.usage import UsageLedger


def test_records_calls_failures_fallbacks_and_totals() -> None:
    ledger = UsageLedger()
    with ledger.call("generator", "g") as rec:
        rec.prompt_tokens, rec.completion_tokens, rec.cost = 100, 40, 0.01
    with pytest.raises(RuntimeError), ledger.call("judge", "j") as rec:
        rec.prompt_tokens = 10
        raise RuntimeError("boom")
    ledger.mark_fallback("judge", "heuristic", "boom")   # attaches to the failed judge call
    ledger.mark_fallback("rewriter", "rule")             # offline step: a record of its own
    calls = ledger.records
    assert [(r.role, r.model, r.ok, r.fallback) for r in calls] == [
        ("generator", "g", True, None), ("judge", "j", False, "heuristic"), ("rewriter", None, True, "rule")]
    assert calls[1].error == "RuntimeError: boom" and calls[1].latency_ms >= 0
    assert ledger.totals() == {"calls": 2, "failed_calls": 1, "fallbacks": 2, "prompt_tokens": 110,
                               "completion_tokens": 40, "cost": 0.01,
                               "latency_ms": pytest.approx(calls[0].latency_ms + calls[1].latency_ms)}  # fmt: skip
    data = ledger.to_json()
    assert len(data["calls"]) == 3 and data["totals"]["calls"] == 2


def test_concurrent_calls_are_all_recorded() -> None:
    ledger = UsageLedger()

    def work() -> None:
        for _ in range(50):
            with ledger.call("router", "r") as rec:
                rec.prompt_tokens = 1

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert ledger.totals()["prompt_tokens"] == 200
