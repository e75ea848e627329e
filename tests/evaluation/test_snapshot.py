"""Snapshots land in a queryable DuckDB table; the DVC metrics file has the nested, rounded shape."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from yaksa.evaluation.snapshot import read_snapshots, write_dvc_metrics, write_snapshot

METRICS = {"recall@1": 0.5, "recall@5": 0.75, "recall@10": 0.8, "mrr@10": 0.61234567, "ndcg@10": 0.66,
           "p@5": 0.2, "n": 40.0, "extra@3": 0.1}


def test_two_snapshots_two_queryable_rows(tmp_path: Path) -> None:
    db = tmp_path / "eval" / "snapshots.duckdb"
    write_snapshot(db, bundle_version="v1", config_name="bm25", goldset="mfds_ko",
                   params={"k1": 1.5, "tokenizer": "kiwi"}, metrics=METRICS, timestamp="2026-01-01T10:00:00")
    write_snapshot(db, bundle_version="v2", config_name="hybrid", goldset="mfds_ko",
                   params={"weights": [0.3, 0.7]}, metrics={**METRICS, "mrr@10": 0.7},
                   timestamp="2026-01-02T10:00:00+09:00")
    rows = read_snapshots(db)
    assert [r["bundle_version"] for r in rows] == ["v1", "v2"]
    assert rows[1]["params"] == {"weights": [0.3, 0.7]}
    assert rows[0]["metrics"]["extra@3"] == 0.1  # metrics without a column survive in the JSON
    assert str(rows[1]["ts"]) == "2026-01-02 01:00:00"  # stored in UTC
    with duckdb.connect(str(db), read_only=True) as con:
        best = con.execute("SELECT config, mrr_at_10 FROM retrieval_snapshots ORDER BY mrr_at_10 DESC").fetchall()
        k1 = con.execute("SELECT json_extract(params, '$.k1')::DOUBLE FROM retrieval_snapshots "
                         "WHERE config = 'bm25'").fetchone()
    assert best == [("hybrid", 0.7), ("bm25", 0.61234567)]
    assert k1 == (1.5,)


def test_snapshot_refuses_non_numeric_metrics(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="'mrr@10' must be a finite number"):
        write_snapshot(tmp_path / "s.duckdb", bundle_version="v1", config_name="c", goldset="g",
                       params={}, metrics={"mrr@10": float("nan")})
    with pytest.raises(FileNotFoundError, match="not found"):
        read_snapshots(tmp_path / "missing.duckdb")


def test_dvc_metrics_shape(tmp_path: Path) -> None:
    path = tmp_path / "metrics" / "retrieval.json"
    write_dvc_metrics(path, {"mfds_ko": METRICS, "medquad_dev": {"ndcg@10": 0.123456789}})
    data = json.loads(path.read_text("utf-8"))
    assert set(data) == {"mfds_ko", "medquad_dev"}
    assert data["mfds_ko"]["mrr@10"] == 0.6123
    assert data["medquad_dev"] == {"ndcg@10": 0.1235}
    assert not list(path.parent.glob(".*.tmp"))  # atomic write left no temp file
    with pytest.raises(TypeError, match="must be a dict"):
        write_dvc_metrics(path, {"bad": 0.5})  # type: ignore[dict-item]
