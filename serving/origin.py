"""Open mode's browser defences: loopback Host names, same-origin requests, JSON bodies only.

Why: with no YAKSA_API_KEYS the server trusts any loopback client, and a browser on the same
machine is one — it will send requests that a web page elsewhere asks it to. Three checks close
that door, on every route (the chat page, /static, /v1, /schema), before any handler runs:

  Host          must be 127.0.0.1, localhost or [::1] (any port): a page on evil.example whose DNS
                name is re-pointed at 127.0.0.1 (DNS rebinding) sends `Host: evil.example` → 403.
  Origin        when present, must be http://<loopback name>:<the Host's port>: a cross-site fetch
                or form post carries its page's origin → 403 (CSRF). The chat page's own requests
                carry the page's origin and pass; navigations and plain clients (curl) send none.
  Content-Type  a POST/PUT/PATCH with a body must be application/json (optionally charset=utf-8):
                an HTML form can only send form or text bodies, never JSON, without a preflight → 415.
                A bodiless POST (e.g. `curl -X POST .../v1/admin/reload`) needs no content type.

With API keys configured the keys are the defence (a browser never adds a bearer key on its own)
and this middleware is not installed; see `serving.app`.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from litestar.enums import ScopeType
from litestar.exceptions import HTTPException, PermissionDeniedException
from litestar.middleware import ASGIMiddleware
from litestar.status_codes import HTTP_415_UNSUPPORTED_MEDIA_TYPE
from litestar.types import ASGIApp, Receive, Scope, Send

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
JSON_MEDIA_TYPE = "application/json"
HTTP_DEFAULT_PORT = 80


def split_host(value: str) -> tuple[str, int] | None:
    """`host[:port]` (a Host header or an origin's netloc) → (lower-case name, port); None if malformed."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        name, rest = (value[: end + 1], value[end + 1:]) if end > 0 else ("", "")
    else:
        name, sep, port = value.partition(":")
        rest = sep + port
    if not name:
        return None
    if not rest:
        return name, HTTP_DEFAULT_PORT
    digits = rest[1:]
    if rest[0] != ":" or not digits.isascii() or not digits.isdigit() or not 0 < int(digits) < 65536:
        return None
    return name, int(digits)


def _shown(value: str) -> str:
    return repr(value[:100])


def check_host(host: str) -> tuple[str, int]:
    """The request's (loopback name, port), or 403: open mode answers only loopback names."""
    parsed = split_host(host)
    if parsed is None or parsed[0] not in LOOPBACK_NAMES:
        raise PermissionDeniedException(
            detail=f"Host {_shown(host)} refused: without API keys (open mode) the server answers only requests "
                   "addressed to 127.0.0.1, localhost or [::1] (DNS rebinding protection; set YAKSA_API_KEYS "
                   "to serve other names)"
        )
    return parsed


def check_origin(origin: str, port: int) -> None:
    """403 unless `origin` is http://<loopback name>:<port>, i.e. the chat page served here."""
    parts = urlsplit(origin.strip())
    parsed = split_host(parts.netloc) if parts.scheme == "http" and not parts.path.strip("/") else None
    if parsed is None or parsed[0] not in LOOPBACK_NAMES or parsed[1] != port:
        raise PermissionDeniedException(
            detail=f"cross-origin request refused: Origin {_shown(origin)} is not this server's loopback origin "
                   "(open mode answers only its own chat page; CSRF protection)"
        )


def _has_body(headers: dict[str, str]) -> bool:
    length = headers.get("content-length", "").strip()
    return "transfer-encoding" in headers or (length != "" and length != "0")


def is_json_media_type(content_type: str) -> bool:
    """application/json, optionally with charset=utf-8 (in any case, quoted or not), and nothing else."""
    media, _, params = content_type.partition(";")
    if media.strip().lower() != JSON_MEDIA_TYPE:
        return False
    for param in filter(None, (p.strip() for p in params.split(";"))):
        key, _, value = param.partition("=")
        if key.strip().lower() != "charset" or value.strip().strip('"').lower() not in ("utf-8", "utf8"):
            return False
    return True


def check_content_type(method: str, headers: dict[str, str]) -> None:
    """415 for a body-carrying request whose body is not declared as JSON."""
    if method in BODY_METHODS and _has_body(headers) and not is_json_media_type(headers.get("content-type", "")):
        raise HTTPException(
            status_code=HTTP_415_UNSUPPORTED_MEDIA_TYPE,
            detail=f"{method} bodies must be JSON: send 'Content-Type: application/json' "
                   f"(got {_shown(headers.get('content-type', ''))})",
        )


class OpenModeOriginMiddleware(ASGIMiddleware):
    """Runs the three checks above on every HTTP request (installed only in open mode)."""

    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        headers: dict[str, str] = {}
        for raw_name, raw_value in scope["headers"]:  # a repeated header is joined, so it fails its check
            name, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        _, port = check_host(headers.get("host", ""))
        if "origin" in headers:
            check_origin(headers["origin"], port)
        check_content_type(scope["method"], headers)
        await next_app(scope, receive, send)
