"""Where ../shared is absent the build still works: only the generated Synthea cases are indexed."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import REPO
from yaksa.config import load_settings
from yaksa.pipeline.rawdata import link_shared_data
from yaksa.pipeline.stages import STAGES, run_stage
from yaksa.retrieval.loader import load_published
from yaksa.retrieval.searcher import Searcher


def test_build_with_no_shared_data_indexes_only_synthea_cases(tmp_path: Path, capsys) -> None:
    shutil.copy(REPO / "params.yaml", tmp_path / "params.yaml")
    text = (tmp_path / "params.yaml").read_text("utf-8").replace("  patients: 80 ", "  patients: 1 ")
    (tmp_path / "params.yaml").write_text(text, "utf-8")
    settings = load_settings(tmp_path / "params.yaml")
    assert settings.synthea.patients == 1
    linked, missing = link_shared_data(settings.paths.raw, tmp_path / "no-shared-here")
    assert linked == [] and len(missing) == 7
    summaries = {stage: run_stage(stage, settings, progress=False) for stage in STAGES}
    assert "medquad" in " ".join(summaries["ingest"]["skipped"])
    assert set(summaries["ingest"]["collections"]) == {"cases"}
    assert "exemplar model decides" in summaries["scope"]["skipped"]   # no drugs/health embedder to learn on
    assert "not found" in capsys.readouterr().out
    loaded = load_published(settings.paths.indexes)
    try:
        assert list(loaded.bundle.collections) == ["cases"]
        result = Searcher(loaded).search("두통에 먹는 약", k=3)
        assert result.collections == ["cases"] and result.hits  # falls back to what the bundle has
    finally:
        loaded.close()
