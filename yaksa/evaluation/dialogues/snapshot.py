"""A study run in the regression's run store (`yaksa.evaluation.run_store`, kind "dialogues"): one run row
(the summary, bundle, params hash, git revision, a hash of the dialogues) and one item per answered turn
(dialogue and cold), beside reports/dialogues/<run>/summary.json.

Why the run store and not only the JSON file: the nightly runs and the study runs answer "what changed
between these two runs, and on which turns?" with the same SQL over the same tables; the dialogue hash
says whether two study runs asked the same questions at all.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from yaksa.evaluation.dialogues.study import StudyResult, TurnRow
from yaksa.evaluation.run_store import RunRow, RunStore

KIND = "dialogues"


def dialogues_hash(dialogues: Sequence[Sequence[Any]]) -> str:
    """Hash of every turn of every dialogue (text, facts, expectations): equal hashes, same questions."""
    text = json.dumps([[t.to_json() for t in turns] for turns in dialogues], sort_keys=True, ensure_ascii=False,
                      default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _item(mode: str, r: TurnRow) -> dict[str, Any]:
    return {"item_id": f"{mode}:{r.item_id}", "category": r.kind if mode == "dialogue" else f"cold:{r.kind}",
            "question": r.question, "answer": r.answer, "latency_ms": r.metrics.get("latency_ms"),
            "llm_calls": int(r.metrics.get("llm_calls", 0)), "error": None, "metrics": r.metrics, "mode": mode,
            "variant": r.variant, "trial": r.trial, "pid": r.pid, "turn": r.turn, "answered": r.answered,
            "fingerprint": r.fingerprint}


def save_snapshot(db_path: Path, run_id: str, created_at: str, *, bundle_version: str, params_hash: str,
                  git_rev: str, suite_hash: str, study: StudyResult, summary: dict[str, Any]) -> None:
    """The run and its turns in one transaction (a failed study leaves nothing behind)."""
    items = [_item("dialogue", r) for r in study.rows] + [_item("cold", r) for r in study.cold]
    RunStore(db_path).save_run(RunRow(run_id, created_at, bundle_version, params_hash, git_rev, suite_hash,
                                      None, False, None, summary, kind=KIND), items)
