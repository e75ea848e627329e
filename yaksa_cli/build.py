"""`yaksa build`, `yaksa indexes`, `yaksa publish`: the offline build and the published bundle.

DVC stages and the Prefect tasks call the same `yaksa.pipeline` / `yaksa.corpus` functions that these
commands call, so every way of building runs one code path.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from yaksa.pipeline.stages import STAGES, run_stage
from yaksa_cli.common import ParamsOpt, fail, load_params, published_bundle


def build_run(
    stage: Annotated[str, typer.Argument(help=f"one of {', '.join(STAGES)}, or 'all'")],
    params: ParamsOpt = Path("params.yaml"),
    no_publish: Annotated[bool, typer.Option("--no-publish", help="index: write the bundle, leave CURRENT")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress bars")] = False,
    runner: Annotated[str | None, typer.Option(
        help="local | processes | dask: where tokenize/embed batches run (default: build.runner in params.yaml)")] = None,
    address: Annotated[str | None, typer.Option(
        help="Dask scheduler address, e.g. tcp://host:8786 (implies --runner dask)")] = None,
    workers: Annotated[int | None, typer.Option(
        min=0, help="worker processes of the local pool or Dask cluster, 0 = one per core (a pool unless --runner dask)")] = None,
) -> None:
    """Run one offline build stage, or `all` in order (what dvc.yaml calls; no Prefect needed).

    With the dask runner the stages run as the Prefect flow `flows.build_index` on prefect-dask's
    DaskTaskRunner; the batches are the same.
    """
    s = load_params(params)
    if stage != "all" and stage not in STAGES:
        fail(ValueError(f"unknown stage {stage!r}; stages: {', '.join(STAGES)}, all"))
    try:
        build = s.build.overridden(runner, address, workers)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    stages = STAGES if stage == "all" else (stage,)
    if build.runner == "dask":
        from flows.build_index import build_flow  # Prefect is imported only when a build runs on Dask

        try:
            report = build_flow(build)(params=str(params), stages=list(stages), publish=not no_publish)
        except Exception as exc:  # noqa: BLE001 - the CLI boundary: any stage error becomes one clear line
            fail(exc)
        for name in stages:
            typer.echo(f"[{name}] " + json.dumps(report[name], ensure_ascii=False, default=str))
        return
    for name in stages:
        try:
            summary = run_stage(name, s, progress=not quiet, publish=not no_publish)
        except Exception as exc:  # noqa: BLE001 - the CLI boundary: any stage error becomes one clear line
            fail(exc)
        typer.echo(f"[{name}] " + json.dumps(summary, ensure_ascii=False, default=str))


def indexes(params: ParamsOpt = Path("params.yaml")) -> None:
    """List bundle versions; the published one is marked with *."""
    from yaksa.index.publish import current_version, list_versions

    s = load_params(params)
    current = current_version(s.paths.indexes)
    for v in list_versions(s.paths.indexes):
        typer.echo(f"{'*' if v == current else ' '} {v}")


def publish_cmd(version: str, params: ParamsOpt = Path("params.yaml")) -> None:
    """Point CURRENT at an existing version (e.g. roll back) after re-checking it."""
    from yaksa.index.publish import publish
    from yaksa.pipeline.sanity import check_bundle

    s = load_params(params)
    try:
        with published_bundle(s, version) as loaded:  # opened and checked: it loads at all
            tokenizer, embedders = loaded.tokenizer, loaded.embedders
        publish(
            s.paths.indexes,
            version,
            check=lambda b: check_bundle(b, tokenizer, embedders),
            keep=max(s.index.keep_versions, 1),
        )
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        fail(exc)
    typer.echo(f"CURRENT -> {version}")
