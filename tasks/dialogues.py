"""Prefect task of the multi-turn dialogue study: a thin wrapper over `yaksa.evaluation.dialogues.study`."""

from __future__ import annotations

from typing import Any

from prefect import get_run_logger, task

from yaksa.config import Settings
from yaksa.evaluation.dialogues.run import run_full_study
from yaksa.retrieval.loader import load_published


@task(name="dialogue-study")
def dialogue_study(settings: Settings, personas: int = 80, variants: list[str] | None = None,
                   trials: int | None = None) -> dict[str, Any]:
    logger = get_run_logger()
    loaded = load_published(settings.paths.indexes)
    try:
        return run_full_study(loaded, settings, personas_limit=personas, variants=variants, trials=trials,
                              progress=logger.info)
    finally:
        loaded.close()
