"""A real PostgreSQL server for the tests: Debian's binaries, one server per test session.

Why real: the shared store's guarantees (advisory locks, transactions, what another connection
sees) are the server's; a mock would test the mock. Tests that use it have `postgres` in their
names (`pytest -k postgres` runs them alone); they are skipped only where no PostgreSQL server
binaries are installed (`apt-get install postgresql`; `.ci/run` installs them).

initdb and postgres refuse to run as root, so as root the server runs as the `postgres` system
user (else `nobody`) in a temporary directory it owns; as anyone else, as that user. It listens on
127.0.0.1 only, on a free port, with trust authentication and fsync off (test data, thrown away).
Each test gets its own database (`postgres_url`), dropped after it.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

SERVER_USER = "yaksa"
START_TIMEOUT_S = 60


def _bin_dir() -> Path | None:
    """Where initdb and pg_ctl are: on PATH, else Debian's versioned directory (the newest)."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                      key=lambda p: int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0)
    return Path(versions[-1]).parent if versions else None


def _run_as() -> list[str]:
    """The command prefix that drops root (module doc); empty when not root."""
    if os.geteuid() != 0:
        return []
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return ["runuser", "-u", name, "--"]
    raise RuntimeError("running as root with neither a postgres nor a nobody user to run PostgreSQL as")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class PostgresServer:
    port: int
    _names: Iterator[int]

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SERVER_USER}@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        """A fresh empty database; its URL."""
        name = f"test_{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True) as con:
            con.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        name = url.rsplit("/", 1)[1]
        with psycopg.connect(self.url(), autocommit=True) as con:
            con.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    bin_dir = _bin_dir()
    if bin_dir is None:
        pytest.skip("PostgreSQL server binaries are not installed (apt-get install postgresql)")
    prefix = _run_as()
    root = Path(tempfile.mkdtemp(prefix="yaksa-pg-"))
    data, sockets, log = root / "data", root / "run", root / "server.log"
    if prefix:
        user = pwd.getpwnam(prefix[2])
        os.chown(root, user.pw_uid, user.pw_gid)
    subprocess.run([*prefix, "mkdir", "-p", str(sockets)], check=True)
    subprocess.run([*prefix, str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", SERVER_USER,
                    "-E", "UTF8", "--locale=C", "--no-sync"], check=True, capture_output=True)
    port = _free_port()
    options = (f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off "
               "-c full_page_writes=off -c max_connections=300")
    started = subprocess.run([*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(log), "-w",
                              "-t", str(START_TIMEOUT_S), "-o", options, "start"], check=False,
                             capture_output=True, text=True)
    if started.returncode != 0:
        detail = log.read_text(errors="replace")[-2000:] if log.exists() else started.stderr
        shutil.rmtree(root, ignore_errors=True)
        raise RuntimeError(f"PostgreSQL did not start: {detail}")
    try:
        yield PostgresServer(port, itertools.count(1))
    finally:
        subprocess.run([*prefix, str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                       check=False, capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture()
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """A fresh database on the session's server; this process's pools closed and it dropped after."""
    from yaksa.store import postgres

    url = postgres_server.create_database()
    try:
        yield url
    finally:
        postgres.close_pools()
        postgres_server.drop_database(url)
