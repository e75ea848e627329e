"""Retrieval metrics over time: a DuckDB history of runs and the metrics file DVC compares.

Every evaluation appends one row per gold set to `retrieval_snapshots`, so "did recall drop after the
new tokenizer?" is one SQL query. The headline metrics are DOUBLE columns for plain SQL; the full
metric and parameter dicts are kept as JSON text next to them, so adding a metric needs no migration.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from yaksa.atomicio import write_json

TABLE = "retrieval_snapshots"
# metric key → column name (SQL identifiers cannot hold "@").
MAIN_METRICS: dict[str, str] = {
    "recall@1": "recall_at_1", "recall@5": "recall_at_5", "recall@10": "recall_at_10",
    "mrr@10": "mrr_at_10", "ndcg@10": "ndcg_at_10", "p@5": "p_at_5", "n": "n",
}
_DDL = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    ts TIMESTAMP NOT NULL, bundle_version VARCHAR NOT NULL, config VARCHAR NOT NULL,
    goldset VARCHAR NOT NULL, params VARCHAR NOT NULL, metrics VARCHAR NOT NULL,
    {", ".join(f"{col} DOUBLE" for col in MAIN_METRICS.values())}
)"""


def _finite(metrics: dict[str, Any], where: str) -> dict[str, float]:
    out = {}
    for key, value in metrics.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise ValueError(f"{where}: metric {key!r} must be a finite number, got {value!r}")
        out[str(key)] = float(value)
    return out


def write_snapshot(
    db_path: Path, *, bundle_version: str, config_name: str, goldset: str,
    params: dict, metrics: dict, timestamp: str | None = None,
) -> None:
    """Append one run to the history (creating the table on first use). `timestamp` is ISO 8601;
    default now (UTC, stored without zone)."""
    values = _finite(metrics, f"snapshot {config_name}/{goldset}")
    ts = datetime.fromisoformat(timestamp) if timestamp else datetime.now(UTC)
    if ts.tzinfo is not None:
        ts = ts.astimezone(UTC).replace(tzinfo=None)
    row = [ts, bundle_version, config_name, goldset,
           json.dumps(params, ensure_ascii=False, sort_keys=True, default=str),
           json.dumps(values, sort_keys=True)] + [values.get(key) for key in MAIN_METRICS]
    Path(db_path).parent.mkdir(parents=True, exist_ok=True)
    with duckdb.connect(str(db_path)) as con:
        con.execute(_DDL)
        con.execute(f"INSERT INTO {TABLE} VALUES ({', '.join('?' * len(row))})", row)


def read_snapshots(db_path: Path) -> list[dict[str, Any]]:
    """All rows, oldest first, with `params` and `metrics` decoded back into dicts."""
    if not Path(db_path).is_file():
        raise FileNotFoundError(f"{db_path}: snapshot database not found")
    with duckdb.connect(str(db_path), read_only=True) as con:
        cursor = con.execute(f"SELECT * FROM {TABLE} ORDER BY ts, rowid")
        names = [d[0] for d in cursor.description]
        rows = [dict(zip(names, values, strict=True)) for values in cursor.fetchall()]
    for row in rows:
        row["params"], row["metrics"] = json.loads(row["params"]), json.loads(row["metrics"])
    return rows


def write_dvc_metrics(path: Path, metrics: dict[str, dict[str, float]]) -> None:
    """`{goldset: {metric: value}}` rounded to 4 decimals, written atomically: the file
    `dvc metrics show/diff` reads, so rounding keeps diffs free of float noise."""
    out = {}
    for goldset, values in metrics.items():
        if not isinstance(values, dict):
            raise TypeError(f"{path}: metrics for {goldset!r} must be a dict of metric → number")
        out[goldset] = {k: round(v, 4) for k, v in _finite(values, f"{path} [{goldset}]").items()}
    write_json(path, out)
