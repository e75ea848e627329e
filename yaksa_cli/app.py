"""The `yaksa` command: one Typer app, each command group in a module of its own."""

from __future__ import annotations

import sys

import typer

from yaksa.host import configure_offline_env
from yaksa_cli import build, critique, data, db, evaluate, query, regress, serve

app = typer.Typer(add_completion=False, no_args_is_help=True, help="yaksa: Korean pharmacy QA — build, search, serve.")


@app.callback()
def _main() -> None:
    configure_offline_env()


app.command("link-data")(data.link_data)
app.command("build")(build.build_run)
app.command("search")(query.search)
app.add_typer(evaluate.eval_app, name="eval")
app.add_typer(regress.regress_app, name="regress")
app.command("critique")(critique.critique)
app.command("ask")(query.ask)
app.command("indexes")(build.indexes)
app.command("publish")(build.publish_cmd)
app.command("serve")(serve.serve)
app.add_typer(db.db_app, name="db")


def main() -> None:  # pragma: no cover - console entry point
    sys.exit(app())
