"""Response headers that say who answered: the worker process, and the bundle a request was served from.

Why: with `yaksa serve --workers N` a client (or a test, or an operator tailing a rollout) cannot
otherwise tell which worker answered or whether that worker has swapped to the published bundle
yet. `X-Yaksa-Worker` (the process id) is on every response, errors included; `X-Yaksa-Bundle`
is on responses answered from a bundle and names the one version the request leased (the same
version a chat's `done` event and a search body report).
"""

from __future__ import annotations

import os

from litestar.datastructures import MutableScopeHeaders
from litestar.types import Message, Scope

WORKER_HEADER = "X-Yaksa-Worker"
BUNDLE_HEADER = "X-Yaksa-Bundle"


def bundle_headers(version: str) -> dict[str, str]:
    """The header naming the bundle a response was answered from."""
    return {BUNDLE_HEADER: version}


async def add_worker_header(message: Message, _scope: Scope) -> None:
    """Litestar `before_send` hook: stamp this process id on every response's start."""
    if message["type"] == "http.response.start":
        message.setdefault("headers", [])
        MutableScopeHeaders.from_message(message)[WORKER_HEADER] = str(os.getpid())
