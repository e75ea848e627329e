"""`yaksa critique`: the M&M critique of one clinical case."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from yaksa_cli.common import ParamsOpt, fail, load_params, published_bundle


def critique(
    case_file: Annotated[Path, typer.Argument(help="the case: JSON (summary, timeline, findings, diagnoses, "
                                                   "management, outcome) or plain text")],
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object on the last line")] = False,
    params: ParamsOpt = Path("params.yaml"),
) -> None:
    """M&M critique of a clinical case: analysis, internal cases (validated), literature, cited critique."""
    from yaksa.corpus.case import CaseError, parse_case
    from yaksa.critique.factory import build_critique_agent

    s = load_params(params)
    try:
        case = parse_case(case_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, CaseError) as exc:
        fail(ValueError(f"{case_file}: {exc}"))
    try:
        with published_bundle(s) as loaded:
            result = build_critique_agent(loaded, s).run(case)
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        fail(exc)
    if as_json:
        typer.echo(json.dumps(result.to_json(), ensure_ascii=False, default=str))
        return
    typer.echo(f"retrieval mode: {result.retrieval_mode}")
    for m in result.analysis.risk_patterns:
        typer.echo(f"pattern {m.diagnosis}: {len(m.criteria_met)}/{m.criteria_total} "
                   f"({'considered' if m.considered else 'NOT considered'})")
    for c in result.internal:
        typer.echo(f"internal {c['doc_id']} {c['score']:.3f} {'kept' if c['kept'] else 'dropped'}: {c['reason']}")
    for name, claims in result.critique.items():
        typer.echo(f"\n## {name}")
        for claim in claims:
            typer.echo(f"- {claim.text} [{', '.join(claim.refs)}]")
    typer.echo(f"\nverification: {result.verification['verdict']}  trace: {result.trace['timings_ms']}")
