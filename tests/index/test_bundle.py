from __future__ import annotations

import dataclasses
import json
import re
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

import yaksa.index.bundle as bundle_mod
from tests.index.conftest import drug_collection, health_collection, make_doc
from yaksa.config import IndexParams
from yaksa.index.errors import BundleError
from yaksa.index.manifest import sha256_file
from yaksa.index.publish import current_version, publish


def all_files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def test_layout_and_manifest(build, indexes_root: Path, tmp_path: Path) -> None:
    userdict = tmp_path / "userdict.tsv"
    userdict.write_text("타이레놀정\tNNP\n", encoding="utf-8")
    path = build(userdict_path=userdict)

    assert path.parent == indexes_root
    assert re.fullmatch(r"\d{8}T\d{6}Z-[0-9a-f]{8}", path.name)
    assert sorted(p.name for p in indexes_root.iterdir()) == [path.name]  # no temp dir, no CURRENT
    files = all_files(path)
    for coll in ("drugs", "health"):
        assert f"{coll}/dense.faiss" in files and f"{coll}/docs.duckdb" in files
        assert f"{coll}/bm25/vocab.index.json" in files
    assert "userdict.tsv" in files

    m = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    assert m["format_version"] == 1 and m["version"] == path.name
    assert datetime.fromisoformat(m["created_at"]).tzinfo is not None
    assert m["created_at"].endswith("Z")
    assert m["git_rev"] == "unknown"
    assert m["params"]["note"] == "테스트"
    assert m["tokenizer"]["name"] == "kiwipiepy"
    assert m["collections"]["drugs"]["count"] == 6 and m["collections"]["health"]["count"] == 4
    assert m["collections"]["drugs"]["embedder"]["dim"] == 8
    assert m["collections"]["drugs"]["faiss"] == "flat"
    # every file except the manifest has a correct checksum
    assert sorted(m["files"]) == [f for f in files if f != "manifest.json"]
    for rel, digest in m["files"].items():
        assert sha256_file(path / rel) == digest
    listed = sorted(f for c in m["collections"].values() for f in c["files"])
    assert listed == sorted(f for f in m["files"] if f != "userdict.tsv")


def test_default_version_depends_on_content(build) -> None:
    a = build()
    changed = drug_collection()
    changed.documents[0] = dataclasses.replace(changed.documents[0], text="다른 본문", content_hash="")
    b = build([changed])
    assert a.name.split("-")[1] != b.name.split("-")[1]


def test_refuses_to_overwrite_a_version(build) -> None:
    first = build(version="v1")
    with pytest.raises(BundleError, match="already exists"):
        build(version="v1")
    assert (first / "manifest.json").is_file()


@pytest.mark.parametrize("name", ["../escape", ".hidden", "CURRENT", "", "a/b"])
def test_rejects_unsafe_version_names(build, indexes_root: Path, name: str) -> None:
    with pytest.raises(ValueError, match="version name"):
        build(version=name)
    assert not indexes_root.exists() or not any(indexes_root.iterdir())


def _bad_inputs() -> list[tuple[str, object, str]]:
    drugs = drug_collection()
    extra_doc = dataclasses.replace(drugs, documents=drugs.documents + [make_doc(99)])
    wrong_dim = dataclasses.replace(drugs, vectors=np.ones((6, 5), dtype=np.float32))
    dup = dataclasses.replace(drugs, documents=drugs.documents[:5] + [drugs.documents[0]])
    nan = drugs.vectors.copy()
    nan[2, 3] = np.nan
    return [
        ("lengths", [extra_doc], "collection 'drugs': 7 documents but 6 token lists"),
        ("dim", [wrong_dim], "collection 'drugs': vectors have dim 5, embedder says 8"),
        ("duplicates", [dup], "collection 'drugs': duplicate doc_id"),
        ("nan", [dataclasses.replace(drugs, vectors=nan)], "collection 'drugs': .*NaN"),
        ("none", [], "at least one collection"),
        ("twice", [drugs, drug_collection()], "collection 'drugs': given twice"),
        ("wrong collection", [dataclasses.replace(health_collection(), name="drugs")], "'health'"),
        ("empty", [dataclasses.replace(drugs, documents=[], tokens=[], vectors=np.ones((0, 8)))], "no documents"),
        ("embedder", [dataclasses.replace(drugs, embedder={"id": "x"})], "embedder identity"),
    ]


@pytest.mark.parametrize(("case", "collections", "match"), _bad_inputs(), ids=[c[0] for c in _bad_inputs()])
def test_invalid_inputs_raise_and_write_nothing(build, indexes_root: Path, case, collections, match) -> None:
    with pytest.raises(ValueError, match=match):
        bundle_mod.write_bundle(indexes_root, collections, tokenizer={"name": "k", "version": "1"},
                                params={}, index_params=IndexParams(), git_root=indexes_root.parent)
    assert not indexes_root.exists() or not any(indexes_root.iterdir())


def test_invalid_params_raise(build) -> None:
    with pytest.raises(ValueError, match="faiss"):
        build(index_params=IndexParams(faiss="ivf"))
    with pytest.raises(ValueError, match="tokenizer identity"):
        build(tokenizer={"name": "kiwipiepy"})
    with pytest.raises(ValueError, match="not JSON"):
        build(params={"x": object()})
    with pytest.raises(ValueError, match="user dictionary"):
        build(userdict_path=Path("/nonexistent/userdict.tsv"))


@pytest.mark.parametrize("target", ["write_docstore", "save_dense_index", "compute_checksums"])
def test_interrupted_build_leaves_no_trace(build, indexes_root: Path, monkeypatch, target: str) -> None:
    old = build(version="old")
    publish(indexes_root, "old")

    def boom(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(bundle_mod, target, boom)
    with pytest.raises(RuntimeError, match="disk on fire"):
        build(version="new")
    assert sorted(p.name for p in indexes_root.iterdir()) == [".lease-old", ".publish.lock", "CURRENT", "old"]
    assert current_version(indexes_root) == "old"
    assert (old / "manifest.json").is_file()


def test_hnsw_bundle_records_its_kind(build) -> None:
    path = build(index_params=IndexParams(faiss="hnsw", hnsw_m=8, hnsw_ef_search=32))
    m = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    assert {c["faiss"] for c in m["collections"].values()} == {"hnsw"}
