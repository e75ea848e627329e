"""Guards for /v1/*: who is calling (bearer key or local open mode), rate limits, user binding.

The rules (and the open-mode default) are documented in `serving.config`. A guard stores the
caller's KeyGrant on `connection.state.grant`; handlers that take a user id call `require_user` so a
key can only act for the users it is bound to. Keys are compared, never logged: logs use labels.
"""

from __future__ import annotations

import hmac
import ipaddress
from typing import Any

from litestar.connection import ASGIConnection
from litestar.exceptions import NotAuthorizedException, PermissionDeniedException, TooManyRequestsException

from serving.config import ANY_USER, KeyGrant, ServingConfig
from serving.ratelimit import TokenBuckets, retry_after_header

OPEN_GRANT = KeyGrant(label="open-mode", users=frozenset({ANY_USER}))
BEARER_CHALLENGE = {"WWW-Authenticate": "Bearer"}


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


def api_key_guard(connection: ASGIConnection, _handler: Any) -> None:
    """Authenticate a /v1 call, then spend one token of the caller's rate-limit bucket."""
    config = _config(connection)
    if config.open_mode:
        if not is_loopback(connection):
            raise PermissionDeniedException(
                detail="no API keys are configured: only loopback clients are served (set YAKSA_API_KEYS)"
            )
        grant = OPEN_GRANT
    else:
        key = _bearer(connection)
        if key is None:
            raise NotAuthorizedException(detail="missing bearer API key", headers=BEARER_CHALLENGE)
        found = config.api_keys.get(key)
        if found is None:
            raise NotAuthorizedException(detail="invalid API key", headers=BEARER_CHALLENGE)
        grant = found
    buckets: TokenBuckets = connection.app.state.rate_limits
    wait = buckets.take(grant.label)
    if wait > 0:
        raise TooManyRequestsException(
            detail=f"rate limit exceeded; retry in {wait:.1f} s", headers={"Retry-After": retry_after_header(wait)}
        )
    connection.state.grant = grant


def admin_guard(connection: ASGIConnection, _handler: Any) -> None:
    """The admin key (or, in open mode without one, a loopback client) may reload bundles."""
    config = _config(connection)
    if config.admin_key:
        key = _bearer(connection)
        if key is None:
            raise NotAuthorizedException(detail="missing bearer admin key", headers=BEARER_CHALLENGE)
        if not hmac.compare_digest(key.encode(), config.admin_key.encode()):
            raise NotAuthorizedException(detail="invalid admin key", headers=BEARER_CHALLENGE)
    elif not (config.open_mode and is_loopback(connection)):
        raise PermissionDeniedException(detail="admin endpoints are disabled: set YAKSA_ADMIN_KEY")


def require_user(connection: ASGIConnection, user_id: str) -> None:
    """403 unless the caller's key is bound to `user_id` (or to any user)."""
    grant: KeyGrant = connection.state.grant
    if not grant.allows(user_id):
        raise PermissionDeniedException(detail=f"this API key may not act for user {user_id!r}")
