"""Build the index bundle: synthea → ingest → concepts → tokenize → embed → index (+ publish) → scope model.

Runs with no Prefect server (a temporary local one starts itself):

    python -m flows.build_index --params params.yaml
    python -m flows.build_index --runner dask --workers 2           # a local Dask cluster
    python -m flows.build_index --runner dask --address tcp://scheduler:8786

Each step is a task in `tasks/build.py` calling the same `yaksa` functions as `dvc repro` and
`yaksa build`. Tokenize and embed are planned on this process, mapped batch by batch over the flow's
task runner (`build.runner` in params.yaml: one thread here with `local`, else prefect-dask's DaskTaskRunner), and
merged here; BM25 is built once, in the index stage, from the merged tokens.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from yaksa.host import WORKER_THREADS_ENV, configure_offline_env

configure_offline_env()

from prefect import Flow, flow, get_client, unmapped
from prefect.futures import PrefectFuture, as_completed
from prefect.task_runners import TaskRunner, ThreadPoolTaskRunner
from prefect.utilities.annotations import quote

from tasks.build import (
    concepts,
    embed_batch,
    embed_merge,
    embed_plan,
    generate_synthea,
    index,
    ingest,
    scope,
    tokenize_batch,
    tokenize_merge,
    tokenize_plan,
)
from yaksa.config import BUILD_RUNNERS, BuildParams, Settings, load_settings
from yaksa.pipeline.build_report import stage_clock
from yaksa.pipeline.process_pool import threads_per_worker
from yaksa.pipeline.stages import STAGES


def _finished(futures: Sequence[PrefectFuture[Any]]) -> Iterator[Any]:
    """Batch results as they finish, so the driver merges (and flushes caches) while workers still run."""
    for future in as_completed(list(futures)):
        yield future.result()


# Plans and result streams are passed quote()d: Prefect would otherwise walk every element of a
# parameter looking for futures, ~10 s per 3,000 documents' cached tokens.


def _tokenize(settings: Settings) -> dict[str, Any]:
    with stage_clock(settings, "tokenize"):  # the whole stages are clocked by run_stage
        plan = tokenize_plan(settings)
        futures = tokenize_batch.map(unmapped(plan.spec), plan.batches)
        return tokenize_merge(settings, quote(plan), quote(_finished(futures)))


def _embed(settings: Settings) -> dict[str, Any]:
    with stage_clock(settings, "embed"):
        plan = embed_plan(settings)
        futures = embed_batch.map([spec for spec, _ in plan.work], [batch for _, batch in plan.work])
        return embed_merge(settings, quote(plan), quote(_finished(futures)))


# local: batches one after another in this process (Kiwi and the embedders use every core anyway)
LOCAL_RUNNER_THREADS = 1


@flow(name="build-index", log_prints=True, task_runner=ThreadPoolTaskRunner(max_workers=LOCAL_RUNNER_THREADS))
def build_index(
    params: str = "params.yaml", synthea: bool = True, publish: bool = True, stages: list[str] | None = None
) -> dict[str, Any]:
    """`stages` (default: all) run in pipeline order; `synthea=False` reuses data/raw/synthea as it is."""
    unknown = set(stages or ()) - set(STAGES)
    if unknown:
        raise ValueError(f"unknown stages {sorted(unknown)}; stages: {', '.join(STAGES)}")
    todo = [s for s in STAGES if (stages is None or s in stages) and (synthea or s != "synthea")]
    settings = load_settings(Path(params))
    report: dict[str, Any] = {}
    if "synthea" in todo:
        report["synthea"] = generate_synthea(settings)
    if "ingest" in todo:
        report["ingest"] = ingest(settings)
    if "concepts" in todo:
        report["concepts"] = concepts(settings)
    if "tokenize" in todo:
        report["tokenize"] = _tokenize(settings)
    if "embed" in todo:
        report["embed"] = _embed(settings)
    if "index" in todo:
        report["index"] = index(settings, publish=publish)
        version = report["index"]["version"]
        print(f"published bundle {version}" if publish else f"built {version}")
    if "scope" in todo and publish:   # fitted on the published bundle's embedders
        report["scope"] = scope(settings)
    return report


def task_runner(build: BuildParams) -> TaskRunner:
    """local: the flow's own thread pool; dask: a task per Dask worker thread, on the scheduler at
    `address` or on a local cluster of `workers` processes started (and stopped) with the flow run;
    processes: such a local cluster too (in the flow, Dask is the process pool)."""
    if build.runner == "local":
        return ThreadPoolTaskRunner(max_workers=LOCAL_RUNNER_THREADS)
    from prefect_dask import DaskTaskRunner

    if build.address:
        return DaskTaskRunner(address=build.address)
    workers = build.worker_count
    threads = str(threads_per_worker(workers))  # each worker's engines on its share of the cores
    return DaskTaskRunner(
        cluster_kwargs={
            "n_workers": workers,
            "threads_per_worker": 1,  # a model call already uses a worker's cores; more threads only contend
            "processes": True,
            "dashboard_address": None,  # no dashboard: a batch build needs none
            "env": {"PREFECT_API_URL": prefect_api_url(), WORKER_THREADS_ENV: threads, "OMP_NUM_THREADS": threads},
        }
    )


def prefect_api_url() -> str:
    """The Prefect API this process reports to, starting the temporary server if there is none.

    Task runs on a Dask worker report to the API in the worker's environment; a worker without
    PREFECT_API_URL would start a temporary server of its own (another ~200 MB process per worker,
    its task runs apart from the flow's). A local cluster's workers get this process's URL; the
    workers of a cluster at an address need PREFECT_API_URL set where they run (README: The build).
    """
    with get_client(sync_client=True) as client:
        return str(client.api_url)


def build_flow(build: BuildParams) -> Flow[..., dict[str, Any]]:
    """The flow bound to the task runner that `build` names (a task runner is fixed per flow run).

    `yaksa build --runner dask` calls this by import string: the yaksa package never imports Prefect."""
    return build_index.with_options(task_runner=task_runner(build))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--params", default="params.yaml")
    parser.add_argument("--skip-synthea", action="store_true", help="reuse data/raw/synthea as it is")
    parser.add_argument("--no-publish", action="store_true")
    parser.add_argument("--runner", choices=BUILD_RUNNERS, help="default: build.runner in params.yaml")
    parser.add_argument("--address", help="Dask scheduler address (tcp://host:8786); implies --runner dask")
    parser.add_argument("--workers", type=int, help="workers of a local cluster (0 = one per core)")
    args = parser.parse_args()
    try:
        build = load_settings(Path(args.params)).build.overridden(args.runner, args.address, args.workers)
    except ValueError as exc:  # ConfigError included: a bad params file or flag combination
        parser.error(str(exc))
    build_flow(build)(params=args.params, synthea=not args.skip_synthea, publish=not args.no_publish)


if __name__ == "__main__":
    main()
