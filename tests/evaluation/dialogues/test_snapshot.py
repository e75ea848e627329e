"""A study run in the run store: one run row of kind "dialogues" and an item per dialogue and cold turn,
kept apart from the regression runs; the dialogue hash tells whether two runs asked the same questions."""

from __future__ import annotations

from pathlib import Path

from yaksa.evaluation.dialogues.script import Turn
from yaksa.evaluation.dialogues.snapshot import KIND, dialogues_hash, save_snapshot
from yaksa.evaluation.dialogues.study import REFERENCE, StudyResult, TurnRow
from yaksa.evaluation.run_store import RunStore

DIALOGUE = [Turn(1, "facts", "저는 70세예요"), Turn(2, "symptom_question", "머리가 아픈데 무슨 약 먹어요?")]


def row(turn: int, kind: str, metrics: dict[str, float]) -> TurnRow:
    return TurnRow(REFERENCE, 0, "p1", turn, kind, metrics, "fp", "질문", "답변 [문서 1]", ("근거",), True)


def test_the_run_and_its_turns_are_stored_as_a_dialogues_run(tmp_path: Path) -> None:
    study = StudyResult([row(1, "facts", {"profile_recall": 1.0, "latency_ms": 5.0}),
                         row(2, "symptom_question", {"citation_validity": 1.0, "llm_calls": 2.0})],
                        [row(2, "symptom_question", {"citation_validity": 0.0})])
    db = tmp_path / "runs.duckdb"
    save_snapshot(db, "dialogues-1", "2026-11-25T13:00:00Z", bundle_version="v1", params_hash="ph", git_rev="g",
                  suite_hash=dialogues_hash([DIALOGUE]), study=study, summary={"personas": 1, "turns": 2})
    store = RunStore(db)
    assert store.runs() == [] and store.baseline() is None     # not a regression run
    (run,) = store.runs(kind=KIND)
    assert run.run_id == "dialogues-1" and run.passed is None and run.summary == {"personas": 1, "turns": 2}
    assert store.scores("dialogues-1") == {
        f"dialogue:{REFERENCE}/0/p1/1": {"profile_recall": 1.0, "latency_ms": 5.0},
        f"dialogue:{REFERENCE}/0/p1/2": {"citation_validity": 1.0, "llm_calls": 2.0},
        f"cold:{REFERENCE}/0/p1/2": {"citation_validity": 0.0},
    }
    items = store.items("dialogues-1")
    assert items[f"cold:{REFERENCE}/0/p1/2"]["category"] == "cold:symptom_question"
    assert items[f"dialogue:{REFERENCE}/0/p1/2"]["answer"] == "답변 [문서 1]"


def test_the_dialogue_hash_changes_with_any_turn() -> None:
    same = dialogues_hash([list(DIALOGUE)])
    assert dialogues_hash([DIALOGUE]) == same
    assert dialogues_hash([[DIALOGUE[0], Turn(2, "symptom_question", "배가 아픈데 무슨 약 먹어요?")]]) != same
