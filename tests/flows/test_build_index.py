"""The Prefect flow on a tiny project with no Prefect server (a temporary local one starts itself)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import make_tiny_project
from yaksa.config import load_settings
from yaksa.index.publish import current_version

pytestmark = pytest.mark.slow


def test_build_index_flow_publishes_a_bundle(tmp_path: Path) -> None:
    from flows.build_index import build_index

    params = make_tiny_project(tmp_path, drug_rows=8)
    report = build_index(params=str(params))
    settings = load_settings(params)
    assert current_version(settings.paths.indexes) == report["index"]["version"]
    assert report["synthea"]["patients"] == 1
    assert report["embed"]["embedded"] > 0 and report["ingest"]


def test_rebuild_deployment_has_a_cron_schedule() -> None:
    from flows.deploy import REBUILD_CRON, rebuild_deployment

    deployment = rebuild_deployment("params.yaml")
    assert deployment.name == "rebuild-index"
    assert [s.schedule.cron for s in deployment.schedules] == [REBUILD_CRON]
