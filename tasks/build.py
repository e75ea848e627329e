"""Prefect tasks of the index build: thin, retried, logged wrappers over `yaksa.pipeline.stages`."""

from __future__ import annotations

from typing import Any

from prefect import get_run_logger, task

from yaksa.config import Settings
from yaksa.pipeline.stages import run_stage


def _run(stage: str, settings: Settings, **kwargs: Any) -> dict[str, Any]:
    logger = get_run_logger()
    logger.info("stage %s: starting", stage)
    summary = run_stage(stage, settings, **kwargs)
    logger.info("stage %s: %s", stage, summary)
    return summary


@task(name="generate-synthea", retries=1, retry_delay_seconds=5)
def generate_synthea(settings: Settings) -> dict[str, Any]:
    return _run("synthea", settings)


@task(name="ingest", retries=1, retry_delay_seconds=5)
def ingest(settings: Settings) -> dict[str, Any]:
    return _run("ingest", settings, progress=False)


@task(name="concepts", retries=1, retry_delay_seconds=5)
def concepts(settings: Settings) -> dict[str, Any]:
    return _run("concepts", settings)


@task(name="tokenize", retries=1, retry_delay_seconds=5)
def tokenize(settings: Settings) -> dict[str, Any]:
    return _run("tokenize", settings, progress=False)


@task(name="embed", retries=2, retry_delay_seconds=[5, 30])
def embed(settings: Settings) -> dict[str, Any]:
    # retried: a remote embedding endpoint may fail transiently; the cache keeps finished work
    return _run("embed", settings, progress=False)


@task(name="index-and-publish", retries=1, retry_delay_seconds=5)
def index(settings: Settings, publish: bool = True) -> dict[str, Any]:
    return _run("index", settings, publish=publish)
