"""`yaksa search` and `yaksa ask`: the published bundle searched, the pharmacist agent asked."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from yaksa_cli.common import ParamsOpt, fail, load_params, published_bundle


def search(
    query: Annotated[str | None, typer.Argument(help="the question")] = None,
    collection: Annotated[list[str] | None, typer.Option("--collection", "-c")] = None,
    k: Annotated[int | None, typer.Option("--k", "-k", min=1, max=100, help="default: retrieval.k")] = None,
    fusion: Annotated[str | None, typer.Option(help="override retrieval.fusion: weighted|rrf|bm25|dense")] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
    queries: Annotated[Path | None, typer.Option("--queries", help="file with one query per line")] = None,
    params: ParamsOpt = Path("params.yaml"),
    version: Annotated[str | None, typer.Option(help="bundle version (default: CURRENT)")] = None,
) -> None:
    """Search the published bundle."""
    from yaksa.retrieval.searcher import Searcher
    from yaksa.scope.search import search_in_scope
    from yaksa.scope.stage import ScopeStage

    if (query is None) == (queries is None):
        typer.echo("error: give a QUERY or --queries FILE (not both)", err=True)
        raise typer.Exit(2)
    s = load_params(params)
    try:
        lines = [query] if query is not None else _read_queries(queries)
        retrieval = replace(s.retrieval, fusion=fusion, per_collection={}) if fusion else s.retrieval
        with published_bundle(s, version) as loaded:
            searcher = Searcher(loaded, retrieval)
            scope = ScopeStage(loaded, searcher.query_vector, scope_params=s.scope,
                               catalog=searcher.catalog, cache_dir=s.paths.embedding_cache, learned_dir=s.paths.scope_model)
            for q in lines:
                result = search_in_scope(scope, searcher, q, k=k, collections=collection)
                if as_json:
                    typer.echo(json.dumps(result, ensure_ascii=False))
                    continue
                flag = f"  BLOCKED (out of scope: {result['scope']['reason']})" if result["blocked"] else ""
                typer.echo(f"# {q}  (bundle {loaded.version}, collections {', '.join(result['collections'])}){flag}")
                for i, h in enumerate(result["results"], 1):
                    typer.echo(f"{i:2d}. [{h['collection']}] {h['title']} — {h['section']}  ({h['score']:.4f})")
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        fail(exc)


def _read_queries(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read queries file {path}: {exc}") from exc
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise ValueError(f"{path}: no queries")
    return lines


def ask(
    question: Annotated[list[str], typer.Argument(help="one or more questions, asked in order as one conversation")],
    user: Annotated[str, typer.Option("--user", "-u", help="whose profile memory to use")] = "cli-user",
    variant: Annotated[str | None, typer.Option(
        "--variant", "--profile", help="ablation variant (default: agent.variant; --profile is its old name)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object per question")] = False,
    params: ParamsOpt = Path("params.yaml"),
) -> None:
    """Ask the pharmacist agent; prints the answer and the trace (nodes, iterations, scores, timings, LLM calls)."""
    from yaksa.agent.factory import build_runner

    s = load_params(params)
    try:
        if variant is not None:
            s.agent.flags(variant)  # an unknown variant is an error before anything loads
        with published_bundle(s) as loaded:
            runner = build_runner(loaded, s)
            for q in question:
                result = runner.run(q, user, variant)
                if as_json:
                    out = {"answer": result.answer, "citations": [c.doc_id for c in result.citations],
                           "blocked": result.blocked, "bundle_version": result.bundle_version, "trace": result.trace}
                    typer.echo(json.dumps(out, ensure_ascii=False, default=str))
                    continue
                t = result.trace
                typer.echo(f"Q: {q}\n\n{result.answer}\n")
                for c in result.citations:
                    typer.echo(f"  [문서 {c.n}] {c.title} — {c.section} ({c.doc_id})")
                typer.echo(f"\ntrace: variant={t['variant']} intent={t['intent']} k={t['k']} blocked={result.blocked} "
                           f"iterations={t['iterations']} scores={t['scores']} stop={t['stop_reason']} "
                           f"cache_hit={t['cache_hit']} llm_calls={t['llm_calls']['totals']}\n"
                           f"nodes: {' → '.join(t['nodes'])}\n"
                           f"timings_ms: {json.dumps(t['timings_ms'], ensure_ascii=False)}\n")
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        fail(exc)
