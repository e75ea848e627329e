"""`yaksa link-data`: the shared data folders linked into data/raw."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from yaksa_cli.common import ParamsOpt, load_params


def link_data(
    params: ParamsOpt = Path("params.yaml"),
    shared: Annotated[Path | None, typer.Option(help="shared data folder (default ../shared/data)")] = None,
) -> None:
    """Symlink ../shared/data folders into data/raw (nothing is copied)."""
    from yaksa.pipeline.rawdata import default_shared_dir, link_shared_data

    s = load_params(params)
    shared_dir = shared or default_shared_dir(s.paths.root)
    linked, missing = link_shared_data(s.paths.raw, shared_dir)
    typer.echo(f"linked into {s.paths.raw.relative_to(s.paths.root)}: {', '.join(linked) or 'nothing'}")
    if missing:
        typer.echo(
            f"not found in {shared_dir}: {', '.join(missing)} — only the sources present "
            "(and the generated Synthea cases) will be indexed"
        )
