"""Response headers: who answered (a worker and a bundle), and the security headers every response carries.

Why say who answered: with `yaksa serve --workers N` a client (or a test, or an operator tailing a
rollout) cannot otherwise tell which worker answered or whether that worker has swapped to the
published bundle yet. `X-Yaksa-Worker` is on every response, errors included: an opaque id drawn at
random once per process (a process id told an attacker how many processes run and which restarted).
`X-Yaksa-Bundle` is on responses answered from a bundle and names the one version the request leased
(the same version a chat's `done` event and a search body report).

Why the security headers on every response: the chat page's "내 기록 삭제" button erases a person's
health profile, so no other site may frame it (`frame-ancestors 'none'`, `X-Frame-Options: DENY`); the
page loads its script and style from /static only, so the Content-Security-Policy allows no inline
script and nothing from another origin; `nosniff` stops a browser from reading a JSON error as
HTML. Everything under /v1 is personal (profiles, answers to health questions): `no-store`, so no
browser or proxy keeps a copy.
"""

from __future__ import annotations

import os
import secrets

from litestar.datastructures import MutableScopeHeaders
from litestar.types import Message, Scope

WORKER_HEADER = "X-Yaksa-Worker"
BUNDLE_HEADER = "X-Yaksa-Bundle"
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}
PERSONAL_PREFIX = "/v1/"   # API responses carry personal data: never stored by a browser or proxy
NO_STORE = "no-store"

_worker: tuple[int, str] | None = None


def worker_id() -> str:
    """This process's opaque id (12 hex digits); a forked child draws its own."""
    global _worker
    if _worker is None or _worker[0] != os.getpid():
        _worker = (os.getpid(), secrets.token_hex(6))
    return _worker[1]


def bundle_headers(version: str) -> dict[str, str]:
    """The header naming the bundle a response was answered from."""
    return {BUNDLE_HEADER: version}


async def add_response_headers(message: Message, scope: Scope) -> None:
    """Litestar `before_send` hook: the worker id and the security headers on every response's start."""
    if message["type"] != "http.response.start":
        return
    message.setdefault("headers", [])
    headers = MutableScopeHeaders.from_message(message)
    headers[WORKER_HEADER] = worker_id()
    for name, value in SECURITY_HEADERS.items():
        headers[name] = value
    if scope.get("path", "").startswith(PERSONAL_PREFIX):
        headers["Cache-Control"] = NO_STORE

