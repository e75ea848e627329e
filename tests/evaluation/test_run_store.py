"""Run history: a run and its items in one transaction, the baseline is the last accepted run."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from yaksa.evaluation.run_store import RunRow, RunStore


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


def test_other_kinds_of_run_stay_out_of_the_baseline_and_the_history(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.duckdb")
    store.save_run(row("r1", "2026-11-20T04:30:00Z"), items(1.0))
    study = RunRow("dialogues-1", "2026-11-21T04:30:00Z", "v1", "p", "g", "d", None, False, None,
                   {"personas": 1}, kind="dialogues")
    store.save_run(study, items(0.5))
    assert [r.run_id for r in store.runs()] == ["r1"]
    (saved,) = store.runs(kind="dialogues")
    assert saved.passed is None and saved.kind == "dialogues" and saved.summary == {"personas": 1}
    assert store.scores("dialogues-1") == {"a": {"refusal_ok": 0.5}}
    with pytest.raises(KeyError, match="no regression run"):
        store.accept("dialogues-1")
    store.accept("r1")
    assert store.baseline() == "r1"


def test_a_file_from_before_kinds_gets_the_column_and_its_runs_are_regression_runs(tmp_path: Path) -> None:
    path = tmp_path / "runs.duckdb"
    with duckdb.connect(str(path)) as con:  # the schema before `kind` existed, with one run
        con.execute("CREATE TABLE runs (run_id VARCHAR PRIMARY KEY, created_at TIMESTAMP, bundle_version VARCHAR, "
                    "params_hash VARCHAR, git_rev VARCHAR, suite_hash VARCHAR, passed BOOLEAN, accepted BOOLEAN, "
                    "accepted_at TIMESTAMP, baseline_run_id VARCHAR, summary JSON)")
        con.execute("INSERT INTO runs VALUES ('old', '2026-11-19 04:30:00', 'v0', 'p', 'g', 's', TRUE, TRUE, "
                    "'2026-11-19 05:00:00', NULL, '{}')")
    store = RunStore(path)
    assert [(r.run_id, r.kind) for r in store.runs()] == [("old", "regression")]
    assert store.baseline() == "old"
    store.save_run(row("r1", "2026-11-20T04:30:00Z"), items(1.0))
    assert [r.run_id for r in store.runs()] == ["old", "r1"]
