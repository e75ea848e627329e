"""The Prefect flow on a tiny project with no Prefect server (a temporary local one starts itself)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest
import yaml

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


def _manifest(indexes: Path, version: str) -> dict[str, str]:
    return json.loads((indexes / version / "manifest.json").read_text("utf-8"))["files"]


def _duckdb_rows(path: Path) -> dict[str, list[tuple]]:
    with duckdb.connect(str(path), read_only=True) as con:
        tables = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables ORDER BY 1").fetchall()]
        return {t: con.execute(f'SELECT * FROM "{t}" ORDER BY ALL').fetchall() for t in tables}


def test_a_two_worker_dask_cluster_builds_the_serial_bundle(tiny_project: Path, tmp_path: Path) -> None:
    """Tokenize and embed from empty caches on two Dask workers, in batches of one embedder call,
    against the serial session build (the default task sizes): the same bundle, file for file."""
    from distributed import Client, LocalCluster, get_task_stream

    from flows.build_index import build_flow, prefect_api_url

    root = tmp_path / "project"
    shutil.copytree(tiny_project, root, symlinks=True,
                    ignore=shutil.ignore_patterns("indexes", "cache", "embeddings", "tokens.parquet"))
    params_path = root / "params.yaml"
    params = yaml.safe_load(params_path.read_text("utf-8"))
    # a cluster at an address, as a real one: its workers report to the Prefect API named in their environment
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      env={"PREFECT_API_URL": prefect_api_url()}) as cluster, Client(cluster) as client:
        params["build"] = {"runner": "dask", "address": cluster.scheduler_address,
                           "tokenize_docs_per_task": 64, "embed_batches_per_task": 1}
        params_path.write_text(yaml.safe_dump(params, allow_unicode=True, sort_keys=False), "utf-8")
        settings = load_settings(params_path)
        with get_task_stream(client) as stream:
            report = build_flow(settings.build)(params=str(params_path), stages=["tokenize", "embed", "index"],
                                                publish=False)
        workers = {t["worker"] for t in stream.data}
    documents = report["tokenize"]["documents"]
    assert report["tokenize"]["tokenized"] == documents and report["embed"]["reused"] == 0
    assert len(stream.data) >= documents // 64 + documents // settings.embed.batch_size
    assert len(workers) == 2  # both workers took batches

    serial_indexes = load_settings(tiny_project / "params.yaml").paths.indexes
    serial = _manifest(serial_indexes, current_version(serial_indexes))
    dask = _manifest(settings.paths.indexes, report["index"]["version"])
    assert sorted(dask) == sorted(serial)
    for rel, digest in serial.items():
        if rel.endswith(".duckdb"):
            # DuckDB stamps a random database id into each file's header: equal rows, not equal bytes
            assert _duckdb_rows(settings.paths.indexes / report["index"]["version"] / rel) == \
                _duckdb_rows(serial_indexes / current_version(serial_indexes) / rel), rel
        else:
            assert dask[rel] == digest, rel


def test_task_runner_follows_the_build_settings() -> None:
    from prefect.task_runners import ThreadPoolTaskRunner
    from prefect_dask import DaskTaskRunner

    from flows.build_index import prefect_api_url, task_runner
    from yaksa.config import BuildParams
    from yaksa.host import WORKER_THREADS_ENV
    from yaksa.pipeline.process_pool import threads_per_worker

    threads = str(threads_per_worker(3))
    local = task_runner(BuildParams(runner="local"))
    assert isinstance(local, ThreadPoolTaskRunner) and local._max_workers == 1
    remote = task_runner(BuildParams(runner="dask", address="tcp://10.0.0.5:8786"))
    assert isinstance(remote, DaskTaskRunner) and remote.address == "tcp://10.0.0.5:8786"
    cluster = task_runner(BuildParams(runner="dask", workers=3))
    assert isinstance(cluster, DaskTaskRunner) and cluster.address is None
    assert cluster.cluster_kwargs["n_workers"] == 3 and cluster.cluster_kwargs["threads_per_worker"] == 1
    assert cluster.cluster_kwargs["env"] == {"PREFECT_API_URL": prefect_api_url(), WORKER_THREADS_ENV: threads,
                                             "OMP_NUM_THREADS": threads}
    pool = task_runner(BuildParams(runner="processes", workers=2))  # in the flow, a local cluster is the pool
    assert isinstance(pool, DaskTaskRunner) and pool.cluster_kwargs["n_workers"] == 2
