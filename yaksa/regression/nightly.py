"""One regression run end to end: suite → agent → metrics → (LLM judge) → store → gate → report.

Why one function that the CLI, the DVC stage and the Prefect flow all call: the nightly run, a run by
hand and a run in CI must be the same run. The gate compares with the last accepted run, item by item;
the very first run has no baseline, passes with every metric "insufficient" and becomes the baseline.
The run fails (`RegressionOutcome.passed` False; the CLI exits non-zero, the flow run is Failed) when
a metric fails the gate or when more than 2% of the LLM-judged scores are NaN.
"""

from __future__ import annotations

import logging
import math
import tempfile
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from yaksa.agent.factory import build_runner
from yaksa.atomicio import write_json
from yaksa.config import Settings, params_hash
from yaksa.corpus.ingest import read_documents
from yaksa.evaluation.metrics import percentile
from yaksa.evaluation.run_store import RunRow, RunStore
from yaksa.index.manifest import git_revision
from yaksa.pipeline.rawdata import default_shared_dir
from yaksa.regression.gate import GateResult, MetricSpec, compare
from yaksa.regression.metrics import INFORMATIONAL, LOWER_IS_BETTER
from yaksa.regression.replay import ItemRecord, run_suite
from yaksa.regression.report import (
    HistoryPoint,
    Regression,
    ReportPaths,
    RunInfo,
    markdown_summary,
    write_report,
)
from yaksa.regression.suite import limit_suite, load_suite
from yaksa.retrieval.loader import load_published

log = logging.getLogger(__name__)

LLM_METRICS = ("faithfulness", "answer_relevancy")
WORST_PER_METRIC = 3
HISTORY_RUNS = 30


@dataclass(frozen=True)
class RegressionOutcome:
    run_id: str
    passed: bool
    accepted: bool
    baseline_run_id: str | None
    gate: GateResult
    summary: dict[str, Any]
    report: ReportPaths
    markdown: str          # the short verdict (the Prefect artifact)
    failures: list[str]    # why it failed, one line each


def metric_specs(names: Sequence[str], settings: Settings) -> list[MetricSpec]:
    """Gate specs of every metric seen in the run (informational ones are not gated)."""
    p = settings.regression
    specs = []
    for name in sorted(set(names) - INFORMATIONAL):
        kind = "llm" if name in LLM_METRICS else "deterministic"
        specs.append(MetricSpec(name, kind, p.tolerances.get(name, p.tolerance if kind == "deterministic" else 0.0),
                                higher_is_better=name not in LOWER_IS_BETTER))
    return specs


def _mean(values: Sequence[float]) -> float:
    kept = [v for v in values if isinstance(v, (int, float)) and math.isfinite(v)]
    return math.fsum(kept) / len(kept) if kept else math.nan


def summarise(records: Sequence[ItemRecord], judge_note: dict[str, Any]) -> dict[str, Any]:
    """Means per metric (overall and per category), latency percentiles, counts: metrics/answers.json."""
    by_metric: dict[str, list[float]] = defaultdict(list)
    by_category: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in records:
        for name, value in r.metrics.items():
            by_metric[name].append(value)
            by_category[r.item.category][name].append(value)
    latencies = by_metric.get("latency_ms", [])
    return {
        "n_items": len(records),
        "n_errors": sum(r.error is not None for r in records),
        "metrics": {name: round(_mean(v), 4) for name, v in sorted(by_metric.items())},
        "latency_p50_ms": round(percentile(latencies, 50), 2),
        "latency_p95_ms": round(percentile(latencies, 95), 2),
        "categories": {c: {n: round(_mean(v), 4) for n, v in sorted(m.items())} for c, m in sorted(by_category.items())},
        "judge": judge_note,
    }


def _judge(records: Sequence[ItemRecord], settings: Settings, embedder: Any) -> dict[str, Any]:
    """LLM-judged metrics into the records when an endpoint is configured; what happened, for the summary."""
    from yaksa.evaluation.judge import NOT_RUN_MESSAGE, JudgeInput, judge_from_env, judge_items_sync

    judge = judge_from_env(embedder)
    if judge is None:
        return {"ran": False, "note": NOT_RUN_MESSAGE}
    inputs = [JudgeInput(r.item.item_id, r.item.question, r.outcome.answer, list(r.outcome.contexts))
              for r in records if r.outcome is not None and not r.outcome.blocked]
    outcome = judge_items_sync(inputs, judge, k=settings.regression.judge_repeats)
    by_id = {r.item.item_id: r for r in records}
    for item_id, scores in outcome.scores.items():
        by_id[item_id].metrics.update({m: v for m, v in scores.items() if not math.isnan(v)})
    return {"ran": True, "model": outcome.model, "k": outcome.k, "ok": outcome.ok,
            "nan_rate": outcome.nan_rate, "nan_rate_overall": outcome.nan_rate_overall,
            "skipped": len(outcome.skipped), "errors": outcome.errors}


def _regressions(gate: GateResult, current: Mapping[str, Mapping[str, float]],
                 baseline: Mapping[str, Mapping[str, float]], store: RunStore, run_id: str,
                 baseline_id: str | None) -> list[Regression]:
    """The items that got most worse on each metric, with both answers (the report's side-by-side)."""
    if baseline_id is None:
        return []
    new, old = store.items(run_id), store.items(baseline_id)
    out: list[Regression] = []
    for m in gate.metrics:
        if m.status == "insufficient":
            continue
        for item_id, before, after in gate.worst_items(current, baseline, m.name, WORST_PER_METRIC):
            worse = (after < before) if m.higher_is_better else (after > before)
            if worse and item_id in new and item_id in old:
                out.append(Regression(item_id, new[item_id]["category"], m.name, new[item_id]["question"],
                                      old[item_id]["answer"], new[item_id]["answer"], before, after))
    return out


def _history(store: RunStore, metrics: Sequence[str]) -> list[HistoryPoint]:
    points = []
    for run in store.runs(HISTORY_RUNS):
        for name in metrics:
            value = run.summary.get("metrics", {}).get(name)
            if isinstance(value, (int, float)) and math.isfinite(value):
                points.append(HistoryPoint(run.run_id, run.created_at, name, float(value), run.accepted))
    return points


def run_regression(settings: Settings, *, per_category: int | None = None, judge: bool = True, accept: bool = False,
                   progress: Callable[[str], None] | None = None) -> RegressionOutcome:
    """Run the suite against the published bundle, gate it against the baseline, write the report."""
    p = settings.regression
    per_category = p.per_category if per_category is None else per_category
    root = settings.paths.root
    loaded = load_published(settings.paths.indexes)
    suite = limit_suite(load_suite(read_documents(settings.paths.documents), settings.paths.raw,
                                   shared_dir=default_shared_dir(root)), per_category)
    created = datetime.now(UTC)
    run_id = f"{created:%Y%m%dT%H%M%SZ}-{suite.suite_hash[:6]}"
    if progress:
        progress(f"run {run_id}: {len(suite.items)} items {suite.by_category()} on bundle {loaded.version}")
        for note in suite.skipped:
            progress(f"  skipped {note}")
    with tempfile.TemporaryDirectory(prefix="yaksa-regress-") as scratch:
        # safety enforced, exactly as `yaksa serve` builds it; memory and cache of its own
        runner = build_runner(loaded, settings.with_state_in(Path(scratch)))

        def tick(done: int, total: int, record: ItemRecord) -> None:
            if progress and (done % 50 == 0 or done == total):
                progress(f"  {done}/{total} items")

        records = run_suite(runner, suite.items, k=settings.retrieval.k, progress=tick)
        embedder = loaded.embedders.get("drugs") or next(iter(loaded.embedders.values()))
        judge_note = _judge(records, settings, embedder) if judge else {"ran": False, "note": "disabled (--no-judge)"}
    summary = {**summarise(records, judge_note), "suite_hash": suite.suite_hash, "skipped_sources": suite.skipped}
    store = RunStore(settings.paths.regression_runs)
    baseline_id = store.baseline()
    current = {r.item.item_id: r.metrics for r in records}
    baseline = store.scores(baseline_id) if baseline_id else {}
    names = sorted({n for r in records for n in r.metrics})
    specs = metric_specs(names, settings)
    gate = compare(current, baseline, specs, resamples=p.resamples, seed=p.seed,
                   alpha=p.alpha, llm_margin=p.llm_margin)
    failures = [f"{m.name}: {m.reason}" for m in gate.failed]
    if judge_note.get("ran") and not judge_note.get("ok"):
        failures.append(f"LLM judge: {judge_note['nan_rate_overall']:.1%} of scores are NaN (limit 2%)")
    passed = not failures
    summary["gate"] = {"passed": passed, "baseline_run_id": baseline_id, "failures": failures}
    git_rev, p_hash = git_revision(root), params_hash(settings)
    store.save_run(RunRow(run_id, created.strftime("%Y-%m-%dT%H:%M:%SZ"), loaded.version, p_hash,
                          git_rev, suite.suite_hash, passed, False, baseline_id, summary),
                   [r.to_row() for r in records])
    accepted = accept or baseline_id is None
    if accepted:
        store.accept(run_id)
    info = RunInfo(run_id, loaded.version, p_hash, git_rev, created.strftime("%Y-%m-%d %H:%M UTC"),
                   baseline_id, len(records))
    regressions = _regressions(gate, current, baseline, store, run_id, baseline_id)
    report = write_report(settings.paths.regression_reports / run_id, run=info, gate=gate,
                          history=_history(store, [spec.name for spec in specs]),
                          categories={c: {n: v for n, v in m.items() if n not in INFORMATIONAL}
                                      for c, m in summary["categories"].items()},
                          regressions=regressions)
    write_json(settings.paths.answer_metrics, {"run_id": run_id, "bundle_version": loaded.version, "passed": passed,
                                       "n_items": summary["n_items"], "latency_p50_ms": summary["latency_p50_ms"],
                                       "latency_p95_ms": summary["latency_p95_ms"], **summary["metrics"]})
    return RegressionOutcome(run_id, passed, accepted, baseline_id, gate, summary, report,
                             markdown_summary(info, gate, regressions), failures)
