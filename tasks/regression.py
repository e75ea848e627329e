"""Prefect task of the nightly quality regression: a thin wrapper over `yaksa.regression.nightly`."""

from __future__ import annotations

from prefect import get_run_logger, task

from yaksa.config import Settings
from yaksa.regression.nightly import RegressionOutcome, run_regression


@task(name="answer-regression")  # no retries: a failed gate is a verdict, not a transient error
def answer_regression(settings: Settings, per_category: int | None = None, judge: bool = True,
                      accept: bool = False) -> RegressionOutcome:
    logger = get_run_logger()
    return run_regression(settings, per_category=per_category, judge=judge, accept=accept, progress=logger.info)
