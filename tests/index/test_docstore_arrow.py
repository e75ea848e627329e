"""The memory-mapped Arrow docstore (issue 25): same Documents as the DuckDB store it copies, and
bundles written before it (no docs.arrow) still open."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.index.conftest import drug_collection, health_collection, make_doc, tokenizer_identity
from yaksa.corpus.document import Document
from yaksa.index.docstore import DocStore, write_docstore
from yaksa.index.errors import BundleError
from yaksa.index.layout import DOCS_ARROW_FILE, DOCS_FILE
from yaksa.index.manifest import compute_checksums
from yaksa.index.reader import open_bundle


def _documents() -> list[Document]:
    texts = ["", "두통 — 둘째 줄\n셋째", "emoji 💊 and \"quotes\" \\ backslash", "x" * 5000]
    return [make_doc(i, "drugs", f"약품{i}", ("효능", "부작용")[i % 2], texts[i % len(texts)],
                     {"item_seq": str(i), "section_key": ("efficacy", "side_effects", 3)[i % 3],
                      "목록": [i, "가"], "nested": {"section_key": "storage"}})
            for i in range(40)]


@pytest.fixture
def stores(tmp_path: Path) -> tuple[list[Document], DocStore, DocStore]:
    docs = _documents()
    write_docstore(tmp_path / DOCS_FILE, docs, arrow_path=tmp_path / DOCS_ARROW_FILE)
    return docs, DocStore(tmp_path / DOCS_FILE), DocStore(tmp_path / DOCS_FILE, tmp_path / DOCS_ARROW_FILE)


def test_arrow_and_duckdb_stores_return_the_same_documents(stores) -> None:
    docs, duck, arrow = stores
    rng = random.Random(0)
    for _ in range(20):
        rows = [rng.randrange(len(docs)) for _ in range(rng.randrange(12))]
        assert arrow.get(rows) == duck.get(rows) == [docs[r] for r in rows]
    assert arrow.count() == duck.count() == len(docs)
    for d in docs:
        assert arrow.row_of(d.doc_id) == duck.row_of(d.doc_id) == docs.index(d)
    assert arrow.get_by_id("nope") is None


def test_rows_with_metadata_finds_top_level_string_values(stores) -> None:
    """Only top-level string values count (not the nested key, not the integer 3)."""
    docs, duck, arrow = stores
    for key, value in [("section_key", "efficacy"), ("section_key", "side_effects"), ("section_key", "storage"),
                       ("section_key", "3"), ("item_seq", "7"), ("absent", "x")]:
        expected = frozenset(i for i, d in enumerate(docs) if d.metadata.get(key) == value)
        assert arrow.rows_with_metadata(key, value) == duck.rows_with_metadata(key, value) == expected


def test_the_arrow_store_is_a_memory_map_and_closes(stores, tmp_path: Path) -> None:
    docs, _, arrow = stores
    (tmp_path / DOCS_ARROW_FILE).unlink()   # the mapping outlives the name, like any open file
    assert arrow.get([1]) == [docs[1]]
    arrow.close()
    with pytest.raises(RuntimeError, match="closed"):
        arrow.get([0])


def test_writing_refuses_an_existing_arrow_file_and_a_missing_one_is_an_error(tmp_path: Path) -> None:
    (tmp_path / DOCS_ARROW_FILE).write_bytes(b"x")
    with pytest.raises(FileExistsError):
        write_docstore(tmp_path / DOCS_FILE, _documents(), arrow_path=tmp_path / DOCS_ARROW_FILE)
    assert not (tmp_path / DOCS_FILE).exists()
    write_docstore(tmp_path / DOCS_FILE, _documents())
    with pytest.raises(FileNotFoundError, match="docs.missing"):
        DocStore(tmp_path / DOCS_FILE, tmp_path / "docs.missing")


def test_a_bundle_lists_and_checksums_the_arrow_copy(build) -> None:
    path = build()
    manifest = json.loads((path / "manifest.json").read_text("utf-8"))
    assert f"drugs/{DOCS_ARROW_FILE}" in manifest["files"]
    assert f"drugs/{DOCS_ARROW_FILE}" in manifest["collections"]["drugs"]["files"]
    with open_bundle(path) as bundle:
        assert bundle.collections["drugs"].docs.arrow_path == path / "drugs" / DOCS_ARROW_FILE


def test_a_bundle_without_the_arrow_copy_still_opens_from_duckdb(build) -> None:
    """A bundle written before docs.arrow existed: its manifest lists no such file."""
    drugs, health = drug_collection(), health_collection()
    path = build([drugs, health])
    manifest = json.loads((path / "manifest.json").read_text("utf-8"))
    for name in ("drugs", "health"):
        (path / name / DOCS_ARROW_FILE).unlink()
        manifest["collections"][name]["files"].remove(f"{name}/{DOCS_ARROW_FILE}")
    manifest["files"] = compute_checksums(path)
    (path / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False), "utf-8")
    with open_bundle(path, tokenizer=tokenizer_identity(),
                     embedders={"drugs": drugs.embedder, "health": health.embedder}) as bundle:
        coll = bundle.collections["drugs"]
        assert coll.docs.arrow_path is None
        assert coll.documents(list(range(coll.count))) == drugs.documents


def test_a_damaged_arrow_copy_is_refused(build) -> None:
    path = build()
    target = path / "drugs" / DOCS_ARROW_FILE
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF
    target.write_bytes(bytes(data))
    with pytest.raises(BundleError, match=f"checksum mismatch for drugs/{DOCS_ARROW_FILE}"):
        open_bundle(path)


def _drop_from_bundle(path: Path, rels: list[str]) -> None:
    """Make `path` look like a bundle written before `rels` existed (files gone, manifest without them)."""
    manifest = json.loads((path / "manifest.json").read_text("utf-8"))
    for rel in rels:
        (path / rel).unlink()
        name = rel.split("/")[0]
        manifest["collections"][name]["files"].remove(rel)
    manifest["files"] = compute_checksums(path)
    (path / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False), "utf-8")


def test_the_float16_copy_is_stored_mapped_and_searches_like_the_flat_index(
        build, monkeypatch: pytest.MonkeyPatch) -> None:
    import faiss
    import numpy as np

    from yaksa.index import reader
    from yaksa.index.dense import search_dense
    from yaksa.index.layout import DENSE_FP16_FILE

    monkeypatch.setattr(reader, "FP16_MIN_VECTORS", 1)   # the tiny collections take the large-index path
    drugs = drug_collection()
    stored = build([drugs], version="stored")
    assert f"drugs/{DENSE_FP16_FILE}" in json.loads((stored / "manifest.json").read_text("utf-8"))["files"]
    old = build([drugs], version="old")
    _drop_from_bundle(old, [f"drugs/{DENSE_FP16_FILE}"])
    rng = np.random.default_rng(3)
    queries = [*drugs.vectors, *rng.standard_normal((10, drugs.vectors.shape[1])).astype(np.float32)]
    for path in (stored, old):
        with open_bundle(path) as bundle:
            coll = bundle.collections["drugs"]
            assert isinstance(coll.searched, reader.RefinedSearch) and isinstance(coll.searched.fp16,
                                                                                   faiss.IndexScalarQuantizer)
            for q in queries:
                rows, scores = coll.dense_search(q, 3)
                flat_rows, flat_scores = search_dense(coll.dense, q, 3)
                assert rows.tolist() == flat_rows.tolist() and scores == pytest.approx(flat_scores, abs=1e-6)


def test_a_float16_copy_of_the_wrong_size_is_refused(build, monkeypatch: pytest.MonkeyPatch) -> None:
    import faiss

    from yaksa.index import reader
    from yaksa.index.dense import build_dense_index
    from yaksa.index.layout import DENSE_FP16_FILE

    monkeypatch.setattr(reader, "FP16_MIN_VECTORS", 1)
    path = build([drug_collection()])
    target = path / "drugs" / DENSE_FP16_FILE
    target.unlink()
    faiss.write_index(reader.fp16_copy(build_dense_index(drug_collection().vectors[:3])), str(target))
    manifest = json.loads((path / "manifest.json").read_text("utf-8"))
    manifest["files"] = compute_checksums(path)
    (path / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False), "utf-8")
    with pytest.raises(BundleError, match="float16 copy.*does not match"):
        open_bundle(path)


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/self/maps")
def test_the_arrow_columns_are_views_of_the_mapped_file(stores, tmp_path: Path) -> None:
    """No column is copied into private memory at open (the point of the memory map)."""
    import numpy as np

    _, _, arrow = stores
    target = str((tmp_path / DOCS_ARROW_FILE).resolve())
    ranges = [tuple(int(x, 16) for x in line.split()[0].split("-"))
              for line in Path("/proc/self/maps").read_text().splitlines() if line.endswith(target)]
    assert ranges
    for name, column in arrow._columns.items():
        for view in (column.data, column.offsets):
            if view.nbytes:
                address = np.frombuffer(view, dtype=np.uint8).ctypes.data
                assert any(lo <= address < hi for lo, hi in ranges), name
