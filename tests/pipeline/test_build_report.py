"""The build report: each stage merges its own time, the index stage's fields keep them, and a
failed stage records nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yaksa.config import BuildParams, load_settings
from yaksa.pipeline.build_report import read_report, record_stage, stage_clock, update_report


def _settings(tmp_path: Path, build: str = "build: {runner: local}\n"):
    params = tmp_path / "params.yaml"
    params.write_text(build, "utf-8")
    return load_settings(params)


def test_stages_and_index_fields_merge_without_losing_each_other(tmp_path: Path) -> None:
    path = tmp_path / "build_report.json"
    record_stage(path, "embed", {"seconds": 2.0})
    update_report(path, version="v1", counts={"drugs": 3}, total=3, published=True)
    record_stage(path, "scope", {"seconds": 1.0})
    report = json.loads(path.read_text("utf-8"))
    assert report["version"] == "v1" and report["total"] == 3
    assert set(report["stages"]) == {"embed", "scope"}


def test_an_unreadable_report_is_started_afresh(tmp_path: Path) -> None:
    path = tmp_path / "build_report.json"
    path.write_text("{not json", "utf-8")
    assert read_report(path) == {}
    record_stage(path, "ingest", {"seconds": 1.0})
    assert read_report(path) == {"stages": {"ingest": {"seconds": 1.0}}}


def test_stage_clock_records_wall_and_cpu_time_of_a_stage(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    with stage_clock(settings, "tokenize"):
        sum(i * i for i in range(300_000))   # some CPU time
    entry = read_report(settings.paths.build_report)["stages"]["tokenize"]
    assert entry["seconds"] > 0 and entry["cpu_seconds"] > 0
    assert entry["runner"] == "local" and entry["workers"] == 1 and entry["finished"].endswith("Z")
    assert 0 < entry["cpu_use"] <= entry["cores"] + 0.5


def test_a_failed_stage_records_nothing(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    with pytest.raises(RuntimeError), stage_clock(settings, "embed"):
        raise RuntimeError("embedder crashed")
    assert "embed" not in read_report(settings.paths.build_report).get("stages", {})


def test_a_pool_records_its_workers(tmp_path: Path) -> None:
    settings = _settings(tmp_path, "build: {runner: processes, workers: 3}\n")
    assert settings.build == BuildParams(runner="processes", workers=3)
    with stage_clock(settings, "embed"):
        pass
    assert read_report(settings.paths.build_report)["stages"]["embed"]["workers"] == 3
