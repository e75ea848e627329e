"""The quality-regression flow on the tiny project: a passing run returns, a failed gate fails the flow run."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from yaksa.scope.decision import ScopeDecision
from yaksa.scope.stage import ScopeStage


def test_regression_deployment_is_scheduled_nightly_after_the_rebuild() -> None:
    from flows.deploy import REBUILD_CRON, REGRESSION_CRON, regression_deployment

    deployment = regression_deployment("params.yaml")
    assert deployment.name == "quality-regression"
    assert [s.schedule.cron for s in deployment.schedules] == [REGRESSION_CRON]
    assert int(REGRESSION_CRON.split()[1]) > int(REBUILD_CRON.split()[1])   # after the rebuild has published


@pytest.mark.slow
def test_flow_passes_then_fails_on_a_regression(tiny_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from flows.quality_regression import quality_regression

    monkeypatch.delenv("YAKSA_LLM_BASE_URL", raising=False)
    params = str(tiny_copy / "params.yaml")
    first = quality_regression(params=params, per_category=1, judge=False)
    assert first["passed"] and first["accepted"] and Path(first["report"]).is_file()

    original = ScopeStage.decide

    def never_blocks(self: ScopeStage, question: str) -> ScopeDecision:
        return replace(original(self, question), in_scope=True, reason="sabotaged")

    monkeypatch.setattr(ScopeStage, "decide", never_blocks)
    state = quality_regression(params=params, per_category=1, judge=False, return_state=True)
    assert state.is_failed()
    with pytest.raises(Exception, match="refusal_ok"):
        state.result()
