from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from yaksa_cli import app

runner = CliRunner()


def test_search_json_lines_for_a_queries_file(tiny_project: Path, tmp_path: Path) -> None:
    queries = tmp_path / "q.txt"
    queries.write_text("두통에 먹는 약\n\nWhat causes high blood pressure?\n", "utf-8")
    result = runner.invoke(app, ["search", "--queries", str(queries), "--json", "-p", str(tiny_project / "params.yaml")])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert [x["query"] for x in lines] == ["두통에 먹는 약", "What causes high blood pressure?"]
    first = lines[0]
    assert first["collections"] == ["drugs"] and first["results"]
    hit = first["results"][0]
    assert set(hit) >= {"doc_id", "collection", "score", "title", "section", "metadata"}
    assert hit["metadata"]["item_seq"]
    assert "timings_ms" in first
    assert first["blocked"] is False and isinstance(lines[1]["blocked"], bool)


def test_search_plain_output(tiny_project: Path) -> None:
    result = runner.invoke(app, ["search", "두통", "-k", "2", "-p", str(tiny_project / "params.yaml")])
    assert result.exit_code == 0, result.output
    assert "[drugs]" in result.output


def test_missing_params_file_is_a_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["search", "두통", "-p", str(tmp_path / "nope.yaml")])
    assert result.exit_code == 2
    assert "params file not found" in result.output


def test_search_without_a_bundle_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "params.yaml").write_text("paths: {indexes: indexes}\n", "utf-8")
    result = runner.invoke(app, ["search", "두통", "-p", str(tmp_path / "params.yaml")])
    assert result.exit_code == 1
    assert "error:" in result.output


def test_unknown_stage_is_rejected(tiny_project: Path) -> None:
    result = runner.invoke(app, ["build", "nonsense", "-p", str(tiny_project / "params.yaml")])
    assert result.exit_code == 1
    assert "unknown stage" in result.output


def test_indexes_marks_current(tiny_project: Path) -> None:
    result = runner.invoke(app, ["indexes", "-p", str(tiny_project / "params.yaml")])
    assert result.exit_code == 0
    assert result.output.count("*") == 1


def test_fusion_override_runs_each_ablation_mode(tiny_project: Path) -> None:
    seen = {}
    for mode in ("bm25", "dense", "rrf", "weighted"):
        result = runner.invoke(
            app, ["search", "약 보관 방법", "--json", "--fusion", mode, "-k", "3", "-p", str(tiny_project / "params.yaml")]
        )
        assert result.exit_code == 0, result.output
        out = json.loads(result.output)
        assert out["fusion"] == mode and len(out["results"]) == 3
        timings = out["timings_ms"]
        assert ("bm25" in timings) == (mode != "dense")
        assert ("faiss" in timings) == (mode != "bm25")
        seen[mode] = [r["doc_id"] for r in out["results"]]
    assert seen["bm25"] != seen["dense"]  # the two retrievers really disagree on this query


def test_bad_fusion_mode_is_a_clear_error(tiny_project: Path) -> None:
    result = runner.invoke(app, ["search", "두통", "--fusion", "magic", "-p", str(tiny_project / "params.yaml")])
    assert result.exit_code == 1
    assert "retrieval.fusion must be one of" in result.output


def test_ask_prints_one_json_object_per_question(tiny_copy: Path, monkeypatch) -> None:
    monkeypatch.delenv("YAKSA_LLM_BASE_URL", raising=False)
    result = runner.invoke(app, ["ask", "안녕하세요", "두통에 먹는 약 알려줘", "--user", "cli-test", "--json",
                                 "-p", str(tiny_copy / "params.yaml")])
    assert result.exit_code == 0, result.output
    greeting, answer = (json.loads(line) for line in result.output.splitlines() if line.startswith("{"))
    assert set(answer) >= {"answer", "citations", "blocked", "trace"}
    assert "retrieve" not in greeting["trace"]["nodes"] and not greeting["citations"]
    assert answer["citations"] and all(c.startswith("mfds:") for c in answer["citations"])
    assert "[문서 1]" in answer["answer"] and answer["blocked"] is False
    assert (tiny_copy / "data" / "memory" / "profiles.sqlite").exists()


@pytest.mark.parametrize("option", ["--variant", "--profile"])   # --profile: the old name
def test_ask_with_an_unknown_variant_is_a_clear_error(tiny_project: Path, option: str) -> None:
    result = runner.invoke(app, ["ask", "두통", option, "nope", "-p", str(tiny_project / "params.yaml")])
    assert result.exit_code == 1 and "unknown variant" in result.output
