"""uvicorn's HTTP protocol with TCP_NODELAY on every connection and a deadline for reading a request.

Why TCP_NODELAY: with `--workers N` uvicorn binds the listening socket itself as `socket.socket(AF_INET)`
(proto 0), and asyncio sets TCP_NODELAY only on accepted sockets whose proto is IPPROTO_TCP. So every
keep-alive response (written in more than one send) waited for the client's delayed ACK: 48 ms per
request instead of 5 ms (`/v1/search` at concurrency 1 on 2 workers: 20 req/s). One worker binds
through `loop.create_server`, whose sockets carry the proto, and was never affected.

Why a read deadline: uvicorn arms its keep-alive timeout only after a response, so a connection that
sends nothing, or half a request line, headers or body and then waits, was held open for as long as
the client liked (a probe kept idle and half-sent connections past 40 s): enough of them exhaust the
server's sockets without ever reaching the app. Here a connection must deliver each whole request
(line, headers and body) within `REQUEST_READ_TIMEOUT_S` of its first byte (of the connection, for
the first request), else it is closed; waiting between requests stays uvicorn's keep-alive timeout.
A streamed answer is not affected: the deadline ends when the request has been read.

`yaksa serve` names this class as uvicorn's `http` protocol.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

from uvicorn.protocols.http.auto import AutoHTTPProtocol

REQUEST_READ_TIMEOUT_S = 10.0


def set_nodelay(transport: asyncio.BaseTransport) -> None:
    """Turn Nagle's algorithm off on a TCP transport (a no-op for Unix sockets and pipes)."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class NoDelayHTTPProtocol(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
    read_timeout_s = REQUEST_READ_TIMEOUT_S

    def connection_made(self, transport: asyncio.BaseTransport) -> None:  # type: ignore[override]
        set_nodelay(transport)
        self._read_timer: asyncio.TimerHandle | None = None
        self._read_cycle: Any = None          # the last request whose whole body was read
        super().connection_made(transport)  # type: ignore[arg-type]
        self._arm_read_timer()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        cycle = getattr(self, "cycle", None)
        if cycle is not None and cycle is not self._read_cycle and not cycle.more_body:
            self._read_cycle = cycle            # this request is read: its answer may take its time
            self._cancel_read_timer()
        elif self._read_timer is None:
            self._arm_read_timer()              # bytes of a new request: it must arrive in time

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_read_timer()
        super().connection_lost(exc)

    def _arm_read_timer(self) -> None:
        self._read_timer = asyncio.get_running_loop().call_later(self.read_timeout_s, self._read_timed_out)

    def _cancel_read_timer(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def _read_timed_out(self) -> None:
        self._read_timer = None
        if not self.transport.is_closing():
            self.transport.close()
