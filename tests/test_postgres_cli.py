"""`yaksa db upgrade`: applies the shared store's migrations once; clear errors without a usable URL."""

from __future__ import annotations

import socket

from typer.testing import CliRunner

from yaksa_cli import app

runner = CliRunner()


def test_postgres_db_upgrade_applies_the_migrations_once(postgres_url: str) -> None:
    first = runner.invoke(app, ["db", "upgrade"], env={"YAKSA_DATABASE_URL": postgres_url})
    assert first.exit_code == 0, first.output
    assert "applied 0001_shared_store.sql" in first.output
    again = runner.invoke(app, ["db", "upgrade"], env={"YAKSA_DATABASE_URL": postgres_url})
    assert again.exit_code == 0 and again.output.strip() == "schema up to date"


def test_postgres_db_upgrade_without_a_usable_url_is_a_clear_error() -> None:
    unset = runner.invoke(app, ["db", "upgrade"], env={"YAKSA_DATABASE_URL": ""})
    assert unset.exit_code == 2 and "YAKSA_DATABASE_URL is not set" in unset.output
    wrong = runner.invoke(app, ["db", "upgrade"], env={"YAKSA_DATABASE_URL": "mysql://u:hunter2@h/db"})
    assert wrong.exit_code == 2 and "postgresql://" in wrong.output and "hunter2" not in wrong.output
    with socket.socket() as sock:       # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    down = runner.invoke(app, ["db", "upgrade"], env={"YAKSA_DATABASE_URL": f"postgresql://u@127.0.0.1:{port}/db"})
    assert down.exit_code == 1 and down.output.startswith("error:")
