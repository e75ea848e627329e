"""Faithfulness and answer relevancy of the study's answers, judged by an LLM through the nightly
regression's answer evaluation (`yaksa.evaluation.judge`: ragas collections metrics, our endpoint's
`llm=` and the bundle's embedder as `embeddings=`, K scores per item averaged).

Why the regression's judge and not a second one: the same answer must get the same score whether the
nightly run or the study asked; its Korean prompts, NaN accounting and retries come with it. Only
medical answers are judged (not refusals or acknowledgements, which have no evidence to be faithful to).
Without an endpoint nothing is judged, and the study says so (`NOT_RUN_MESSAGE`).
"""

from __future__ import annotations

import math
from typing import Any

from yaksa.evaluation.dialogues.study import StudyResult, TurnRow


def _inputs(study: StudyResult) -> dict[str, TurnRow]:
    """Judge item id → its row, over the dialogue and the cold rows."""
    return {f"{mode}:{r.item_id}": r for mode, rows in (("dialogue", study.rows), ("cold", study.cold))
            for r in rows if r.answered}


def not_run() -> dict[str, Any]:
    from yaksa.evaluation.judge import NOT_RUN_MESSAGE

    return {"ran": False, "note": NOT_RUN_MESSAGE}


def judge_study(study: StudyResult, judge: Any, k: int) -> dict[str, Any]:
    """Score every answered row K times per metric (into its metrics; a NaN score is left out) and
    return what happened (model, K, NaN shares, skipped items, example errors)."""
    from yaksa.evaluation.judge import JudgeInput, judge_items_sync

    rows = _inputs(study)
    outcome = judge_items_sync([JudgeInput(i, r.question, r.answer, list(r.contexts)) for i, r in rows.items()],
                               judge, k=k)
    for item_id, scores in outcome.scores.items():
        rows[item_id].metrics.update({m: v for m, v in scores.items() if not math.isnan(v)})
    return {"ran": True, "model": outcome.model, "k": outcome.k, "ok": outcome.ok, "judged": len(outcome.scores),
            "skipped": len(outcome.skipped), "nan_rate": outcome.nan_rate,
            "nan_rate_overall": outcome.nan_rate_overall, "errors": outcome.errors}


def bundle_judge(loaded: Any) -> Any:
    """The regression's judge on the configured endpoint, embedding with the bundle's drug embedder
    (as the nightly run does); None without an endpoint."""
    from yaksa.evaluation.judge import judge_from_env

    embedder = loaded.embedders.get("drugs") or next(iter(loaded.embedders.values()))
    return judge_from_env(embedder)
