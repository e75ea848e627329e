"""One immutable Runtime per loaded bundle, and the holder that hot-swaps it.

Why leases: a reload builds the new Runtime beside the old one (in a worker thread, so requests
keep flowing), then swaps one reference. Each request leases the Runtime once at its start and
uses only that one, so it is answered from exactly one bundle; the old bundle is closed when its
last lease is released, never under a running request.

The M&M critique agent (`/v1/critique`) also belongs to the Runtime: built on its first use (chat
never pays for it), once per bundle, over the runner's own searcher when the runner exposes one, so
the critique and the chat share one query-vector cache and the bundle is never loaded twice.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
from litestar.exceptions import ServiceUnavailableException

from serving.headers import worker_id
from serving.metrics import bundle_served
from yaksa.agent.api import TurnRunner
from yaksa.config import Settings
from yaksa.index.publish import current_version, list_versions
from yaksa.retrieval.loader import LoadedBundle, load_published
from yaksa.retrieval.searcher import Searcher

if TYPE_CHECKING:
    from yaksa.critique.agent import CritiqueAgent

log = logging.getLogger(__name__)

RunnerFactory = Callable[[LoadedBundle, Settings], TurnRunner]
CritiqueFactory = Callable[[LoadedBundle, Settings, "Searcher | None"], "CritiqueAgent"]


def default_runner_factory(loaded: LoadedBundle, settings: Settings) -> TurnRunner:
    """The production agent; imported lazily so the app module loads without the agent's heavy deps."""
    from yaksa.agent.factory import build_runner

    return build_runner(loaded, settings)


def default_critique_factory(loaded: LoadedBundle, settings: Settings, searcher: Searcher | None) -> CritiqueAgent:
    """The production critique agent (imported lazily, like the runner); builds its own searcher
    only when it is given none."""
    from yaksa.critique.factory import build_critique_agent

    return build_critique_agent(loaded, settings, searcher)


def runner_searcher(runner: TurnRunner) -> Searcher | None:
    """The runner's searcher, when it exposes one (`runner.searcher`, or `runner.deps.searcher` as the
    production AgentRunner keeps it); None otherwise."""
    for owner in (runner, getattr(runner, "deps", None)):
        searcher = getattr(owner, "searcher", None)
        if isinstance(searcher, Searcher):
            return searcher
    return None


@dataclass(eq=False)
class Runtime:
    """Everything one request needs, built from one bundle version.

    The runner owns the bundle's one searcher (behind its scope stage): chat and /v1/search both go
    through it, so they share one query-vector cache and one scope decision; the critique agent,
    built on first use by `critique_agent()`, reuses it.
    """

    loaded: LoadedBundle
    runner: TurnRunner
    settings: Settings | None = None  # None: no critique agent can be built for this Runtime
    critique_factory: CritiqueFactory = field(default=default_critique_factory, repr=False)
    in_flight: int = field(default=0, repr=False)
    retired: bool = field(default=False, repr=False)
    _critique: CritiqueAgent | None = field(default=None, init=False, repr=False)
    _critique_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    @property
    def version(self) -> str:
        return self.loaded.version

    def critique_agent(self) -> CritiqueAgent:
        """This bundle's critique agent, built once (blocking: call it from a worker thread, under a
        lease). Concurrent first calls wait for the one build instead of building twice."""
        with self._critique_lock:
            if self._critique is None:
                if self.settings is None:
                    raise RuntimeError("this Runtime was built without settings: no critique agent")
                self._critique = self.critique_factory(self.loaded, self.settings, runner_searcher(self.runner))
                log.info("critique agent ready on bundle %s", self.version)
            return self._critique


def build_runtime(settings: Settings, runner_factory: RunnerFactory,
                  critique_factory: CritiqueFactory = default_critique_factory,
                  version: str | None = None, reuse: LoadedBundle | None = None) -> Runtime:
    """Load `version` (default: the published one; blocking: seconds on a real corpus) and build its
    agent, sharing `reuse`'s tokenizer and embedders when the new bundle names the same ones."""
    loaded = load_published(settings.paths.indexes, version, reuse=reuse)
    try:
        return Runtime(loaded, runner_factory(loaded, settings), settings, critique_factory)
    except BaseException:
        loaded.close()
        raise


def _close(runtime: Runtime) -> None:
    log.info("closing bundle %s (no requests left on it)", runtime.version)
    runtime.loaded.close()


class RuntimeHolder:
    """The app's current Runtime; lease/release are thread-safe, reload is serialised."""

    def __init__(self, settings: Settings, runner_factory: RunnerFactory,
                 critique_factory: CritiqueFactory = default_critique_factory) -> None:
        self.settings = settings
        self.runner_factory = runner_factory
        self.critique_factory = critique_factory
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
                self.load_error = None  # CURRENT names the served bundle again (e.g. a broken publish rolled back)
                return {"reloaded": False, "version": previous, "previous": previous}
            try:
                # `target`, not "whatever CURRENT says by then": the version checked is the version loaded
                serving = self.current
                runtime = await anyio.to_thread.run_sync(build_runtime, self.settings, self.runner_factory,
                                                         self.critique_factory, target,
                                                         serving.loaded if serving else None)
            except Exception as exc:
                self.load_error = f"index not loaded (version {target}): {type(exc).__name__}: {exc}"
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
        bundle_served(runtime.version if runtime else None, old.version if old else None)  # GET /metrics
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
            "worker": worker_id(),
            "current": current_version(root),
            "versions": list_versions(root),
            "load_error": self.load_error,
        }
