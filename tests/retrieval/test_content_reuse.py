"""Tables derived from a bundle's content are reused at a swap only when that content is the same
(issue 25): the drug catalog, the section table and the scope stage's lexical reading."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.serving.conftest import add_user_word, copy_version
from yaksa.config import load_settings
from yaksa.index.layout import current_version
from yaksa.index.manifest import Manifest
from yaksa.retrieval.loader import (
    CONTENT_REUSE_ENV,
    ContentMemo,
    LoadedBundle,
    collection_content_key,
    load_published,
)
from yaksa.retrieval.searcher import Searcher
from yaksa.scope.stage import ScopeStage


def _loaded(files: dict[str, str], collections: dict[str, list[str]]) -> LoadedBundle:
    manifest = Manifest(1, "v", "t", "g", {}, {}, {n: {"files": f} for n, f in collections.items()}, files)
    return SimpleNamespace(bundle=SimpleNamespace(manifest=manifest))  # type: ignore[return-value]


def test_the_content_key_follows_the_collections_checksums(monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"drugs/docs.duckdb": "aa", "drugs/dense.faiss": "bb", "health/docs.duckdb": "cc"}
    layout = {"drugs": ["drugs/docs.duckdb", "drugs/dense.faiss"], "health": ["health/docs.duckdb"]}
    key = collection_content_key(_loaded(files, layout), "drugs")
    assert key is not None and key == collection_content_key(_loaded(dict(files), layout), "drugs")
    assert key == collection_content_key(_loaded({**files, "health/docs.duckdb": "zz"}, layout), "drugs")
    assert key != collection_content_key(_loaded({**files, "drugs/dense.faiss": "zz"}, layout), "drugs")
    assert key != collection_content_key(_loaded(files, layout), "health")
    assert collection_content_key(_loaded(files, layout), "cases") is None
    monkeypatch.setenv(CONTENT_REUSE_ENV, "0")
    assert collection_content_key(_loaded(files, layout), "drugs") is None


def test_the_memo_keeps_the_last_values_and_never_remembers_a_none_key() -> None:
    memo: ContentMemo[object] = ContentMemo(size=2)
    built: list[str] = []

    def build(name: str) -> object:
        built.append(name)
        return object()

    a = memo.get("a", lambda: build("a"))
    assert memo.get("a", lambda: build("a")) is a
    assert memo.get(None, lambda: build("n")) is not memo.get(None, lambda: build("n"))
    memo.get("b", lambda: build("b"))
    memo.get("c", lambda: build("c"))           # evicts "a"
    assert memo.get("a", lambda: build("a")) is not a
    assert built == ["a", "n", "n", "b", "c", "a"]
    assert memo.get("failed", lambda: None) is None and memo.get("failed", lambda: "now") == "now"
    with pytest.raises(ValueError, match="size"):
        ContentMemo(size=0)


@pytest.fixture(scope="module")
def two_versions(tiny_project: Path, tmp_path_factory: pytest.TempPathFactory):
    """The tiny bundle and a copy of it under another version name (same content)."""
    import shutil

    root = tmp_path_factory.mktemp("reuse") / "project"
    shutil.copytree(tiny_project, root, symlinks=True)
    settings = load_settings(root / "params.yaml")
    first = current_version(settings.paths.indexes)
    second = copy_version(settings.paths.indexes, first, f"{first}-copy")
    a = load_published(settings.paths.indexes, first)
    b = load_published(settings.paths.indexes, second, reuse=a)
    yield settings, a, b
    a.close()
    b.close()


def test_a_bundle_with_the_same_content_shares_the_derived_tables(two_versions) -> None:
    settings, a, b = two_versions
    sa, sb = Searcher(a, settings.retrieval), Searcher(b, settings.retrieval)
    assert sa.catalog is not None and sa.catalog is sb.catalog
    assert sa._row_sections and all(sa._row_sections[n] is sb._row_sections[n] for n in sa._row_sections)
    stage_a = ScopeStage(a, sa.query_vector, catalog=sa.catalog,
                         cache_dir=settings.paths.embedding_cache)
    stage_b = ScopeStage(b, sb.query_vector, catalog=sb.catalog,
                         cache_dir=settings.paths.embedding_cache)
    assert stage_a._reader.vocabulary is stage_b._reader.vocabulary
    assert stage_a._exemplar_readings() is stage_b._exemplar_readings()


def test_with_reuse_off_everything_is_rebuilt_and_equal(two_versions, monkeypatch: pytest.MonkeyPatch) -> None:
    settings, a, b = two_versions
    shared = Searcher(a, settings.retrieval)
    monkeypatch.setenv(CONTENT_REUSE_ENV, "0")
    sa, sb = Searcher(a, settings.retrieval), Searcher(b, settings.retrieval)
    assert sa.catalog is not None and sa.catalog is not sb.catalog and sa.catalog is not shared.catalog
    assert sa.catalog.products == sb.catalog.products == shared.catalog.products
    assert sa._row_sections == sb._row_sections == shared._row_sections
    assert all(sa._row_sections[n] is not sb._row_sections[n] for n in sa._row_sections)
    stage_a = ScopeStage(a, sa.query_vector, catalog=sa.catalog,
                         cache_dir=settings.paths.embedding_cache)
    stage_b = ScopeStage(b, sb.query_vector, catalog=sb.catalog,
                         cache_dir=settings.paths.embedding_cache)
    assert stage_a._exemplar_readings() is not stage_b._exemplar_readings()
    # the vocabulary depends on the analyser and its user dictionary only, not on the documents
    assert stage_a._reader.vocabulary is stage_b._reader.vocabulary
    if stage_a.learned is None:   # the exemplars depend on the embedder only: shared even with reuse off
        assert stage_a._exemplars is not None and stage_a._exemplars is stage_b._exemplars
    question = "타이레놀 먹고 술 마셔도 되나요"
    assert stage_a.decide(question) == stage_b.decide(question)


def test_a_rollback_reuses_the_analyser_of_the_bundle_before(two_versions) -> None:
    """A new user dictionary needs a new Kiwi (~4 s of CPU); going back to the bundle before reuses
    the analyser built for it, and a bundle with the same dictionary shares it."""
    settings, a, b = two_versions
    assert b.tokenizer is a.tokenizer
    first = current_version(settings.paths.indexes)
    worded = copy_version(settings.paths.indexes, first, f"{first}-words")
    add_user_word(settings.paths.indexes, worded)
    c = load_published(settings.paths.indexes, worded, reuse=b)
    back = load_published(settings.paths.indexes, first, reuse=c)
    try:
        assert c.tokenizer is not a.tokenizer
        assert c.tokenizer.identity()["userdict_hash"] != a.tokenizer.identity()["userdict_hash"]
        assert "스왑테스트정" in c.tokenizer.tokenize("스왑테스트정 먹어도 돼요")
        assert back.tokenizer is a.tokenizer
    finally:
        c.close()
        back.close()
