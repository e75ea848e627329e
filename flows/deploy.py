"""Serve the scheduled deployments via `prefect.serve`: `rebuild-index` and `quality-regression` nightly.

    python -m flows.deploy            # blocks; runs scheduled and manually triggered runs

The rebuild publishes only when the new bundle passes its checks, so a bad night leaves the
served version in place. The quality regression runs after it, on whatever bundle is then published,
and ends Failed when the answers regressed against the baseline run.
"""

from __future__ import annotations

import argparse

from yaksa.host import configure_offline_env

configure_offline_env()

from prefect import serve

from flows.build_index import build_flow
from flows.quality_regression import quality_regression
from yaksa.config import load_settings

REBUILD_CRON = "30 2 * * *"  # 02:30 every night, server time zone
REGRESSION_CRON = "30 4 * * *"  # 04:30: after the rebuild has published (or kept) the bundle


def rebuild_deployment(params: str = "params.yaml", cron: str = REBUILD_CRON):
    # the task runner is fixed per flow: the deployment runs on the one params.yaml's `build` names
    return build_flow(load_settings(params).build).to_deployment(
        name="rebuild-index",
        cron=cron,
        parameters={"params": params, "synthea": True, "publish": True},
        description="Nightly rebuild of the index bundle; publishes only on passing checks.",
        tags=["index"],
    )


def regression_deployment(params: str = "params.yaml", cron: str = REGRESSION_CRON):
    return quality_regression.to_deployment(
        name="quality-regression",
        cron=cron,
        parameters={"params": params, "judge": True, "accept": False},
        description="Nightly answer-quality regression: RAGAS + deterministic metrics, gated against the baseline.",
        tags=["quality"],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve yaksa's Prefect deployments")
    parser.add_argument("--params", default="params.yaml")
    parser.add_argument("--cron", default=REBUILD_CRON, help="rebuild-index schedule")
    parser.add_argument("--regression-cron", default=REGRESSION_CRON, help="quality-regression schedule")
    args = parser.parse_args()
    serve(rebuild_deployment(args.params, args.cron), regression_deployment(args.params, args.regression_cron))


if __name__ == "__main__":
    main()
