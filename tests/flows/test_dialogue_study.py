"""The dialogue-study flow on the tiny project: one persona, two profiles, a report on disk."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.mark.slow
def test_flow_writes_the_report_and_returns_the_summary(tiny_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from flows.dialogue_study import dialogue_study_flow

    monkeypatch.delenv("YAKSA_LLM_BASE_URL", raising=False)
    result = dialogue_study_flow(params=str(tiny_copy / "params.yaml"), personas=1, profiles=["baseline"])
    assert result["personas"] == 1 and result["turns"] == 5
    assert set(result["profiles"]) == {"full_context_engineering", "baseline"}
    assert (tiny_copy / result["report"]).is_file()
    assert (tiny_copy / result["report"]).with_name("summary.json").is_file()
