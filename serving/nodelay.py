"""uvicorn's HTTP protocol with TCP_NODELAY on every connection.

Why: with `--workers N` uvicorn binds the listening socket itself as `socket.socket(AF_INET)` (proto 0),
and asyncio sets TCP_NODELAY only on accepted sockets whose proto is IPPROTO_TCP. So every keep-alive
response (written in more than one send) waited for the client's delayed ACK: 48 ms per request instead of
5 ms (`/v1/search` at concurrency 1 on 2 workers: 20 req/s). One worker binds through
`loop.create_server`, whose sockets carry the proto, and was never affected. `yaksa serve` names this
class as uvicorn's `http` protocol.
"""

from __future__ import annotations

import asyncio
import socket

from uvicorn.protocols.http.auto import AutoHTTPProtocol


def set_nodelay(transport: asyncio.BaseTransport) -> None:
    """Turn Nagle's algorithm off on a TCP transport (a no-op for Unix sockets and pipes)."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class NoDelayHTTPProtocol(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
    def connection_made(self, transport: asyncio.BaseTransport) -> None:  # type: ignore[override]
        set_nodelay(transport)
        super().connection_made(transport)  # type: ignore[arg-type]
