"""`yaksa db upgrade`: the shared PostgreSQL store's schema, applied ahead of a rollout."""

from __future__ import annotations

import typer

from yaksa_cli.common import fail

db_app = typer.Typer(no_args_is_help=True, help="The shared PostgreSQL store ($YAKSA_DATABASE_URL).")


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Apply the schema migrations this code ships to the database `$YAKSA_DATABASE_URL` names.

    Every server applies them itself when it starts (`yaksa.store.postgres`); this is for applying
    them before a rollout, as a step of its own. Prints each migration applied (none: up to date).
    """
    import psycopg

    from yaksa.store import DATABASE_URL_ENV, database_url
    from yaksa.store.postgres import POOL_TIMEOUT_S, upgrade

    try:
        url = database_url()
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    if url is None:
        typer.echo(f"error: {DATABASE_URL_ENV} is not set (the SQLite files need no upgrade)", err=True)
        raise typer.Exit(2)
    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=int(POOL_TIMEOUT_S)) as con:
            applied = upgrade(con)
    except (psycopg.Error, RuntimeError) as exc:
        fail(exc)
    typer.echo("\n".join(f"applied {name}" for name in applied) or "schema up to date")
