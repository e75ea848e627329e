"""The outermost layer of the app: a request id, one access log line and the HTTP metrics per request.

Why outside Litestar's middleware: Litestar runs middleware only for a request that matched a route,
so a 404, a 405 or a refused Host header would go without a request id, a log line or a count. This
wraps the app's whole ASGI handler (`create_app` installs it over `Litestar.asgi_handler`), so every
HTTP response passes through it, errors and SSE streams included.

Per request: the request id (`serving.logs.accept_request_id`) is set for everything logged while
the request runs and returned in `X-Request-ID`; when the response's last byte is sent (a stream's
life included) it counts the response and its time under the route's template
(`serving.metrics.observe_request`) and logs one line on `serving.access`: method, route template,
status and milliseconds, never the path itself (it can hold a user id) or the query string (a
question).
"""

from __future__ import annotations

import logging
import time

from litestar.datastructures import MutableScopeHeaders
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from serving.logs import (
    REQUEST_ID_HEADER,
    SERVICE_ACCESS_LOGGER,
    accept_request_id,
    reset_request_id,
    route_of,
    set_request_id,
)
from serving.metrics import http_method, observe_request

access_log = logging.getLogger(SERVICE_ACCESS_LOGGER)
NO_RESPONSE = 500  # what is counted when the app ends without starting a response (it crashed)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


class RequestObserver:
    """ASGI wrapper; lifespan and websocket scopes pass through untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = accept_request_id(_header(scope, REQUEST_ID_HEADER.lower().encode()))
        token = set_request_id(request_id)
        started = time.perf_counter()
        status = NO_RESPONSE

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message.setdefault("headers", [])
                MutableScopeHeaders.from_message(message)[REQUEST_ID_HEADER] = request_id
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - started
            route, method = route_of(scope), http_method(scope.get("method"))
            observe_request(route, method, status, seconds)
            access_log.info("%s %s %d", method, route, status,
                            extra={"method": method, "route": route, "status": status,
                                   "duration_ms": round(seconds * 1000, 1)})
            reset_request_id(token)
