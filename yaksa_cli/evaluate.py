"""`yaksa eval …`: the published bundle on the dev sets, the scope model, real posts, the critique."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from yaksa_cli.common import ParamsOpt, fail, load_params, published_bundle

eval_app = typer.Typer(no_args_is_help=True, help="Evaluate the published bundle on the dev sets.")


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

    s = load_params(params)
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
        fail(exc)
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

    s = load_params(params)
    try:
        results = tune(s, limit)
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        fail(exc)
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
    from yaksa.retrieval.searcher import Searcher

    s = load_params(params)
    try:
        drugs = [d for d in read_documents(s.paths.documents) if d.collection == "drugs"]
        with published_bundle(s) as loaded:
            report = natural_report(Searcher(loaded, s.retrieval), drugs, s.retrieval.k)
        result = run_retrieval_suite(s, [CONFIGURED], limit, progress=typer.echo) if old else None
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        fail(exc)
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
    from yaksa.critique.factory import build_critique_agent
    from yaksa.critique.medqa import load_vignettes, run_benchmark
    from yaksa.pipeline.rawdata import default_shared_dir

    s = load_params(params)
    path = data or default_shared_dir(s.paths.root) / "medqa-usmle-test" / "test.jsonl"
    try:
        items = load_vignettes(path, limit)
        with published_bundle(s) as loaded:
            report = run_benchmark(build_critique_agent(loaded, s), items, progress=typer.echo)
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        fail(exc)
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
    variants: Annotated[str, typer.Option(
        "--variants", "--profiles", help="comma-separated ablation variants (default: all; --profiles is the old name)")] = "",
    trials: Annotated[int | None, typer.Option(
        min=1, help="runs per variant (default: 1 offline, where the agent is deterministic; 3 with an LLM)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="one JSON object on the last line")] = False,
    params: ParamsOpt = Path("params.yaml"),
) -> None:
    """Simulated 5-turn patient dialogues under every ablation variant, paired per persona (docs/agent.md)."""
    from yaksa.evaluation.dialogues.run import run_full_study

    s = load_params(params)
    chosen = [p.strip() for p in variants.split(",") if p.strip()] or None
    try:
        with published_bundle(s) as loaded:
            result = run_full_study(loaded, s, personas_limit=personas, variants=chosen, trials=trials,
                                    progress=typer.echo)
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        fail(exc)
    if as_json:
        typer.echo(json.dumps(result, ensure_ascii=False))
        return
    typer.echo(f"{result['personas']} personas, {result['turns']} turns, {result['trials']} trial(s) in "
               f"{result['runtime_s']} s; report: {result['report']}")
    for name, means in result["variants"].items():
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
    from yaksa.critique.factory import build_critique_agent
    from yaksa.critique.medqa import as_case, load_vignettes
    from yaksa.pipeline.rawdata import default_shared_dir

    s = load_params(params)
    medqa = default_shared_dir(s.paths.root) / "medqa-usmle-test" / "test.jsonl"
    try:
        extra = [as_case(v)[0] for v in load_vignettes(medqa, background)] if background and medqa.is_file() else []
        with published_bundle(s) as loaded:
            report = calibrate(build_critique_agent(loaded, s), load_calibration_cases(), extra)
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        fail(exc)
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

    s = load_params(params)
    try:
        report = run_scope_eval(s, limit, metrics_path=metrics, progress=typer.echo, per_source=per_source)
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        fail(exc)
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
    s = load_params(params)
    metrics = s.paths.root / METRICS_FILE
    try:
        report = run_posts_eval(s, split, limit, metrics_path=None if no_write else metrics, progress=typer.echo)
        if json_path is not None:
            write_json(json_path, report.to_json())
    except Exception as exc:  # noqa: BLE001 - the CLI boundary: one clear line, exit code 1
        fail(exc)
    for line in describe(report):
        typer.echo(line)
    if not no_write:
        typer.echo(f"wrote {metrics}")
