"""Run history: a run and its items in one transaction, the baseline is the last accepted run."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from yaksa.regression.store import RunRow, RunStore


def row(run_id: str, created: str) -> RunRow:
    return RunRow(run_id, created, "v1", "p", "g", "s", True, False, None, {"metrics": {"refusal_ok": 1.0}})


def items(value: float) -> list[dict]:
    return [{"item_id": "a", "category": "natural_ko", "question": "타이레놀?", "answer": "답", "latency_ms": 1.0,
             "llm_calls": 0, "error": None, "metrics": {"refusal_ok": value, "first_ok": float("nan")}}]


def test_runs_items_and_the_baseline(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.duckdb")
    assert store.baseline() is None
    store.save_run(row("r1", "2026-11-20T04:30:00Z"), items(1.0))
    store.save_run(row("r2", "2026-11-21T04:30:00Z"), items(0.0))
    store.accept("r1")
    assert store.baseline() == "r1"
    store.accept("r2")
    assert store.baseline() == "r2"
    assert store.scores("r1") == {"a": {"refusal_ok": 1.0}}          # NaN metrics are left out
    assert store.items("r2")["a"]["question"] == "타이레놀?"
    assert [r.run_id for r in store.runs()] == ["r1", "r2"] and store.runs()[0].accepted
    with pytest.raises(KeyError, match="no regression run"):
        store.accept("nope")


def test_a_failed_insert_leaves_no_half_run(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.duckdb")
    store.save_run(row("r1", "2026-11-20T04:30:00Z"), items(1.0))
    with pytest.raises(duckdb.ConstraintException):
        store.save_run(row("r2", "2026-11-21T04:30:00Z"), items(1.0) + items(1.0))  # duplicate item id
    assert [r.run_id for r in store.runs()] == ["r1"]
