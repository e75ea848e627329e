"""Connections accepted on a socket bound the way uvicorn's multi-worker mode binds it get TCP_NODELAY."""

from __future__ import annotations

import asyncio
import socket

from uvicorn.config import Config
from uvicorn.importer import import_from_string

from serving.config import HTTP_PROTOCOL
from serving.nodelay import NoDelayHTTPProtocol, set_nodelay


async def _accepted_nodelay(make_protocol: type[asyncio.Protocol]) -> int:
    """TCP_NODELAY of the server side of one connection to a proto-0 listening socket."""
    listener = socket.socket(socket.AF_INET)          # as uvicorn's Config.bind_socket: proto 0
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    seen: list[int] = []

    class Probe(make_protocol):  # type: ignore[misc, valid-type]
        def connection_made(self, transport: asyncio.BaseTransport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            seen.append(transport.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    server = await asyncio.get_running_loop().create_server(Probe, sock=listener)
    _, writer = await asyncio.open_connection(*listener.getsockname())
    for _ in range(100):
        if seen:
            break
        await asyncio.sleep(0.01)
    writer.close()
    server.close()
    await server.wait_closed()
    return seen[0]


class _Plain(asyncio.Protocol):
    pass


class _WithNoDelay(asyncio.Protocol):
    def connection_made(self, transport: asyncio.BaseTransport) -> None:  # type: ignore[override]
        set_nodelay(transport)


def test_a_proto_zero_listener_leaves_nagle_on_unless_we_turn_it_off() -> None:
    assert asyncio.run(_accepted_nodelay(_Plain)) == 0          # the 48 ms delayed-ACK stall
    assert asyncio.run(_accepted_nodelay(_WithNoDelay)) != 0


def test_serve_names_the_nodelay_protocol_and_uvicorn_can_load_it() -> None:
    assert import_from_string(HTTP_PROTOCOL) is NoDelayHTTPProtocol
    config = Config("serving.app:create_app", factory=True, http=HTTP_PROTOCOL)
    config.load()  # imports the protocol (and the app factory) as a worker would
    assert config.http_protocol_class is NoDelayHTTPProtocol
