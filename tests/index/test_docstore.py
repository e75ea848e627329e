from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.index.conftest import make_doc
from yaksa.index.docstore import DocStore, write_docstore
from yaksa.index.manifest import sha256_file


@pytest.fixture
def docs() -> list:
    return [
        make_doc(i, "drugs", f"약품{i}", "효능", f"본문 {i} — 두통\n둘째 줄", {"item_seq": str(i), "목록": [i, "가"]})
        for i in range(25)
    ]


@pytest.fixture
def store_path(tmp_path: Path, docs: list) -> Path:
    path = tmp_path / "docs.duckdb"
    write_docstore(path, docs)
    return path


def test_round_trip_in_requested_order(store_path: Path, docs: list) -> None:
    store = DocStore(store_path)
    try:
        assert store.count() == 25
        got = store.get([7, 0, 7, 24])
        assert got == [docs[7], docs[0], docs[7], docs[24]]
        assert got[0].metadata == {"item_seq": "7", "목록": [7, "가"]}
        assert store.get([]) == []
        assert store.get_by_id(docs[3].doc_id) == docs[3]
        assert store.get_by_id("no-such-id") is None
    finally:
        store.close()


def test_out_of_range_rows_raise(store_path: Path) -> None:
    store = DocStore(store_path)
    with pytest.raises(IndexError, match="row 25"):
        store.get([0, 25])
    with pytest.raises(IndexError, match="row -1"):
        store.get([-1])
    store.close()
    with pytest.raises(RuntimeError, match="closed"):
        store.get([0])


def test_reading_never_modifies_the_file(store_path: Path) -> None:
    before = sha256_file(store_path)
    store = DocStore(store_path)
    store.get(list(range(25)))
    store.close()
    assert sha256_file(store_path) == before
    assert sorted(p.name for p in store_path.parent.iterdir()) == ["docs.duckdb"]  # no WAL, no temp


def test_write_refusals(tmp_path: Path, store_path: Path, docs: list) -> None:
    with pytest.raises(FileExistsError):
        write_docstore(store_path, docs)
    with pytest.raises(ValueError, match="duplicate doc_id.*drugs-0001"):
        write_docstore(tmp_path / "dup.duckdb", [docs[0], docs[1], docs[1]])
    with pytest.raises(ValueError, match="not a Document"):
        write_docstore(tmp_path / "bad.duckdb", [docs[0], {"doc_id": "x"}])  # type: ignore[list-item]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs.duckdb"]
    with pytest.raises(FileNotFoundError):
        DocStore(tmp_path / "missing.duckdb")


def test_concurrent_readers_from_threads(store_path: Path, docs: list) -> None:
    store = DocStore(store_path)

    def worker(seed: int) -> int:
        rng = random.Random(seed)
        for _ in range(40):
            rows = rng.sample(range(25), 5)
            assert store.get(rows) == [docs[r] for r in rows]
            doc = docs[rng.randrange(25)]
            assert store.get_by_id(doc.doc_id) == doc
        return seed

    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            assert sorted(pool.map(worker, range(8))) == list(range(8))
    finally:
        store.close()


def test_rows_with_metadata_finds_rows_by_a_metadata_value(tmp_path) -> None:
    from yaksa.corpus.document import Document
    from yaksa.index.docstore import DocStore, write_docstore

    keys = ("efficacy", "side_effects", "usage", "side_effects")
    docs = [Document(doc_id=f"mfds:{i}:{k}", collection="drugs", source="mfds_easy_drug", title="t", section=k,
                     text="본문", lang="ko", metadata={"section_key": k}) for i, k in enumerate(keys)]
    path = tmp_path / "docs.duckdb"
    write_docstore(path, docs)
    store = DocStore(path)
    try:
        assert store.rows_with_metadata("section_key", "side_effects") == frozenset({1, 3})
        assert store.rows_with_metadata("section_key", "storage") == frozenset()
    finally:
        store.close()


def test_the_file_is_read_once_at_open(store_path: Path, docs: list) -> None:
    store = DocStore(store_path)
    store_path.unlink()   # queries never go back to the file: it was read into memory at open
    assert store.get([3, 1]) == [docs[3], docs[1]] and store.row_of(docs[5].doc_id) == 5
    assert store.rows_with_metadata("item_seq", "4") == frozenset({4})
    store.close()
    with pytest.raises(RuntimeError, match="closed"):
        store.row_of(docs[5].doc_id)
