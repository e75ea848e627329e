"""The whole study on the tiny project: trials by endpoint, and the LLM path against the fake OpenAI
server (every agent role and the regression's ragas judge answer from it), stored like a regression run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.fake_openai import FakeOpenAI, Reply
from yaksa.evaluation.dialogues.run import MIN_LLM_TRIALS, resolve_trials
from yaksa.llm.config import ROLES


def test_trials_default_by_endpoint_and_an_llm_study_needs_three() -> None:
    assert resolve_trials(None, llm=False) == 1 and resolve_trials(2, llm=False) == 2
    assert resolve_trials(None, llm=True) == MIN_LLM_TRIALS == 3 and resolve_trials(4, llm=True) == 4
    with pytest.raises(ValueError, match="stochastic: run at least 3 trials"):
        resolve_trials(1, llm=True)
    with pytest.raises(ValueError, match="trials must be >= 1"):
        resolve_trials(0, llm=False)


ANSWER = "근거 문서에 따르면 이 약은 하루 3회 복용합니다 [문서 1]\n\n복용 전에 약사나 의사 등 전문가와 꼭 상담하세요."
AGENT = {  # by the model each role is configured with below
    "router-model": Reply.json({"core_terms": ["두통"], "recall_terms": [], "avoid_terms": []}),
    "generator-model": Reply(ANSWER, prompt_tokens=10, completion_tokens=5),
    "verifier-model": Reply.json({"verdict": "PASS", "problems": []}),
    "judge-model": Reply.json({"grounding": 0.9, "completeness": 0.9, "accuracy": 0.9, "missing_info": []}),
    "rewriter-model": Reply.json({"query": "두통 약"}),
    "corrector-model": Reply(ANSWER),
}


def evaluator(body: dict[str, Any]) -> Reply | None:
    """The ragas prompts, told apart by the output schema instructor puts in the system message."""
    from ragas.metrics.collections.answer_relevancy.util import AnswerRelevanceOutput
    from ragas.metrics.collections.faithfulness.util import NLIStatementOutput, StatementGeneratorOutput

    system = "\n".join(m["content"] for m in body["messages"] if m["role"] == "system")
    if StatementGeneratorOutput.model_json_schema()["description"] in system:
        return Reply.json({"statements": ["하루 3회 복용한다", "전문가와 상담한다"]})
    if NLIStatementOutput.model_json_schema()["description"] in system:   # one of two supported: 0.5
        return Reply.json({"statements": [{"statement": "s0", "reason": "r", "verdict": 1},
                                          {"statement": "s1", "reason": "r", "verdict": 0}]})
    if AnswerRelevanceOutput.model_json_schema()["description"] in system:
        return Reply.json({"question": "두통약은 하루 몇 번 먹어요?", "noncommittal": 0})
    return None


@pytest.fixture()
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    pytest.importorskip("ragas")

    def respond(body: dict[str, Any]) -> Reply | None:
        return AGENT.get(body.get("model", "")) or (evaluator(body) if body.get("model") == "evaluator" else None)

    with FakeOpenAI(responder=respond) as fake:
        monkeypatch.setenv("YAKSA_LLM_BASE_URL", fake.base_url)
        monkeypatch.setenv("YAKSA_LLM_MODEL", "default-model")
        monkeypatch.setenv("YAKSA_LLM_MODEL_EVALUATOR", "evaluator")
        monkeypatch.setenv("YAKSA_LLM_TIMEOUT", "5")
        monkeypatch.setenv("YAKSA_LLM_MAX_RETRIES", "0")
        for role in ROLES:
            monkeypatch.setenv(f"YAKSA_LLM_MODEL_{role.upper()}", f"{role}-model")
        yield fake


@pytest.mark.slow
def test_with_an_endpoint_the_study_runs_three_trials_and_judges_faithfulness(llm: FakeOpenAI,
                                                                              tiny_copy: Path) -> None:
    from yaksa.config import load_settings
    from yaksa.evaluation.dialogues.run import run_full_study
    from yaksa.evaluation.run_store import RunStore
    from yaksa.retrieval.loader import load_published

    settings = load_settings(tiny_copy / "params.yaml")
    settings = replace(settings, regression=replace(settings.regression, judge_repeats=1))
    loaded = load_published(settings.paths.indexes)
    try:
        result = run_full_study(loaded, settings, personas_limit=1, variants=["baseline"])  # the one patient
    finally:
        loaded.close()
    assert result["trials"] == 3 and result["personas"] == 1 and result["turns"] == 5
    judged = result["llm"]
    assert judged["ran"] and judged["model"] == "evaluator" and judged["k"] == 1 and judged["ok"]
    assert judged["judged"] > 0 and judged["nan_rate_overall"] == 0
    full, baseline = result["variants"]["full_context_engineering"], result["variants"]["baseline"]
    assert full["faithfulness"] == 0.5 and 0 < full["answer_relevancy"] <= 1, full   # one of two statements
    # the baseline is the LLM alone: with an endpoint it answers from the generator, citing evidence it never
    # had (invalid citations), and without evidence it is not judged (as in the regression)
    assert baseline["llm_calls"] > 0 and baseline["citation_validity"] == 0.0
    assert "faithfulness" not in baseline and "answer_relevancy" not in baseline
    assert llm.requests_for("generator-model")
    cold = {c["metric"] for c in result["cold_vs_dialogue"]}
    assert {"faithfulness", "answer_relevancy", "product_hit"} <= cold
    report = (tiny_copy / result["report"]).read_text("utf-8")
    assert "judged by `evaluator`" in report and "need an LLM endpoint" not in report
    assert "baseline: no evidence" in report
    saved = json.loads((tiny_copy / result["report"]).with_name("summary.json").read_text("utf-8"))
    assert saved["trials"] == 3 and saved["run_id"] == result["run_id"]
    store = RunStore(settings.paths.regression_runs)
    (run,) = store.runs(kind="dialogues")
    assert run.run_id == result["run_id"] and run.summary["personas"] == 1
    scores = store.scores(run.run_id)
    assert len(scores) == 2 * 3 * 5 + 3 * 3          # variants × trials × dialogue turns + trials × cold questions
    assert any("faithfulness" in m for m in scores.values())
