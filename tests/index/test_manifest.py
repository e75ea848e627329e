from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from yaksa.index.manifest import Manifest, compute_checksums, git_revision, sha256_file


def sample() -> Manifest:
    return Manifest(
        format_version=1, version="v1", created_at="2026-01-01T00:00:00.000000Z", git_rev="unknown",
        params={"index": {"faiss": "flat"}}, tokenizer={"name": "kiwipiepy", "version": "0.24.1"},
        collections={"drugs": {"count": 2, "embedder": {"id": "e", "dim": 4}, "faiss": "flat",
                               "files": ["drugs/dense.faiss"]}},
        files={"drugs/dense.faiss": "0" * 64},
    )


def test_json_round_trip() -> None:
    m = sample()
    assert Manifest.from_json(m.to_json()) == m


def test_from_json_rejects_bad_manifests() -> None:
    good = json.loads(sample().to_json())
    with pytest.raises(ValueError, match="valid JSON"):
        Manifest.from_json("{not json")
    with pytest.raises(ValueError, match="lacks 'files'"):
        Manifest.from_json(json.dumps({k: v for k, v in good.items() if k != "files"}))
    with pytest.raises(TypeError, match="'format_version' must be int"):
        Manifest.from_json(json.dumps({**good, "format_version": "1"}))
    bad_coll = {**good, "collections": {"drugs": {"count": 2, "embedder": {}, "faiss": "flat"}}}
    with pytest.raises(TypeError, match="'files' missing"):
        Manifest.from_json(json.dumps(bad_coll))


def test_sha256_file_streams_large_files(tmp_path: Path) -> None:
    data = bytes(range(256)) * 10_000  # 2.5 MB: several read chunks
    path = tmp_path / "blob"
    path.write_bytes(data)
    assert sha256_file(path) == hashlib.sha256(data).hexdigest()


def test_compute_checksums_covers_every_file_but_the_manifest(tmp_path: Path) -> None:
    (tmp_path / "drugs" / "bm25").mkdir(parents=True)
    (tmp_path / "drugs" / "bm25" / "vocab.index.json").write_text("{}")
    (tmp_path / "drugs" / "dense.faiss").write_bytes(b"x")
    (tmp_path / "manifest.json").write_text("{}")
    sums = compute_checksums(tmp_path)
    assert sorted(sums) == ["drugs/bm25/vocab.index.json", "drugs/dense.faiss"]
    assert sums["drugs/dense.faiss"] == hashlib.sha256(b"x").hexdigest()


def test_git_revision_outside_a_repo(tmp_path: Path) -> None:
    assert git_revision(tmp_path) == "unknown"


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_git_revision_clean_and_dirty(tmp_path: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path,
                       check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "a.txt").write_text("a")
    git("add", "a.txt")
    git("commit", "-q", "-m", "init")
    rev = git_revision(tmp_path)
    assert len(rev) == 40 and all(c in "0123456789abcdef" for c in rev)
    (tmp_path / "a.txt").write_text("changed")
    assert git_revision(tmp_path) == rev + "-dirty"
