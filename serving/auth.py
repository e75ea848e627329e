"""Guards for /v1/*: who is calling (bearer key or local open mode), rate limits, user binding,
and who may choose an ablation variant of the agent.

The rules (and the open-mode default) are documented in `serving.config`. A guard stores the
caller's KeyGrant on `connection.state.grant`; handlers that take a user id call `require_user` so a
key can only act for the users it is bound to. Keys are compared, never logged: logs use labels.

The admin key is not a user key: it opens /v1/admin/* and, on handlers that opt in with
`opt={ADMIN_MAY_CALL: True}` (only `POST /v1/chat`), it may run a turn for any user id, which is
what an operator comparing agent variants needs (`authorize_variant`); such a turn reads and writes
no profile, history or cache entry (`is_admin_grant`), and the admin key reads and erases nothing
through /v1/profile: it is for administration, not a skeleton key to people's health records.

Brute force: every failed key (missing or wrong, user or admin) spends a token of the client
address's failed-key bucket (`YAKSA_AUTH_FAILURES_PER_MIN`); once it is empty every request from
that address is a 429 until it refills. Admin calls have their own bucket (`YAKSA_ADMIN_PER_MIN`).
"""

from __future__ import annotations

import hmac
import ipaddress
from typing import Any

from litestar.connection import ASGIConnection
from litestar.exceptions import (
    NotAuthorizedException,
    PermissionDeniedException,
    TooManyRequestsException,
    ValidationException,
)

from serving.config import ANY_USER, KeyGrant, ServingConfig
from serving.ratelimit import TokenBuckets, retry_after_seconds
from yaksa.config import AgentParams

OPEN_GRANT = KeyGrant(label="open-mode", users=frozenset({ANY_USER}))
ADMIN_GRANT = KeyGrant(label="admin", users=frozenset({ANY_USER}))
ADMIN_MAY_CALL = "admin_may_call"  # handler opt: the admin key is accepted there and acts for any user
BEARER_CHALLENGE = {"WWW-Authenticate": "Bearer"}
ADMIN_ROUTE_BUCKET = "admin-routes"  # one bucket for every admin call, whoever makes it
AUTH_FAILURE_PREFIX = "authfail:"  # failed-key buckets are per client address, beside the per-key ones


def _bearer(connection: ASGIConnection) -> str | None:
    scheme, _, token = connection.headers.get("authorization", "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def is_loopback(connection: ASGIConnection) -> bool:
    host = connection.client.host if connection.client else ""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _config(connection: ASGIConnection) -> ServingConfig:
    return connection.app.state.serving_config


def has_admin_key(connection: ASGIConnection) -> bool:
    """The request carries the configured admin key (compared in constant time)."""
    config = _config(connection)
    key = _bearer(connection)
    return bool(config.admin_key and key and hmac.compare_digest(key.encode(), config.admin_key.encode()))


def _too_many(wait: float, what: str) -> TooManyRequestsException:
    seconds = retry_after_seconds(wait)
    return TooManyRequestsException(detail=f"{what}; retry in {seconds} s", headers={"Retry-After": str(seconds)})


def _client_address(connection: ASGIConnection) -> str:
    return connection.client.host if connection.client else "unknown"


def _refuse_while_failing(connection: ASGIConnection) -> None:
    """429 for a client address that has spent its failed-key allowance (checked before any key is
    compared, so a right guess is refused like a wrong one until the bucket refills)."""
    wait = connection.app.state.auth_failures.waiting(f"{AUTH_FAILURE_PREFIX}{_client_address(connection)}")
    if wait > 0:
        raise _too_many(wait, "too many requests with invalid keys")


def _bad_key(connection: ASGIConnection, detail: str) -> NotAuthorizedException:
    """A 401 that costs the client address one token of its failed-key allowance."""
    connection.app.state.auth_failures.take(f"{AUTH_FAILURE_PREFIX}{_client_address(connection)}")
    return NotAuthorizedException(detail=detail, headers=BEARER_CHALLENGE)


def api_key_guard(connection: ASGIConnection, handler: Any) -> None:
    """Authenticate a /v1 call, then spend one token of the caller's rate-limit bucket."""
    config = _config(connection)
    if config.open_mode:
        if not is_loopback(connection):
            raise PermissionDeniedException(
                detail="no API keys are configured: only loopback clients are served (set YAKSA_API_KEYS)"
            )
        grant = OPEN_GRANT
    else:
        _refuse_while_failing(connection)
        key = _bearer(connection)
        if key is None:
            raise _bad_key(connection, "missing bearer API key")
        found = config.api_keys.get(key)
        if found is None and handler.opt.get(ADMIN_MAY_CALL) and has_admin_key(connection):
            found = ADMIN_GRANT
        if found is None:
            raise _bad_key(connection, "invalid API key")
        grant = found
    buckets: TokenBuckets = connection.app.state.rate_limits
    wait = buckets.take(grant.label)
    if wait > 0:
        raise _too_many(wait, "rate limit exceeded")
    connection.state.grant = grant


def is_admin_grant(connection: ASGIConnection) -> bool:
    """The request was let in by the admin key: it may run a turn but reads and writes no profile."""
    return getattr(connection.state, "grant", None) is ADMIN_GRANT


def _require_admin(connection: ASGIConnection, what: str) -> None:
    """The admin key, or, in open mode without one, a loopback client; `what` names the refused thing."""
    config = _config(connection)
    if config.admin_key:
        _refuse_while_failing(connection)
        if _bearer(connection) is None:
            raise _bad_key(connection, "missing bearer admin key")
        if not has_admin_key(connection):
            raise _bad_key(connection, "invalid admin key")
    elif not (config.open_mode and is_loopback(connection)):
        raise PermissionDeniedException(detail=f"{what} disabled: set YAKSA_ADMIN_KEY")


def metrics_guard(connection: ASGIConnection, _handler: Any) -> None:
    """GET /metrics is operator data (traffic, refusals, failures, bundle versions): the admin rule, but
    without spending the admin-call bucket, which a scrape every few seconds would empty for reloads."""
    _require_admin(connection, "metrics are")


def admin_guard(connection: ASGIConnection, _handler: Any) -> None:
    """The admin key (or, in open mode without one, a loopback client) may reload bundles."""
    _require_admin(connection, "admin endpoints are")
    wait = connection.app.state.admin_limits.take(ADMIN_ROUTE_BUCKET)
    if wait > 0:  # a reload loads a whole bundle beside the served one: a loop of them starves the service
        raise _too_many(wait, "admin rate limit exceeded")


def require_user(connection: ASGIConnection, user_id: str) -> None:
    """403 unless the caller's key is bound to `user_id` (or to any user)."""
    grant: KeyGrant = connection.state.grant
    if not grant.allows(user_id):
        raise PermissionDeniedException(detail=f"this API key may not act for user {user_id!r}")


def authorize_variant(connection: ASGIConnection, agent: AgentParams, variant: str | None) -> str | None:
    """`variant` when the caller may run it: 400 for an unknown name, 403 for a caller who may not.

    The configured variant (or none) is everyone's; another one needs the admin key, or a server
    started with YAKSA_ALLOW_VARIANT_CHOICE=1. Why: a variant switches mechanisms of the agent on
    and off, so it is an operator's choice, never a client's.
    """
    if variant is None or variant == agent.variant:
        return variant
    if variant not in agent.variants:
        raise ValidationException(detail=f"unknown variant {variant!r}; choose one of {sorted(agent.variants)}")
    if not (_config(connection).allow_variant_choice or has_admin_key(connection)):
        raise PermissionDeniedException(
            detail=f"variant {variant!r} may be chosen only with the admin key (or on a server started with "
                   f"YAKSA_ALLOW_VARIANT_CHOICE=1); omit 'variant' to use the configured {agent.variant!r}"
        )
    return variant
