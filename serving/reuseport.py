"""One listening socket per worker (SO_REUSEPORT), so the kernel spreads connections over the workers.

Why: `uvicorn --workers N` binds one socket in the supervisor and every worker accepts from it. asyncio
accepts up to `backlog` connections per wake-up, so the worker that wakes first takes every connection
that is waiting: a client opening 8 keep-alive connections at once had most or all of them served by one
worker while the other idled (issue 25: "connections land on one worker"), and a keep-alive connection
stays where it landed. With SO_REUSEPORT each worker binds its own socket to the same address and the
kernel hashes each new connection to one of them, so N workers share connections about evenly.

How: the supervisor first binds the address plainly and lets it go (a port in use fails there, with one
clear error, not once per worker), then runs uvicorn's own `Multiprocess` supervisor (restarts, health
checks) with no shared socket and a `Process` whose target binds the worker's own socket. A worker that
dies takes its socket with it; connections hashed to it while it is down are refused until the
supervisor's replacement binds again (uvicorn restarts it at once).

Only on Linux, where the kernel balances a SO_REUSEPORT group (macOS and the BSDs accept the option
but do not spread connections over the group); elsewhere `yaksa serve` keeps uvicorn's shared socket.
Sockets with SO_REUSEPORT can only join a group of the same user's sockets.
"""

from __future__ import annotations

import logging
import socket
import sys

from uvicorn import Config
from uvicorn.config import STARTUP_FAILURE
from uvicorn.supervisors import multiprocess
from uvicorn.supervisors.multiprocess import Multiprocess, Process

AVAILABLE = sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def _family(host: str) -> socket.AddressFamily:
    """IPv6 for an address with a colon ("::1"), IPv4 otherwise: as uvicorn's `Config.bind_socket`."""
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def check_free(host: str, port: int) -> None:
    """Bind (host, port) without SO_REUSEPORT and let it go: OSError (EADDRINUSE ...) if it is taken,
    by anything, including another server that uses SO_REUSEPORT itself."""
    with socket.socket(_family(host), socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))


def reuseport_socket(host: str, port: int) -> socket.socket:
    """This worker's own listening socket on (host, port), one of a SO_REUSEPORT group (asyncio's
    `create_server` puts it in the listening state)."""
    sock = socket.socket(_family(host), socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


class ReusePortProcess(Process):  # type: ignore[misc]
    """uvicorn's worker process, serving from a socket it binds itself instead of the supervisor's."""

    def target(self, sockets: list[socket.socket] | None = None) -> None:  # pragma: no cover - a child
        try:
            own = reuseport_socket(self.config.host, self.config.port)
        except OSError as exc:   # a startup failure: the supervisor stops instead of restarting it forever
            logging.getLogger("uvicorn.error").error("cannot bind %s:%s: %s", self.config.host, self.config.port, exc)
            sys.exit(STARTUP_FAILURE)
        super().target([own])


def run_workers(config: Config) -> None:
    """Run `config.workers` workers under uvicorn's supervisor, each on its own SO_REUSEPORT socket.
    OSError when the address is taken (module doc)."""
    check_free(config.host, config.port)
    # uvicorn's supervisor creates its workers by this module-level name (at start and on restarts)
    multiprocess.Process = ReusePortProcess  # type: ignore[misc]
    try:
        Multiprocess(config, sockets=[]).run()
    finally:
        multiprocess.Process = Process  # type: ignore[misc]
