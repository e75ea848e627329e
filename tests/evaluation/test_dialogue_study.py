"""The dialogue study end to end on the tiny bundle: two profiles answer the same two hand-made
dialogues; rows, identical-profile detection, paired comparisons and the report."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from yaksa.config import load_settings
from yaksa.evaluation.dialogues.report import write_report
from yaksa.evaluation.dialogues.study import (
    REFERENCE,
    StudyResult,
    TurnRow,
    compare_profiles,
    identical_profiles,
    persona_cautions,
    run_study,
    summary,
)
from yaksa.retrieval.loader import load_published


@dataclass(frozen=True)
class P:  # the fields of a persona the study reads
    pid: str
    age: int
    pregnant: bool = False
    conditions: tuple = ()


@dataclass(frozen=True)
class T:  # the fields of a turn the study reads
    index: int
    kind: str
    text: str
    facts_stated: tuple = ()
    expects: dict = field(default_factory=dict)


PERSONAS = [P("p1", 70, conditions=(("38341003", "hypertension", "고혈압"),)), P("p2", 30, pregnant=True)]
GELFOS = "겔포스현탁액(인산알루미늄겔)"  # in the tiny project


def dialogue(age: int, extra: str) -> list[T]:
    return [T(1, "facts", f"저는 {age}세이고 {extra}", (("demographics", "age", age),)),
            T(2, "symptom_question", "머리가 아픈데 무슨 약 먹으면 돼요?"),
            T(3, "new_fact", "어제 혈압 재보니 150/95 나왔어요", (("vitals", "blood_pressure", "150/95"),)),
            T(4, "caution_question", "속이 쓰린데 겔포스 먹어도 되나요?", expects={"product": GELFOS}),
            T(5, "follow_up", "그럼 그 약은 하루에 몇 번 먹어요?", expects={"referent": GELFOS})]


def test_persona_cautions() -> None:
    assert persona_cautions(PERSONAS[0]) == ["고혈압", "고령자", "노인"]
    assert persona_cautions(PERSONAS[1]) == ["임부", "임신"]


@pytest.fixture(scope="module")
def study(tiny_project: Path, tmp_path_factory: pytest.TempPathFactory) -> StudyResult:
    settings = load_settings(tiny_project / "params.yaml")
    loaded = load_published(settings.paths.indexes)
    try:
        return run_study(loaded, settings, PERSONAS, [dialogue(70, "고혈압이 있어요"), dialogue(30, "임신 중이에요")],
                         [REFERENCE, "baseline", "self_refine_heuristic"])
    finally:
        loaded.close()


def test_every_profile_answers_every_turn_with_its_metrics(study: StudyResult) -> None:
    assert len(study.rows) == 3 * 2 * 5
    full = [r for r in study.rows if r.profile == REFERENCE]
    assert all("latency_ms" in r.metrics for r in full)
    turn1 = next(r for r in full if r.pid == "p1" and r.turn == 1)
    assert turn1.metrics["profile_recall"] == 1.0                     # the age was stored
    baseline = next(r for r in study.rows if r.profile == "baseline" and r.pid == "p1" and r.turn == 1)
    assert baseline.metrics["profile_recall"] == 0.0                  # memory_mode none remembers nothing
    caution = next(r for r in full if r.pid == "p1" and r.turn == 4)
    assert caution.metrics["product_hit"] == 1.0, caution
    assert "follow_up_resolved" in next(r for r in full if r.pid == "p1" and r.turn == 5).metrics


def test_comparisons_report_and_summary(study: StudyResult, tmp_path: Path) -> None:
    comparisons = compare_profiles(study, resamples=500)
    assert {c.profile for c in comparisons} == {"baseline", "self_refine_heuristic"}
    recall = next(c for c in comparisons if c.profile == "baseline" and c.metric == "profile_recall")
    assert recall.delta < 0 and recall.n == 2
    assert all(0 <= c.p_holm <= 1 for c in comparisons)
    report = write_report(study, comparisons, tmp_path / "report")
    text = report.read_text("utf-8")
    assert "## Comparisons with the full profile" in text and "profile_recall" in text
    assert all((tmp_path / "report" / name).stat().st_size > 1000
               for name in ("metrics.png", "recall_by_turn.png", "latency.png"))
    data = summary(study, comparisons, str(report))
    assert data["personas"] == 2 and data["turns"] == 10
    assert set(data["profiles"]) == {REFERENCE, "baseline", "self_refine_heuristic"}


def test_identical_profiles_are_found_by_behaviour() -> None:
    def row(profile: str, fp: str) -> TurnRow:
        return TurnRow(profile, 0, "p", 1, "facts", {}, fp)
    study = StudyResult([row("a", "x"), row("b", "x"), row("c", "y")])
    assert identical_profiles(study) == [["a", "b"]]
