"""`yaksa eval scope` on the tiny built project: held-out rates, per domain, dev sets, metrics file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from yaksa.config import load_settings
from yaksa.evaluation.scope_eval import evaluate_stage
from yaksa.scope.exemplars import is_held_out, load_questions
from yaksa.scope.stage import ScopeStage
from yaksa_cli import app


def test_evaluate_stage_reports_the_held_out_half(stage: ScopeStage) -> None:
    questions = [q for q in load_questions() if is_held_out(q.qid)][::6]  # a slice keeps it quick
    report = evaluate_stage(stage, {"dev": [("d1", "두통에 먹는 약"), ("d2", "ㅋㅋㅋ")]}, questions)
    h = report.held_out
    assert h["n_in_scope"] + h["n_out_of_scope"] == len(questions)
    assert h["block_rate"] >= 0.9 and h["false_block_rate"] <= 0.05
    assert report.dev_false_block["dev"] == {"false_block_rate": 0.5, "n": 2.0}
    assert any(m.set == "dev" and m.text == "ㅋㅋㅋ" for m in report.misses)  # listed, not hidden
    assert all(name.split(":")[0] in ("in", "out") for name in report.per_domain)
    assert report.model == stage.model and report.threshold == round(stage.scope_model.threshold, 6)


def test_eval_scope_command_writes_the_metrics(tiny_copy: Path, scope_cache: Path, stage: ScopeStage) -> None:
    settings = load_settings(tiny_copy / "params.yaml")
    settings.paths.embedding_cache.mkdir(parents=True, exist_ok=True)
    for f in scope_cache.iterdir():  # the exemplar vectors the session already embedded
        shutil.copy(f, settings.paths.embedding_cache / f.name)
    metrics = tiny_copy / "metrics" / "scope.json"
    result = CliRunner().invoke(app, ["eval", "scope", "-p", str(tiny_copy / "params.yaml"), "--limit", "5",
                                      "--metrics", str(metrics)])
    assert result.exit_code == 0, result.output
    assert "held-out: block rate" in result.output and "misclassified" in result.output
    data = json.loads(metrics.read_text("utf-8"))
    assert data["model"].startswith("scope-learned-v1:")   # the tiny build fitted the learned model
    assert data["tuning"] == {"method": "leave-one-source-out"}
    # other people's questions, per source: live on the held-out half beside the card's LOSO rate
    assert {"korquad", "hidoc"} <= set(data["per_source"])
    assert {"n", "refused", "loso_refused", "loso_stage_refused", "loso_stage_n"} <= set(data["per_source"]["korquad"])
    assert 0.0 <= data["per_source"]["korquad"]["loso_stage_refused"] <= 1.0
    assert "per source" in result.output
    assert not [m for m in data["misses"] if m["set"].startswith("source:") and m["text"]]  # ids only
    assert {"block_rate", "false_block_rate", "decoy_block_rate"} <= set(data["held_out"])
    assert data["per_domain"]["out:finance"]["n"] > 0
