"""The dialogue study end to end on the tiny bundle: three variants answer the same two hand-made
dialogues and the full variant answers their questions cold; rows, identical-variant detection, paired
comparisons (ablations and cold vs dialogue) and the report."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from yaksa.config import load_settings
from yaksa.evaluation.dialogues.analysis import compare_cold, compare_variants, identical_variants, summary
from yaksa.evaluation.dialogues.report import write_report
from yaksa.evaluation.dialogues.study import REFERENCE, StudyResult, TurnRow, persona_cautions, run_study
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
    full = [r for r in study.rows if r.variant == REFERENCE]
    assert all("latency_ms" in r.metrics for r in full)
    turn1 = next(r for r in full if r.pid == "p1" and r.turn == 1)
    assert turn1.metrics["profile_recall"] == 1.0                     # the age was stored
    baseline = next(r for r in study.rows if r.variant == "baseline" and r.pid == "p1" and r.turn == 1)
    assert baseline.metrics["profile_recall"] == 0.0                  # memory_mode none remembers nothing
    caution = next(r for r in full if r.pid == "p1" and r.turn == 4)
    assert caution.metrics["product_hit"] == 1.0, caution
    assert "follow_up_resolved" in next(r for r in full if r.pid == "p1" and r.turn == 5).metrics


def test_the_question_turns_are_asked_cold_by_fresh_users(study: StudyResult) -> None:
    assert [(r.pid, r.turn, r.kind) for r in study.cold] == [
        (p, t, k) for p in ("p1", "p2") for t, k in ((2, "symptom_question"), (4, "caution_question"), (5, "follow_up"))]
    assert all(r.variant == REFERENCE and "profile_recall" not in r.metrics for r in study.cold)
    cold_caution = next(r for r in study.cold if r.pid == "p1" and r.turn == 4)
    assert cold_caution.metrics["product_hit"] == 1.0 and cold_caution.answered   # the name alone finds it
    # cold, "그 약" refers to nothing: the follow-up cannot be answered from the product of turn 4
    assert all(r.metrics["follow_up_resolved"] == 0.0 for r in study.cold if r.kind == "follow_up")


def test_comparisons_report_and_summary(study: StudyResult, tiny_project: Path, tmp_path: Path) -> None:
    flags = load_settings(tiny_project / "params.yaml").agent.variants
    comparisons = compare_variants(study, resamples=500)
    assert {c.name for c in comparisons} == {"baseline", "self_refine_heuristic"}
    recall = next(c for c in comparisons if c.name == "baseline" and c.metric == "profile_recall")
    assert recall.delta < 0 and recall.n == 2
    assert all(0 <= c.p_holm <= 1 for c in comparisons)
    cold = compare_cold(study, resamples=500)
    assert {c.metric for c in cold} >= {"product_hit", "follow_up_resolved", "latency_ms"}
    assert all(c.n == 2 and c.name == REFERENCE for c in cold)
    report = write_report(study, comparisons, tmp_path / "report", cold=cold,
                          judged={"ran": False, "note": "LLM-judged metrics not run"}, flags=flags)
    text = report.read_text("utf-8")
    assert "## Comparisons with the full variant" in text and "profile_recall" in text
    assert "## Single turn vs multi-turn" in text and "| cold |" in text
    assert "need an LLM endpoint" in text and "baseline: `mode: llm`" in text
    assert all((tmp_path / "report" / name).stat().st_size > 1000
               for name in ("metrics.png", "recall_by_turn.png", "latency.png"))
    data = summary(study, comparisons, str(report), cold)
    assert data["personas"] == 2 and data["turns"] == 10 and len(data["cold_vs_dialogue"]) == len(cold)
    assert set(data["variants"]) == {REFERENCE, "baseline", "self_refine_heuristic"}


def test_identical_variants_are_found_by_behaviour() -> None:
    def row(variant: str, fp: str) -> TurnRow:
        return TurnRow(variant, 0, "p", 1, "facts", {}, fp)
    study = StudyResult([row("a", "x"), row("b", "x"), row("c", "y")])
    assert identical_variants(study) == [["a", "b"]]
