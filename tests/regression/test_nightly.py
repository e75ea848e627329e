"""The nightly run end to end on the tiny bundle: baseline, gate, report, exit codes, the LLM judge.

Slow: it replays part of the suite through the real agent (scope model, retrieval, verification).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.evaluation.test_judge import QUESTIONS, STATEMENTS, VERDICTS, question, statements, verdicts
from tests.fake_openai import FakeOpenAI
from yaksa.config import load_settings
from yaksa.evaluation import judge as judge_module
from yaksa.evaluation.run_store import RunStore
from yaksa.llm.config import LLMConfig
from yaksa.regression.nightly import run_regression
from yaksa.scope.decision import ScopeDecision
from yaksa.scope.stage import ScopeStage
from yaksa_cli import app

pytestmark = pytest.mark.slow
PER_CATEGORY = 2


@pytest.fixture()
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("YAKSA_LLM_BASE_URL", raising=False)


def test_baseline_then_a_regression_fails_the_gate(tiny_copy: Path, offline: None,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    settings = load_settings(tiny_copy / "params.yaml")
    first = run_regression(settings, per_category=PER_CATEGORY, judge=False)
    assert first.passed and first.accepted and first.baseline_run_id is None   # the first run is the baseline
    assert first.summary["n_errors"] == 0 and first.summary["metrics"]["refusal_ok"] == 1.0
    assert first.summary["metrics"]["safety_ok"] == 1.0
    metrics = json.loads(settings.paths.answer_metrics.read_text("utf-8"))
    assert metrics["run_id"] == first.run_id and metrics["passed"] is True
    for path in (first.report.markdown, first.report.html, *first.report.images.values()):
        assert path.is_file() and path.stat().st_size > 200

    # same code again: passes, compared item by item with the first run
    second = run_regression(settings, per_category=PER_CATEGORY, judge=False)
    assert second.passed and second.baseline_run_id == first.run_id and not second.accepted
    assert second.gate.metric("refusal_ok").delta == 0.0

    # the scope stage stops refusing: out-of-scope items are answered, the gate fails, the CLI exits 1
    def never_blocks(self: ScopeStage, question: str) -> ScopeDecision:
        return replace(original(self, question), in_scope=True, reason="sabotaged")

    original = ScopeStage.decide
    monkeypatch.setattr(ScopeStage, "decide", never_blocks)
    result = CliRunner().invoke(app, ["regress", "run", "--no-judge", "--per-category", str(PER_CATEGORY),
                                      "--params", str(tiny_copy / "params.yaml"), "--json"])
    assert result.exit_code == 1, result.output
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert not summary["passed"] and any(f.startswith("refusal_ok") for f in summary["failures"])
    store = RunStore(settings.paths.regression_runs)
    assert store.baseline() == first.run_id                     # a failed run does not replace the baseline
    report = Path(store.runs()[-1].run_id)
    html = (settings.paths.regression_reports / report / "report.html").read_text("utf-8")
    assert "refusal_ok" in html and "FAIL" in html


def test_llm_judged_metrics_come_from_the_judge_endpoint(tiny_copy: Path, offline: None,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent runs offline; RAGAS faithfulness and answer relevancy go to the (fake) judge endpoint."""
    settings = load_settings(tiny_copy / "params.yaml")
    settings = replace(settings, regression=replace(settings.regression, judge_repeats=1))
    with FakeOpenAI() as fake:
        fake.on(STATEMENTS, statements("a", "b"))
        fake.on(VERDICTS, verdicts(1, 0))
        fake.on(QUESTIONS, question("타이레놀 하루 최대 용량"))
        config = LLMConfig(base_url=fake.base_url, model="evaluator", max_retries=0, timeout_s=10)
        monkeypatch.setattr(judge_module, "judge_from_env",
                            lambda embedder: judge_module.make_judge(config, embedder))
        out = run_regression(settings, per_category=1, judge=True)
    judge = out.summary["judge"]
    assert judge["ran"] and judge["ok"] and judge["k"] == 1
    assert out.summary["metrics"]["faithfulness"] == 0.5                      # 1 of 2 statements supported
    assert 0.0 <= out.summary["metrics"]["answer_relevancy"] <= 1.0
    assert {m.name: m.kind for m in out.gate.metrics}["faithfulness"] == "llm"
    sent = [m["content"] for body in fake.requests for m in body["messages"] if m["role"] == "user"]
    assert any("[문서 1]" in text for text in sent)     # the contexts are the generator's evidence blocks
