"""The dialogue-study flow on the tiny project, offline: one persona, two variants, the cold questions, a
report that says what needs an LLM endpoint, summary.json and a snapshot in the run store."""

from __future__ import annotations

from pathlib import Path

import pytest

from yaksa.evaluation.run_store import RunStore


@pytest.mark.slow
def test_flow_writes_the_report_and_returns_the_summary(tiny_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from flows.dialogue_study import dialogue_study_flow

    monkeypatch.delenv("YAKSA_LLM_BASE_URL", raising=False)
    result = dialogue_study_flow(params=str(tiny_copy / "params.yaml"), personas=1, variants=["baseline"])
    assert result["personas"] == 1 and result["turns"] == 5
    assert set(result["variants"]) == {"full_context_engineering", "baseline"}
    assert (tiny_copy / result["report"]).is_file()
    assert (tiny_copy / result["report"]).with_name("summary.json").is_file()
    assert result["trials"] == 1 and not result["llm"]["ran"]          # offline: deterministic, nothing judged
    assert {c["metric"] for c in result["cold_vs_dialogue"]} >= {"product_hit", "follow_up_resolved"}
    assert "need an LLM endpoint" in (tiny_copy / result["report"]).read_text("utf-8")
    store = RunStore(tiny_copy / "data" / "regression" / "runs.duckdb")
    (run,) = store.runs(kind="dialogues")
    assert run.run_id == result["run_id"] and len(store.scores(run.run_id)) == 2 * 5 + 3  # dialogue + cold turns
