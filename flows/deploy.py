"""Serve the scheduled deployments: `rebuild-index` nightly (cron) via `prefect.serve`.

    python -m flows.deploy            # blocks; runs scheduled and manually triggered runs

The rebuild publishes only when the new bundle passes its checks, so a bad night leaves the
served version in place.
"""

from __future__ import annotations

import argparse

from yaksa.runtime import configure_offline_env

configure_offline_env()

from prefect import serve

from flows.build_index import build_index

REBUILD_CRON = "30 2 * * *"  # 02:30 every night, server time zone


def rebuild_deployment(params: str = "params.yaml", cron: str = REBUILD_CRON):
    return build_index.to_deployment(
        name="rebuild-index",
        cron=cron,
        parameters={"params": params, "synthea": True, "publish": True},
        description="Nightly rebuild of the index bundle; publishes only on passing checks.",
        tags=["index"],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve yaksa's Prefect deployments")
    parser.add_argument("--params", default="params.yaml")
    parser.add_argument("--cron", default=REBUILD_CRON)
    args = parser.parse_args()
    serve(rebuild_deployment(args.params, args.cron))


if __name__ == "__main__":
    main()
