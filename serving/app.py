"""Litestar app factory: loads the published bundle once at start-up and serves it.

Controllers stay thin; everything they do is a call into `yaksa`. Until the full chat API lands this
serves health, readiness, the bundle in use and retrieval-only search.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from litestar import Litestar, get
from litestar.datastructures import State
from litestar.exceptions import HTTPException
from litestar.params import FromQuery
from litestar.status_codes import HTTP_503_SERVICE_UNAVAILABLE

from yaksa.config import RetrievalParams, Settings, load_settings
from yaksa.index.publish import current_version, list_versions
from yaksa.retrieval.loader import load_published
from yaksa.retrieval.searcher import Searcher
from yaksa.runtime import configure_offline_env


def _settings() -> Settings:
    return load_settings(Path(os.environ.get("YAKSA_PARAMS", "params.yaml")))


@get("/healthz", sync_to_thread=False)
def healthz() -> dict[str, str]:
    return {"status": "ok"}


@get("/readyz", sync_to_thread=False)
def readyz(state: State) -> dict[str, Any]:
    if state.get("searcher") is None:
        raise HTTPException(status_code=HTTP_503_SERVICE_UNAVAILABLE, detail=state.get("load_error") or "loading")
    return {"status": "ready", "version": state.searcher.loaded.version}


@get("/v1/indexes", sync_to_thread=False)
def indexes(state: State) -> dict[str, Any]:
    root = state.indexes_root
    loaded = state.get("searcher")
    return {
        "serving": loaded.loaded.version if loaded else None,
        "current": current_version(root),
        "versions": list_versions(root),
    }


@get("/v1/search", sync_to_thread=True)
def search(
    state: State, q: FromQuery[str], k: FromQuery[int | None] = None, collection: FromQuery[list[str] | None] = None
) -> dict[str, Any]:
    searcher: Searcher | None = state.get("searcher")
    if searcher is None:
        raise HTTPException(status_code=HTTP_503_SERVICE_UNAVAILABLE, detail="index not loaded")
    if not q.strip():
        raise HTTPException(status_code=400, detail="q must not be empty")
    if k is not None and not 1 <= k <= 100:
        raise HTTPException(status_code=400, detail="k must be between 1 and 100")
    try:
        hits, info = searcher.search(q, k=k, collections=collection)
    except ValueError as exc:
        raise HTTPException(status_code=400, detail=str(exc)) from exc
    return {"query": q, "version": searcher.loaded.version, **info, "results": [h.to_json() for h in hits]}


@asynccontextmanager
async def lifespan(app: Litestar) -> AsyncIterator[None]:
    state = app.state
    try:
        loaded = await asyncio.to_thread(load_published, state.indexes_root)
        state.searcher = Searcher(loaded, state.retrieval)
    except Exception as exc:  # noqa: BLE001 - stay up and report not-ready instead of crash-looping
        state.searcher = None
        state.load_error = f"index not loaded: {exc}"
    try:
        yield
    finally:
        if state.get("searcher") is not None:
            state.searcher.loaded.close()


def create_app(indexes_root: Path | None = None, retrieval: RetrievalParams | None = None) -> Litestar:
    """Without arguments, settings come from params.yaml (`YAKSA_PARAMS`, set by `yaksa serve`)."""
    configure_offline_env()
    if indexes_root is None or retrieval is None:
        settings = _settings()
        indexes_root = indexes_root or settings.paths.indexes
        retrieval = retrieval or settings.retrieval
    return Litestar(
        route_handlers=[healthz, readyz, indexes, search],
        lifespan=[lifespan],
        state=State({"indexes_root": indexes_root, "retrieval": retrieval, "searcher": None, "load_error": None}),
    )
