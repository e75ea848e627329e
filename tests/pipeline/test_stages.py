"""End-to-end stage tests on the tiny real project: build, publish, warm rebuild, refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yaksa.config import load_settings
from yaksa.index.publish import current_version, list_versions
from yaksa.pipeline.stages import run_stage
from yaksa.pipeline.tokenize_stage import StageInputError
from yaksa.retrieval.loader import load_published
from yaksa.retrieval.searcher import Searcher


def test_tiny_build_is_published_and_finds_headache_drugs(tiny_project: Path) -> None:
    settings = load_settings(tiny_project / "params.yaml")
    version = current_version(settings.paths.indexes)
    assert version is not None and version in list_versions(settings.paths.indexes)
    loaded = load_published(settings.paths.indexes)
    try:
        assert set(loaded.bundle.collections) == {"drugs", "health", "literature", "cases"}
        result = Searcher(loaded).search("두통에 먹는 약", k=5)
        hits = result.hits
        assert result.collections == ["drugs"]
        assert hits and all(h.collection == "drugs" for h in hits)
        assert any("두통" in h.text for h in hits[:3])
        assert all(h.metadata.get("item_seq") for h in hits)
        english = Searcher(loaded).search("What are the symptoms of leukemia?", k=5)
        assert english.collections == ["health"] and english.hits
    finally:
        loaded.close()
    report = json.loads(settings.paths.build_report.read_text("utf-8"))
    assert report["version"] == version and report["total"] == sum(report["counts"].values())


def test_warm_rebuild_embeds_and_tokenizes_nothing(tiny_copy: Path) -> None:
    settings = load_settings(tiny_copy / "params.yaml")
    before = current_version(settings.paths.indexes)
    run_stage("ingest", settings, progress=False)
    tok = run_stage("tokenize", settings, progress=False)
    emb = run_stage("embed", settings, progress=False)
    assert tok["tokenized"] == 0 and tok["reused"] == tok["documents"]
    assert emb["embedded"] == 0
    idx = run_stage("index", settings)
    assert idx["version"] != before
    assert current_version(settings.paths.indexes) == idx["version"]


def test_changed_document_is_the_only_one_re_embedded(tiny_copy: Path) -> None:
    settings = load_settings(tiny_copy / "params.yaml")
    passages = settings.paths.raw / "medquad" / "passages.jsonl"
    lines = passages.read_text("utf-8").splitlines()
    first = json.loads(lines[0])
    first["answer"] += " An added sentence changes this passage."
    lines[0] = json.dumps(first, ensure_ascii=False)
    passages.write_text("\n".join(lines) + "\n", "utf-8")
    run_stage("ingest", settings, progress=False)
    assert run_stage("tokenize", settings, progress=False)["tokenized"] == 1
    assert run_stage("embed", settings, progress=False)["embedded"] == 1


def test_index_refuses_stale_embeddings(tiny_copy: Path) -> None:
    settings = load_settings(tiny_copy / "params.yaml")
    passages = settings.paths.raw / "medquad" / "passages.jsonl"
    passages.write_text("\n".join(passages.read_text("utf-8").splitlines()[:-1]) + "\n", "utf-8")
    run_stage("ingest", settings, progress=False)
    run_stage("tokenize", settings, progress=False)
    with pytest.raises(StageInputError, match="stale"):
        run_stage("index", settings)


def test_failed_sanity_check_leaves_current_untouched(tiny_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from yaksa.pipeline import index_stage

    settings = load_settings(tiny_copy / "params.yaml")
    before = current_version(settings.paths.indexes)

    def broken_check(*args: object) -> None:
        raise RuntimeError("sanity query found nothing")

    monkeypatch.setattr(index_stage, "check_bundle", broken_check)
    with pytest.raises(Exception, match="sanity"):
        run_stage("index", settings)
    assert current_version(settings.paths.indexes) == before
    loaded = load_published(settings.paths.indexes)
    assert loaded.version == before
    loaded.close()


def test_interrupted_bundle_write_leaves_current_untouched(tiny_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from yaksa.index import bundle

    settings = load_settings(tiny_copy / "params.yaml")
    before_current = current_version(settings.paths.indexes)
    before_versions = list_versions(settings.paths.indexes)

    def crash(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt  # what Ctrl-C in the middle of a build looks like

    monkeypatch.setattr(bundle, "save_dense_index", crash)
    with pytest.raises(KeyboardInterrupt):
        run_stage("index", settings)
    assert current_version(settings.paths.indexes) == before_current
    assert list_versions(settings.paths.indexes) == before_versions
    assert not [p for p in settings.paths.indexes.iterdir() if p.name.startswith(".tmp-")]


def test_hnsw_bundle_builds_publishes_and_searches(tiny_copy: Path) -> None:
    import yaml

    params_path = tiny_copy / "params.yaml"
    params = yaml.safe_load(params_path.read_text("utf-8"))
    params["index"]["faiss"] = "hnsw"
    params_path.write_text(yaml.safe_dump(params, allow_unicode=True), "utf-8")
    settings = load_settings(params_path)
    version = run_stage("index", settings)["version"]
    loaded = load_published(settings.paths.indexes)
    try:
        assert loaded.version == version
        assert {c["faiss"] for c in loaded.bundle.manifest.collections.values()} == {"hnsw"}
        hits = Searcher(loaded).search("두통에 먹는 약", k=3).hits
        assert hits and hits[0].collection == "drugs"
    finally:
        loaded.close()


def test_merge_refuses_tokens_from_another_tokenizer(tiny_copy: Path) -> None:
    from dataclasses import replace

    from yaksa.pipeline.batches import BatchResultError
    from yaksa.pipeline.tokenize_stage import merge_tokens, plan_tokenize, tokenize_batch

    settings = load_settings(tiny_copy / "params.yaml")
    settings.paths.tokens.unlink()
    plan = plan_tokenize(settings)
    good = [tokenize_batch(plan.spec, b) for b in plan.batches]
    foreign = replace(good[0], identity=good[0].identity.replace("kiwi", "other-kiwi"))
    with pytest.raises(BatchResultError, match="workers need the same code and environment"):
        merge_tokens(settings, plan, [foreign, *good[1:]])
    with pytest.raises(BatchResultError, match="never came back"):
        merge_tokens(settings, plan, good[1:] if len(good) > 1 else [])
    assert not settings.paths.tokens.exists()  # nothing was written from a refused merge
    assert merge_tokens(settings, plan, good).tokenized == len(plan.documents)


def test_merge_keeps_good_vectors_and_refuses_a_wrong_shape(tiny_copy: Path) -> None:
    import shutil
    from dataclasses import replace

    import numpy as np

    from yaksa.embed.cache import EmbeddingCache
    from yaksa.pipeline.batches import BatchResultError
    from yaksa.pipeline.embed_stage import VectorBatch, embed_batch, merge_embeddings, plan_embed

    settings = load_settings(tiny_copy / "params.yaml")
    settings = replace(settings, build=replace(settings.build, embed_batches_per_task=1))  # small batches
    shutil.rmtree(settings.paths.embedding_cache)
    plan = plan_embed(settings)
    (spec, batch), (bad_spec, bad_batch) = sorted(plan.work, key=lambda w: len(w[1].hashes))[:2]
    good = embed_batch(spec, batch)
    wrong = VectorBatch(bad_batch.label, plan.ids[bad_spec.backend], bad_batch.hashes,
                        np.ones((len(bad_batch.hashes), 3), np.float32))
    with pytest.raises(BatchResultError, match="vectors of shape"):
        merge_embeddings(settings, plan, [good, wrong])
    # the batch that came back right is in the cache; the refused one is not
    cache = EmbeddingCache(settings.paths.embedding_cache)
    assert set(cache.get_many(good.embedder_id, batch.hashes)) == set(batch.hashes)
    assert not cache.get_many(plan.ids[bad_spec.backend], [h for h in bad_batch.hashes if h not in batch.hashes])
