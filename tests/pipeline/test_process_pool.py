"""The `processes` build runner: batches in spawned workers capped at their share of the cores, the
same outputs as one process, failures raised in the driver, and the workers' CPU time counted."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest
import yaml

from yaksa.config import BuildParams, load_settings
from yaksa.host import WORKER_THREADS_ENV
from yaksa.pipeline.build_report import cpu_seconds, read_report
from yaksa.pipeline.process_pool import map_batches, threads_per_worker, uses_pool
from yaksa.pipeline.stages import run_stage

POOL = BuildParams(runner="processes", workers=2)


def where_am_i(item: int) -> tuple[int, int, str | None]:
    return item, os.getpid(), os.environ.get(WORKER_THREADS_ENV)


def burn(seconds: float) -> float:
    """Spend `seconds` of CPU time (not sleep): what the stage clock must see once the pool is joined."""
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass
    return seconds


def fail_on_three(item: int) -> int:
    if item == 3:
        raise ValueError("batch 3 is broken")
    return item


def test_threads_per_worker_shares_the_cores() -> None:
    assert threads_per_worker(2, cores=2) == 1
    assert threads_per_worker(2, cores=16) == 8
    assert threads_per_worker(4, cores=2) == 1  # never zero
    assert threads_per_worker(1, cores=4) == 4


def test_pool_only_where_it_pays() -> None:
    assert uses_pool(POOL, 3)
    assert not uses_pool(POOL, 1)
    assert not uses_pool(BuildParams(runner="local"), 10)
    assert not uses_pool(BuildParams(runner="processes", workers=1), 10)
    assert not uses_pool(BuildParams(runner="dask", workers=2), 10)  # dask batches run in the Prefect flow
    assert BuildParams(runner="processes").worker_count == (os.cpu_count() or 1)


def test_workers_are_other_processes_capped_at_their_share() -> None:
    results = sorted(map_batches(POOL, where_am_i, [(i,) for i in range(6)]))
    assert [r[0] for r in results] == list(range(6))
    assert all(pid != os.getpid() for _, pid, _ in results)
    assert {threads for _, _, threads in results} == {str(threads_per_worker(2))}


def test_local_runner_runs_in_this_process_in_order() -> None:
    results = list(map_batches(BuildParams(runner="local"), where_am_i, [(i,) for i in range(3)]))
    assert [r[0] for r in results] == [0, 1, 2]
    assert {pid for _, pid, _ in results} == {os.getpid()}


def test_a_failed_batch_is_raised_in_the_driver() -> None:
    with pytest.raises(ValueError, match="batch 3 is broken"):
        list(map_batches(POOL, fail_on_three, [(i,) for i in range(6)]))


def test_the_workers_cpu_time_is_counted_once_they_are_joined() -> None:
    before = cpu_seconds()
    assert sum(map_batches(POOL, burn, [(0.3,)] * 4)) == pytest.approx(1.2)
    assert cpu_seconds() - before >= 1.2


def _build_copy(tiny_project: Path, root: Path, build: dict[str, object]) -> Path:
    """Tokenize and embed the tiny project from empty caches with the runner `build` names."""
    shutil.copytree(tiny_project, root, symlinks=True,
                    ignore=shutil.ignore_patterns("indexes", "cache", "embeddings", "tokens.parquet",
                                                  "build_report.json"))
    params_path = root / "params.yaml"
    params = yaml.safe_load(params_path.read_text("utf-8"))
    params["build"] = build
    params_path.write_text(yaml.safe_dump(params, allow_unicode=True, sort_keys=False), "utf-8")
    settings = load_settings(params_path)
    for stage in ("tokenize", "embed"):
        run_stage(stage, settings, progress=False)
    return params_path


@pytest.mark.slow
def test_a_pool_of_two_builds_the_serial_bundle(tiny_project: Path, tmp_path: Path) -> None:
    """From empty caches, the batches in this process and in a pool of two (small tasks, so both
    workers take many): the same tokens and vectors, bit for bit, and every stage's time recorded."""
    import pyarrow.parquet as pq

    serial = load_settings(_build_copy(tiny_project, tmp_path / "serial", {"runner": "local"}))
    pooled = load_settings(_build_copy(tiny_project, tmp_path / "pooled", {
        "runner": "processes", "workers": 2, "tokenize_docs_per_task": 64, "embed_batches_per_task": 1}))
    assert pq.read_table(pooled.paths.tokens).equals(pq.read_table(serial.paths.tokens))
    matrices = sorted(serial.paths.embeddings.glob("*.npy"))
    assert len(matrices) == 4
    for matrix in matrices:
        assert np.array_equal(np.load(matrix), np.load(pooled.paths.embeddings / matrix.name)), matrix.name
    for settings, runner, workers in ((serial, "local", 1), (pooled, "processes", 2)):
        stages = read_report(settings.paths.build_report)["stages"]
        assert set(stages) == {"tokenize", "embed"}
        assert stages["embed"]["runner"] == runner and stages["embed"]["workers"] == workers
        assert stages["embed"]["seconds"] > 0 and stages["embed"]["cpu_seconds"] > 0


def test_workers_die_with_a_killed_driver(tmp_path: Path) -> None:
    """SIGKILL of the driver (an OOM kill, a cancelled CI job) takes its workers with it, mid-batch."""
    import signal
    import subprocess
    import sys

    import psutil

    repo = Path(__file__).resolve().parents[2]
    script = tmp_path / "driver.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(repo)!r})\n"
        "from tests.pipeline.test_process_pool import POOL, burn\n"
        "from yaksa.pipeline.process_pool import map_batches\n"
        "if __name__ == '__main__':  # spawn imports the main module again\n"
        "    list(map_batches(POOL, burn, [(120.0,)] * 2))\n", "utf-8")
    driver = subprocess.Popen([sys.executable, str(script)])
    try:
        deadline = time.monotonic() + 60
        workers: list[psutil.Process] = []
        while time.monotonic() < deadline and not (
                len(workers) == 2 and all(w.cpu_times().user > 1.0 for w in workers)):  # both mid-batch
            time.sleep(0.2)
            workers = [c for c in psutil.Process(driver.pid).children(recursive=True)
                       if "spawn_main" in " ".join(c.cmdline())]
        assert len(workers) == 2, "the pool did not start"
        driver.send_signal(signal.SIGKILL)
        driver.wait(10)
        _, alive = psutil.wait_procs(workers, timeout=15)
        assert not alive, f"workers outlived their driver: {[p.pid for p in alive]}"
    finally:
        if driver.poll() is None:
            driver.kill()
        for child in psutil.Process().children(recursive=True):
            if "spawn_main" in " ".join(child.cmdline()):
                child.kill()
