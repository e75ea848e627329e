"""Prefect tasks of the index build: thin, retried, logged wrappers over `yaksa.pipeline`.

Whole stages are one task each. Tokenize and embed are three: a plan and a merge that run in the
flow's process (the driver), and a task per batch that the flow maps over its task runner — a
thread here, or a Dask worker anywhere (`flows/build_index.py`). Batch tasks neither cache nor
persist their results in Prefect: the content-hash caches are yaksa's, and the driver keeps them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict
from typing import Any

from prefect import get_run_logger, task
from prefect.cache_policies import NO_CACHE

from yaksa.config import Settings
from yaksa.pipeline import embed_stage, tokenize_stage
from yaksa.pipeline.batches import TextBatch
from yaksa.pipeline.embed_stage import EmbedderSpec, EmbedPlan, VectorBatch
from yaksa.pipeline.stages import run_stage
from yaksa.pipeline.tokenize_stage import TokenBatch, TokenizePlan, TokenizerSpec


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


@task(name="tokenize-plan", retries=1, retry_delay_seconds=5, cache_policy=NO_CACHE, persist_result=False)
def tokenize_plan(settings: Settings) -> TokenizePlan:
    plan = tokenize_stage.plan_tokenize(settings)
    get_run_logger().info("tokenize: %d documents, %d cached, %d batches",
                          len(plan.documents), len(plan.cached), len(plan.batches))
    return plan


@task(name="tokenize-batch", task_run_name="{batch.label}", retries=1, retry_delay_seconds=5,
      cache_policy=NO_CACHE, persist_result=False)
def tokenize_batch(spec: TokenizerSpec, batch: TextBatch) -> TokenBatch:
    return tokenize_stage.tokenize_batch(spec, batch)


@task(name="tokenize-merge", cache_policy=NO_CACHE, persist_result=False)
def tokenize_merge(settings: Settings, plan: TokenizePlan, results: Iterable[TokenBatch]) -> dict[str, Any]:
    summary = asdict(tokenize_stage.merge_tokens(settings, plan, results))
    get_run_logger().info("stage tokenize: %s", summary)
    return summary


@task(name="embed-plan", retries=1, retry_delay_seconds=5, cache_policy=NO_CACHE, persist_result=False)
def embed_plan(settings: Settings) -> EmbedPlan:
    plan = embed_stage.plan_embed(settings)
    get_run_logger().info("embed: %d documents, %d batches to embed (%s)",
                          len(plan.documents), len(plan.work), ", ".join(sorted(plan.ids.values())))
    return plan


# retried: a remote embedding endpoint may fail transiently; only the failed batch runs again
@task(name="embed-batch", task_run_name="{batch.label}", retries=2, retry_delay_seconds=[5, 30],
      cache_policy=NO_CACHE, persist_result=False)
def embed_batch(spec: EmbedderSpec, batch: TextBatch) -> VectorBatch:
    return embed_stage.embed_batch(spec, batch)


@task(name="embed-merge", cache_policy=NO_CACHE, persist_result=False)
def embed_merge(settings: Settings, plan: EmbedPlan, results: Iterable[VectorBatch]) -> dict[str, Any]:
    summary = asdict(embed_stage.merge_embeddings(settings, plan, results))
    get_run_logger().info("stage embed: %s", {k: v for k, v in summary.items() if k != "per_collection"})
    return summary


@task(name="index-and-publish", retries=1, retry_delay_seconds=5)
def index(settings: Settings, publish: bool = True) -> dict[str, Any]:
    return _run("index", settings, publish=publish)


@task(name="scope-model")
def scope(settings: Settings) -> dict[str, Any]:
    """The learned scope model on the published bundle's embedders (yaksa/scope/fit.py)."""
    return _run("scope", settings)
