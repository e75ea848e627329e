"""What the dialogue study's rows say: per-persona means, each variant against the reference, the cold
questions against the dialogue, variants that behave identically, and the summary the CLI prints.

Why every comparison is per persona: see `study`. Two families, each Holm-corrected on its own: the
ablations against the full variant (what each mechanism is worth) and cold against dialogue for the
full variant (what the conversation is worth); they answer different questions.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields
from typing import Any

from yaksa.config import AgentFlags
from yaksa.evaluation.dialogues.study import (
    LLM_METRICS,
    METRICS,
    QUESTION_KINDS,
    REFERENCE,
    StudyResult,
    TurnRow,
)
from yaksa.evaluation.paired import PairedComparison, paired_compare, with_holm

# what the same question asked cold can be compared on (profile recall: a cold user has stated nothing)
COLD_METRICS = ("personalisation", "product_hit", "follow_up_resolved", "citation_validity", "number_grounding",
                "safety_sentence", *LLM_METRICS, "latency_ms", "llm_calls", "tokens")


def persona_means(rows: Iterable[TurnRow], variant: str, metric: str,
                  kinds: Sequence[str] | None = None) -> dict[str, float]:
    """pid → the persona's mean of `metric` over its turns (of `kinds`, if given) and trials where it applies."""
    values: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        if r.variant == variant and metric in r.metrics and (kinds is None or r.kind in kinds):
            values[r.pid].append(r.metrics[metric])
    return {pid: statistics.fmean(v) for pid, v in values.items()}


def identical_variants(study: StudyResult) -> list[list[str]]:
    """Groups (of two or more) of variants whose every turn has the same answer and citations."""
    behaviour: dict[str, tuple[str, ...]] = {}
    for name in study.variants():
        rows = sorted((r for r in study.rows if r.variant == name), key=lambda r: (r.trial, r.pid, r.turn))
        behaviour[name] = tuple(r.fingerprint for r in rows)
    groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for name, key in behaviour.items():
        groups[key].append(name)
    return [g for g in groups.values() if len(g) > 1]


def differing_flags(group: Sequence[str], flags: Mapping[str, AgentFlags]) -> list[str]:
    """The configuration flags on which the variants of an identical group differ: the mechanisms that
    changed nothing in this run (offline: the ones that only act with an LLM)."""
    return [f.name for f in fields(AgentFlags) if len({getattr(flags[p], f.name) for p in group}) > 1]


def _pair(ref: Mapping[str, float], other: Mapping[str, float], *, name: str, metric: str, resamples: int,
          seed: int) -> PairedComparison | None:
    pids = sorted(set(ref) & set(other))
    if not pids:
        return None
    return paired_compare([ref[p] for p in pids], [other[p] for p in pids], name=name, metric=metric,
                          resamples=resamples, seed=seed)


def compare_variants(study: StudyResult, reference: str = REFERENCE, metrics: Sequence[str] = METRICS,
                     resamples: int = 5_000, seed: int = 0) -> list[PairedComparison]:
    """Each other variant against `reference` on every metric, paired per persona, Holm across all."""
    found = []
    for name in study.variants():
        if name == reference:
            continue
        for metric in metrics:
            found.append(_pair(persona_means(study.rows, reference, metric), persona_means(study.rows, name, metric),
                               name=name, metric=metric, resamples=resamples, seed=seed))
    return with_holm([c for c in found if c is not None])


def compare_cold(study: StudyResult, reference: str = REFERENCE, metrics: Sequence[str] = COLD_METRICS,
                 resamples: int = 5_000, seed: int = 0) -> list[PairedComparison]:
    """The question turns asked cold against the same turns in the dialogue, paired per persona
    (Δ = cold − dialogue: negative where the conversation helps), Holm across this family."""
    found = []
    for metric in metrics:
        found.append(_pair(persona_means(study.rows, reference, metric, QUESTION_KINDS),
                           persona_means(study.cold, reference, metric, QUESTION_KINDS),
                           name=reference, metric=metric, resamples=resamples, seed=seed))
    return with_holm([c for c in found if c is not None])


def _means(rows: Sequence[TurnRow], variant: str, metrics: Sequence[str],
           kinds: Sequence[str] | None = None) -> dict[str, float]:
    out = {}
    for metric in metrics:
        means = persona_means(rows, variant, metric, kinds)
        if means:
            out[metric] = round(statistics.fmean(means.values()), 4)
    return out


def variant_means(study: StudyResult, metrics: Sequence[str] = METRICS) -> dict[str, dict[str, float]]:
    """variant → metric → mean over personas (each persona weighted once)."""
    return {name: _means(study.rows, name, metrics) for name in study.variants()}


def cold_means(study: StudyResult, reference: str = REFERENCE) -> dict[str, dict[str, float]]:
    """The question turns' means, in the dialogue and cold ({"dialogue": …, "cold": …})."""
    return {"dialogue": _means(study.rows, reference, COLD_METRICS, QUESTION_KINDS),
            "cold": _means(study.cold, reference, COLD_METRICS, QUESTION_KINDS)}


def recall_by_turn(study: StudyResult) -> dict[str, dict[int, float]]:
    """variant → turn index → mean profile recall (the context-loss curve)."""
    values: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in study.rows:
        if "profile_recall" in r.metrics:
            values[r.variant][r.turn].append(r.metrics["profile_recall"])
    return {p: {t: round(statistics.fmean(v), 4) for t, v in sorted(turns.items())} for p, turns in values.items()}


def summary(study: StudyResult, comparisons: Sequence[PairedComparison], report: str | None = None,
            cold: Sequence[PairedComparison] = ()) -> dict[str, Any]:
    """The CLI's JSON object (the issue's keys first; `cold_vs_dialogue` has the shape of `comparisons`)."""
    return {"personas": len({r.pid for r in study.rows}),
            "turns": len({(r.pid, r.turn) for r in study.rows}),
            "variants": variant_means(study),
            "comparisons": [c.to_json() for c in comparisons],
            "identical": identical_variants(study),
            "report": report,
            "cold_vs_dialogue": [c.to_json() for c in cold],
            "cold_means": cold_means(study) if study.cold else {}}
