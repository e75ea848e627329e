from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.index.conftest import drug_collection, embedder_identity, health_collection, tokenizer_identity
from yaksa.config import IndexParams
from yaksa.index.errors import BundleError
from yaksa.index.publish import publish
from yaksa.index.reader import open_bundle, resolve_bundle


def flip_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def edit_manifest(path: Path, change) -> None:
    m = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    change(m)
    (path / "manifest.json").write_text(json.dumps(m, ensure_ascii=False), encoding="utf-8")


@pytest.mark.parametrize("faiss_kind", ["flat", "hnsw"])
def test_round_trip_search_returns_the_written_documents(build, faiss_kind: str) -> None:
    drugs, health = drug_collection(), health_collection()
    path = build([drugs, health], index_params=IndexParams(faiss=faiss_kind, hnsw_m=8))
    with open_bundle(path, tokenizer=tokenizer_identity(),
                     embedders={"drugs": drugs.embedder, "health": health.embedder}) as bundle:
        assert bundle.version == path.name and bundle.manifest.version == path.name
        assert set(bundle.collections) == {"drugs", "health"}
        coll = bundle.collections["drugs"]
        assert coll.count == 6 and coll.embedder == drugs.embedder

        rows, scores = coll.bm25_search(["타이레놀정", "부작용"], k=3)
        assert coll.documents(rows)[0] == drugs.documents[1]
        assert len(rows) == len(scores) <= 3
        rows, _ = coll.bm25_search(["간"], k=5)  # one-character morpheme
        assert [d.doc_id for d in coll.documents(rows)] == [drugs.documents[1].doc_id]

        for i in range(6):
            rows, scores = coll.dense_search(drugs.vectors[i], k=2)
            assert rows[0] == i and scores[0] == pytest.approx(1.0, abs=1e-5)
        assert coll.documents(np.array([5, 0])) == [drugs.documents[5], drugs.documents[0]]

        h = bundle.collections["health"]
        rows, _ = h.bm25_search(["fever"], k=5)
        assert rows.tolist() == [3]  # the empty document at row 2 kept the rows aligned
        assert h.documents(rows)[0] == health.documents[3]


@pytest.mark.parametrize("victim", ["drugs/dense.faiss", "drugs/docs.duckdb", "health/bm25/data.csc.index.npy"])
def test_checksum_mismatch_is_refused_naming_the_file(build, victim: str) -> None:
    path = build()
    flip_byte(path / victim)
    with pytest.raises(BundleError, match=f"checksum mismatch for {victim}") as err:
        open_bundle(path)
    assert str(path) in str(err.value)


def test_missing_and_unlisted_files_are_refused(build) -> None:
    path = build()
    (path / "health" / "stray.txt").write_text("x")
    with pytest.raises(BundleError, match="not covered.*health/stray.txt"):
        open_bundle(path, verify_checksums=False)
    (path / "health" / "stray.txt").unlink()
    (path / "drugs" / "docs.duckdb").unlink()
    with pytest.raises(BundleError, match="missing file.*drugs/docs.duckdb"):
        open_bundle(path, verify_checksums=False)


def test_manifest_problems_are_refused(build, tmp_path: Path) -> None:
    with pytest.raises(BundleError, match="not found"):
        open_bundle(tmp_path / "nothing")
    path = build()
    edit_manifest(path, lambda m: m.update(format_version=2))
    with pytest.raises(BundleError, match="unknown bundle format_version 2"):
        open_bundle(path)
    (path / "manifest.json").write_text("{broken", encoding="utf-8")
    with pytest.raises(BundleError, match="bad manifest.json"):
        open_bundle(path)
    (path / "manifest.json").unlink()
    with pytest.raises(BundleError, match="no manifest.json"):
        open_bundle(path)


def test_row_count_disagreement_is_refused(build) -> None:
    path = build()
    edit_manifest(path, lambda m: m["collections"]["drugs"].update(count=7))
    with pytest.raises(BundleError, match="'drugs' row counts disagree"):
        open_bundle(path)


def test_tokenizer_mismatch_is_refused_naming_the_field(build) -> None:
    path = build()
    with pytest.raises(BundleError, match="tokenizer version mismatch: bundle kiwipiepy 0.24.1, runtime kiwipiepy 0.25.0"):
        open_bundle(path, tokenizer=tokenizer_identity(version="0.25.0"))
    with pytest.raises(BundleError, match="tokenizer userdict_hash mismatch"):
        open_bundle(path, tokenizer={**tokenizer_identity(), "userdict_hash": "other"})
    with pytest.raises(BundleError, match="tokenizer name mismatch: bundle kiwipiepy, runtime mecab"):
        open_bundle(path, tokenizer={**tokenizer_identity(), "name": "mecab"})
    # a tuple POS filter is the same identity as the manifest's JSON list
    same = {**tokenizer_identity(), "pos_filter": tuple(tokenizer_identity()["pos_filter"])}
    open_bundle(path, tokenizer=same).close()


def test_embedder_mismatch_is_refused(build) -> None:
    path = build()
    with pytest.raises(BundleError, match="'drugs' embedder id mismatch"):
        open_bundle(path, embedders={"drugs": embedder_identity(id_="other-model@2")})
    with pytest.raises(BundleError, match="'drugs' embedder dim mismatch: bundle 8, runtime 16"):
        open_bundle(path, embedders={"drugs": embedder_identity(dim=16)})
    # identities for collections this bundle does not have are not a mismatch
    open_bundle(path, embedders={"literature": embedder_identity(dim=16)}).close()


def test_resolve_bundle(build, indexes_root: Path) -> None:
    path = build(version="v1")
    with pytest.raises(BundleError, match="no CURRENT"):
        resolve_bundle(indexes_root)
    publish(indexes_root, "v1")
    assert resolve_bundle(indexes_root) == path
    assert resolve_bundle(indexes_root, "v1") == path
    with pytest.raises(BundleError, match="'v2' does not exist"):
        resolve_bundle(indexes_root, "v2")
    with pytest.raises(BundleError, match="invalid bundle version"):
        resolve_bundle(indexes_root, "../v1")
    (indexes_root / "CURRENT").write_text("../../etc\n")
    with pytest.raises(BundleError, match="invalid version name"):
        resolve_bundle(indexes_root)


def test_the_float16_search_returns_what_the_flat_search_returns(build, monkeypatch: pytest.MonkeyPatch) -> None:
    import faiss

    from yaksa.index import reader
    from yaksa.index.dense import search_dense

    monkeypatch.setattr(reader, "FP16_MIN_VECTORS", 1)   # the tiny collections take the large-index path
    drugs, health = drug_collection(), health_collection()
    rng = np.random.default_rng(7)
    with open_bundle(build([drugs, health]), tokenizer=tokenizer_identity()) as bundle:
        for coll, vectors in ((bundle.collections["drugs"], drugs.vectors), (bundle.collections["health"], health.vectors)):
            assert isinstance(coll.searched, reader.RefinedSearch) and isinstance(coll.dense, faiss.IndexFlat)
            queries = [*vectors, *rng.standard_normal((20, vectors.shape[1])).astype(np.float32)]
            for q in queries:
                for k in (1, 3, coll.count + 2):
                    rows, scores = coll.dense_search(q, k)
                    flat_rows, flat_scores = search_dense(coll.dense, q, k)
                    assert rows.tolist() == flat_rows.tolist()
                    assert scores == pytest.approx(flat_scores, abs=1e-6)   # re-scored in float32
            few, many = np.asarray(queries[:3]), np.asarray(queries * (reader.EXACT_BATCH // len(queries) + 1))
            for batch in (few, many):    # through the fp16 pass, then the exact flat index: the same
                rows, scores = coll.dense_search_many(batch, 3)
                for q, r, sc in zip(batch, rows, scores, strict=True):
                    one_rows, one_scores = coll.dense_search(q, 3)
                    assert r.tolist() == one_rows.tolist() and sc == pytest.approx(one_scores, abs=1e-6)
    monkeypatch.setattr(reader, "FP16_MIN_VECTORS", 10**9)
    with open_bundle(build([drugs], version="small"), tokenizer=tokenizer_identity()) as bundle:
        assert bundle.collections["drugs"].searched is bundle.collections["drugs"].dense
