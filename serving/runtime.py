"""One immutable Runtime per loaded bundle, and the holder that hot-swaps it.

Why leases: a reload builds the new Runtime beside the old one (in a worker thread, so requests
keep flowing), then swaps one reference. Each request leases the Runtime once at its start and
uses only that one, so it is answered from exactly one bundle; the old bundle is closed when its
last lease is released, never under a running request.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
from litestar.exceptions import ServiceUnavailableException

from yaksa.agent.api import TurnRunner
from yaksa.config import Settings
from yaksa.index.publish import current_version, list_versions
from yaksa.retrieval.loader import LoadedBundle, load_published

log = logging.getLogger(__name__)

RunnerFactory = Callable[[LoadedBundle, Settings], TurnRunner]


def default_runner_factory(loaded: LoadedBundle, settings: Settings) -> TurnRunner:
    """The production agent; imported lazily so the app module loads without the agent's heavy deps."""
    from yaksa.agent.runtime import build_runner

    return build_runner(loaded, settings)


@dataclass(eq=False)
class Runtime:
    """Everything one request needs, built from one bundle version.

    The runner owns the bundle's one searcher (behind its scope stage): chat and /v1/search both go
    through it, so they share one query-vector cache and one scope decision.
    """

    loaded: LoadedBundle
    runner: TurnRunner
    in_flight: int = field(default=0, repr=False)
    retired: bool = field(default=False, repr=False)

    @property
    def version(self) -> str:
        return self.loaded.version


def build_runtime(settings: Settings, runner_factory: RunnerFactory) -> Runtime:
    """Load the published bundle (blocking: seconds on a real corpus) and build its agent."""
    loaded = load_published(settings.paths.indexes)
    try:
        return Runtime(loaded, runner_factory(loaded, settings))
    except BaseException:
        loaded.close()
        raise


def _close(runtime: Runtime) -> None:
    log.info("closing bundle %s (no requests left on it)", runtime.version)
    runtime.loaded.close()


class RuntimeHolder:
    """The app's current Runtime; lease/release are thread-safe, reload is serialised."""

    def __init__(self, settings: Settings, runner_factory: RunnerFactory) -> None:
        self.settings = settings
        self.runner_factory = runner_factory
        self.current: Runtime | None = None
        self.load_error: str | None = "loading"
        self._lock = threading.Lock()
        self._reload_lock = asyncio.Lock()

    def acquire(self) -> Runtime:
        """Lease the current Runtime (503 while none is loaded); pair with `release`."""
        with self._lock:
            runtime = self.current
            if runtime is None:
                raise ServiceUnavailableException(detail=f"index not ready: {self.load_error}")
            runtime.in_flight += 1
            return runtime

    def release(self, runtime: Runtime) -> None:
        with self._lock:
            runtime.in_flight -= 1
            close = runtime.retired and runtime.in_flight == 0
        if close:
            _close(runtime)

    @contextmanager
    def leased(self) -> Iterator[Runtime]:
        runtime = self.acquire()
        try:
            yield runtime
        finally:
            self.release(runtime)

    async def reload(self) -> dict[str, Any]:
        """Load CURRENT beside the serving bundle and swap; on failure keep serving the old one."""
        async with self._reload_lock:
            previous = self.current.version if self.current else None
            target = current_version(self.settings.paths.indexes)
            if target is not None and target == previous:
                return {"reloaded": False, "version": previous, "previous": previous}
            try:
                runtime = await anyio.to_thread.run_sync(build_runtime, self.settings, self.runner_factory)
            except Exception as exc:
                self.load_error = f"index not loaded: {type(exc).__name__}: {exc}"
                log.error("bundle load failed (still serving %s): %s", previous, self.load_error, exc_info=exc)
                raise
            self.load_error = None
            self._replace(runtime)
            log.info("serving bundle %s (was %s)", runtime.version, previous)
            return {"reloaded": True, "version": runtime.version, "previous": previous}

    def _replace(self, runtime: Runtime | None) -> None:
        """Point at `runtime` and retire the old one (closed now, or by its last `release`)."""
        with self._lock:
            old, self.current = self.current, runtime
            if old is not None:
                old.retired = True
            close = old is not None and old.in_flight == 0
        if old is not None and close:
            _close(old)

    def close(self) -> None:
        """At shutdown: stop leasing and close the bundle once in-flight requests end."""
        self.load_error = "shutting down"
        self._replace(None)

    def describe(self) -> dict[str, Any]:
        root = self.settings.paths.indexes
        runtime = self.current
        return {
            "serving": runtime.version if runtime else None,
            "current": current_version(root),
            "versions": list_versions(root),
            "load_error": self.load_error,
        }
