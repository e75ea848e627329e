"""`yaksa serve`: the Litestar service under uvicorn, N workers following the published bundle."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from yaksa.config import ConfigError
from yaksa_cli.common import load_params

APP = "serving.app:create_app"   # the factory each worker calls


def serve(
    host: Annotated[str, typer.Option()] = "127.0.0.1",
    port: Annotated[int, typer.Option()] = 8000,
    workers: Annotated[int, typer.Option(min=1)] = 1,
    shared_socket: Annotated[bool, typer.Option(
        "--shared-socket", help="all workers accept from one socket (uvicorn's way; the baseline of "
        "benchmarks/worker_spread.py) instead of one SO_REUSEPORT socket each")] = False,
    params: Annotated[Path | None, typer.Option(
        "--params", "-p", help="params.yaml of the project (default: $YAKSA_PARAMS, else ./params.yaml)")] = None,
) -> None:
    """Serve the published bundle over HTTP (Litestar under uvicorn).

    Every worker follows indexes/CURRENT by itself; the workers of one run share their rate-limit
    buckets through one SQLite file (`$YAKSA_RATE_FILE`, else a fresh one in a temporary directory
    removed at exit), so N workers still allow each key its limit once, and their metrics through one
    directory (`$PROMETHEUS_MULTIPROC_DIR`, else a fresh one there), so GET /metrics on any worker
    reports all of them. Logs are JSON lines on stderr (serving.logs). With `$YAKSA_DATABASE_URL` the
    rate-limit buckets, profiles, history and response cache live in that PostgreSQL database instead
    of this host's files, shared with every host that names it (README: One host or several). With
    N > 1 each worker listens on its own SO_REUSEPORT socket (serving.reuseport), so the kernel spreads
    connections over the workers instead of the first one awake taking them all.
    """
    import os
    import tempfile

    import uvicorn

    from serving import reuseport
    from serving.config import (
        HTTP_PROTOCOL,
        MULTIPROC_ENV,
        PARAMS_ENV,
        RATE_FILE_ENV,
        WORKER_HEALTHCHECK_S,
        params_path,
    )
    from serving.logs import uvicorn_log_config
    from yaksa import environment
    from yaksa.store import database_url

    try:
        path = params_path(params)
    except ConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    load_params(path)  # fail here, with a clear message, rather than in every worker
    try:
        shared = database_url() is not None
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    os.environ[PARAMS_ENV] = str(path.resolve())  # what each worker's create_app reads
    own_rate_file = not shared and not environment.value(RATE_FILE_ENV)
    own_metrics_dir = not environment.value(MULTIPROC_ENV)
    with tempfile.TemporaryDirectory(prefix="yaksa-serve-") as run_dir:
        if own_rate_file:
            os.environ[RATE_FILE_ENV] = str(Path(run_dir) / "ratelimit.sqlite")
        if own_metrics_dir:  # before any worker imports prometheus_client: the mode is fixed at import
            (Path(run_dir) / "metrics").mkdir()
            os.environ[MULTIPROC_ENV] = str(Path(run_dir) / "metrics")
        # uvicorn's access log is off: the service logs each request itself, without the path (serving.observe)
        options = {"factory": True, "host": host, "port": port, "workers": workers,
                   "timeout_worker_healthcheck": WORKER_HEALTHCHECK_S, "http": HTTP_PROTOCOL,
                   "log_config": uvicorn_log_config(), "access_log": False}
        try:
            if workers > 1 and reuseport.AVAILABLE and not shared_socket:   # one socket per worker: connections spread over them
                try:
                    reuseport.run_workers(uvicorn.Config(APP, **options))
                except OSError as exc:
                    typer.echo(f"error: cannot listen on {host}:{port}: {exc}", err=True)
                    raise typer.Exit(1) from exc
                except KeyboardInterrupt:
                    pass
            else:
                uvicorn.run(APP, **options)
        finally:
            if own_rate_file:
                del os.environ[RATE_FILE_ENV]  # the file goes with this run
            if own_metrics_dir:
                del os.environ[MULTIPROC_ENV]  # the directory too
