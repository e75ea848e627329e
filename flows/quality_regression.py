"""Nightly answer quality: replay the regression suite, gate it against the baseline, publish the report.

    python -m flows.quality_regression --params params.yaml [--accept] [--per-category N] [--no-judge]

The verdict is a Prefect markdown artifact of the flow run (key `answer-quality`); a failed gate raises,
so the flow run ends Failed and the CLI exits non-zero. Runs with no Prefect server (a temporary local
one starts itself); with `prefect server start` the runs and artifacts are kept as history.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from yaksa.host import configure_offline_env

configure_offline_env()

from prefect import flow
from prefect.artifacts import create_markdown_artifact

from tasks.regression import answer_regression
from yaksa.config import load_settings

ARTIFACT_KEY = "answer-quality"


class RegressionGateFailed(RuntimeError):
    """The run regressed against the baseline (or its LLM scores were too often NaN)."""


@flow(name="quality-regression", log_prints=True)
def quality_regression(params: str = "params.yaml", per_category: int | None = None, judge: bool = True,
                       accept: bool = False) -> dict[str, Any]:
    settings = load_settings(Path(params))
    out = answer_regression(settings, per_category=per_category, judge=judge, accept=accept)
    create_markdown_artifact(key=ARTIFACT_KEY, markdown=out.markdown,
                             description=f"answer-quality regression {out.run_id}")
    print(f"report: {out.report.markdown}")
    if not out.passed:
        raise RegressionGateFailed("; ".join(out.failures))
    return {"run_id": out.run_id, "passed": out.passed, "accepted": out.accepted, "report": str(out.report.html)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--params", default="params.yaml")
    parser.add_argument("--per-category", type=int, default=None,
                        help="items per category (0 = the whole suite; default: regression.per_category)")
    parser.add_argument("--no-judge", action="store_true", help="skip the LLM-judged metrics")
    parser.add_argument("--accept", action="store_true", help="make this run the baseline")
    args = parser.parse_args()
    try:
        quality_regression(params=args.params, per_category=args.per_category, judge=not args.no_judge,
                           accept=args.accept)
    except RegressionGateFailed as exc:
        print(f"regression gate FAILED: {exc}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
