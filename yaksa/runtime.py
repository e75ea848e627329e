"""Process-wide defaults for running offline: no telemetry, no model-hub lookups.

Set before heavy imports (transformers, prefect, ragas) so they never try the network.
"""

from __future__ import annotations

import os

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
