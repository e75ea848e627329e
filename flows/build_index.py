"""Build the index bundle: synthea → ingest → tokenize → embed → index (+ publish).

Runs with no Prefect server (a temporary local one starts itself):

    python -m flows.build_index --params params.yaml

Each step is a task in `tasks/build.py` calling the same `yaksa` stage functions as `dvc repro`.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from yaksa.runtime import configure_offline_env

configure_offline_env()

from prefect import flow

from tasks.build import concepts, embed, generate_synthea, index, ingest, tokenize
from yaksa.config import load_settings


@flow(name="build-index", log_prints=True)
def build_index(params: str = "params.yaml", synthea: bool = True, publish: bool = True) -> dict[str, Any]:
    settings = load_settings(Path(params))
    report: dict[str, Any] = {}
    if synthea:
        report["synthea"] = generate_synthea(settings)
    report["ingest"] = ingest(settings)
    report["concepts"] = concepts(settings)
    report["tokenize"] = tokenize(settings)
    report["embed"] = embed(settings)
    report["index"] = index(settings, publish=publish)
    print(f"published bundle {report['index']['version']}" if publish else f"built {report['index']['version']}")
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--params", default="params.yaml")
    parser.add_argument("--skip-synthea", action="store_true", help="reuse data/raw/synthea as it is")
    parser.add_argument("--no-publish", action="store_true")
    args = parser.parse_args()
    build_index(params=args.params, synthea=not args.skip_synthea, publish=not args.no_publish)


if __name__ == "__main__":
    main()
