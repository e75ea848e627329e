"""The multi-turn ablation study: simulated patients under every agent variant, paired statistics, a report.

    python -m flows.dialogue_study --params params.yaml [--personas 80] [--variants a,b] [--trials K]

The report's path and the comparisons are a Prefect markdown artifact of the flow run (key
`dialogue-study`). Runs with no Prefect server (a temporary local one starts itself).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from yaksa.host import configure_offline_env

configure_offline_env()

from prefect import flow
from prefect.artifacts import create_markdown_artifact

from tasks.dialogues import dialogue_study
from yaksa.config import load_settings

ARTIFACT_KEY = "dialogue-study"


@flow(name="dialogue-study", log_prints=True)
def dialogue_study_flow(params: str = "params.yaml", personas: int = 80, variants: list[str] | None = None,
                        trials: int | None = None) -> dict[str, Any]:
    settings = load_settings(Path(params))
    result = dialogue_study(settings, personas=personas, variants=variants, trials=trials)
    report = settings.paths.root / result["report"]
    create_markdown_artifact(key=ARTIFACT_KEY, markdown=report.read_text("utf-8"),
                             description=f"dialogue study: {result['personas']} personas")
    print(f"report: {report}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--params", default="params.yaml")
    parser.add_argument("--personas", type=int, default=80)
    parser.add_argument("--variants", "--profiles", dest="variants", default="", help="comma-separated (default: all)")
    parser.add_argument("--trials", type=int, default=None,
                        help="runs per variant (default: 1 offline, 3 with an LLM endpoint)")
    args = parser.parse_args()
    chosen = [p.strip() for p in args.variants.split(",") if p.strip()] or None
    dialogue_study_flow(params=args.params, personas=args.personas, variants=chosen, trials=args.trials)


if __name__ == "__main__":
    main()
