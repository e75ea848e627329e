"""The whole study as one call (the CLI and the Prefect task): personas from the build's Synthea bundles,
their dialogues, every variant (and the cold questions), the LLM judge when an endpoint is configured,
the statistics, the report, summary.json and a snapshot in the run store.

Why trials depend on the endpoint: offline the agent is deterministic (a second trial repeats the first
turn for turn), while an LLM's answers vary between runs even at temperature 0; so with an endpoint the
study runs at least MIN_LLM_TRIALS trials (the default there) and refuses fewer.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from yaksa.config import Settings
from yaksa.evaluation.dialogues.analysis import compare_cold, compare_variants, summary
from yaksa.evaluation.dialogues.study import REFERENCE, run_study
from yaksa.llm.config import LLMConfig
from yaksa.retrieval.loader import LoadedBundle

REPORTS_DIR = "reports/dialogues"  # one folder per run (relative to params.yaml): report.md, PNGs, summary.json
MIN_LLM_TRIALS = 3


def resolve_trials(trials: int | None, llm: bool) -> int:
    """The trials to run: the given number, else 1 offline and MIN_LLM_TRIALS with an LLM endpoint."""
    if trials is None:
        return MIN_LLM_TRIALS if llm else 1
    if trials < 1:
        raise ValueError(f"trials must be >= 1, got {trials}")
    if llm and trials < MIN_LLM_TRIALS:
        raise ValueError(f"with an LLM endpoint the answers are stochastic: run at least {MIN_LLM_TRIALS} trials "
                         f"(got {trials})")
    return trials


def _variants(settings: Settings, variants: Sequence[str] | None) -> list[str]:
    chosen = list(variants or settings.agent.variants)
    if REFERENCE not in chosen:
        chosen.insert(0, REFERENCE)
    unknown = sorted(set(chosen) - set(settings.agent.variants))
    if unknown:
        raise ValueError(f"unknown variant(s) {unknown}; expected some of {sorted(settings.agent.variants)}")
    return chosen


def run_full_study(loaded: LoadedBundle, settings: Settings, *, personas_limit: int = 80,
                   variants: Sequence[str] | None = None, trials: int | None = None, seed: int = 13,
                   progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run, judge, compare, report and store the study; its summary (the CLI's JSON object)."""
    from yaksa.atomicio import write_json
    from yaksa.config import params_hash
    from yaksa.evaluation.dialogues.judged import bundle_judge, judge_study, not_run
    from yaksa.evaluation.dialogues.personas import load_personas
    from yaksa.evaluation.dialogues.report import write_report
    from yaksa.evaluation.dialogues.script import generate, load_drugs
    from yaksa.evaluation.dialogues.snapshot import dialogues_hash, save_snapshot
    from yaksa.index.manifest import git_revision

    fhir = settings.paths.raw / "synthea" / "fhir"
    drugs_csv = settings.paths.raw / "mfds-easy-drug-500" / "drug500_data.csv"
    for path in (fhir, drugs_csv):
        if not path.exists():
            raise FileNotFoundError(f"{path} not found: run the build (`dvc repro`) first")
    llm = LLMConfig.from_env().configured
    trials = resolve_trials(trials, llm)
    chosen = _variants(settings, variants)
    personas = load_personas(fhir, limit=personas_limit)
    dialogues = generate(personas, load_drugs(drugs_csv), seed)
    started = time.perf_counter()
    study = run_study(loaded, settings, personas, dialogues, chosen, trials, cold=True, progress=progress)
    judge = bundle_judge(loaded) if llm else None
    if judge is not None and progress:
        progress(f"judging faithfulness and answer relevancy with {judge.model} "
                 f"(K = {settings.regression.judge_repeats})")
    judged = judge_study(study, judge, settings.regression.judge_repeats) if judge is not None else not_run()
    comparisons, cold = compare_variants(study), compare_cold(study)
    created = time.gmtime()
    stamp = time.strftime("%Y%m%dT%H%M%SZ", created)
    out = settings.paths.root / REPORTS_DIR / stamp
    report = write_report(study, comparisons, out, cold=cold, judged=judged, flags=settings.agent.variants)
    result = {**summary(study, comparisons, str(report.relative_to(settings.paths.root)), cold),
              "trials": trials, "llm": judged, "runtime_s": round(time.perf_counter() - started, 1),
              "run_id": f"dialogues-{stamp}"}
    write_json(out / "summary.json", {**result, "bundle_version": loaded.version, "seed": seed})
    save_snapshot(settings.paths.regression_runs, result["run_id"],
                  time.strftime("%Y-%m-%dT%H:%M:%SZ", created), bundle_version=str(loaded.version),
                  params_hash=params_hash(settings), git_rev=git_revision(settings.paths.root),
                  suite_hash=dialogues_hash(dialogues), study=study, summary=result)
    return result
