"""The critique end to end on the tiny bundle: modes by threshold and validation, cited sections, the CLI."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from yaksa.config import load_settings
from yaksa.corpus.case import parse_case
from yaksa.critique.factory import build_critique_agent
from yaksa.retrieval.loader import load_published
from yaksa_cli import app

PE_CASE = {
    "summary": "68-year-old man, 3 days after total hip replacement, with sudden pleuritic chest pain and "
               "shortness of breath.",
    "findings": "HR 118, SpO2 88% on room air, RR 24, left calf swollen and tender. No haemoptysis.",
    "diagnoses": "anxiety; musculoskeletal chest pain",
    "management": "Reassured, given ibuprofen and discharged home.",
    "outcome": "Readmitted 12 hours later in cardiac arrest.",
}


@pytest.fixture(scope="module")
def loaded(tiny_project: Path):
    bundle = load_published(load_settings(tiny_project / "params.yaml").paths.indexes)
    yield bundle
    bundle.close()


def agent_with(tiny_project: Path, loaded, threshold: float):
    settings = load_settings(tiny_project / "params.yaml")
    settings = replace(settings, critique=replace(settings.critique, internal_threshold=threshold))
    return build_critique_agent(loaded, settings)


def test_no_internal_case_above_the_threshold_is_external_only(tiny_project: Path, loaded) -> None:
    result = agent_with(tiny_project, loaded, 1.0).run(parse_case(json.dumps(PE_CASE)))
    assert result.retrieval_mode == "external_only" and result.validation is None
    assert all(not c["above_threshold"] and not c["kept"] for c in result.internal)
    assert "validation" not in result.trace["steps"]
    assert [m.diagnosis for m in result.analysis.risk_patterns] == ["pulmonary embolism"]
    errors = result.critique["diagnostic_errors"]
    assert errors and errors[0].text.startswith("pulmonary embolism should have been considered")
    assert all(c.refs for claims in result.critique.values() for c in claims)
    assert result.verification["verdict"] == "PASS"


def test_every_candidate_is_validated_and_the_mode_follows_the_verdict(tiny_project: Path, loaded) -> None:
    """With every record a candidate, only those sharing a diagnosis are kept, each with its reason."""
    result = agent_with(tiny_project, loaded, -1.0).run(parse_case(json.dumps(PE_CASE)))
    assert result.internal and all(c["above_threshold"] for c in result.internal)
    assert result.validation is not None and "validation" in result.trace["steps"]
    expected = "hybrid" if result.validation.passed else "external_only_after_validation"
    assert result.retrieval_mode == expected, result.internal
    for c in result.internal:
        assert c["reason"], c
        assert c["kept"] == ("no shared diagnosis" not in c["reason"] and c["kept"]), c
    if result.retrieval_mode == "hybrid":   # hybrid always carries both kinds of evidence
        assert any(c["kept"] for c in result.internal) and result.external


def test_cli_prints_one_json_object(tiny_project: Path, tmp_path: Path) -> None:
    case_file = tmp_path / "case.json"
    case_file.write_text(json.dumps(PE_CASE), "utf-8")
    out = CliRunner().invoke(app, ["critique", str(case_file), "--json", "--params", str(tiny_project / "params.yaml")])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output.strip().splitlines()[-1])
    assert data["retrieval_mode"] in ("external_only", "hybrid", "external_only_after_validation")
    assert set(data) >= {"analysis", "internal", "external", "critique", "trace"}
    bad = tmp_path / "bad.json"
    bad.write_text('{"summary": ""}', "utf-8")
    out = CliRunner().invoke(app, ["critique", str(bad), "--params", str(tiny_project / "params.yaml")])
    assert out.exit_code == 1 and "summary is required" in out.output


def test_evidence_sentences_never_start_inside_a_decimal() -> None:
    """A sentence cut at "0." would quote "9% sodium chloride", a number its source does not contain."""
    from yaksa.critique.agent import _sentences

    text = "Rats received 0.9% sodium chloride four times daily for ten days. Mean age was 26.5 years in all groups."
    assert _sentences(text) == ["Rats received 0.9% sodium chloride four times daily for ten days.",
                                "Mean age was 26.5 years in all groups."]


def test_the_pubmed_cache_is_under_paths_unless_the_environment_names_one(
        tiny_project: Path, loaded, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    settings = load_settings(tiny_project / "params.yaml")
    monkeypatch.setenv("NCBI_EMAIL", "critique-test@example.org")   # live PubMed configured (nothing is sent)
    monkeypatch.delenv("YAKSA_PUBMED_CACHE", raising=False)
    assert build_critique_agent(loaded, settings).pubmed.cache_dir == settings.paths.pubmed_cache
    assert settings.paths.pubmed_cache == settings.paths.root / "data" / "cache" / "pubmed"
    monkeypatch.setenv("YAKSA_PUBMED_CACHE", str(tmp_path / "pubmed"))
    assert build_critique_agent(loaded, settings).pubmed.cache_dir == tmp_path / "pubmed"
