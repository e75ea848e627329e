"""Run history in DuckDB: one row per run, one per item, and which run is the baseline.

Why DuckDB: the report's history plot, the gate's pairing and ad-hoc questions ("when did
number_grounding on conversations start to drop?") are all SQL over the same two tables, in one file
next to the other project data, with no server. A run is written in one transaction after it has
finished, so a crashed night leaves no half run behind; the baseline is the most recently accepted
run (`accept`), so rolling back means accepting an older run again.

Other evaluations keep their snapshots in the same two tables under their own `kind` (the dialogue
study: kind "dialogues", one item per answered turn, `passed` NULL since nothing gates it), so one SQL
query can set them beside the regression runs; the baseline and the history only ever read `kind`
"regression". Older files get the column on open (their runs are regression runs).

    runs(run_id, created_at, bundle_version, params_hash, git_rev, suite_hash, passed, accepted,
         accepted_at, baseline_run_id, summary JSON, kind)
    items(run_id, item_id, category, question, answer, latency_ms, llm_calls, error, metrics JSON,
          record JSON)   -- record: contexts, citations, gold ids, trace, checks
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id VARCHAR PRIMARY KEY, created_at TIMESTAMP, bundle_version VARCHAR, params_hash VARCHAR,
    git_rev VARCHAR, suite_hash VARCHAR, passed BOOLEAN, accepted BOOLEAN, accepted_at TIMESTAMP,
    baseline_run_id VARCHAR, summary JSON
);
CREATE TABLE IF NOT EXISTS items (
    run_id VARCHAR, item_id VARCHAR, category VARCHAR, question VARCHAR, answer VARCHAR,
    latency_ms DOUBLE, llm_calls INTEGER, error VARCHAR, metrics JSON, record JSON,
    PRIMARY KEY (run_id, item_id)
);
ALTER TABLE runs ADD COLUMN IF NOT EXISTS kind VARCHAR DEFAULT 'regression';
"""
REGRESSION = "regression"  # the nightly runs' kind: the only one with a baseline


@dataclass(frozen=True)
class RunRow:
    run_id: str
    created_at: str
    bundle_version: str
    params_hash: str
    git_rev: str
    suite_hash: str
    passed: bool | None            # None: a kind of run that nothing gates
    accepted: bool
    baseline_run_id: str | None
    summary: dict[str, Any]
    kind: str = REGRESSION


def _finite(metrics: Mapping[str, float]) -> dict[str, float]:
    """NaN is not JSON: a metric that did not apply is left out of the stored row."""
    return {k: float(v) for k, v in metrics.items() if isinstance(v, (int, float)) and math.isfinite(v)}


class RunStore:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as con:
            con.execute(SCHEMA)

    def _connect(self) -> duckdb.DuckDBPyConnection:
        return duckdb.connect(str(self.path))

    def save_run(self, run: RunRow, items: Sequence[Mapping[str, Any]]) -> None:
        """The run and its items in one transaction (items: `ItemRecord.to_row()` dicts)."""
        with self._connect() as con:
            con.execute("BEGIN")
            try:
                con.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)",
                            [run.run_id, run.created_at, run.bundle_version, run.params_hash, run.git_rev,
                             run.suite_hash, run.passed, False, run.baseline_run_id,
                             json.dumps(run.summary, ensure_ascii=False), run.kind])
                con.executemany(
                    "INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [[run.run_id, r["item_id"], r["category"], r["question"], r["answer"], r["latency_ms"],
                      r["llm_calls"], r["error"], json.dumps(_finite(r["metrics"])),
                      json.dumps({k: v for k, v in r.items() if k not in ("metrics",)}, ensure_ascii=False,
                                 default=str)]
                     for r in items])
                con.execute("COMMIT")
            except Exception:
                con.execute("ROLLBACK")
                raise

    def accept(self, run_id: str) -> None:
        """Make `run_id` the baseline the next runs are compared with."""
        with self._connect() as con:
            found = con.execute("SELECT count(*) FROM runs WHERE run_id = ? AND kind = ?", [run_id, REGRESSION]).fetchone()
            if not found or not found[0]:
                raise KeyError(f"no regression run {run_id!r} in {self.path}")
            con.execute("UPDATE runs SET accepted = TRUE, accepted_at = ? WHERE run_id = ?",
                        [datetime.now(UTC).replace(tzinfo=None), run_id])

    def baseline(self) -> str | None:
        """The most recently accepted run."""
        with self._connect() as con:
            row = con.execute("SELECT run_id FROM runs WHERE accepted AND kind = ? "
                              "ORDER BY accepted_at DESC, created_at DESC LIMIT 1", [REGRESSION]).fetchone()
        return row[0] if row else None

    def scores(self, run_id: str) -> dict[str, dict[str, float]]:
        """item_id -> metric -> value of one run (what the gate pairs)."""
        with self._connect() as con:
            rows = con.execute("SELECT item_id, metrics FROM items WHERE run_id = ?", [run_id]).fetchall()
        return {item_id: json.loads(metrics) for item_id, metrics in rows}

    def items(self, run_id: str) -> dict[str, dict[str, Any]]:
        """item_id -> {category, question, answer} of one run (the report's side-by-side)."""
        with self._connect() as con:
            rows = con.execute("SELECT item_id, category, question, answer FROM items WHERE run_id = ?",
                               [run_id]).fetchall()
        return {r[0]: {"category": r[1], "question": r[2], "answer": r[3]} for r in rows}

    def runs(self, limit: int = 30, kind: str = REGRESSION) -> list[RunRow]:
        """The latest runs of one kind, oldest first (the history plot)."""
        with self._connect() as con:
            rows = con.execute(
                "SELECT run_id, strftime(created_at, '%Y-%m-%dT%H:%M:%SZ'), bundle_version, params_hash, git_rev, "
                "suite_hash, passed, accepted, baseline_run_id, summary, kind FROM runs WHERE kind = ? "
                "ORDER BY created_at DESC LIMIT ?", [kind, limit]).fetchall()
        return [RunRow(r[0], r[1], r[2], r[3], r[4], r[5], None if r[6] is None else bool(r[6]), bool(r[7]), r[8],
                       json.loads(r[9] or "{}"), r[10]) for r in reversed(rows)]
