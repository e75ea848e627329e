"""`yaksa` command line: build stages, search, bundle administration, serving.

DVC stages and the Prefect tasks call the same `yaksa.pipeline` / `yaksa.corpus` functions that these
commands call, so every way of building runs one code path.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from yaksa.config import ConfigError, Settings, load_settings
from yaksa.pipeline.stages import STAGES, run_stage
from yaksa.runtime import configure_offline_env

app = typer.Typer(add_completion=False, no_args_is_help=True, help="yaksa: Korean pharmacy QA — build, search, serve.")

eval_app = typer.Typer(no_args_is_help=True, help="Evaluate the published bundle on the dev sets.")
app.add_typer(eval_app, name="eval")

regress_app = typer.Typer(no_args_is_help=True, help="Nightly answer-quality regression (README: Answer quality).")
app.add_typer(regress_app, name="regress")

ParamsOpt = Annotated[Path, typer.Option("--params", "-p", help="params.yaml of the project")]


def _settings(params: Path) -> Settings:
    try:
        return load_settings(params)
    except ConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc


def _fail(exc: Exception) -> None:
    typer.echo(f"error: {exc}", err=True)
    raise typer.Exit(1) from exc


@app.callback()
def _main() -> None:
    configure_offline_env()


@app.command("link-data")
def link_data(
    params: ParamsOpt = Path("params.yaml"),
    shared: Annotated[Path | None, typer.Option(help="shared data folder (default ../shared/data)")] = None,
) -> None:
    """Symlink ../shared/data folders into data/raw (nothing is copied)."""
    from yaksa.pipeline.rawdata import default_shared_dir, link_shared_data

    s = _settings(params)
    shared_dir = shared or default_shared_dir(s.paths.root)
    linked, missing = link_shared_data(s.paths.raw, shared_dir)
    typer.echo(f"linked into {s.paths.raw.relative_to(s.paths.root)}: {', '.join(linked) or 'nothing'}")
    if missing:
        typer.echo(
            f"not found in {shared_dir}: {', '.join(missing)} — only the sources present "
            "(and the generated Synthea cases) will be indexed"
        )


@app.command("build")
def build_run(
    stage: Annotated[str, typer.Argument(help=f"one of {', '.join(STAGES)}, or 'all'")],
    params: ParamsOpt = Path("params.yaml"),
    no_publish: Annotated[bool, typer.Option("--no-publish", help="index: write the bundle, leave CURRENT")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress bars")] = False,
    runner: Annotated[str | None, typer.Option(
        help="local | processes | dask: where tokenize/embed batches run (default: build.runner in params.yaml)")] = None,
    address: Annotated[str | None, typer.Option(
        help="Dask scheduler address, e.g. tcp://host:8786 (implies --runner dask)")] = None,
    workers: Annotated[int | None, typer.Option(
        min=0, help="worker processes of the local pool or Dask cluster, 0 = one per core (a pool unless --runner dask)")] = None,
) -> None:
    """Run one offline build stage, or `all` in order (what dvc.yaml calls; no Prefect needed).

    With the dask runner the stages run as the Prefect flow `flows.build_index` on prefect-dask's
    DaskTaskRunner (imported by name: this package never imports Prefect); the batches are the same.
    """
    s = _settings(params)
    if stage != "all" and stage not in STAGES:
        _fail(ValueError(f"unknown stage {stage!r}; stages: {', '.join(STAGES)}, all"))
    try:
        build = s.build.overridden(runner, address, workers)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    stages = STAGES if stage == "all" else (stage,)
    if build.runner == "dask":
        import importlib

        flow_module = importlib.import_module("flows.build_index")
        try:
            report = flow_module.build_flow(build)(params=str(params), stages=list(stages), publish=not no_publish)
        except Exception as exc:  # noqa: BLE001 - the CLI boundary: any stage error becomes one clear line
            _fail(exc)
        for name in stages:
            typer.echo(f"[{name}] " + json.dumps(report[name], ensure_ascii=False, default=str))
        return
    for name in stages:
        try:
            summary = run_stage(name, s, progress=not quiet, publish=not no_publish)
        except Exception as exc:  # noqa: BLE001 - the CLI boundary: any stage error becomes one clear line
            _fail(exc)
        typer.echo(f"[{name}] " + json.dumps(summary, ensure_ascii=False, default=str))


@app.command()
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
    from yaksa.retrieval.loader import load_published
    from yaksa.retrieval.searcher import Searcher
    from yaksa.scope.search import search_in_scope
    from yaksa.scope.stage import ScopeStage

    if (query is None) == (queries is None):
        typer.echo("error: give a QUERY or --queries FILE (not both)", err=True)
        raise typer.Exit(2)
    s = _settings(params)
    try:
        lines = [query] if query is not None else _read_queries(queries)
        retrieval = replace(s.retrieval, fusion=fusion, per_collection={}) if fusion else s.retrieval
        loaded = load_published(s.paths.indexes, version)
        searcher = Searcher(loaded, retrieval)
        scope = ScopeStage(loaded, s.retrieval, searcher.query_vector, scope_params=s.scope,
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
        _fail(exc)


def _read_queries(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read queries file {path}: {exc}") from exc
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise ValueError(f"{path}: no queries")
    return lines


@eval_app.command("retrieval")
def eval_retrieval(
    mode: Annotated[
        list[str] | None, typer.Option("--mode", help="weighted|rrf|bm25|dense|configured; default: all")
    ] = None,
    limit: Annotated[int, typer.Option(min=0, help="questions per English dev set (0 = all)")] = 0,
    no_write: Annotated[bool, typer.Option("--no-write", help="print only: no snapshot, no DVC metrics")] = False,
    params: ParamsOpt = Path("params.yaml"),
) -> None:
    """Ablation of BM25-only, dense-only, weighted and RRF on MFDS-ko, MedQuAD and PubMedQA dev sets."""
    from yaksa.config import FUSION_METHODS
    from yaksa.evaluation.suite import CONFIGURED, markdown_table, run_retrieval_suite

    s = _settings(params)
    modes = mode or [*FUSION_METHODS, CONFIGURED]
    bad = [m for m in modes if m not in (*FUSION_METHODS, CONFIGURED)]
    if bad:
        typer.echo(f"error: unknown mode(s) {bad}; choose from {', '.join(FUSION_METHODS)}", err=True)
        raise typer.Exit(2)
    try:
        result = run_retrieval_suite(
            s, modes, limit,
            snapshot_db=None if no_write else s.paths.eval_snapshots,
            metrics_path=None if no_write else s.paths.retrieval_metrics,
            progress=typer.echo,
        )
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        _fail(exc)
    for note in result.skipped:
        typer.echo(f"skipped {note}")
    typer.echo(f"\nbundle {result.version}\n" + markdown_table(result))


@eval_app.command("tune")
def eval_tune(
    limit: Annotated[int, typer.Option(min=0, help="questions per English dev set (0 = all)")] = 0,
    params: ParamsOpt = Path("params.yaml"),
) -> None:
    """Choose each collection's fusion on half of its dev set; report it on the other half."""
    import yaml

    from yaksa.evaluation.tuning import suggested_params, tune

    s = _settings(params)
    try:
        results = tune(s, limit)
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        _fail(exc)
    typer.echo("| set (collection) | configuration | MRR@10 tuning half | MRR@10 held-out half |")
    typer.echo("|---|---|---:|---:|")
    for r in results:
        for cfg, test in r.test_mrr.items():
            mark = " (chosen)" if cfg == r.chosen else ""
            typer.echo(f"| {r.goldset} ({r.collection}), n={r.n_tune}/{r.n_test} | {cfg}{mark} | "
                       f"{r.tune_mrr[cfg]:.3f} | {test:.3f} |")
    typer.echo("\nretrieval.per_collection to record in params.yaml:\n"
               + yaml.safe_dump({"per_collection": suggested_params(results)}, sort_keys=True))


@eval_app.command("natural")
def eval_natural(
    old: Annotated[bool, typer.Option("--old/--no-old", help="also MFDS-ko, MedQuAD, PubMedQA (configured)")] = True,
    limit: Annotated[int, typer.Option(min=0, help="questions per English dev set (0 = all)")] = 0,
    show_failures: Annotated[str | None, typer.Option("--failures", help="list misses of one half: tuning|held_out")] = None,
    params: ParamsOpt = Path("params.yaml"),
) -> None:
    """Natural Korean questions (held-out half): answers about the asked drug, symptom and intent."""
    from yaksa.corpus.ingest import read_documents
    from yaksa.evaluation.natural_ko import markdown
    from yaksa.evaluation.suite import CONFIGURED, markdown_table, natural_report, run_retrieval_suite
    from yaksa.retrieval.loader import load_published
    from yaksa.retrieval.searcher import Searcher

    s = _settings(params)
    try:
        drugs = [d for d in read_documents(s.paths.documents) if d.collection == "drugs"]
        loaded = load_published(s.paths.indexes)
        try:
            report = natural_report(Searcher(loaded, s.retrieval), drugs, s.retrieval.k)
        finally:
            loaded.close()
        result = run_retrieval_suite(s, [CONFIGURED], limit, progress=typer.echo) if old else None
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        _fail(exc)
    t = report.tuning
    typer.echo(f"\n{markdown(report)}\ntuning half (n={int(t['n'])}): first {t['first_ok']:.1%}, "
               f"share {t['share']:.1%}, intent {t['intent_ok']:.1%}, P@5 {t.get('p@5', 0.0):.3f}")
    for f in report.failures:
        if f["half"] == show_failures:
            typer.echo(f"  miss ({f['half']}) {f['qid']} [{f['kind']}] {f['question']} -> {f['first']}")
    if result is not None:
        typer.echo(f"\nbundle {result.version}\n" + markdown_table(result))


@eval_app.command("critique")
def eval_critique(
    limit: Annotated[int, typer.Option(min=0, help="vignettes, in file order (0 = all 1,273)")] = 200,
    data: Annotated[Path | None, typer.Option(help="MedQA test.jsonl (default: the shared medqa-usmle-test)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object on the last line")] = False,
    params: ParamsOpt = Path("params.yaml"),
) -> None:
    """The M&M critique on MedQA-USMLE vignettes whose management was a wrong option (README: Case critique)."""
    from yaksa.critique.medqa import load_vignettes, run_benchmark
    from yaksa.critique.runtime import build_critique_agent
    from yaksa.pipeline.rawdata import default_shared_dir
    from yaksa.retrieval.loader import load_published

    s = _settings(params)
    path = data or default_shared_dir(s.paths.root) / "medqa-usmle-test" / "test.jsonl"
    try:
        items = load_vignettes(path, limit)
        loaded = load_published(s.paths.indexes)
        try:
            report = run_benchmark(build_critique_agent(loaded, s), items, progress=typer.echo)
        finally:
            loaded.close()
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        _fail(exc)
    if as_json:
        typer.echo(json.dumps(report, ensure_ascii=False))
        return
    typer.echo(f"{report['n']} vignettes: evidence about the answer in the top {5}: "
               f"{report['evidence_about_answer_top5']:.1%}; critique names the answer: "
               f"{report['critique_names_answer']:.1%}; latency p50 {report['latency_ms']['p50']} ms")
    for mode, m in report["modes"].items():
        typer.echo(f"  {mode:32s} n={m['n']}")
    for half, h in report["halves"].items():
        typer.echo(f"  {half:32s} n={h['n']} evidence {h['evidence_about_answer_top5'] or 0:.1%}, "
                   f"names the answer {h['critique_names_answer'] or 0:.1%}")


@eval_app.command("dialogues")
def eval_dialogues(
    personas: Annotated[int, typer.Option(min=1, help="Synthea personas (5 turns each)")] = 80,
    profiles: Annotated[str, typer.Option(help="comma-separated ablation profiles (default: all)")] = "",
    trials: Annotated[int | None, typer.Option(
        min=1, help="runs per profile (default: 1 offline, where the agent is deterministic; 3 with an LLM)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object on the last line")] = False,
    params: ParamsOpt = Path("params.yaml"),
) -> None:
    """Simulated 5-turn patient dialogues under every ablation profile, paired per persona (README: Agent)."""
    from yaksa.evaluation.dialogues.run import run_full_study
    from yaksa.retrieval.loader import load_published

    s = _settings(params)
    chosen = [p.strip() for p in profiles.split(",") if p.strip()] or None
    try:
        loaded = load_published(s.paths.indexes)
        try:
            result = run_full_study(loaded, s, personas_limit=personas, profiles=chosen, trials=trials,
                                    progress=typer.echo)
        finally:
            loaded.close()
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        _fail(exc)
    if as_json:
        typer.echo(json.dumps(result, ensure_ascii=False))
        return
    typer.echo(f"{result['personas']} personas, {result['turns']} turns, {result['trials']} trial(s) in "
               f"{result['runtime_s']} s; report: {result['report']}")
    for name, means in result["profiles"].items():
        typer.echo(f"  {name:28s} " + "  ".join(f"{k}={v}" for k, v in means.items() if k != "tokens"))
    for group in result["identical"]:
        typer.echo(f"  identical: {', '.join(group)}")
    for c in result["cold_vs_dialogue"]:
        if c["delta"]:
            typer.echo(f"  cold - dialogue  {c['metric']:20s} {c['delta']:+.3f}  p(Holm) {c['p_holm']:.3g}")
    if not result["llm"]["ran"]:
        typer.echo(f"  {result['llm']['note']}")


@eval_app.command("critique-threshold")
def eval_critique_threshold(
    background: Annotated[int, typer.Option(min=0, help="MedQA vignettes for the background rate (0 = none)")] = 200,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object on the last line")] = False,
    params: ParamsOpt = Path("params.yaml"),
) -> None:
    """Calibrate critique.internal_threshold on the tuning half of the calibration cases; report both halves."""
    from yaksa.critique.calibration import calibrate, load_calibration_cases
    from yaksa.critique.medqa import as_case, load_vignettes
    from yaksa.critique.runtime import build_critique_agent
    from yaksa.pipeline.rawdata import default_shared_dir
    from yaksa.retrieval.loader import load_published

    s = _settings(params)
    medqa = default_shared_dir(s.paths.root) / "medqa-usmle-test" / "test.jsonl"
    try:
        extra = [as_case(v)[0] for v in load_vignettes(medqa, background)] if background and medqa.is_file() else []
        loaded = load_published(s.paths.indexes)
        try:
            report = calibrate(build_critique_agent(loaded, s), load_calibration_cases(), extra)
        finally:
            loaded.close()
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        _fail(exc)
    if as_json:
        typer.echo(json.dumps(report, ensure_ascii=False))
        return
    typer.echo(f"threshold {report['threshold']} (embedder {report['embedder']}; params: "
               f"critique.internal_threshold = {s.critique.internal_threshold})")
    for half in ("tuning", "held_out", "background"):
        if half in report:
            typer.echo(f"  {half:10s} {report[half]}")


@eval_app.command("scope")
def eval_scope(
    limit: Annotated[int, typer.Option(min=0, help="questions per English dev set (0 = all)")] = 0,
    metrics: Annotated[Path, typer.Option(help="metrics file to write")] = Path("metrics/scope.json"),
    per_source: Annotated[int, typer.Option(min=0, help="held-out texts per real-question source (0 = all)")] = 200,
    params: ParamsOpt = Path("params.yaml"),
) -> None:
    """The scope model per source of other people's questions (leave-one-source-out and live), on our held-out
    half per domain, and on the dev sets."""
    from yaksa.evaluation.scope_eval import run_scope_eval

    s = _settings(params)
    try:
        report = run_scope_eval(s, limit, metrics_path=metrics, progress=typer.echo, per_source=per_source)
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        _fail(exc)
    h = report.held_out
    typer.echo(f"\nmodel {report.model}, bundle {report.version}\nweights {report.weights}\n"
               f"held-out: block rate {h['block_rate']:.3f} (n={int(h['n_out_of_scope'])}, decoys "
               f"{h['decoy_block_rate']:.3f} of {int(h['n_decoys'])}), false-block rate {h['false_block_rate']:.3f} "
               f"(n={int(h['n_in_scope'])})")
    for name, r in report.per_domain.items():
        typer.echo(f"  {name:28s} {'blocked' if name.startswith('out:') else 'false-blocked'} "
                   f"{r['rate']:.3f} (n={int(r['n'])})")
    for name, r in report.dev_false_block.items():
        typer.echo(f"  dev {name:24s} false-blocked {r['false_block_rate']:.3f} (n={int(r['n'])})")
    if report.per_source:
        typer.echo("\nper source (refused; live on the held-out half | leave-one-source-out | model card held-out):")
    for name, r in report.per_source.items():
        loso, fit = r.get("loso_refused"), r.get("fit_held_out_refused")
        typer.echo(f"  {name:20s} {r['category']:12s} {'in scope ' if r['in_scope'] else 'non-medical'} "
                   f"refused {r['refused']:.3f} (n={r['n']}) | "
                   f"{'-' if loso is None else f'{loso:.3f}'} | {'-' if fit is None else f'{fit:.3f}'}")
    typer.echo(f"misclassified ({len(report.misses)}):")
    for m in report.misses:
        typer.echo(f"  [{m.set}] expected {m.expected}, p={m.p_in_scope:.3f} {m.reason}: {m.text or m.qid}")
    typer.echo(f"wrote {metrics}")


@eval_app.command("posts")
def eval_posts(
    split: Annotated[str, typer.Option(help="tune | held_out | all")] = "all",
    limit: Annotated[int, typer.Option(min=0, help="the first N labelled posts of the split (0 = all)")] = 0,
    json_path: Annotated[Path | None, typer.Option("--json", help="also write the report to this file")] = None,
    no_write: Annotated[bool, typer.Option("--no-write", help="print only: no metrics/posts.json")] = False,
    params: ParamsOpt = Path("params.yaml"),
) -> None:
    """Hand-labelled real patients' posts through the agent: refusals, red flags first, product first, person."""
    from yaksa.atomicio import write_json
    from yaksa.evaluation.posts_eval import METRICS_FILE, SPLIT_CHOICES, describe, run_posts_eval

    if split not in SPLIT_CHOICES:
        typer.echo(f"error: unknown split {split!r}; choose from {', '.join(SPLIT_CHOICES)}", err=True)
        raise typer.Exit(2)
    s = _settings(params)
    metrics = s.paths.root / METRICS_FILE
    try:
        report = run_posts_eval(s, split, limit, metrics_path=None if no_write else metrics, progress=typer.echo)
        if json_path is not None:
            write_json(json_path, report.to_json())
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        _fail(exc)
    for line in describe(report):
        typer.echo(line)
    if not no_write:
        typer.echo(f"wrote {metrics}")


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

    s = _settings(params)
    try:
        out = run_regression(s, per_category=per_category, judge=judge, accept=accept, progress=typer.echo)
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        _fail(exc)
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

    s = _settings(params)
    try:
        RunStore(s.paths.root / s.regression.db_path).accept(run_id)
    except KeyError as exc:
        _fail(exc)
    typer.echo(f"run {run_id} is now the baseline")


@regress_app.command("runs")
def regress_runs(params: ParamsOpt = Path("params.yaml")) -> None:
    """The latest runs: id, bundle, passed, accepted."""
    from yaksa.evaluation.run_store import RunStore

    s = _settings(params)
    for r in RunStore(s.paths.root / s.regression.db_path).runs():
        typer.echo(f"{r.run_id}  bundle {r.bundle_version}  git {r.git_rev}  "
                   f"{'PASS' if r.passed else 'FAIL'}{'  baseline' if r.accepted else ''}")


@regress_app.command("adapt-prompts")
def regress_adapt_prompts(params: ParamsOpt = Path("params.yaml")) -> None:
    """Regenerate the committed Korean RAGAS prompts with the configured LLM endpoint (YAKSA_LLM_*)."""

    import os

    from yaksa.llm.config import LLMConfig
    from yaksa.evaluation import judge as j

    _settings(params)
    config = LLMConfig.from_env()
    if not config.configured:
        _fail(RuntimeError("no LLM endpoint: set YAKSA_LLM_BASE_URL (and YAKSA_LLM_API_KEY, YAKSA_LLM_MODEL)"))
    model = j.evaluator_model(config, os.environ)
    try:
        data = j.adapt_prompts_sync(config, model)
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        _fail(exc)
    j.save_prompts(j.PROMPTS_PATH, data, generated_by=f"ragas {j.RAGAS_VERSION} BasePrompt.adapt with {model}")
    typer.echo(f"wrote {j.PROMPTS_PATH}: review the translations, then commit it")


@app.command()
def critique(
    case_file: Annotated[Path, typer.Argument(help="the case: JSON (summary, timeline, findings, diagnoses, "
                                                   "management, outcome) or plain text")],
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object on the last line")] = False,
    params: ParamsOpt = Path("params.yaml"),
) -> None:
    """M&M critique of a clinical case: analysis, internal cases (validated), literature, cited critique."""
    from yaksa.corpus.case import CaseError, parse_case
    from yaksa.critique.runtime import build_critique_agent
    from yaksa.retrieval.loader import load_published

    s = _settings(params)
    try:
        case = parse_case(case_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, CaseError) as exc:
        _fail(ValueError(f"{case_file}: {exc}"))
    try:
        loaded = load_published(s.paths.indexes)
        result = build_critique_agent(loaded, s).run(case)
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        _fail(exc)
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


@app.command()
def ask(
    question: Annotated[list[str], typer.Argument(help="one or more questions, asked in order as one conversation")],
    user: Annotated[str, typer.Option("--user", "-u", help="whose profile memory to use")] = "cli-user",
    profile: Annotated[str | None, typer.Option("--profile", help="ablation profile (default: agent.profile)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object per question")] = False,
    params: ParamsOpt = Path("params.yaml"),
) -> None:
    """Ask the pharmacist agent; prints the answer and the trace (nodes, iterations, scores, timings, LLM calls)."""
    from yaksa.agent.runtime import build_runner
    from yaksa.retrieval.loader import load_published

    s = _settings(params)
    try:
        if profile is not None:
            s.agent.flags(profile)  # an unknown profile is an error before anything loads
        loaded = load_published(s.paths.indexes)
        runner = build_runner(loaded, s)
        for q in question:
            result = runner.run(q, user, profile)
            if as_json:
                out = {"answer": result.answer, "citations": [c.doc_id for c in result.citations],
                       "blocked": result.blocked, "bundle_version": result.bundle_version, "trace": result.trace}
                typer.echo(json.dumps(out, ensure_ascii=False, default=str))
                continue
            t = result.trace
            typer.echo(f"Q: {q}\n\n{result.answer}\n")
            for c in result.citations:
                typer.echo(f"  [문서 {c.n}] {c.title} — {c.section} ({c.doc_id})")
            typer.echo(f"\ntrace: profile={t['profile']} intent={t['intent']} k={t['k']} blocked={result.blocked} "
                       f"iterations={t['iterations']} scores={t['scores']} stop={t['stop_reason']} "
                       f"cache_hit={t['cache_hit']} llm_calls={t['llm_calls']['totals']}\n"
                       f"nodes: {' → '.join(t['nodes'])}\n"
                       f"timings_ms: {json.dumps(t['timings_ms'], ensure_ascii=False)}\n")
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        _fail(exc)


@app.command()
def indexes(params: ParamsOpt = Path("params.yaml")) -> None:
    """List bundle versions; the published one is marked with *."""
    from yaksa.index.publish import current_version, list_versions

    s = _settings(params)
    current = current_version(s.paths.indexes)
    for v in list_versions(s.paths.indexes):
        typer.echo(f"{'*' if v == current else ' '} {v}")


@app.command("publish")
def publish_cmd(version: str, params: ParamsOpt = Path("params.yaml")) -> None:
    """Point CURRENT at an existing version (e.g. roll back) after re-checking it."""
    from yaksa.index.publish import publish
    from yaksa.pipeline.sanity import check_bundle
    from yaksa.retrieval.loader import load_published

    s = _settings(params)
    try:
        loaded = load_published(s.paths.indexes, version)
        loaded.close()
        publish(
            s.paths.indexes,
            version,
            check=lambda b: check_bundle(b, loaded.tokenizer, loaded.embedders),
            keep=max(s.index.keep_versions, 1),
        )
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        _fail(exc)
    typer.echo(f"CURRENT -> {version}")


@app.command()
def serve(
    host: Annotated[str, typer.Option()] = "127.0.0.1",
    port: Annotated[int, typer.Option()] = 8000,
    workers: Annotated[int, typer.Option(min=1)] = 1,
    params: Annotated[Path | None, typer.Option(
        "--params", "-p", help="params.yaml of the project (default: $YAKSA_PARAMS, else ./params.yaml)")] = None,
) -> None:
    """Serve the published bundle over HTTP (Litestar under uvicorn).

    Every worker follows indexes/CURRENT by itself; the workers of one run share their rate-limit
    buckets through one SQLite file (`$YAKSA_RATE_FILE`, else a fresh one in a temporary directory
    removed at exit), so N workers still allow each key its limit once, and their metrics through one
    directory (`$PROMETHEUS_MULTIPROC_DIR`, else a fresh one there), so GET /metrics on any worker
    reports all of them. Logs are JSON lines on stderr (serving.logs). With `$YAKSA_DATABASE_URL` the
    rate-limit buckets, profiles, history and response cache live in that PostgreSQL database instead
    of this host's files, shared with every host that names it (README: One host or several).
    """
    import os
    import tempfile

    import uvicorn

    from serving.config import (
        HTTP_PROTOCOL,
        MULTIPROC_ENV,
        PARAMS_ENV,
        RATE_FILE_ENV,
        WORKER_HEALTHCHECK_S,
        params_path,
    )
    from serving.logs import uvicorn_log_config
    from yaksa.store import database_url

    try:
        path = params_path(params)
    except ConfigError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    _settings(path)  # fail here, with a clear message, rather than in every worker
    try:
        shared = database_url() is not None
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    os.environ[PARAMS_ENV] = str(path.resolve())  # what each worker's create_app reads
    own_rate_file = not shared and not os.environ.get(RATE_FILE_ENV, "").strip()
    own_metrics_dir = not os.environ.get(MULTIPROC_ENV, "").strip()
    with tempfile.TemporaryDirectory(prefix="yaksa-serve-") as run_dir:
        if own_rate_file:
            os.environ[RATE_FILE_ENV] = str(Path(run_dir) / "ratelimit.sqlite")
        if own_metrics_dir:  # before any worker imports prometheus_client: the mode is fixed at import
            (Path(run_dir) / "metrics").mkdir()
            os.environ[MULTIPROC_ENV] = str(Path(run_dir) / "metrics")
        try:
            # uvicorn's access log is off: the service logs each request itself, without the path (serving.observe)
            uvicorn.run("serving.app:create_app", factory=True, host=host, port=port, workers=workers,
                        timeout_worker_healthcheck=WORKER_HEALTHCHECK_S, http=HTTP_PROTOCOL,
                        log_config=uvicorn_log_config(), access_log=False)
        finally:
            if own_rate_file:
                del os.environ[RATE_FILE_ENV]  # the file goes with this run
            if own_metrics_dir:
                del os.environ[MULTIPROC_ENV]  # the directory too


db_app = typer.Typer(no_args_is_help=True, help="The shared PostgreSQL store ($YAKSA_DATABASE_URL).")
app.add_typer(db_app, name="db")


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Apply the schema migrations this code ships to the database `$YAKSA_DATABASE_URL` names.

    Every server applies them itself when it starts (`yaksa.store.postgres`); this is for applying
    them before a rollout, as a step of its own. Prints each migration applied (none: up to date).
    """
    import psycopg

    from yaksa.store import DATABASE_URL_ENV, database_url
    from yaksa.store.postgres import POOL_TIMEOUT_S, upgrade

    try:
        url = database_url()
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    if url is None:
        typer.echo(f"error: {DATABASE_URL_ENV} is not set (the SQLite files need no upgrade)", err=True)
        raise typer.Exit(2)
    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=int(POOL_TIMEOUT_S)) as con:
            applied = upgrade(con)
    except (psycopg.Error, RuntimeError) as exc:
        _fail(exc)
    typer.echo("\n".join(f"applied {name}" for name in applied) or "schema up to date")


def main() -> None:  # pragma: no cover - console entry point
    sys.exit(app())
