"""Litestar app factory: wires routes, guards, limits and the hot-swappable Runtime.

`yaksa serve` runs `uvicorn serving.app:create_app --factory`; settings come from `YAKSA_PARAMS`
(params.yaml, default ./params.yaml), secrets and limits from the environment (see `serving.config`,
including the loopback-only open mode used when no API keys are set, with its Host/Origin/JSON
checks in `serving.origin`). The bundle and the agent load in the background at start-up, so
/healthz answers at once and /readyz says 503 until they are ready; then each worker follows
indexes/CURRENT by itself (`serving.follower`). Every response names the worker process that sent
it (`X-Yaksa-Worker`), and one answered from a bundle names that bundle (`X-Yaksa-Bundle`).
Every response carries its request id (`X-Request-ID`), every log line is JSON with that id, and
every request is counted for `GET /metrics` (`serving.observe`, `serving.logs`, `serving.metrics`).

Errors: client mistakes are 4xx JSON bodies with a message (a non-UTF-8 body, JSON nested past the
decoder's depth limit, control characters in a path parameter included); anything else is a 500
with a generic body whose traceback goes to the log.

    GET  /  /static/*            the chat page
    GET  /healthz /readyz        liveness, readiness
    GET  /metrics                Prometheus metrics of every worker (admin key; loopback in open mode)
    GET  /schema/openapi.json    OpenAPI (no Swagger/Redoc pages: they load JS from CDNs)
    /v1/* (API key)              chat, critique (M&M case review), search, profile/{user_id}, indexes
    /v1/admin/* (admin key)      reload
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

from litestar import Litestar, Request, Response, Router
from litestar.datastructures import State
from litestar.exceptions import InternalServerException
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin
from litestar.static_files import create_static_files_router
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR

from serving import routes
from serving.auth import admin_guard, api_key_guard
from serving.concurrency import InFlightLimiter
from serving.config import ServingConfig, load_serving_config, params_path
from serving.follower import CurrentFollower
from serving.headers import add_response_headers
from serving.logs import (
    install_access_log_redaction,
    install_request_id_records,
    route_of,
    service_logging_config,
)
from serving.observe import RequestObserver
from serving.origin import OpenModeOriginMiddleware
from serving.ratelimit import open_buckets, per_minute_buckets
from serving.runtime import RunnerFactory, RuntimeHolder, default_runner_factory
from serving.validation import check_path_params
from yaksa.config import Settings, load_settings
from yaksa.host import configure_offline_env

log = logging.getLogger(__name__)
MSGSPEC_DEPTH_ERROR = "while deserializing"  # msgspec's RecursionError message for over-nested JSON
LITESTAR_CLIENT_GONE = "client disconnected prematurely"  # Litestar's 500 when the body never arrives


def _client_error(detail: str) -> Response:
    return Response({"status_code": 400, "detail": detail}, status_code=400)


def _internal_error(request: Request, exc: Exception) -> Response:
    """Every 500: the traceback goes to the log (the route template: no user id, no query string), the
    body stays generic.

    A client that hangs up while sending its body is not a server fault (Litestar raises it as a
    500): one info line, no traceback, and a 400 that nobody will read."""
    if isinstance(exc, InternalServerException) and exc.detail == LITESTAR_CLIENT_GONE:
        log.info("client disconnected before sending the whole body of %s %s", request.method, route_of(request.scope))
        return _client_error("client disconnected before sending the whole body")
    log.error("unhandled %s on %s %s", type(exc).__name__, request.method, route_of(request.scope), exc_info=exc)
    return Response({"status_code": 500, "detail": "Internal Server Error"}, status_code=500)


def _not_utf8(_request: Request, _exc: UnicodeDecodeError) -> Response:
    """Litestar lets a non-UTF-8 JSON body escape as a 500; it is the client's mistake."""
    return _client_error("request body is not valid UTF-8")


def _too_deep(request: Request, exc: RecursionError) -> Response:
    """msgspec refuses JSON nested past Python's recursion limit with a RecursionError (a 500 by
    default); that is the client's mistake. Any other RecursionError is a bug: a logged 500."""
    if MSGSPEC_DEPTH_ERROR in str(exc):
        return _client_error("request body is nested too deeply to decode")
    return _internal_error(request, exc)


async def _initial_load(holder: RuntimeHolder) -> None:
    with suppress(Exception):  # recorded in holder.load_error; /readyz reports it, /v1/admin/reload retries
        await holder.reload()


@asynccontextmanager
async def _runtime_lifespan(app: Litestar) -> AsyncIterator[None]:
    """Load the bundle in the background; with a follower, keep following CURRENT until shutdown."""
    holder: RuntimeHolder = app.state.holder
    follower: CurrentFollower | None = app.state.follower
    task = asyncio.create_task(follower.run() if follower else _initial_load(holder))
    try:
        yield
    finally:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task
        holder.close()
        for buckets in (app.state.rate_limits, app.state.auth_failures, app.state.admin_limits):
            buckets.close()


def create_app(
    settings: Settings | None = None,
    runner_factory: RunnerFactory | None = None,
    config: ServingConfig | None = None,
) -> Litestar:
    """The service; without arguments everything comes from params.yaml and the environment."""
    configure_offline_env()
    install_access_log_redaction()
    install_request_id_records()
    settings = settings or load_settings(params_path())
    config = config or load_serving_config()
    holder = RuntimeHolder(settings, runner_factory or default_runner_factory)
    follower = CurrentFollower(holder, config.follow_seconds) if config.follow_seconds > 0 else None
    v1 = Router(
        "/v1",
        route_handlers=[routes.chat, routes.critique, routes.search, routes.get_profile, routes.forget_profile,
                        routes.indexes],
        guards=[api_key_guard],
    )
    admin = Router("/v1/admin", route_handlers=[routes.reload_bundle], guards=[admin_guard])
    app = Litestar(
        route_handlers=[
            routes.healthz,
            routes.readyz,
            routes.metrics,
            routes.chat_page,
            v1,
            admin,
            create_static_files_router("/static", directories=[routes.STATIC_DIR]),
        ],
        lifespan=[_runtime_lifespan],
        state=State(
            {
                "holder": holder,
                "follower": follower,
                "serving_config": config,
                "inflight": InFlightLimiter(config.max_inflight_per_key),  # serving.concurrency
                "rate_limits": open_buckets(config.rate_per_sec, config.rate_burst, config.rate_file,
                                            config.database_url),
                "auth_failures": per_minute_buckets(config.auth_failures_per_min, config.rate_file,
                                                    config.database_url),
                "admin_limits": per_minute_buckets(config.admin_per_min, config.rate_file, config.database_url),
            }
        ),
        before_send=[add_response_headers],
        middleware=[OpenModeOriginMiddleware()] if config.open_mode else [],
        before_request=check_path_params,
        request_max_body_size=config.max_body_bytes,
        exception_handlers={UnicodeDecodeError: _not_utf8, RecursionError: _too_deep,
                            HTTP_500_INTERNAL_SERVER_ERROR: _internal_error},
        openapi_config=OpenAPIConfig(title="yaksa", version="0.1.0", path="/schema",
                                     render_plugins=[JsonRenderPlugin()]),
        logging_config=service_logging_config(),
    )
    app.asgi_handler = RequestObserver(app.asgi_handler)  # every response, unmatched routes too (serving.observe)
    if config.open_mode:  # once the app's logging is set up, so it is a JSON line like the others
        log.warning("no YAKSA_API_KEYS set: open mode, serving loopback clients, loopback Host names "
                    "and same-origin requests only")
    return app
