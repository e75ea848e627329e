"""What every command shares: the --params option, loading it, one clear error line, the published bundle."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from yaksa.config import ConfigError, Settings, load_settings

if TYPE_CHECKING:  # the bundle loader pulls in the embedders: only commands that search pay for it
    from yaksa.retrieval.loader import LoadedBundle

ParamsOpt = Annotated[Path, typer.Option("--params", "-p", help="params.yaml of the project")]


def load_params(params: Path) -> Settings:
    """The project's settings, or exit 2 with the file's problem on one line."""
    try:
        return load_settings(params)
    except ConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc


def fail(exc: Exception) -> NoReturn:
    """The CLI boundary: any error becomes one `error: …` line on stderr and exit code 1."""
    typer.echo(f"error: {exc}", err=True)
    raise typer.Exit(1) from exc


@contextmanager
def published_bundle(settings: Settings, version: str | None = None) -> Iterator[LoadedBundle]:
    """The published bundle (or `version`), closed when the command is done with it."""
    from yaksa.retrieval.loader import load_published

    loaded = load_published(settings.paths.indexes, version)
    try:
        yield loaded
    finally:
        loaded.close()
