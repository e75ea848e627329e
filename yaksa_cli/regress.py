"""`yaksa regress …`: the nightly answer-quality regression (docs/evaluation.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from yaksa_cli.common import ParamsOpt, fail, load_params

regress_app = typer.Typer(no_args_is_help=True, help="Nightly answer-quality regression (docs/evaluation.md).")


@regress_app.command("run")
def regress_run(
    accept: Annotated[bool, typer.Option("--accept", help="make this run the baseline (also when it fails)")] = False,
    judge: Annotated[bool, typer.Option("--judge/--no-judge", help="LLM-judged RAGAS metrics when YAKSA_LLM_* is set")] = True,
    per_category: Annotated[int | None, typer.Option(min=0, help="items per category (0 = the whole suite; "
                                                     "default: regression.per_category)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="the summary as one JSON object on the last line")] = False,
    no_fail: Annotated[bool, typer.Option("--no-fail", help="exit 0 on a failed gate (the verdict stays in the metrics "
                                          "file): the DVC stage, so `dvc repro` still serves")] = False,
    params: ParamsOpt = Path("params.yaml"),
) -> None:
    """Replay the suite through the agent, score it, gate it against the baseline, write the report.

    Exit code 0 when the gate passes, 1 when it fails (a metric regressed, or > 2% NaN LLM scores)."""
    from yaksa.regression.nightly import run_regression

    s = load_params(params)
    try:
        out = run_regression(s, per_category=per_category, judge=judge, accept=accept, progress=typer.echo)
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        fail(exc)
    typer.echo(out.markdown)
    typer.echo(f"report: {out.report.markdown} and {out.report.html}")
    if out.accepted:
        typer.echo(f"run {out.run_id} is now the baseline")
    if not out.passed:
        typer.echo("regression gate FAILED: " + "; ".join(out.failures), err=True)
    if as_json:
        typer.echo(json.dumps({"run_id": out.run_id, "passed": out.passed, "accepted": out.accepted,
                               "baseline_run_id": out.baseline_run_id, "failures": out.failures,
                               **{k: out.summary[k] for k in ("n_items", "n_errors", "metrics", "latency_p50_ms",
                                                               "latency_p95_ms", "judge")}},
                              ensure_ascii=False, default=str))
    if not out.passed and not no_fail:
        raise typer.Exit(1)


@regress_app.command("accept")
def regress_accept(run_id: str, params: ParamsOpt = Path("params.yaml")) -> None:
    """Promote an earlier run to baseline (e.g. after reviewing a deliberate change)."""
    from yaksa.evaluation.run_store import RunStore

    s = load_params(params)
    try:
        RunStore(s.paths.regression_runs).accept(run_id)
    except KeyError as exc:
        fail(exc)
    typer.echo(f"run {run_id} is now the baseline")


@regress_app.command("runs")
def regress_runs(params: ParamsOpt = Path("params.yaml")) -> None:
    """The latest runs: id, bundle, passed, accepted."""
    from yaksa.evaluation.run_store import RunStore

    s = load_params(params)
    for r in RunStore(s.paths.regression_runs).runs():
        typer.echo(f"{r.run_id}  bundle {r.bundle_version}  git {r.git_rev}  "
                   f"{'PASS' if r.passed else 'FAIL'}{'  baseline' if r.accepted else ''}")


@regress_app.command("adapt-prompts")
def regress_adapt_prompts(params: ParamsOpt = Path("params.yaml")) -> None:
    """Regenerate the committed Korean RAGAS prompts with the configured LLM endpoint (YAKSA_LLM_*)."""

    import os

    from yaksa.evaluation import judge as j
    from yaksa.llm.config import LLMConfig

    load_params(params)
    config = LLMConfig.from_env()
    if not config.configured:
        fail(RuntimeError("no LLM endpoint: set YAKSA_LLM_BASE_URL (and YAKSA_LLM_API_KEY, YAKSA_LLM_MODEL)"))
    model = j.evaluator_model(config, os.environ)
    try:
        data = j.adapt_prompts_sync(config, model)
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        fail(exc)
    j.save_prompts(j.PROMPTS_PATH, data, generated_by=f"ragas {j.RAGAS_VERSION} BasePrompt.adapt with {model}")
    typer.echo(f"wrote {j.PROMPTS_PATH}: review the translations, then commit it")
