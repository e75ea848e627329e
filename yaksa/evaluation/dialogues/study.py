"""The multi-turn ablation study: every profile answers the same scripted dialogues (a paired design),
and each ablation is compared with the full profile per persona.

Why per persona: a persona's five turns share its facts and its drugs, so they are not independent
items; the persona's mean of each metric is the paired unit (80 personas → n = 80 per comparison).

Isolation: each (profile, trial) gets its own memory and response cache in a temporary folder, so no
profile answers from another's memory or cache, and trial k of every profile starts equally cold.
Offline the agent is deterministic, so one trial is what there is to measure: `identical` reports
profiles whose answers and citations are the same turn by turn (a mechanism that only acts with an LLM
changes nothing offline, and the report says so instead of presenting noise as its cost).
"""

from __future__ import annotations

import hashlib
import statistics
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from yaksa.agent.api import TurnResult
from yaksa.config import Settings
from yaksa.evaluation.answer_checks import ACKNOWLEDGED, answer_checks
from yaksa.evaluation.dialogues.metrics import (
    Fact,
    follow_up_resolved,
    personalisation,
    product_hit,
    profile_recall,
)
from yaksa.evaluation.paired import PairedComparison, paired_compare, with_holm
from yaksa.retrieval.loader import LoadedBundle

REFERENCE = "full_context_engineering"
ELDERLY_AGE, CHILD_AGE = 65, 12
PREGNANCY_WORDS = ("임부", "임신")
ELDERLY_WORDS = ("고령자", "노인")
CHILD_WORDS = ("소아", "어린이")
METRICS = ("profile_recall", "personalisation", "product_hit", "follow_up_resolved", "citation_validity",
           "number_grounding", "safety_sentence", "latency_ms", "llm_calls", "tokens")


@dataclass(frozen=True)
class TurnRow:
    profile: str
    trial: int
    pid: str
    turn: int
    kind: str
    metrics: dict[str, float]          # only the metrics that apply to this turn
    fingerprint: str                   # answer + cited doc ids: equal rows mean identical behaviour


@dataclass
class StudyResult:
    rows: list[TurnRow] = field(default_factory=list)

    def profiles(self) -> list[str]:
        return list(dict.fromkeys(r.profile for r in self.rows))


def persona_cautions(persona: Any) -> list[str]:
    """The words a cited 주의사항 uses for this persona: its conditions (Korean), its age group, pregnancy."""
    words = [korean for _, _, korean in persona.conditions if korean]
    if persona.age is not None and persona.age >= ELDERLY_AGE:
        words += ELDERLY_WORDS
    if persona.age is not None and persona.age < CHILD_AGE:
        words += CHILD_WORDS
    if persona.pregnant:
        words += PREGNANCY_WORDS
    return list(dict.fromkeys(words))


def _fingerprint(result: TurnResult) -> str:
    cited = ",".join(c.doc_id for c in result.citations)
    return hashlib.sha256(f"{result.answer}\x00{cited}".encode()).hexdigest()[:16]


def score_turn(turn: Any, result: TurnResult, stated: Sequence[Fact], profile_items: Iterable[Mapping[str, Any]],
               cautions: Sequence[str]) -> dict[str, float]:
    """Every metric that applies to one answered turn."""
    llm = result.trace.get("llm_calls", {}).get("totals", {})
    row: dict[str, float] = {"latency_ms": float(result.trace.get("timings_ms", {}).get("total", 0.0)),
                             "llm_calls": float(llm.get("calls", 0)),
                             "tokens": float(llm.get("prompt_tokens", 0) + llm.get("completion_tokens", 0))}
    recall = profile_recall(stated, profile_items)
    if recall is not None:
        row["profile_recall"] = recall
    if result.blocked:
        return row
    if result.trace.get("intent") not in ACKNOWLEDGED:
        row.update(answer_checks(result.answer, result.citations, len(result.contexts)))
    if turn.kind == "caution_question":
        row["product_hit"] = product_hit(result.citations, turn.expects["product"], turn.expects.get("item_seq"))
        # the caution the script chose this product for, else any the persona's facts could trigger
        keyword = turn.expects.get("keyword")
        fit = personalisation(result.answer, result.citations, [keyword] if keyword else cautions)
        if fit is not None:
            row["personalisation"] = fit
    if turn.kind == "follow_up":
        row["follow_up_resolved"] = follow_up_resolved(result.answer, result.citations, turn.expects["referent"],
                                                       turn.expects.get("item_seq"))
    return row


def run_study(loaded: LoadedBundle, settings: Settings, personas: Sequence[Any], dialogues: Sequence[Sequence[Any]],
              profiles: Sequence[str], trials: int = 1, progress: Callable[[str], None] | None = None) -> StudyResult:
    """Every profile × trial answers every dialogue, turn by turn, as one user per persona."""
    from yaksa.agent.runtime import build_runner  # the agent graph is heavy to import; only runs need it

    study = StudyResult()
    with tempfile.TemporaryDirectory(prefix="yaksa-dialogues-") as tmp:
        for name in profiles:
            for trial in range(trials):
                agent = replace(settings.agent, profile=name, memory_path=f"{tmp}/{name}-{trial}.duckdb",
                                cache_path=f"{tmp}/{name}-{trial}.npz")
                # ablation profiles switch the scope guard off; the study measures them as configured
                runner = build_runner(loaded, replace(settings, agent=agent), enforce_safety=False)
                for persona, turns in zip(personas, dialogues, strict=True):
                    user = f"dlg-{trial}-{persona.pid}"
                    cautions = persona_cautions(persona)
                    stated: list[Fact] = []
                    for turn in turns:
                        stated.extend(turn.facts_stated)
                        result = runner.run(turn.text, user, profile=name)
                        items = runner.profile(user).get("items", [])
                        study.rows.append(TurnRow(name, trial, persona.pid, turn.index, turn.kind,
                                                  score_turn(turn, result, stated, items, cautions),
                                                  _fingerprint(result)))
                if progress:
                    progress(f"{name} trial {trial + 1}/{trials}: {len(personas)} dialogues")
    return study


def persona_means(study: StudyResult, profile: str, metric: str) -> dict[str, float]:
    """pid → the persona's mean of `metric` over its turns (and trials) where it applies."""
    values: dict[str, list[float]] = defaultdict(list)
    for r in study.rows:
        if r.profile == profile and metric in r.metrics:
            values[r.pid].append(r.metrics[metric])
    return {pid: statistics.fmean(v) for pid, v in values.items()}


def identical_profiles(study: StudyResult) -> list[list[str]]:
    """Groups (of two or more) of profiles whose every turn has the same answer and citations."""
    behaviour: dict[str, tuple[str, ...]] = {}
    for name in study.profiles():
        rows = sorted((r for r in study.rows if r.profile == name), key=lambda r: (r.trial, r.pid, r.turn))
        behaviour[name] = tuple(r.fingerprint for r in rows)
    groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for name, key in behaviour.items():
        groups[key].append(name)
    return [g for g in groups.values() if len(g) > 1]


def compare_profiles(study: StudyResult, reference: str = REFERENCE, metrics: Sequence[str] = METRICS,
                     resamples: int = 5_000, seed: int = 0) -> list[PairedComparison]:
    """Each other profile against `reference` on every metric, paired per persona, Holm across all."""
    comparisons = []
    for name in study.profiles():
        if name == reference:
            continue
        for metric in metrics:
            ref, other = persona_means(study, reference, metric), persona_means(study, name, metric)
            pids = sorted(set(ref) & set(other))
            if not pids:
                continue
            comparisons.append(paired_compare([ref[p] for p in pids], [other[p] for p in pids],
                                              profile=name, metric=metric, resamples=resamples, seed=seed))
    return with_holm(comparisons)


def profile_means(study: StudyResult, metrics: Sequence[str] = METRICS) -> dict[str, dict[str, float]]:
    """profile → metric → mean over personas (each persona weighted once)."""
    out: dict[str, dict[str, float]] = {}
    for name in study.profiles():
        out[name] = {}
        for metric in metrics:
            means = persona_means(study, name, metric)
            if means:
                out[name][metric] = round(statistics.fmean(means.values()), 4)
    return out


def recall_by_turn(study: StudyResult) -> dict[str, dict[int, float]]:
    """profile → turn index → mean profile recall (the context-loss curve)."""
    values: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in study.rows:
        if "profile_recall" in r.metrics:
            values[r.profile][r.turn].append(r.metrics["profile_recall"])
    return {p: {t: round(statistics.fmean(v), 4) for t, v in sorted(turns.items())} for p, turns in values.items()}


def summary(study: StudyResult, comparisons: Sequence[PairedComparison], report: str | None = None) -> dict[str, Any]:
    """The CLI's JSON object."""
    return {"personas": len({r.pid for r in study.rows}),
            "turns": len({(r.pid, r.turn) for r in study.rows}),
            "profiles": profile_means(study),
            "comparisons": [c.to_json() for c in comparisons],
            "identical": identical_profiles(study),
            "report": report}


REPORTS_DIR = "reports/dialogues"  # one folder per run (relative to params.yaml): report.md, PNGs, summary.json


def run_full_study(loaded: LoadedBundle, settings: Settings, *, personas_limit: int = 80,
                   profiles: Sequence[str] | None = None, trials: int = 1, seed: int = 13,
                   progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Personas from the build's Synthea bundles, their dialogues, every profile, the report; the summary."""
    import time

    from yaksa.atomicio import write_json
    from yaksa.evaluation.dialogues.personas import load_personas
    from yaksa.evaluation.dialogues.report import write_report
    from yaksa.evaluation.dialogues.script import generate, load_drugs

    fhir = settings.paths.raw / "synthea" / "fhir"
    drugs_csv = settings.paths.raw / "mfds-easy-drug-500" / "drug500_data.csv"
    for path in (fhir, drugs_csv):
        if not path.exists():
            raise FileNotFoundError(f"{path} not found: run the build (`dvc repro`) first")
    personas = load_personas(fhir, limit=personas_limit)
    dialogues = generate(personas, load_drugs(drugs_csv), seed)
    chosen = list(profiles or settings.agent.profiles)
    if REFERENCE not in chosen:
        chosen.insert(0, REFERENCE)
    unknown = sorted(set(chosen) - set(settings.agent.profiles))
    if unknown:
        raise ValueError(f"unknown profile(s) {unknown}; expected some of {sorted(settings.agent.profiles)}")
    study = run_study(loaded, settings, personas, dialogues, chosen, trials, progress)
    comparisons = compare_profiles(study)
    run_id = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    out = settings.paths.root / REPORTS_DIR / run_id
    report = write_report(study, comparisons, out)
    result = summary(study, comparisons, str(report.relative_to(settings.paths.root)))
    write_json(out / "summary.json", {**result, "bundle_version": loaded.version, "seed": seed, "trials": trials})
    return result
