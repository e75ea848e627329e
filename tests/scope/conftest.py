"""The scope stage on the tiny built project, fitted once per session (exemplar vectors cached on disk)."""

from __future__ import annotations

from pathlib import Path

import pytest

from yaksa.config import load_settings
from yaksa.retrieval.loader import LoadedBundle, load_published
from yaksa.retrieval.searcher import Searcher
from yaksa.scope.stage import ScopeStage


@pytest.fixture(scope="session")
def scope_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("scope-cache")


@pytest.fixture(scope="session")
def loaded(tiny_project: Path) -> LoadedBundle:
    bundle = load_published(load_settings(tiny_project / "params.yaml").paths.indexes)
    yield bundle
    bundle.close()


@pytest.fixture(scope="session")
def searcher(loaded: LoadedBundle, tiny_project: Path) -> Searcher:
    return Searcher(loaded, load_settings(tiny_project / "params.yaml").retrieval)


@pytest.fixture(scope="session")
def stage(loaded: LoadedBundle, searcher: Searcher, scope_cache: Path) -> ScopeStage:
    return ScopeStage(loaded, searcher.query_vector, cache_dir=scope_cache)
