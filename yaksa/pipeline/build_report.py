"""`data/processed/build_report.json`: what the last build published and what each stage cost.

    {"version": …, "counts": {…}, "total": …, "published": true,
     "stages": {"embed": {"seconds": 612.3, "cpu_seconds": 1180.9, "cpu_use": 1.93, "cores": 2,
                          "runner": "processes", "workers": 2, "finished": "2026-11-26T11:02:41Z"}, …}}

Why CPU seconds beside wall seconds: "is the build using the machine?" is the question a slow build
raises, and `cpu_use` (CPU seconds per wall second, up to `cores`) answers it per stage. CPU time is
this process's plus its reaped children's (`getrusage`), so a process pool's workers count once the
stage has joined them; the workers of a Dask cluster are separate processes this one never reaps,
so under `runner: dask` the batched stages' `cpu_seconds` is the driver's share only.

Each stage merges its own entry when it succeeds (a stage that `dvc repro` skipped keeps the entry of
the run that made its outputs, with its `finished` time); writes are atomic.
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from yaksa.atomicio import write_json
from yaksa.config import Settings


def cpu_seconds() -> float:
    """User + system CPU time of this process and of the children it has waited for."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def read_report(path: Path) -> dict[str, Any]:
    """The report so far; an unreadable one is started afresh (it is a record, not an input)."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def update_report(path: Path, **fields: Any) -> None:
    """Merge top-level fields (the index stage's version and counts), keeping every stage's timing."""
    report = read_report(path)
    report.update(fields)
    write_json(path, report)


def record_stage(path: Path, stage: str, timing: dict[str, Any]) -> None:
    report = read_report(path)
    stages = report.get("stages") if isinstance(report.get("stages"), dict) else {}
    stages[stage] = timing
    report["stages"] = stages
    write_json(path, report)


@contextmanager
def stage_clock(settings: Settings, stage: str) -> Iterator[None]:
    """Time one stage and record it in the build report when it succeeds."""
    wall, cpu = time.perf_counter(), cpu_seconds()
    yield
    seconds = time.perf_counter() - wall
    used = cpu_seconds() - cpu
    build = settings.build
    record_stage(settings.paths.build_report, stage, {
        "seconds": round(seconds, 2),
        "cpu_seconds": round(used, 2),
        "cpu_use": round(used / seconds, 2) if seconds > 0 else 0.0,
        "cores": os.cpu_count() or 1,
        "runner": build.runner,
        "workers": 1 if build.runner == "local" else (None if build.address else build.worker_count),
        "finished": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    })
