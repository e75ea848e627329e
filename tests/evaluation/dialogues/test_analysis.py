"""The study's analysis on hand-made rows: cold against dialogue paired per persona (checked against
scipy directly), only the question turns compared, the LLM-only flags of an identical group, the summary."""

from __future__ import annotations

import math

import pytest
from scipy.stats import ttest_rel, wilcoxon

from yaksa.config import AgentFlags
from yaksa.evaluation.dialogues.analysis import (
    cold_means,
    compare_cold,
    differing_flags,
    persona_means,
    summary,
)
from yaksa.evaluation.dialogues.study import REFERENCE, StudyResult, TurnRow

PIDS = [f"p{i}" for i in range(8)]
DIALOGUE_HIT = [1, 1, 1, 0, 1, 1, 0, 1]
COLD_HIT = [0, 1, 0, 0, 0, 1, 0, 0]


def row(pid: str, turn: int, kind: str, metrics: dict[str, float], trial: int = 0) -> TurnRow:
    return TurnRow(REFERENCE, trial, pid, turn, kind, metrics, f"{pid}{turn}{kind}{metrics}")


def study() -> StudyResult:
    rows, cold = [], []
    for pid, hit, cold_hit in zip(PIDS, DIALOGUE_HIT, COLD_HIT, strict=True):
        # a facts turn with a citation check: not a question turn, so never part of the cold comparison
        rows.append(row(pid, 1, "facts", {"citation_validity": 0.0, "profile_recall": 1.0}))
        rows.append(row(pid, 4, "caution_question", {"product_hit": float(hit), "citation_validity": 1.0}))
        cold.append(row(pid, 4, "caution_question", {"product_hit": float(cold_hit), "citation_validity": 1.0}))
    return StudyResult(rows, cold)


def test_cold_against_dialogue_is_paired_per_persona_as_scipy_computes_it() -> None:
    s = study()
    found = {c.metric: c for c in compare_cold(s, resamples=1_000)}
    assert set(found) == {"product_hit", "citation_validity"}      # profile recall is not a cold metric
    hit = found["product_hit"]
    assert hit.n == 8 and hit.name == REFERENCE
    assert hit.delta == pytest.approx(sum(COLD_HIT) / 8 - sum(DIALOGUE_HIT) / 8)   # cold − dialogue
    assert hit.p_t == pytest.approx(ttest_rel(COLD_HIT, DIALOGUE_HIT).pvalue)
    diffs = [c - d for c, d in zip(COLD_HIT, DIALOGUE_HIT, strict=True)]
    assert hit.p_wilcoxon == pytest.approx(wilcoxon(diffs, zero_method="pratt").pvalue)
    assert hit.ci[0] <= hit.delta <= hit.ci[1] < 0
    # the facts turns' citation_validity 0 is left out: the question turns are 1 in both, so no change
    assert found["citation_validity"].delta == 0 and found["citation_validity"].p_holm == 1.0
    # Holm over this family of two: the smaller p doubled
    assert hit.p_holm == pytest.approx(min(1.0, 2 * min(hit.p_t, found["citation_validity"].p_t)))


def test_means_restricted_to_kinds_and_averaged_over_trials() -> None:
    rows = [row("a", 2, "symptom_question", {"x": 1.0}), row("a", 2, "symptom_question", {"x": 0.0}, trial=1),
            row("a", 1, "facts", {"x": 0.0})]
    assert persona_means(rows, REFERENCE, "x") == {"a": pytest.approx(1 / 3)}
    assert persona_means(rows, REFERENCE, "x", ["symptom_question"]) == {"a": 0.5}
    means = cold_means(study())
    assert means["dialogue"]["product_hit"] == pytest.approx(0.75) and means["cold"]["product_hit"] == 0.25
    assert means["dialogue"]["citation_validity"] == 1.0


def test_the_flags_an_identical_group_differs_in() -> None:
    flags = {"a": AgentFlags(judge="heuristic"), "b": AgentFlags(judge="llm", dynamic_query=False),
             "c": AgentFlags(judge="llm")}
    assert differing_flags(["a", "b"], flags) == ["judge", "dynamic_query"]
    assert differing_flags(["b", "c"], flags) == ["dynamic_query"]
    assert differing_flags(["a", "a"], flags) == []


def test_summary_keeps_the_issue_shape_and_adds_the_cold_comparisons() -> None:
    s = study()
    data = summary(s, [], "reports/x/report.md", compare_cold(s, resamples=1_000))
    assert list(data)[:6] == ["personas", "turns", "variants", "comparisons", "identical", "report"]
    assert data["personas"] == 8 and data["turns"] == 16
    cold = {c["metric"]: c for c in data["cold_vs_dialogue"]}
    assert set(cold["product_hit"]) >= {"name", "metric", "delta", "ci", "p_t", "p_wilcoxon", "p_holm", "d_z"}
    assert math.isfinite(cold["product_hit"]["d_z"]) and cold["product_hit"]["d_z"] < 0
